#!/bin/sh
# Installs what snarkd needs on Debian 12 / Ubuntu and is missing: toolchain, CMake, GTest,
# GMP (tests), Google Benchmark, Node.js + npm (known-answer vector scripts). Idempotent.
set -eu
need=""
for pkg in g++ cmake make libgtest-dev libgmp-dev libbenchmark-dev nodejs npm; do
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
