#!/usr/bin/env bash
# Installs what building and testing KokkosBlockLA on the host backend needs, from Debian's packages:
# a C++17 compiler, CMake, GoogleTest and Debian's Kokkos / Kokkos Kernels 3.4.01 (Serial backend).
# Skips the package manager when everything is already there. Needs root (or sudo) only when it installs.
set -euo pipefail

packages=(g++ cmake make libgtest-dev libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all of ${packages[*]} already installed"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
