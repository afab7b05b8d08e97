#!/usr/bin/env bash
# Compiles the CUDA code paths of the engine (core/runtime/devices.cpp with HALFSCOPE_WITH_CUDA:
# device properties, compute capability, free memory through cudaMemGetInfo; gpu_memory.cpp: the
# caching allocator's memory fraction) on a machine without
# a GPU or a CUDA LibTorch: against the system LibTorch's ATen/c10 CUDA headers and the CUDA
# toolkit's runtime headers. It compiles, it does not link or run (no libc10_cuda here): the
# object must reference the CUDA functions, which shows the CUDA branch was the one compiled.
# Exits 77 (skipped) when no cuda_runtime_api.h or no ATen/cuda headers are installed.
# Usage: check_cuda_compile.sh SOURCE_DIR [TORCH_INCLUDE_DIR]
set -euo pipefail
src=$1
torch_inc=${2:-/usr/include}
cuda_inc=
for d in ${CUDA_HOME:+$CUDA_HOME/include} /usr/local/cuda/include /usr/local/cuda-*/include /usr/include; do
  [[ -f $d/cuda_runtime_api.h ]] && { cuda_inc=$d; break; }
done
[[ -n $cuda_inc ]] || { echo "skipped: no cuda_runtime_api.h (CUDA toolkit) installed"; exit 77; }
[[ -f $torch_inc/ATen/cuda/CUDAContext.h ]] || { echo "skipped: no $torch_inc/ATen/cuda/CUDAContext.h"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The generated c10 header comes from LibTorch when it has one, else from the stand-in here.
stub=()
[[ -f $torch_inc/c10/cuda/impl/cuda_cmake_macros.h ]] || stub=(-isystem "$src/packaging/cuda/header-check")
# /usr/include is searched already; naming it with -isystem breaks libstdc++'s #include_next.
inc=()
[[ $torch_inc == /usr/include ]] || inc+=(-isystem "$torch_inc")
[[ $cuda_inc == /usr/include ]] || inc+=(-isystem "$cuda_inc")
${CXX:-c++} -std=gnu++17 -O1 -Wall -Wextra -Wno-unused-parameter -Werror -fopenmp \
  -D_GLIBCXX_USE_CXX11_ABI=1 -DHALFSCOPE_WITH_CUDA=1 -DHALFSCOPE_VERSION=\"check\" \
  -I"$src/core" "${stub[@]}" "${inc[@]}" -isystem "$torch_inc/torch/csrc/api/include" -c "$src/core/runtime/devices.cpp" -o "$out/devices.o"
${CXX:-c++} -std=gnu++17 -O1 -Wall -Wextra -Wno-unused-parameter -Werror \
  -D_GLIBCXX_USE_CXX11_ABI=1 -DHALFSCOPE_WITH_CUDA=1 \
  -I"$src/core" "${stub[@]}" "${inc[@]}" -isystem "$torch_inc/torch/csrc/api/include" -c "$src/core/runtime/gpu_memory.cpp" -o "$out/gpu_memory.o"
check() {  # OBJECT SYMBOL...: each symbol is called, so the CUDA branch was the one compiled
  local object=$1 symbols
  shift
  symbols=$(nm -C --undefined-only "$out/$object")
  for s in "$@"; do
    grep -q "$s" <<<"$symbols" || { echo "$object does not call $s: the CUDA branch was not compiled"; exit 1; }
  done
}
check devices.o cudaMemGetInfo cudaGetErrorString at::cuda::getDeviceProperties
check gpu_memory.o c10::cuda::CUDACachingAllocator::setMemoryFraction
echo "ok: devices.cpp and gpu_memory.cpp compiled with HALFSCOPE_WITH_CUDA against $cuda_inc ($(grep -m1 -o 'CUDART_VERSION *[0-9]*' "$cuda_inc/cuda_runtime_api.h"))"
