// libFuzzer's entry points for the targets whose input's first byte picks a mode: they define
// hs::fuzz::warmUp and hs::fuzz::runMode (fuzz_util.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hs::fuzz::warmUp();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 0)
        hs::fuzz::runMode(data[0],
                          std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
    return 0;  // libFuzzer's "go on"
}
