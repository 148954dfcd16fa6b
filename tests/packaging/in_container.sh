#!/bin/sh
# Inside the Debian 12 container booted by deb_systemd_test.sh (run as snarkd-deb-test.service,
# root, systemd as PID 1). /srv/deb: the .deb; /srv/fixtures: the multiplier circuit (snarkjs zkey,
# witness, verification key); /srv/out: the log and the status (rc) read by the host.
set -u
OUT=/srv/out
exec >>"$OUT/log" 2>&1
finish() {
  echo "$1" >"$OUT/rc"
  systemctl exit "$1"
  exit "$1"
}
fail() {
  echo "FAIL: $*"
  echo "--- journalctl -u snarkd (last 40 lines)"
  journalctl -u snarkd --no-pager -o short-monotonic | tail -40
  finish 1
}
step() { echo "== $*"; }
# wait_log PATTERN: the daemon's journal shows PATTERN (a handshake; the 120 s bound only ends a hang).
wait_log() {
  i=0
  while ! journalctl -u snarkd --no-pager -o cat | grep -q "$1"; do
    i=$((i + 1))
    [ "$i" -lt 600 ] || fail "the daemon's journal never showed '$1'"
    sleep 0.2
  done
}
# changed_public IN OUT: IN with its first public input replaced (verification must then fail).
changed_public() {
  first=$(grep -o '"[0-9]*"' "$1" | head -1)
  new='"1"'
  [ "$first" != '"1"' ] || new='"2"'
  sed "0,/$first/s//$new/" "$1" >"$2"
}
# prove_and_verify ID WITNESS VK: a proof through the daemon, checked by `snarkd verify`.
prove_and_verify() {
  snarkctl prove --circuit "$1" --proof "$OUT/$1.bin" --public "$OUT/$1.json" "$2" ||
    fail "snarkctl prove --circuit $1"
  snarkd verify --vk "$3" --proof "$OUT/$1.bin" --public "$OUT/$1.json" || fail "snarkd verify: $1's proof"
  changed_public "$OUT/$1.json" "$OUT/$1.changed.json"
  snarkd verify --vk "$3" --proof "$OUT/$1.bin" --public "$OUT/$1.changed.json"
  [ $? -eq 1 ] || fail "snarkd verify accepted $1's proof for a changed public input (or failed otherwise)"
}

step "apt-get install ./$(basename /srv/deb/snarkd_*.deb)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /srv/deb/snarkd_*.deb ||
  fail "apt-get install of the .deb"
getent passwd snarkd || fail "no snarkd user (sysusers.d)"
[ -d /var/lib/snarkd ] && [ "$(stat -c %U:%a /var/lib/snarkd)" = snarkd:700 ] ||
  fail "/var/lib/snarkd is not snarkd's with mode 700 (tmpfiles.d)"
[ "$(systemctl is-enabled snarkd)" = disabled ] || fail "the package enabled the service"
systemd-analyze verify snarkd.service || fail "systemd-analyze verify snarkd.service"
systemd-analyze security snarkd.service --no-pager | tail -1

step "circuits: a snarkjs .zkey, and a bellperson .params in Filecoin's parameter cache"
mkdir -p /var/lib/snarkd/keys /var/lib/snarkd/circuits /var/tmp/filecoin-proof-parameters
cp /srv/fixtures/multiplier.zkey /var/lib/snarkd/keys/
snarkd synth --constraints 1000 --inputs 3 --circuit /var/lib/snarkd/circuits/synth.csr --witness "$OUT/synth.wtns" ||
  fail "snarkd synth"
snarkd setup --r1cs /var/lib/snarkd/circuits/synth.csr --params /var/tmp/filecoin-proof-parameters/synth.params \
  --vk "$OUT/synth.vk" --seed 7 || fail "snarkd setup"
cat >>/etc/snarkd/snarkd.toml <<'EOF'

[[circuit]]
id = "multiplier"
zkey = "/var/lib/snarkd/keys/multiplier.zkey"

[[circuit]]
id = "synth"
params = "/var/tmp/filecoin-proof-parameters/synth.params"
circuit = "/var/lib/snarkd/circuits/synth.csr"
EOF
snarkd serve --config /etc/snarkd/snarkd.toml --check || fail "the edited config does not check"

step "systemctl start snarkd (returns at READY=1: circuits loaded, socket listening)"
timeout 300 systemctl start snarkd || fail "systemctl start snarkd"
[ "$(systemctl is-active snarkd)" = active ] || fail "snarkd is not active after start"
snarkctl status || fail "snarkctl status right after start"
pid=$(systemctl show -p MainPID --value snarkd)
[ "$(stat -c %U "/proc/$pid")" = snarkd ] || fail "the daemon does not run as the snarkd user"

step "proofs through the daemon"
prove_and_verify multiplier /srv/fixtures/multiplier.wtns /srv/fixtures/verification_key.json
prove_and_verify synth "$OUT/synth.wtns" "$OUT/synth.vk"

step "systemctl reload, stop"
systemctl reload snarkd || fail "systemctl reload snarkd"
wait_log config_reloaded
[ "$(systemctl is-active snarkd)" = active ] || fail "snarkd is not active after reload"
systemctl stop snarkd || fail "systemctl stop snarkd"
[ "$(systemctl show -p Result --value snarkd)" = success ] || fail "snarkd did not stop cleanly"
journalctl -u snarkd --no-pager -o cat | grep -q " stopped$" ||
  fail "no 'stopped' in the daemon's journal"

step "apt-get remove snarkd (while running: prerm stops it)"
systemctl start snarkd || fail "second start"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q snarkd || fail "apt-get remove"
! systemctl is-active -q snarkd || fail "snarkd still runs after apt-get remove"
[ -f /etc/snarkd/snarkd.toml ] || fail "remove deleted the conffile (only purge may)"

step "the daemon's journal"
journalctl -u snarkd --no-pager -o cat
echo "PASS"
finish 0
