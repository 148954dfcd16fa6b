#!/bin/sh
# Installs what snarkd needs on Debian 12 / Ubuntu and is missing: toolchain, CMake, GTest,
# GMP (tests), Google Benchmark, Node.js + npm (known-answer vector scripts), the daemon's
# packages. Idempotent.
set -eu
need=""
# The daemon (snarkd serve, snarkctl; optional in CMake) and its tests: gRPC + protobuf, SQLite,
# toml++, spdlog (OpenSSL comes with gRPC); sqlite3, curl and python3-jsonschema for daemon_test.sh;
# chromium for the status page's headless check (status_page.sh).
daemon="libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libsqlite3-dev libtomlplusplus-dev"
daemon="$daemon libspdlog-dev sqlite3 curl python3-jsonschema chromium"
# nlohmann-json (JSON behind util/json.hpp) and CLI11 (the command lines of snarkd and snarkctl).
libs="nlohmann-json3-dev libcli11-dev"
for pkg in g++ cmake make libgtest-dev libgmp-dev libbenchmark-dev nodejs npm $libs $daemon; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
# Node may come from outside Debian's packages (as on the dev image): accept any node/npm on PATH.
if command -v node >/dev/null 2>&1; then need=$(echo "$need" | sed 's/ nodejs//'); fi
if command -v npm >/dev/null 2>&1; then need=$(echo "$need" | sed 's/ npm//'); fi
if [ -n "$need" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: installing$need"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
