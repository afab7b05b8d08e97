#pragma once
// The run settings the tests start from, torch-free so that the engine's and the widgets' tests
// share them.
#include <cstdint>
#include <string>

#include "records/run_types.h"

namespace hs::test {

// A run of `steps` steps at `width` x `height`; the rest as RunConfig has it.
inline RunConfig runConfigOf(const std::string& prompt, uint64_t seed, double guidance, int width,
                             int height, int steps) {
    RunConfig c;
    c.prompt = prompt;
    c.seed = seed;
    c.steps = steps;
    c.guidance = guidance;
    c.width = width;
    c.height = height;
    return c;
}

}  // namespace hs::test
