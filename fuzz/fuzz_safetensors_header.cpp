// libFuzzer target: the safetensors header parser on arbitrary bytes, taken as a whole file.
// Any exception is a rejected file (fine); a crash, a sanitizer report, a hang or an accepted
// header whose tensors do not tile the data area exactly is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>

#include "io/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const hs::StHeader h = hs::parseStHeader(data, size, size);
        // Invariants of an accepted header: contiguous, sized, inside the file.
        uint64_t covered = 0;
        for (const auto& t : h.tensors) {
            if (t.begin != covered || t.end < t.begin) std::abort();
            if (uint64_t(t.numel()) * hs::stDTypeSize(t.dtype) != t.end - t.begin) std::abort();
            covered = t.end;
        }
        if (8 + h.headerSize + covered != size) std::abort();
    } catch (const std::exception&) {
    }
    return 0;
}
