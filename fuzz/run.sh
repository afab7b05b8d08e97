#!/bin/sh
# Runs one libFuzzer target of build-fuzz on its seed corpus:
#   fuzz/run.sh <target> [seconds=600] [extra libFuzzer flags...]
# New inputs go to $FUZZ_WORK/<target>/corpus (default /tmp/halfscope-fuzz-work), never into the
# committed seeds; a crash is written to $FUZZ_WORK/<target>/crash-*; the log to .../log.
set -eu
target=$1
secs=${2:-600}
[ $# -ge 2 ] && shift 2 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
bin=${FUZZ_BUILD:-$here/../build-fuzz}/fuzz/$target
seeds=$here/corpus/${target#fuzz_}
# The per-layout single-file targets start from the shared single-file seeds.
case $target in fuzz_single_file_*) seeds=$here/corpus/single_file ;; esac
work=${FUZZ_WORK:-/tmp/halfscope-fuzz-work}/$target
mkdir -p "$work/corpus"
dict=$here/${target#fuzz_}.dict
[ -f "$dict" ] && set -- "-dict=$dict" "$@"
exec nice -n 5 "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$work/" -print_final_stats=1 "$@" "$work/corpus" "$seeds" \
    >"$work/log" 2>&1
