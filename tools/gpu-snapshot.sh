#!/usr/bin/env bash
# Packs the committed tree (HEAD, nothing uncommitted) into .deps/src.tar.xz, so that a GPU run measures exactly
# a commit even while other work is in progress in the checkout:
#
#   bash tools/gpu-snapshot.sh        # on the build machine
#   mkdir -p /tmp/src && tar -xJf .deps/src.tar.xz -C /tmp/src && cp -r .deps /tmp/src/ && cd /tmp/src && \
#        DEPS_PREFIX=/opt/kbla-deps/kokkos-cuda tools/gpu-check.sh ...        # on the GPU machine
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
git archive --format=tar HEAD | xz -T2 > .deps/src.tar.xz
echo "$(git rev-parse --short HEAD) -> .deps/src.tar.xz ($(du -h .deps/src.tar.xz | cut -f1))"
