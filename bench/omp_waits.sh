#!/usr/bin/env bash
# OpenMP wait policies on a desktop: bench_generate's fp32 rows under passive waits, a bounded
# spin and spinning waits, on an idle machine and with another program keeping one core busy.
#   bench/omp_waits.sh BUILD_DIR [repetitions=3]
set -euo pipefail
bench="$1/bench/bench_generate"
reps="${2:-3}"
run() {  # label, then environment assignments
    local label="$1"; shift
    echo "  $label"
    env "$@" HALFSCOPE_KEEP_OMP_WAIT=1 "$bench" "$reps" 20 | grep -E "^  fp32" | sed 's/^/  /'
}
for load in idle busy; do
    echo "$load:"
    busy=""
    if [ "$load" = busy ]; then
        sh -c 'while :; do :; done' &
        busy=$!
    fi
    run "passive" OMP_WAIT_POLICY=PASSIVE
    run "GOMP_SPINCOUNT=1000" -u OMP_WAIT_POLICY GOMP_SPINCOUNT=1000
    run "active (spinning)" OMP_WAIT_POLICY=ACTIVE
    if [ -n "$busy" ]; then kill "$busy"; fi
done
