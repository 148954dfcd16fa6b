#!/bin/sh
# usage: tools/daemon-carry/make-bundle.sh [BUILD_DIR=build-srv]
# Packs what the daemon overhead measurement (tests/server/overhead.sh) needs to run on a bare
# machine with another distribution (the GPU host: Ubuntu 24.04, no packages, no network):
# snarkd, daemon_bench, overhead.sh and every shared library they load except the C and C++
# runtimes (glibc, libstdc++, libgcc_s: the host's are newer and must be its own), into
# BUILD_DIR/carry/, then BUILD_DIR/carry/bundle.tar.xz (< 60 MiB). Checks that with only the
# bundle on LD_LIBRARY_PATH every library resolves to the bundle or to a runtime it leaves out,
# and prints the one command that unpacks and runs it from the repository root there.
# overhead.sh makes its own circuit and key (snarkd synth/setup): no fixtures needed.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build-srv}
C=$BUILD/carry
for f in "$BUILD/apps/snarkd" "$BUILD/tests/server/daemon_bench"; do
  [ -x "$f" ] || { echo "make-bundle: $f is missing: cmake --build $BUILD --target snarkd_cli daemon_bench" >&2; exit 1; }
done
rm -rf "$C"
mkdir -p "$C/bin" "$C/lib"
cp "$BUILD/apps/snarkd" "$BUILD/tests/server/daemon_bench" "$C/bin/"
cp tests/server/overhead.sh "$C/"

# The runtimes left to the host: glibc's libraries, the dynamic loader, libstdc++ and libgcc_s.
runtime() {
  case $1 in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libmvec.so.* | libpthread.so.* | libdl.so.* | \
      librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.* | libBrokenLocale.so.* | \
      libstdc++.so.* | libgcc_s.so.*) return 0 ;;
  esac
  return 1
}

# ldd lists the whole closure (libraries of libraries) as "name => path (address)".
for b in "$C"/bin/*; do ldd "$b"; done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u >"$C/libs.txt"
while read -r name path; do
  runtime "$name" || cp -L "$path" "$C/lib/$name"
done <"$C/libs.txt"
rm "$C/libs.txt"

# Only the bundle on the library path: each library must come from it or be a left-out runtime.
bad=0
for b in "$C"/bin/*; do
  env -i LD_LIBRARY_PATH="$PWD/$C/lib" ldd "$b" >"$C/ldd.txt"
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    case $path in
      "$PWD/$C/lib/"*) ;;
      *) runtime "$name" || { echo "make-bundle: $b: $name resolves to $path, not the bundle" >&2; bad=1; } ;;
    esac
  done <"$C/ldd.txt"
  if grep -q "not found" "$C/ldd.txt"; then echo "make-bundle: $b: $(grep 'not found' "$C/ldd.txt")" >&2; bad=1; fi
done
rm "$C/ldd.txt"
[ $bad -eq 0 ] || exit 1
# The newest glibc / libstdc++ symbol versions anything in the bundle needs (Ubuntu 24.04 has
# GLIBC_2.39 and GLIBCXX_3.4.33).
if command -v objdump >/dev/null 2>&1; then
  for v in GLIBC GLIBCXX; do
    need=$(objdump -T "$C"/bin/* "$C"/lib/* 2>/dev/null | grep -o "${v}_[0-9.]*" | sort -uV | tail -1)
    echo "make-bundle: needs at most ${need:-no $v}"
  done
fi

tar -C "$BUILD" -cJf "$C/bundle.tar.xz" carry/bin carry/lib carry/overhead.sh
size=$(wc -c <"$C/bundle.tar.xz")
echo "make-bundle: $C/bundle.tar.xz: $((size / 1048576)) MiB ($size bytes), $(ls "$C/lib" | wc -l) libraries"
[ "$size" -lt $((60 * 1048576)) ] || { echo "make-bundle: the bundle is 60 MiB or more" >&2; exit 1; }

# The command for the host, run from the repository root with $C/bundle.tar.xz carried: unpack
# (python3's tarfile if tar cannot read xz there), record the machine, run 7 rounds of 2^16
# constraints × 2 partitions, jobs calibrated to about 6 s per run; everything to $OUT.
cat <<EOF
set -o pipefail; X=\$(mktemp -d); { tar -xJf $C/bundle.tar.xz -C \$X || python3 -c 'import sys,tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' $C/bundle.tar.xz \$X; } && export LD_LIBRARY_PATH=\$X/carry/lib && { nproc; uname -a; head -2 /etc/os-release; lscpu | head -20; ldd \$X/carry/bin/snarkd; } >\$OUT/machine.txt 2>&1; timeout 500 sh \$X/carry/overhead.sh \$X/carry/bin/snarkd \$X/carry/bin/daemon_bench 65536 auto:6 2 7 2>&1 | tee \$OUT/overhead.log
EOF
