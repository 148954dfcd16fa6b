#!/bin/sh
# Builds the libFuzzer targets (fuzz/, clang + ASan + UBSan) in build-fuzz and runs each for
# the given seconds (default 60), seeded from the test fixtures and fuzz/corpus. Exits non-zero
# if any target reports a finding (crash, sanitizer report, leak, timeout, out-of-memory) and
# prints one summary line per target. Findings are kept in build-fuzz/fuzz-out/<target>/.
#   sh scripts/fuzz.sh [seconds per target]
# FUZZ_JOBS (default: the number of cores) targets run at a time.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${1:-60}
build=$root/build-fuzz

# --- toolchain: clang with libFuzzer (Debian ships it in libclang-rt-<major>-dev) ---------------
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt_install() {
  echo "fuzz: installing $*"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
command -v clang++ >/dev/null 2>&1 || apt_install clang
major=$(clang++ -dumpversion | cut -d. -f1)
[ -f "$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || apt_install "libclang-rt-$major-dev"
# Symbolised sanitizer stacks; optional.
command -v llvm-symbolizer >/dev/null 2>&1 || [ -x "/usr/lib/llvm-$major/bin/llvm-symbolizer" ] ||
  apt_install "llvm-$major" || true
[ -x "/usr/lib/llvm-$major/bin/llvm-symbolizer" ] && export ASAN_SYMBOLIZER_PATH="/usr/lib/llvm-$major/bin/llvm-symbolizer"

# --- build ---------------------------------------------------------------------------------------
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSNARKD_FUZZ=ON \
  -DSNARKD_CUDA=OFF -DSNARKD_BUILD_TESTS=OFF -DSNARKD_BUILD_BENCH=OFF -DSNARKD_BUILD_APPS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_all
built=$(date +%s)
targets=$(sed -n 's/^fuzz_//p' "$build/fuzz/fuzz_targets.txt")

# --- seeds: build-fuzz/seeds/<target>/, rebuilt every run from the fixtures ------------------------
seeds=$build/seeds
rm -rf "$seeds"
for t in $targets; do mkdir -p "$seeds/$t"; done
fixtures() { find tests/r1cs/fixtures tests/groth16/fixtures fuzz/corpus -type f -name "$1" 2>/dev/null || true; }
# seed <target> <mode byte, octal, or ""> <file>: the file, after the target's mode byte.
seed() {
  [ -d "$seeds/$1" ] || return 0
  out="$seeds/$1/$(echo "$3" | tr '/' '_')${2:+.m$2}"
  { [ -z "$2" ] || printf "\\$2"; cat "$3"; } >"$out"
}
for f in $(fixtures '*.r1cs'); do seed circom_r1cs "" "$f"; done
# The BN254 targets get every curve's files: those of the other curve exercise the prime checks.
for f in $(fixtures '*.wtns'); do for t in wtns wtns_bn254; do seed $t "" "$f"; done; done
for f in $(fixtures '*.csr'); do for m in 000 001; do seed csr_file $m "$f"; done; done
for f in $(fixtures '*.params'); do for m in 000 001 002; do seed params $m "$f"; done; done
for f in $(fixtures '*.vk') $(fixtures '*.params'); do seed vk "" "$f"; done
for f in $(fixtures '*.proof'); do seed proof "" "$f"; done
for f in $(fixtures '*.zkey'); do for m in 000 001 002; do for t in zkey zkey_bn254; do seed $t $m "$f"; done; done; done
# (Not tests/vectors/*.json for the JSON parser: at 20-80 KiB they cut its speed tenfold.)
for f in $(fixtures '*.json'); do
  seed json "" "$f"
  for m in 000 001 002; do for t in snarkjs_json snarkjs_json_bn254; do seed $t $m "$f"; done; done
done
# setup: circuits (mode 000 circom, 001 CSR) and a 100-byte .r1cs claiming 2^32 - 1 wires.
for f in $(fixtures '*.r1cs'); do seed setup 000 "$f"; done
for f in $(fixtures '*.csr'); do seed setup 001 "$f"; done
if [ -d "$seeds/setup" ] && command -v node >/dev/null 2>&1; then
  node tests/cli/r1cs_bomb.cjs "$build/bomb.r1cs" && seed setup 000 "$build/bomb.r1cs"
fi
# witness: .wtns files over BLS12-381 (mode 001) and BN254 (mode 005: each fixture is accepted
# over its own curve, refused over the other), and the same values in the Fr-Montgomery layout
# (mode 000).
for f in $(fixtures '*.wtns'); do seed witness 001 "$f"; seed witness 005 "$f"; done
if [ -d "$seeds/witness" ] && command -v node >/dev/null 2>&1; then
  for f in $(fixtures '*.wtns'); do
    node -e '
      const fs = require("fs"), b = fs.readFileSync(process.argv[1]);
      const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
      let at = 12, out = [];  // section 2 holds the values, 32 bytes little-endian each
      for (let i = 0; i < b.readUInt32LE(8); i++) {
        const type = b.readUInt32LE(at), size = Number(b.readBigUInt64LE(at + 4));
        if (type === 2) for (let k = 0; k < size; k += 32) {
          let v = 0n;
          for (let j = 31; j >= 0; j--) v = (v << 8n) | BigInt(b[at + 12 + k + j]);
          v = (v << 256n) % r;  // Montgomery form, R = 2^256
          const x = Buffer.alloc(32);
          for (let j = 0; j < 32; j++) x[j] = Number((v >> BigInt(8 * j)) & 0xffn);
          out.push(x);
        }
        at += 12 + size;
      }
      fs.writeFileSync(process.argv[2], Buffer.concat([Buffer.from([0]), ...out]));
    ' "$f" "$seeds/witness/$(echo "$f" | tr '/' '_').fr"
  done
fi
# config: the commented example and a minimal one.
[ -d "$seeds/config" ] && cp packaging/snarkd.toml "$seeds/config/snarkd.toml" &&
  printf '[server]\nsocket = "/tmp/s.sock"\n[engine]\ndevices = "sim:2"\n[[circuit]]\nid = "c"\nzkey = "k.zkey"\n' \
    >"$seeds/config/small.toml"
# file_kind: every fixture, asked to be each of the four things.
for f in $(fixtures '*'); do for m in 000 001 002 003; do seed file_kind $m "$f"; done; done
# public_json: the public.json fixtures and a two-proof file built from them.
for f in $(fixtures 'public.json') $(fixtures '*public.json'); do seed public_json "" "$f"; done
if [ -d "$seeds/public_json" ]; then
  p=tests/groth16/fixtures/multiplier/public.json
  printf '[%s,%s]' "$(cat "$p")" "$(cat "$p")" >"$seeds/public_json/two_proofs.json"
fi
# Point encodings from the curve vectors, behind fuzz/ec_decode.cpp's selector byte.
if [ -d "$seeds/ec_decode" ] && command -v node >/dev/null 2>&1; then
  node - "$root/tests/vectors/curves.json" "$seeds/ec_decode" <<'EOF'
const fs = require("fs"), [file, dir] = process.argv.slice(2);
// ec_decode.cpp: 0-5 checked G1 compressed/uncompressed/LEM then G2 the same, 6-11 unchecked.
const base = { g1: { compressed: 0, uncompressed: 1, lem: 2 }, g2: { compressed: 3, uncompressed: 4, lem: 5 } };
let n = 0;
const emit = (group, form, hex) => {
  const sel = base[group][form];
  if (sel === undefined || !/^[0-9a-f]*$/.test(hex)) return;
  for (const s of [sel, sel + 6]) fs.writeFileSync(`${dir}/${group}-${form}-${n++}`, Buffer.concat([Buffer.from([s]), Buffer.from(hex, "hex")]));
};
const walk = (group, v) => {
  if (Array.isArray(v)) return v.forEach((x) => walk(group, x));
  if (typeof v !== "object" || v === null) return;
  if (typeof v.form === "string" && typeof v.encoding === "string") emit(group, v.form, v.encoding);
  for (const [k, x] of Object.entries(v)) typeof x === "string" ? emit(group, k, x) : walk(group, x);
};
const j = JSON.parse(fs.readFileSync(file, "utf8"));
walk("g1", j.g1);
walk("g2", j.g2);
EOF
fi

# --- run -----------------------------------------------------------------------------------------
out=$build/fuzz-out
rm -rf "$out"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
run_target() {
  t=$1
  mkdir -p "$out/$t/corpus"
  # malloc_limit: one allocation over 512 MiB is a finding (a reader sized something from an
  # unchecked count); the inputs are at most a few hundred KiB. setup: 128 MiB (its circuits'
  # density bitmaps alone would be 512 MiB at 2^32 variables; fuzz/setup.cpp).
  limit=512
  [ "$t" = setup ] && limit=128
  if "$build/fuzz/fuzz_$t" "$out/$t/corpus" "$seeds/$t" -max_total_time="$secs" -rss_limit_mb=2048 \
    -malloc_limit_mb="$limit" -timeout=30 -print_final_stats=1 -artifact_prefix="$out/$t/" \
    >"$out/$t/log" 2>&1; then
    echo ok >"$out/$t/result"
  else
    echo "FINDING: $(grep -m1 -E '^==[0-9]+== ?ERROR|runtime error|deadly signal|fuzz property|libFuzzer: (out-of-memory|timeout|malloc)' \
      "$out/$t/log" || tail -n1 "$out/$t/log")" >"$out/$t/result"
  fi
}
jobs=${FUZZ_JOBS:-$(nproc)}
for lane in $(seq 1 "$jobs"); do
  (
    k=0
    for t in $targets; do
      k=$((k + 1))
      [ $(((k - 1) % jobs + 1)) -eq "$lane" ] && run_target "$t"
    done
    true
  ) &
done
wait

# --- summary -------------------------------------------------------------------------------------
status=0
for t in $targets; do
  execs=$(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$out/$t/log" | grep -o '[0-9]*$' || echo "?")
  result=$(cat "$out/$t/result")
  printf 'fuzz %-22s %10s execs  %s\n' "$t" "$execs" "$result"
  [ "$result" = ok ] || { status=1; echo "  log: $out/$t/log; input: $(ls "$out/$t/" | grep -E '^(crash|leak|timeout|oom)-' | sed "s|^|$out/$t/|" | tr '\n' ' ')"; }
done
done_at=$(date +%s)
echo "fuzz: build $((built - start)) s, fuzzing $((done_at - built)) s ($secs s per target, $jobs at a time)"
exit $status
