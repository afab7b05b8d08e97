#pragma once
// A demo training small enough for a test (demo/trainer.h).
#include <string>

#include "demo/trainer.h"

namespace hs::test {

// `steps` steps of the VAE and of the transformer and `decoderSteps` of the decoder, each on
// batches of 4, 16 scenes encoded for the transformer, `heldOut` scenes measured; into `out`.
inline demo::TrainOptions tinyTraining(const std::string& out, int steps, int decoderSteps,
                                       int heldOut) {
    demo::TrainOptions o;
    o.outDir = out;
    o.vaeSteps = steps;
    o.vaeBatch = 4;
    o.ditSteps = steps;
    o.ditBatch = 4;
    o.encodedScenes = 16;
    o.decoderSteps = decoderSteps;
    o.decoderBatch = 4;
    o.heldOutScenes = heldOut;
    return o;
}

}  // namespace hs::test
