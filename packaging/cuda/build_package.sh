#!/usr/bin/env bash
# Builds the CUDA variant of Halfscope's Debian package and archive on a Linux machine with the
# CUDA toolkit and the official CUDA LibTorch 2.x (cxx11 ABI zip, unpacked). The package is
# halfscope-cuda: it conflicts with and replaces halfscope (both install /usr/bin/halfscope) and
# carries LibTorch's libraries in /usr/lib/halfscope/torch (about 3 GB unpacked). docs/gpu.md.
#
#   packaging/cuda/build_package.sh /opt/libtorch [BUILD_DIR]
#
# BUILD_DIR defaults to build-cuda. Needs the same Debian/Ubuntu packages as the CPU build
# (packaging/install-deps.sh) minus libtorch-dev, plus the CUDA toolkit (nvcc, the version the
# LibTorch zip was built for). Without a GPU it builds and packages; with one it also checks that
# halfscope-cli info lists the devices with their free memory. Exits non-zero on the first failure.
set -euo pipefail
libtorch=${1:?usage: build_package.sh /path/to/libtorch [BUILD_DIR]}
build=${2:-build-cuda}
src=$(cd "$(dirname "$0")/../.." && pwd)
libtorch=$(cd "$libtorch" && pwd)

[[ -f $libtorch/share/cmake/Torch/TorchConfig.cmake ]] ||
  { echo "build_package.sh: $libtorch is not an unpacked LibTorch (no share/cmake/Torch)" >&2; exit 2; }
ls "$libtorch"/lib/libc10_cuda.so >/dev/null 2>&1 ||
  { echo "build_package.sh: $libtorch is a CPU LibTorch (no lib/libc10_cuda.so): take the CUDA zip" >&2; exit 2; }
command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] ||
  { echo "build_package.sh: nvcc not found: install the CUDA toolkit LibTorch was built for" >&2; exit 2; }
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH=/usr/local/cuda/bin:$PATH

log=$(mktemp)
trap 'rm -f "$log"' EXIT
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
      -DCMAKE_PREFIX_PATH="$libtorch" -DHALFSCOPE_BENCH=OFF \
      -DCMAKE_PROJECT_INCLUDE="$src/packaging/cuda/bundle_libtorch.cmake" \
      -DHALFSCOPE_BUNDLE_LIBTORCH="$libtorch" | tee "$log"
# core/CMakeLists.txt says so when it compiles the CUDA paths (HALFSCOPE_WITH_CUDA).
grep -q "CUDA LibTorch: CUDA device list" "$log" ||
  { echo "build_package.sh: CMake did not take the CUDA branch (TORCH_CUDA_LIBRARIES empty)" >&2; exit 1; }
cmake --build "$build" --parallel

# The engine alone first: a failure here is the engine's, not the packaging's.
cli=$build/libexec/halfscope/halfscope-cli
info=$("$cli" info --json)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  python3 - "$info" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
assert j["cuda_available"], "CUDA LibTorch built, a GPU is present, but CUDA is not available"
for d in j["cuda_devices"]:
    assert d["free_memory_gib"] is not None and 0 < d["free_memory_gib"] <= d["memory_gib"], d
    print(f'cuda:{d["index"]} {d["name"]} cc {d["compute_capability"]}: '
          f'{d["free_memory_gib"]:.1f} of {d["memory_gib"]:.1f} GiB free')
PY
  "$cli" generate --device cuda --steps 2 --out "$build/cuda-smoke.png"
else
  echo "no GPU here: built and packaged, not run on a device"
fi

# Same CPack configuration as the CPU package, another name; shlibdeps reads the bundled LibTorch.
cd "$build"
cpack -G "DEB;TGZ" -D CPACK_PACKAGE_NAME=halfscope-cuda \
      -D CPACK_DEBIAN_PACKAGE_CONFLICTS=halfscope -D CPACK_DEBIAN_PACKAGE_REPLACES=halfscope \
      -D CPACK_DEBIAN_PACKAGE_PROVIDES=halfscope \
      -D CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS="$libtorch/lib" \
      -D "CPACK_PACKAGE_DESCRIPTION_SUMMARY=Finds out why a diffusion model gives a black image in half precision (CUDA build)"
ls -la "$build"/halfscope-cuda*
