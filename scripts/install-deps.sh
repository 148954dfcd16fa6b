#!/bin/sh
# Installs what snarkd needs on Debian 12 / Ubuntu and is missing. Idempotent.
#   sh scripts/install-deps.sh [run|package|test]      (default: test)
# run:     the compiler, CMake and every library CMake looks for — so scripts/run.sh and
#          scripts/test.sh configure build/ identically and test.sh rebuilds nothing run.sh built.
# package: run + what CPack's .deb needs (dpkg-shlibdeps, file).
# test:    package + the tools only the tests use (Node.js for the vector scripts and interop,
#          Chromium for the status page, the daemon script's helpers, the .deb/systemd test).
# One package per line, grouped by what needs it; `# comments` are allowed after a name.
set -eu
profile=${1:-test}
list() { sed 's/#.*//' | tr -s ' \n' '  '; }

run=$(list <<'EOF'
# toolchain
g++
cmake
ninja-build
make
# tests and benchmarks (CMake's tests/ needs GTest to configure; GMP for the differential tests)
libgtest-dev
libgmp-dev
libbenchmark-dev
# the daemon (snarkd serve, snarkctl; optional in CMake): gRPC + protobuf (OpenSSL comes with gRPC)
libgrpc++-dev
protobuf-compiler-grpc
libprotobuf-dev
protobuf-compiler
libsqlite3-dev
libsqlitecpp-dev     # the journal's connection, statements and transactions
libtomlplusplus-dev
libspdlog-dev
libcpp-httplib-dev   # the daemon's HTTP side port
prometheus-cpp-dev   # /metrics: the registry, metric types and text format
libpq-dev            # cluster mode's PostgreSQL client ([cluster] database)
# JSON behind util/json.hpp, the command lines of snarkd and snarkctl
nlohmann-json3-dev
libxxhash-dev        # XXH3-64: the CSR circuit file's checksums
libcli11-dev
pkg-config
EOF
)

package=$(list <<'EOF'
# CPack's .deb: dpkg-shlibdeps finds the binaries' library packages, `file` finds the binaries
dpkg-dev
file
EOF
)

test=$(list <<'EOF'
# known-answer vector scripts and the circom/snarkjs interop (any node/npm on PATH will do)
nodejs
npm
# tests/server/daemon_test.sh
sqlite3
curl
python3-jsonschema
prometheus   # promtool check metrics (the package enables a prometheus.service where systemd runs)
# tests/server/cluster_test.sh, cluster_bench.sh: a throwaway PostgreSQL (initdb, pg_ctl, psql)
postgresql
# tests/server/status_page.sh: the status page in headless Chromium
chromium
# tests/packaging/deb_systemd_test.sh: a Debian root booted with systemd-nspawn
debootstrap
systemd-container
# the supraseal-c2 crate (rust/supraseal-c2): Debian's Rust toolchain (the crate needs no registry)
cargo
rustc
EOF
)

case $profile in
  run) pkgs=$run ;;
  package) pkgs="$run $package" ;;
  test) pkgs="$run $package $test" ;;
  *) echo "usage: sh scripts/install-deps.sh [run|package|test]" >&2; exit 2 ;;
esac

need=""
for pkg in $pkgs; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
# Node may come from outside Debian's packages (as on the dev image): accept any node/npm on PATH.
if command -v node >/dev/null 2>&1; then need=$(echo "$need" | sed 's/ nodejs//'); fi
if command -v npm >/dev/null 2>&1; then need=$(echo "$need" | sed 's/ npm//'); fi
if [ -n "$need" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps ($profile): installing$need"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
