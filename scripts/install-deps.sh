#!/usr/bin/env bash
# Installs every build and test dependency of LayoutProof on a fresh Debian 12 machine.
# Idempotent: packages already present are left alone, so re-running it is cheap.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libz3-dev libboost-graph-dev libspdlog-dev libfmt-dev
  catch2 nlohmann-json3-dev libcli11-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
