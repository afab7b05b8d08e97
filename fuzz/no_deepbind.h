#pragma once
// Force-included into sentencepiece_model.cpp for the fuzz build: AddressSanitizer refuses
// dlopen(RTLD_DEEPBIND), and without LibTorch there is no second protobuf to keep apart.
#include <dlfcn.h>
#undef RTLD_DEEPBIND
#define RTLD_DEEPBIND 0
