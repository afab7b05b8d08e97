# Included through CMAKE_PROJECT_INCLUDE by build_package.sh (not by a normal build): the CUDA
# variant of the package carries the official LibTorch's shared libraries (libtorch_cuda, c10_cuda,
# the CUDA runtime, cuBLAS, cuDNN ... as the zip has them), since no distribution packages them,
# in <prefix>/lib/halfscope/torch, and the programs in libexec/halfscope find them through their
# run path. HALFSCOPE_BUNDLE_LIBTORCH is the unpacked libtorch folder.
if(NOT IS_DIRECTORY "${HALFSCOPE_BUNDLE_LIBTORCH}/lib")
  message(FATAL_ERROR "HALFSCOPE_BUNDLE_LIBTORCH must name an unpacked libtorch folder "
                      "(got '${HALFSCOPE_BUNDLE_LIBTORCH}')")
endif()
file(GLOB _hs_torch_libs "${HALFSCOPE_BUNDLE_LIBTORCH}/lib/*.so*")
if(NOT _hs_torch_libs)
  message(FATAL_ERROR "no shared library in ${HALFSCOPE_BUNDLE_LIBTORCH}/lib")
endif()
install(FILES ${_hs_torch_libs} DESTINATION lib/halfscope/torch)
# libexec/halfscope/<program> -> ../../lib/halfscope/torch; kept beside any run path a target sets.
list(APPEND CMAKE_INSTALL_RPATH "\$ORIGIN/../../lib/halfscope/torch")
