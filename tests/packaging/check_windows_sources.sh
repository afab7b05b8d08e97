#!/usr/bin/env bash
# The engine's ported files (docs/windows.md, "What stops a Windows build") compiled for Windows
# with MinGW-w64 (-fsyntax-only; _WIN32 comes from the compiler), without a Windows machine.
# The Windows build itself uses clang-cl; MinGW checks that every POSIX call sits behind the
# platform layer (io/platform_file.h) or an #ifdef, and that the Win32 branches compile.
# Files without LibTorch: every error fails. Files with LibTorch: Debian's LibTorch headers do
# not parse cleanly under MinGW (c10 calls glibc's __assert_fail; dllimport clashes in
# torch/csrc/jit), so only errors located in Halfscope's own files count.
# Usage: check_windows_sources.sh SOURCE_DIR. Exit 77 (skipped) without the cross compiler
# (Debian: g++-mingw-w64-x86-64-posix).
set -uo pipefail
src=${1:?usage: check_windows_sources.sh SOURCE_DIR}
cxx=${HALFSCOPE_MINGW_CXX:-x86_64-w64-mingw32-g++-posix}
command -v "$cxx" >/dev/null || { echo "SKIP: $cxx not installed"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only the header libraries the engine uses, never the whole /usr/include: a Linux header that
# MinGW lacks (sys/mman.h, dlfcn.h) must fail here, not be found there.
mkdir "$work/inc"
for d in nlohmann png.h pngconf.h pnglibconf.h torch ATen c10 caffe2 gflags glog google yaml.h; do
    [ -e "/usr/include/$d" ] && ln -s "/usr/include/$d" "$work/inc/$d"
done
[ -e /usr/include/nlohmann/json.hpp ] || { echo "SKIP: nlohmann-json3-dev not installed"; exit 77; }
[ -e /usr/include/png.h ] || { echo "SKIP: libpng-dev not installed"; exit 77; }
[ -e /usr/include/yaml.h ] || { echo "SKIP: libyaml-dev not installed"; exit 77; }

plain=(core/io/platform_file.cpp core/io/bounded_read.cpp core/io/atomic_file.cpp
       core/io/mapped_guard.cpp core/io/image_io.cpp
       core/io/safetensors_header.cpp core/numerics/cpu_features.cpp core/numerics/cpu_bf16.cpp
       core/text/sentencepiece_model.cpp core/library/library_cache.cpp
       core/library/model_paths_yaml.cpp)
torch=(core/io/safetensors.cpp core/library/header_probe.cpp
       core/models/common/weight_stream.cpp core/runtime/devices.cpp core/numerics/format.cpp
       app/cli/main.cpp app/cli/cmd_train_demo.cpp)
flags=(-std=c++17 -fsyntax-only -Wall -Wextra -Wno-unused-parameter -I"$src/core" -I"$src/app"
       -I"$work/inc" -DHALFSCOPE_SPM_MODULE_BUILT=\"libhalfscope_spm.dll\"
       -DHALFSCOPE_VERSION=\"0\")
have_torch=0
[ -e /usr/include/torch/csrc/api/include/torch/torch.h ] && have_torch=1

compile() {  # FILE KIND -> writes $work/<name>.log and .rc
    local f=$1 kind=$2 log="$work/$(echo "$1" | tr / _).log" extra=()
    [ "$kind" = torch ] && extra=(-I/usr/include/torch/csrc/api/include)
    "$cxx" "${flags[@]}" "${extra[@]}" "$src/$f" >"$log" 2>&1
    echo $? >"$log.rc"
}
pids=()
for f in "${plain[@]}"; do compile "$f" plain & pids+=($!); done
if [ $have_torch = 1 ]; then
    # At most 4 LibTorch parses at once (~1 GB and ~17 s each).
    for f in "${torch[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge 4 ]; do sleep 0.5; done
        compile "$f" torch &
    done
fi
wait

fail=0
for f in "${plain[@]}"; do
    log="$work/$(echo "$f" | tr / _).log"
    # Any error fails; warnings only in Halfscope's own files (library headers may warn).
    if [ "$(cat "$log.rc")" != 0 ] ||
        grep -qE "^$src/(core|app)/[^:]+:[0-9]+:[0-9]+: warning" "$log"; then
        echo "FAIL (MinGW-w64): $f"; grep -E "error|warning" "$log" | head -20; fail=1
    else
        echo "ok   $f"
    fi
done
if [ $have_torch = 1 ]; then
    for f in "${torch[@]}"; do
        log="$work/$(echo "$f" | tr / _).log"
        # Errors whose location is one of Halfscope's files (core/..., app/...).
        own=$(grep -E "^$src/(core|app)/[^:]+:[0-9]+:[0-9]+: (fatal error|error|warning):" "$log")
        if grep -qE "^/[^:]+:[0-9]+:[0-9]+: fatal error:" "$log" && [ -z "$own" ]; then
            # A header that stopped the compiler before Halfscope's code was read.
            echo "FAIL (MinGW-w64, with LibTorch headers): $f was not checked:"
            grep -E "fatal error:" "$log" | head -3; fail=1
        elif [ -n "$own" ]; then
            echo "FAIL (MinGW-w64, with LibTorch headers): $f"; echo "$own" | head -20; fail=1
        else
            echo "ok   $f (own code; $(grep -c 'error:' "$log") errors inside LibTorch's headers)"
        fi
    done
else
    echo "note: no LibTorch headers (libtorch-dev): the files that include them were not checked"
fi
[ $fail = 0 ] && echo "PASS: the ported files compile for Windows (MinGW-w64)"
exit $fail
