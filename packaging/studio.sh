#!/usr/bin/env bash
# README command 1: install what is missing, build, and start the studio on the demo model.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALFSCOPE_TESTS=OFF -DHALFSCOPE_BENCH=OFF
cmake --build build -j"$(nproc)"
exec build/app/halfscope "$@"
