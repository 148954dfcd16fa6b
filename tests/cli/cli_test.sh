#!/bin/sh
# usage: cli_test.sh SNARKD_BINARY REPO_ROOT
# Each check prints one line; the script exits 1 at the end if any failed.
set -u
S=$1
ROOT=$2
F=$ROOT/tests/r1cs/fixtures
Z=$ROOT/tests/groth16/fixtures
NOBLE=$ROOT/tools/vectors/verify_bellperson.mjs
. "$ROOT/tests/common/checks.sh"
begin_test snarkd-cli


# Copies $1 to $2 with byte $3 (0-based offset) replaced by the value $4 (octal escape, e.g. \377).
patch_byte() {
  cp "$1" "$2"
  printf "$4" | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
}

[ -f "$ROOT/tools/vectors/node_modules/@noble/curves/package.json" ] || {
  echo "FAIL: tools/vectors/node_modules missing: run (cd tools/vectors && npm install)"; exit 1; }

echo "== the independent verifier's own self-test (constructed valid/tampered proofs)"
expect 0 "" node "$NOBLE" --self-test

echo "== bellperson flavour: setup, prove, verify (snarkd and @noble/curves)"
expect 0 "INSECURE" "$S" setup --r1cs "$F/fixture.r1cs" --params "$T/k.params" --vk "$T/k.vk" --seed 7
expect 0 "" "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" \
  --proof "$T/p.bin" --public "$T/pub.json" --threads 2
expect 0 "^valid" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/pub.json"
expect 0 "^valid" "$S" verify --vk "$T/k.params" --proof "$T/p.bin" --public "$T/pub.json"
expect 0 "^valid" node "$NOBLE" "$T/k.vk" "$T/p.bin" "$T/pub.json"
sed 's/"5"/"6"/' "$T/pub.json" > "$T/pub_bad.json"
expect 1 "^invalid" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/pub_bad.json"
expect 1 "^invalid" node "$NOBLE" "$T/k.vk" "$T/p.bin" "$T/pub_bad.json"
# A second proof of the same statement: the pair verifies as one batch (multi-partition file).
"$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" --proof "$T/p2.bin" >/dev/null 2>&1
cat "$T/p.bin" "$T/p2.bin" > "$T/pp.bin"
printf '[%s,%s]' "$(cat "$T/pub.json")" "$(cat "$T/pub.json")" > "$T/pp.json"
expect 0 "^valid" "$S" verify --vk "$T/k.vk" --proof "$T/pp.bin" --public "$T/pp.json"
expect 0 "^valid" node "$NOBLE" "$T/k.vk" "$T/pp.bin" "$T/pp.json"
printf '[%s,%s]' "$(cat "$T/pub.json")" "$(cat "$T/pub_bad.json")" > "$T/pp_bad.json"
expect 1 "^invalid" "$S" verify --vk "$T/k.vk" --proof "$T/pp.bin" --public "$T/pp_bad.json"
expect 0 "bellperson params" "$S" info "$T/k.params"

echo "== snarkjs flavour: prove from a snarkjs zkey, verify ours and snarkjs's own proofs"
M=$Z/multiplier
expect 0 "" "$S" prove --zkey "$M/multiplier.zkey" --witness "$M/multiplier.wtns" --proof "$T/sp.json" --public "$T/spub.json"
expect 0 "^valid" "$S" verify --vk "$M/verification_key.json" --proof "$T/sp.json" --public "$T/spub.json"
expect 0 "^valid" "$S" verify --vk "$M/multiplier.zkey" --proof "$T/sp.json" --public "$T/spub.json"
expect 0 "^valid" "$S" verify --vk "$M/verification_key.json" --proof "$M/proof.json" --public "$M/public.json"
expect 0 "" "$S" export-vk --zkey "$M/multiplier.zkey" --out "$T/vk.json"
expect 0 "^valid" "$S" verify --vk "$T/vk.json" --proof "$M/proof.json" --public "$M/public.json"
sed 's/"11"/"12"/' "$M/public.json" > "$T/spub_bad.json"
expect 1 "^invalid" "$S" verify --vk "$M/verification_key.json" --proof "$M/proof.json" --public "$T/spub_bad.json"

echo "== BN254 (circom bn128) snarkjs files: the curve comes from the key file, no flag"
N=$Z/bn128/multiplier
expect 0 "" "$S" prove "$N/multiplier.zkey" "$N/multiplier.wtns" "$T/bn.json" "$T/bnpub.json"
same "$T/bnpub.json" "$N/public.json" "snarkd's BN254 public.json is snarkjs's"
expect 0 "^valid" "$S" verify "$N/verification_key.json" "$T/bnpub.json" "$T/bn.json"
expect 0 "^valid" "$S" verify "$N/multiplier.zkey" "$N/public.json" "$N/proof.json"
expect 0 "" "$S" export-vk "$N/multiplier.zkey" "$T/bnvk.json"
same "$T/bnvk.json" "$N/verification_key.json" "BN254 export-vk is snarkjs's verification_key.json byte for byte"
sed 's/"11"/"12"/' "$N/public.json" > "$T/bnpub_bad.json"
expect 1 "^invalid" "$S" verify "$N/verification_key.json" "$T/bnpub_bad.json" "$N/proof.json"
expect 0 "curve +bn128" "$S" info "$N/multiplier.zkey"
expect 0 "curve +bls12381" "$S" info "$M/multiplier.zkey"
# Files of the other curve are refused, naming the file and both curves.
expect 2 "multiplier/multiplier.wtns: prime .* is not BN254's r .*it is BLS12-381's" \
  "$S" prove "$N/multiplier.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json"
expect 2 "proof.json: curve: is \"bls12381\", expected \"bn128\"" \
  "$S" verify "$N/verification_key.json" "$M/public.json" "$M/proof.json"
expect 2 "p.bin: is a bellperson proof file, which is BLS12-381 only, but the key is BN254" \
  "$S" verify "$N/verification_key.json" "$T/pub.json" "$T/p.bin"

echo "== bad inputs: exit 2, the message names the file"
expect 2 "unknown command" "$S" frobnicate
expect 2 "missing --proof" "$S" verify --vk "$T/k.vk" --public "$T/pub.json"
expect 2 "exactly one of --zkey and --params" "$S" prove --zkey a --params b --witness w --proof p --public q
expect 2 "unknown option --bogus" "$S" info --bogus x
expect 2 "nonexistent.zkey" "$S" prove --zkey "$T/nonexistent.zkey" --witness "$M/multiplier.wtns" --proof "$T/x" --public "$T/y"
head -c 700 "$M/multiplier.zkey" > "$T/trunc.zkey"
expect 2 "trunc.zkey" "$S" prove --zkey "$T/trunc.zkey" --witness "$M/multiplier.wtns" --proof "$T/x" --public "$T/y"
patch_byte "$M/multiplier.zkey" "$T/garbled.zkey" 0 'x'
expect 2 "garbled.zkey" "$S" prove --zkey "$T/garbled.zkey" --witness "$M/multiplier.wtns" --proof "$T/x" --public "$T/y"
head -c 2000 "$T/k.params" > "$T/trunc.params"
expect 2 "trunc.params" "$S" prove --params "$T/trunc.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" --proof "$T/x"
patch_byte "$T/k.params" "$T/flags.params" 0 '\377'
expect 2 "flags.params" "$S" verify --vk "$T/flags.params" --proof "$T/p.bin" --public "$T/pub.json"
head -c 100 "$F/fixture.r1cs" > "$T/trunc.r1cs"
expect 2 "trunc.r1cs" "$S" prove --params "$T/k.params" --r1cs "$T/trunc.r1cs" --witness "$F/fixture.wtns" --proof "$T/x"
head -c 90 "$F/fixture.wtns" > "$T/trunc.wtns"
expect 2 "trunc.wtns" "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$T/trunc.wtns" --proof "$T/x"
expect 2 "lincomb.wtns: has [0-9]+ witness values" "$S" prove --zkey "$M/multiplier.zkey" --witness "$Z/lincomb/lincomb.wtns" --proof "$T/x" --public "$T/y"
# The last witness value changed: unsatisfied. With the circuit: the failing constraint; with
# only a zkey: the self-check refuses the proof.
size=$(wc -c < "$F/fixture.wtns")
patch_byte "$F/fixture.wtns" "$T/unsat.wtns" $((size - 32)) '\007'
expect 2 "does not satisfy constraint [0-9]+ of .*fixture.r1cs" "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$T/unsat.wtns" --proof "$T/x"
size=$(wc -c < "$M/multiplier.wtns")
patch_byte "$M/multiplier.wtns" "$T/unsat_m.wtns" $((size - 32)) '\007'
expect 2 "does not satisfy" "$S" prove --zkey "$M/multiplier.zkey" --witness "$T/unsat_m.wtns" --proof "$T/x" --public "$T/y"
expect 2 "does not satisfy constraint" "$S" prove --zkey "$M/multiplier.zkey" --witness "$T/unsat_m.wtns" --r1cs "$M/multiplier.r1cs" --proof "$T/x" --public "$T/y"
[ ! -e "$T/x" ] && echo "ok   no proof file written for refused witnesses" || { echo "FAIL: a proof file was written"; failures=$((failures + 1)); }
# pi_a's x replaced by 1: (1, y) is not on the curve.
awk 'f == 1 { sub(/"[0-9]+"/, "\"1\""); f = 2 } /"pi_a"/ { f = 1 } { print }' "$M/proof.json" > "$T/offcurve.json"
expect 2 "offcurve.json" "$S" verify --vk "$M/verification_key.json" --proof "$T/offcurve.json" --public "$M/public.json"
R=52435875175126190479447740508185965837690552500527637822603658699938581184513
sed "s/\"[0-9]*\"/\"$R\"/" "$T/pub.json" > "$T/big.json"
expect 2 "big.json" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/big.json"
printf '["1"]' > "$T/short.json"
expect 2 "short.json: 1 public inputs, the verifying key expects 3" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/short.json"
head -c 191 "$T/p.bin" > "$T/short.bin"
expect 2 "short.bin" "$S" verify --vk "$T/k.vk" --proof "$T/short.bin" --public "$T/pub.json"


echo "== command line: per-verb help, version, snarkjs's positional order, --json on every verb"
for verb in setup prove verify export-vk convert-proof info synth bench serve; do
  expect 0 "snarkd $verb" "$S" "$verb" --help
done
expect 0 "^snarkd [0-9]+\.[0-9]+\.[0-9]+$" "$S" --version
expect 0 "Subcommands" "$S" --help
expect 2 "Subcommands" "$S"
expect 2 "unknown option --bogus" "$S" verify --bogus
expect 0 "" "$S" prove "$M/multiplier.zkey" "$M/multiplier.wtns" "$T/pos_proof.json" "$T/pos_public.json"
expect 0 "^valid" "$S" verify "$M/verification_key.json" "$T/pos_public.json" "$T/pos_proof.json"
expect 2 "not both" "$S" prove "$M/multiplier.zkey" "$M/multiplier.wtns" "$T/x" "$T/y" --zkey "$M/multiplier.zkey"
expect 2 "not both" "$S" verify "$M/verification_key.json" "$M/public.json"
expect 0 "" "$S" export-vk "$M/multiplier.zkey" "$T/vk_pos.json"
same "$T/vk_pos.json" "$T/vk.json" "export-vk ZKEY OUT writes what --zkey/--out writes"
# expect_json CODE cmd...: exit code CODE and one JSON document on stdout.
expect_json() {
  code=$1; shift
  "$@" >"$T/json_out" 2>"$T/json_err"
  got=$?
  if [ "$got" -eq "$code" ] && node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$T/json_out"; then
    echo "ok   [$code] --json: $2"
  else
    echo "FAIL [want $code got $got, JSON on stdout]: $*"; sed 's/^/     | /' "$T/json_out" "$T/json_err" | head -5
    failures=$((failures + 1))
  fi
}
expect_json 0 "$S" setup --r1cs "$F/fixture.r1cs" --params "$T/j.params" --seed 7 --json
expect_json 0 "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" --proof "$T/j.bin" --json
expect_json 0 "$S" verify "$T/k.vk" "$T/pub.json" "$T/j.bin" --json
expect_json 1 "$S" verify "$T/k.vk" "$T/pub_bad.json" "$T/j.bin" --json
expect_json 0 "$S" export-vk "$M/multiplier.zkey" "$T/vk_j.json" --json
expect_json 0 "$S" convert-proof "$T/j.bin" "$T/j.json" --json
expect_json 0 "$S" info "$M/multiplier.zkey" --json
expect_json 0 "$S" synth --constraints 64 --inputs 2 --circuit "$T/s.csr" --witness "$T/s.wtns" --json

echo "== convert-proof: 192 bytes <-> snarkjs proof.json, the same proof either way"
expect 0 "" "$S" convert-proof "$T/sp.json" "$T/sp.bin"
expect 0 "^valid" "$S" verify --vk "$M/verification_key.json" --proof "$T/sp.bin" --public "$T/spub.json"
expect 0 "" "$S" convert-proof "$T/sp.bin" "$T/sp_again.json"
same "$T/sp.json" "$T/sp_again.json" "proof.json -> 192 bytes -> proof.json is byte-identical"
expect 2 "holds 2 proofs.*--partition" "$S" convert-proof "$T/pp.bin" "$T/x.json"
expect 0 "" "$S" convert-proof "$T/pp.bin" "$T/pp1.json" --partition 1
expect 2 "is a snarkjs public file, not a proof" "$S" convert-proof "$T/spub.json" "$T/x.bin"

echo "== signs of life: progress lines on stderr (--progress) for setup, synth, prove"
expect 0 "\[setup\] 3/[0-9]+ G1 points" "$S" setup --r1cs "$F/fixture.r1cs" --params "$T/pr.params" --seed 7 --progress
expect 0 "\[synth\] 2/3 write" "$S" synth --constraints 64 --inputs 2 --circuit "$T/s.csr" --witness "$T/s.wtns" --progress
expect 0 "\[prove\] 1/[0-9]+ read key" "$S" prove "$M/multiplier.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json" --progress
# --device: a GPU that is not there (or a build without CUDA) is a usage error naming the flag.
expect 2 "--device cuda:99: " "$S" prove "$M/multiplier.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json" --device cuda:99
expect 2 "--device tpu: expected cpu or cuda:N" "$S" prove "$M/multiplier.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json" --device tpu

echo "== what a file is: unknown kinds, BOM, directories and FIFOs get their own messages"
# No flag bits (not a proof), and a first byte that is neither JSON whitespace nor { or [: random
# bytes opened that way about one run in 60, and the file then read as JSON.
{ printf 'x'; head -c 2999 /dev/urandom | tr '\200-\377' '\000-\177'; } > "$T/random.bin"
expect 2 "random.bin: unknown kind of file" "$S" info "$T/random.bin"
expect 2 "random.bin: unknown kind of file" "$S" verify --vk "$T/random.bin" --proof "$T/p.bin" --public "$T/pub.json"
# A bellperson vk whose α₁ starts with bytes JSON could open with (0x0B is std::isspace's, not
# JSON's; then '{'): still a vk (its exact size), so the error is about the point, not JSON.
{ printf '\013{'; tail -c +3 "$ROOT/tests/groth16/fixtures/bp_trapdoor.vk"; } > "$T/vt.vk"
expect 2 "vt.vk: section vk: alpha_g1" "$S" info "$T/vt.vk"
printf '\357\273\277' > "$T/bom.json"; cat "$M/verification_key.json" >> "$T/bom.json"
expect 2 "bom.json: json: the file starts with a UTF-8 byte-order mark" "$S" verify "$T/bom.json" "$M/public.json" "$M/proof.json"
mkdir "$T/adir"
expect 2 "adir: is a directory, not a file" "$S" info "$T/adir"
mkfifo "$T/afifo"
expect 2 "afifo: is not a regular file" timeout 60 "$S" info "$T/afifo"
expect 2 "afifo: is not a regular file" timeout 60 "$S" verify "$M/verification_key.json" "$T/afifo" "$M/proof.json"
: > "$T/empty"
expect 2 "empty: the file is empty" "$S" info "$T/empty"
expect 2 "is a snarkjs proof file, not a verifying key" "$S" verify "$M/proof.json" "$M/public.json" "$M/proof.json"
expect 0 "multiplier.zkey: only its verifying key is read" "$S" verify "$M/multiplier.zkey" "$M/public.json" "$M/proof.json"
expect 2 "lincomb.r1cs: has [0-9]+ variables, .*multiplier.zkey has [0-9]+: not the same circuit" \
  "$S" prove --zkey "$M/multiplier.zkey" --witness "$M/multiplier.wtns" --r1cs "$Z/lincomb/lincomb.r1cs" --proof "$T/x" --public "$T/y"

echo "== corrupt keys are named as such, not blamed on the witness"
# One byte of the first H point (its scalar is never 0, so the proof uses it) moves it off the curve.
h=$(node "$ROOT/tests/cli/binfile_section.cjs" "$M/multiplier.zkey" 9)
patch_byte "$M/multiplier.zkey" "$T/badh.zkey" "$h" '\001'
expect 2 "badh.zkey: corrupt proving key: H point 0 is not on the curve" \
  "$S" prove "$T/badh.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json"
# bellperson .params: the vk (864 bytes, u32 |ic|, |ic| × 96), then u32 |h| and the H points.
ic=$(od -An -tu1 -j864 -N4 "$T/k.params" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
patch_byte "$T/k.params" "$T/badh.params" $((868 + 96 * ic + 4 + 95)) '\001'
expect 2 "badh.params: corrupt proving key: H point 0 is not on the curve" \
  "$S" prove --params "$T/badh.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" --proof "$T/x"
# A changed coefficient keeps every point valid: with the circuit the key is named, without it
# both suspects are.
c=$(node "$ROOT/tests/cli/binfile_section.cjs" "$M/multiplier.zkey" 4)
patch_byte "$M/multiplier.zkey" "$T/badc.zkey" $((c + 4 + 12)) '\002'
expect 2 "badc.zkey: the proof does not verify although the witness satisfies every constraint" \
  "$S" prove "$T/badc.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json" --r1cs "$M/multiplier.r1cs"
expect 2 "does not satisfy the circuit of .*badc.zkey, or the key is corrupt" \
  "$S" prove "$T/badc.zkey" "$M/multiplier.wtns" "$T/x.json" "$T/y.json"

echo "== a small circuit file claiming 2^32 variables: setup refuses before allocating"
node "$ROOT/tests/cli/r1cs_bomb.cjs" "$T/bomb.r1cs"
expect 2 "bomb.r1cs: a key for 4294967295 variables .* needs up to [0-9.]+ GiB during setup" \
  "$S" setup --r1cs "$T/bomb.r1cs" --params "$T/x.params"
expect 2 "more than the 0.0 GiB allowed" "$S" setup --r1cs "$F/fixture.r1cs" --params "$T/x.params" --max-memory-gib 0.001

end_test CLI
