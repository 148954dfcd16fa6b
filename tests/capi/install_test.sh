#!/bin/sh
# usage: install_test.sh BUILD_DIR SOURCE_DIR SNARKD CC CMAKE
# Installs snarkd into a temporary prefix, then builds C programs OUTSIDE the tree against the
# installed files only (tests/capi/consumer, copied out): with pkg-config, and with
# find_package(snarkd) for the shared and the static libraries. Runs them: the C API program
# proves the r1cs fixture (its proofs are then checked by the independent @noble/curves
# verifier), the supraseal-c2 program reads an SRS.
set -eu
BUILD=$1 SRC=$2 SNARKD=$3 CC=$4 CMAKE=$5
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=$T/prefix
fail() { echo "FAIL: $*"; exit 1; }

"$CMAKE" --install "$BUILD" --prefix "$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
cp -r "$SRC/tests/capi/consumer" "$T/src"
LIBDIR=$(dirname "$(find "$P" -name libsnarkd.so | head -n 1)")
[ -f "$LIBDIR/libsnarkd.a" ] && [ -f "$LIBDIR/libsnarkd_supraseal.a" ] && [ -f "$P/include/snarkd/snarkd.h" ] ||
  fail "the install lacks a library or header"
echo "ok   installed into $P (libraries in ${LIBDIR#$P/})"

F=$SRC/tests/r1cs/fixtures
"$SNARKD" setup --r1cs "$F/fixture.r1cs" --params "$T/k.params" --vk "$T/k.vk" --seed 11 >/dev/null 2>&1 || fail "snarkd setup"

# pkg-config, shared libraries (rpath to the prefix: nothing from the build tree is used)
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
for prog in prove:snarkd supraseal:snarkd-supraseal; do
  src=${prog%%:*} pc=${prog#*:}
  # shellcheck disable=SC2046
  "$CC" -std=c11 -Wall -Wextra -pedantic -Werror "$T/src/$src.c" -o "$T/${src}_pkgconfig" \
    $(pkg-config --cflags --libs "$pc") -Wl,-rpath,"$LIBDIR" || fail "building $src.c with pkg-config $pc"
done
echo "ok   built with pkg-config"

# find_package(snarkd), shared and static targets
"$CMAKE" -S "$T/src" -B "$T/cb" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC" >"$T/cfg.log" 2>&1 ||
  { cat "$T/cfg.log"; fail "configuring the find_package consumer"; }
"$CMAKE" --build "$T/cb" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "building the find_package consumer"; }
echo "ok   built with find_package(snarkd)"
if ldd "$T/cb/prove_static" | grep -q libsnarkd; then fail "prove_static links libsnarkd.so"; fi

for exe in prove_pkgconfig cb/prove_shared cb/prove_static; do
  out=$T/out_$(basename "$exe")
  mkdir -p "$out"
  "$T/$exe" "$T/k.params" "$F/fixture.r1cs" "$F/fixture.wtns" "$out" >"$out/log" 2>&1 || { cat "$out/log"; fail "$exe"; }
  node "$SRC/tools/vectors/verify_bellperson.mjs" "$T/k.vk" "$out/proofs.bin" "$out/public.json" >"$out/noble" 2>&1 ||
    { cat "$out/noble"; fail "$exe: the @noble/curves verifier rejects its proofs"; }
  grep -q '^valid' "$out/noble" || fail "$exe: the noble verifier said $(cat "$out/noble")"
  echo "ok   $exe proves; @noble/curves accepts its proofs"
done
for exe in supraseal_pkgconfig cb/supraseal_shared cb/supraseal_static; do
  "$T/$exe" "$T/k.params" >"$T/log" 2>&1 || { cat "$T/log"; fail "$exe"; }
  echo "ok   $exe"
done
echo "all checks passed"
