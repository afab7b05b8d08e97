#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run every test. Prints the time of
# each phase and the slowest tests at the end (the time budget: docs/build-time.md).
# HALFSCOPE_CHECK_INSTALL=1 (set by .ci/run) also installs, starts and purges the Debian package
# and the portable archive as root: without it nothing is installed on the system but the build's
# own dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
phases=()
t=$SECONDS
phase() {  # phase NAME: closes the phase that ran since the last call
  phases+=("$1 $((SECONDS - t)) s")
  t=$SECONDS
}
summary() {
  local rc=$?
  echo
  echo "== time of each phase: ${phases[*]/%/;} total $SECONDS s"
  if [[ -f build-tests/ctest.log ]]; then
    echo "== the 15 slowest tests"
    # ctest's result lines: "  12/345 Test  #67: Suite.Name ....   Passed    1.23 sec"
    sed -n 's/^ *[0-9]*\/[0-9]* *Test *#[0-9]*: \([^ ]*\) .*[[:space:]]\([0-9.]*\) sec$/\2 \1/p' \
      build-tests/ctest.log | sort -rn | awk 'NR <= 15 {printf "%8.1f s  %s\n", $1, $2}'
    # ctest's "100% tests passed, 0 tests failed out of 213" as one closing line.
    sed -n 's/^[0-9]*% tests passed, \([0-9]*\) tests failed out of \([0-9]*\)$/\2 \1/p' \
      build-tests/ctest.log | tail -1 | awk '{printf "tests: %d passed, %d failed\n", $1 - $2, $2}'
  fi
  exit $rc
}
trap summary EXIT

packaging/install-deps.sh --tests
phase apt
cmake -S . -B build-tests -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALFSCOPE_BENCH=ON
phase configure
cmake --build build-tests -j"$(nproc)"
phase build
export OMP_WAIT_POLICY=PASSIVE QT_QPA_PLATFORM=offscreen
# Tests run side by side, one per core: each runs on one thread (HALFSCOPE_THREADS=1, set per test
# in tests/CMakeLists.txt), and those that time themselves or own a shared resource run alone.
set +e
ctest --test-dir build-tests --output-on-failure -j"$(nproc)" "$@" 2>&1 | tee build-tests/ctest.log
status=${PIPESTATUS[0]}
set -e
phase tests
[[ $status == 0 ]] || exit "$status"
if [[ ${HALFSCOPE_CHECK_INSTALL:-} == 1 ]]; then
  # Installs, starts and removes the Debian package and the portable archive as a user would.
  tests/packaging/check_install.sh build-tests
  phase "install check"
else
  echo "The install check did not run: HALFSCOPE_CHECK_INSTALL=1 asks for it (it installs and" \
       "purges a package as root)."
fi
