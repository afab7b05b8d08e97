#!/usr/bin/env bash
# Builds halfscope-cli for an NVIDIA GPU against the LibTorch inside the user's own PyTorch (a
# CUDA `pip install torch`: its wheel carries LibTorch's headers, libraries and CMake files), so no
# LibTorch zip is needed. Checks that CMake took the CUDA branch, then runs `info --json` (CUDA
# available, every device with its free memory) and a two-step generation on --device cuda.
# docs/gpu.md. Run from anywhere:
#
#   packaging/cuda/build_with_python_torch.sh [BUILD_DIR] [PYTHON]
#
# BUILD_DIR defaults to build-cuda-py, PYTHON to python3 (the one whose `import torch` is the CUDA
# build). Needs the CPU build's packages (packaging/install-deps.sh) minus libtorch-dev, and the
# CUDA toolkit of torch.version.cuda (nvcc: LibTorch's CMake files look for it). HALFSCOPE_GUI=ON
# builds the studio too (Qt 6 must then share the wheel's C++ ABI: the cxx11 ABI of torch >= 2.7).
# CUDA_ARCH=90 (say) compiles for that GPU only. Exits non-zero at the first failed check.
set -euo pipefail
build=${1:-build-cuda-py}
python=${2:-python3}
src=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "build_with_python_torch.sh: $*" >&2; }

prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') ||
  { say "'$python' cannot import torch: install PyTorch with CUDA first"; exit 2; }
cuda=$("$python" -c 'import torch; print(torch.version.cuda or "")')
version=$("$python" -c 'import torch; print(torch.__version__)')
[[ -n $cuda ]] || { say "torch $version is a CPU build (torch.version.cuda is None)"; exit 2; }
command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] ||
  { say "nvcc not found: install the CUDA $cuda toolkit (torch $version was built for it)"; exit 2; }
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH=/usr/local/cuda/bin:$PATH
echo "torch $version (CUDA $cuda), LibTorch's CMake files in $prefix"

arch=()
[[ -n ${CUDA_ARCH:-} ]] && arch=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH"
                                 -DTORCH_CUDA_ARCH_LIST="${CUDA_ARCH:0:-1}.${CUDA_ARCH: -1}")
mkdir -p "$build"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DHALFSCOPE_GUI="${HALFSCOPE_GUI:-OFF}" -DHALFSCOPE_TESTS=OFF -DHALFSCOPE_BENCH=OFF \
      "${arch[@]}" | tee "$build/configure.log"
# core/CMakeLists.txt prints this line when TorchConfig.cmake gave TORCH_CUDA_LIBRARIES and the
# CUDA paths (HALFSCOPE_WITH_CUDA: device properties, free memory, the memory cap) are compiled.
grep -q "CUDA LibTorch: CUDA device list" "$build/configure.log" ||
  { say "CMake did not take the CUDA branch: the build would be a CPU build"; exit 1; }
grep -q "^CUDAToolkit_NVCC_EXECUTABLE:" "$build/CMakeCache.txt" ||
  { say "no CUDA toolkit in $build/CMakeCache.txt"; exit 1; }
targets=(halfscope-cli)
[[ ${HALFSCOPE_GUI:-OFF} == ON ]] && targets+=(halfscope)
cmake --build "$build" --parallel --target "${targets[@]}"

cli=$(find "$build" -name halfscope-cli -type f -perm -u+x | head -n 1)
[[ -n $cli ]] || { say "no halfscope-cli under $build"; exit 1; }
"$cli" info --json > "$build/info.json"
"$python" - "$build/info.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["cuda_available"], "built against a CUDA LibTorch, but CUDA is not available (driver?)"
assert j["cuda_devices"], "CUDA is available but no device is listed"
for d in j["cuda_devices"]:
    assert d["free_memory_gib"] is not None, f"no free memory for cuda:{d['index']}: a CPU build?"
    print(f'cuda:{d["index"]} {d["name"]} cc {d["compute_capability"]}: '
          f'{d["free_memory_gib"]:.1f} of {d["memory_gib"]:.1f} GiB free')
PY
"$cli" generate --device cuda --steps 2 --out "$build/cuda-smoke.png"
echo "ok: $cli runs on the GPU ($build/cuda-smoke.png)"
