#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --tests
cmake -S . -B build-tests -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALFSCOPE_BENCH=ON
cmake --build build-tests -j"$(nproc)"
export OMP_WAIT_POLICY=PASSIVE QT_QPA_PLATFORM=offscreen
ctest --test-dir build-tests --output-on-failure -j1 "$@"
# Install, start and remove the Debian package and the portable archive as a user would (root
# only; skipped where a halfscope package is installed that this check did not install).
tests/packaging/check_install.sh build-tests
