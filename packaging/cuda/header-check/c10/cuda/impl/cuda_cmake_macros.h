#pragma once
// Stand-in for the header that a CUDA build of LibTorch generates at configure time (Debian's
// CPU-only libtorch-dev ships the other c10/cuda headers but not this one). It only says that
// c10_cuda is a shared library, as it is in the official builds. Used by check_cuda_compile.sh
// alone; a real CUDA build uses the official LibTorch's own copy.
#define C10_CUDA_BUILD_SHARED_LIBS
