#pragma once
// Force-included into io/platform_file.cpp (platform::loadModule, which loads SentencePiece's
// module) for the fuzz build: AddressSanitizer refuses dlopen(RTLD_DEEPBIND), and without
// LibTorch there is no second protobuf to keep apart.
#include <dlfcn.h>
#undef RTLD_DEEPBIND
#define RTLD_DEEPBIND 0
