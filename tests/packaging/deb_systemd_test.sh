#!/bin/sh
# The packaged .deb in a booted Debian 12 (systemd as PID 1 under systemd-nspawn): apt installs
# it (dependencies from the archive), `systemctl start snarkd` (Type=notify: returns once the
# configured circuits are loaded), snarkctl proves a snarkjs circuit (.zkey) and a bellperson one
# whose .params lie in /var/tmp/filecoin-proof-parameters (the unit must not hide it), `snarkd
# verify` accepts both proofs and rejects a changed public input, reload and stop work, and
# `apt-get remove` stops the service. The steps inside the container: in_container.sh.
#   sh tests/packaging/deb_systemd_test.sh        (from the repository root; scripts/test.sh runs it)
# Needs root, systemd-nspawn (systemd-container), debootstrap and the Debian mirror; without them,
# or where the machine cannot make namespaces, it prints "SKIP: <why>" and exits 0. Any failure
# after the container could start is "FAIL" and exit 1.
# Environment: BUILD_DIR (default build; the .deb is made there with CPack from the snarkd and
# snarkctl targets), SNARKD_DEB_ROOT_CACHE (default $BUILD_DIR/deb-root: the debootstrapped root,
# reused for 7 days, and apt's downloaded packages), SNARKD_DEBIAN_MIRROR (default
# http://deb.debian.org/debian), SNARKD_DEB_TEST_TIMEOUT (seconds for the boot + test, default 480).
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "${BUILD_DIR:-build}" && pwd)
CACHE=${SNARKD_DEB_ROOT_CACHE:-$BUILD/deb-root}
MIRROR=${SNARKD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
LIMIT=${SNARKD_DEB_TEST_TIMEOUT:-480}
skip() { echo "deb_systemd_test: SKIP: $*"; exit 0; }
fail() { echo "deb_systemd_test: FAIL: $*" >&2; exit 1; }
start=$(date +%s)

# --- can this machine boot a container? ------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, systemd-nspawn)"
command -v systemd-nspawn >/dev/null 2>&1 || skip "systemd-nspawn is missing (Debian package systemd-container)"
command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is missing (Debian package debootstrap)"
unshare --mount --pid --fork --uts --ipc true 2>/dev/null || skip "this machine cannot make mount/PID namespaces"
# nspawn registers with machined and makes a scope unit when the host runs systemd; otherwise (a
# VM or container with another init) it must stay in the caller's cgroup and skip the bus.
nspawn_host_opts=""
[ -d /run/systemd/system ] || nspawn_host_opts="--register=no --keep-unit"
# run_nspawn SECONDS ARGS...: systemd-nspawn ARGS, killed after SECONDS (0: no limit). Without
# systemd on the host nspawn leaves its propagation directory behind in /run: a private tmpfs there.
run_nspawn() {
  t=$1
  shift
  mkdir -p /run/systemd/nspawn
  # shellcheck disable=SC2086
  set -- unshare --mount --propagation private sh -c 'mount -t tmpfs tmpfs /run/systemd/nspawn && exec "$@"' \
    nspawn systemd-nspawn --quiet $nspawn_host_opts "$@"
  if [ "$t" -gt 0 ]; then timeout -k 30 "$t" "$@"; else "$@"; fi
}

# --- the .deb --------------------------------------------------------------------------------------
cmake --build "$BUILD" --target snarkd_cli snarkctl >/dev/null
[ -x "$BUILD/apps/snarkctl" ] || skip "the daemon is not built (gRPC, SQLite, toml++, spdlog missing: scripts/install-deps.sh)"
rm -rf "$BUILD/package"
cpack --config "$BUILD/CPackConfig.cmake" -B "$BUILD/package" >"$BUILD/cpack.log" 2>&1 ||
  { cat "$BUILD/cpack.log" >&2; fail "cpack could not make the .deb"; }
deb=$(ls "$BUILD"/package/snarkd_*.deb)
echo "deb_systemd_test: $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"

# --- the Debian 12 root, made once and reused ------------------------------------------------------
base=$CACHE/base
if [ ! -f "$CACHE/base.ok" ] || [ -n "$(find "$CACHE/base.ok" -mtime +7)" ]; then
  wget -q -O /dev/null "$MIRROR/dists/bookworm/Release" 2>/dev/null || skip "cannot reach $MIRROR"
  echo "deb_systemd_test: debootstrap bookworm into $base (once; a few minutes)"
  rm -rf "$base" "$CACHE/base.ok"
  mkdir -p "$CACHE"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$base" "$MIRROR" \
    >"$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log" >&2; fail "debootstrap failed"; }
  run_nspawn 0 -D "$base" /bin/true 2>"$CACHE/probe.log" || skip "systemd-nspawn cannot start a container here: $(tail -1 "$CACHE/probe.log")"
  run_nspawn 0 -D "$base" apt-get update -qq >"$CACHE/apt-update.log" 2>&1 ||
    { cat "$CACHE/apt-update.log" >&2; fail "apt-get update in the root failed"; }
  date >"$CACHE/base.ok"
fi

# --- a fresh copy, the test unit, boot ---------------------------------------------------------------
run=$CACHE/run
out=$BUILD/deb-test
rm -rf "$run" "$out"
cp -a "$base" "$run"
mkdir -p "$out" "$CACHE/apt-archives/partial"
cp tests/packaging/snarkd-deb-test.service "$run/etc/systemd/system/"
mkdir -p "$run/etc/systemd/system/multi-user.target.wants"
ln -s ../snarkd-deb-test.service "$run/etc/systemd/system/multi-user.target.wants/snarkd-deb-test.service"
echo "deb_systemd_test: booting the container (log: $out/log)"
rc=0
run_nspawn "$LIMIT" -D "$run" -b --machine=snarkd-deb-test --console=pipe \
  --bind-ro="$BUILD/package:/srv/deb" --bind-ro="$ROOT/tests/packaging:/srv/test" \
  --bind-ro="$ROOT/tests/groth16/fixtures/multiplier:/srv/fixtures" --bind="$out:/srv/out" \
  --bind="$CACHE/apt-archives:/var/cache/apt/archives" >"$out/console" 2>&1 </dev/null || rc=$?
[ -f "$out/log" ] && cat "$out/log"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "no result within ${LIMIT} s (console: $out/console)"; fi
[ -f "$out/rc" ] || { tail -30 "$out/console" >&2; fail "the container ended (status $rc) before the test finished"; }
[ "$(cat "$out/rc")" = 0 ] || fail "inside the container (see above)"
rm -rf "$run"
echo "deb_systemd_test: PASS in $(($(date +%s) - start)) s"
