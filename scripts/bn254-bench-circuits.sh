#!/bin/sh
# The BN254 benchmark circuits (issue 23): bench/circom/bn254_16.circom (65,267 constraints, a
# 2^16 domain) and bn254_20.circom (1,048,431 constraints, 2^20), Poseidon chains over bn128,
# with their zkey and witness for scripts/bench-bn254-peers.sh. Cached under $BN254_DIR/bench16
# or bench20; a file is remade only when missing or older than what it is made from.
#
# Run from the repository root:  sh scripts/bn254-bench-circuits.sh [16|20]   (default 16)
# Writes $BN254_DIR/benchLOG/{bn254_LOG.r1cs, K.zkey, vk.json, input.json, W.wtns, info.txt}.
#
# Environment (and those of scripts/bn254-lib.sh):
#   PTAU         a prepared bn128 ptau of at least 2^LOG (default: made once by bn254_ptau in
#                scripts/bn254-lib.sh with snarkd_dev_ptau, an insecure development file:
#                $BN254_DIR/ptau/devLOG.ptau; BN254_PTAU_TOOL=snarkjs makes potLOG.ptau with
#                snarkjs instead, 36 min at 2^16 and, only with BN254_PTAU20=1, ~12 h at 2^20)
set -eu

LOG=${1:-16}
case $LOG in 16 | 20) ;; *) echo "usage: $0 [16|20]" >&2; exit 2 ;; esac
BENCH=bench/circom
CIRCUIT=$BENCH/bn254_$LOG.circom
[ -f "$CIRCUIT" ] || { echo "run from the repository root ($CIRCUIT not found)" >&2; exit 2; }
. scripts/bn254-lib.sh
bn254_tools
OUT=$BN254_DIR/bench$LOG
mkdir -p "$OUT"

if bn254_stale "$OUT/bn254_$LOG.r1cs" "$CIRCUIT" bench/circom/poseidon_chain.circom; then
  bn254_step "compiling $CIRCUIT"
  "$CIRCOM" "$CIRCUIT" --r1cs --wasm --prime bn128 -l "$CIRCOM_LIBS" -o "$OUT"
fi

# The witness needs no key: made before the ptau, so the 2^20 one exists without a 2^20 ptau.
if bn254_stale "$OUT/input.json" "$0"; then
  echo '{"seed": "20260523", "nonce": "1234567890123456789"}' >"$OUT/input.json"
fi
if bn254_stale "$OUT/W.wtns" "$OUT/bn254_$LOG.r1cs" "$OUT/input.json"; then
  bn254_step "snarkjs wtns calculate"
  "$SNARKJS" wtns calculate "$OUT/bn254_${LOG}_js/bn254_$LOG.wasm" "$OUT/input.json" "$OUT/W.wtns.part"
  mv "$OUT/W.wtns.part" "$OUT/W.wtns"
fi
[ -n "${PTAU:-}" ] || bn254_ptau "$LOG"

if bn254_stale "$OUT/K.zkey" "$OUT/bn254_$LOG.r1cs" "$PTAU"; then
  bn254_step "snarkjs groth16 setup 2^$LOG"
  t0=$(date +%s)
  "$SNARKJS" groth16 setup "$OUT/bn254_$LOG.r1cs" "$PTAU" "$OUT/K_0.zkey" >/dev/null
  t1=$(date +%s)
  bn254_step "groth16 setup: $((t1 - t0)) s; snarkjs zkey contribute"
  "$SNARKJS" zkey contribute "$OUT/K_0.zkey" "$OUT/K.zkey.part" --name=snarkd-bn254 \
    -e="snarkd bn254 bench $LOG" >/dev/null
  mv "$OUT/K.zkey.part" "$OUT/K.zkey"
  rm -f "$OUT/K_0.zkey"
  "$SNARKJS" zkey export verificationkey "$OUT/K.zkey" "$OUT/vk.json" >/dev/null
  bn254_step "zkey contribute + export vk: $(($(date +%s) - t1)) s"
fi
bn254_info "$OUT/bn254_$LOG.r1cs" "$OUT/K.zkey" | tee "$OUT/info.txt"
echo "zkey $OUT/K.zkey ($(du -h "$OUT/K.zkey" | cut -f1)), witness $OUT/W.wtns"
