#pragma once
// Trains the embedded demo model on CPU: the VAE first, then the text encoder and the
// transformer together with the rectified-flow (velocity) objective and 10% caption dropout,
// then the VAE decoder once more on its own; exports a bf16 diffusers-style pipeline folder
// with massive activations (see massive_activations.h). Deterministic given the seed and the
// step counts; resumable.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace hs::demo {

struct TrainOptions {
    std::string outDir;
    // A trained demo pipeline folder to refit instead of training from scratch: its transformer
    // and latent space stay, its text encoder passes to this grammar's vocabulary row by row, the
    // VAE phase teaches this VAE the base's latents, and the transformer phase fine-tunes.
    std::string base;
    uint64_t seed = 20261130;
    // Sized to about an hour on two cores with bf16 instructions (a transformer step at batch 48
    // took 0.82 s, a VAE step on 64-pixel crops at batch 32 about 0.5 s).
    int vaeSteps = 2000;
    int vaeBatch = 32;
    double vaeLr = 1e-3;
    int ditSteps = 2800;
    int ditBatch = 48;
    double ditLr = 6e-4;
    double emaDecay = 0.999;
    double captionDropout = 0.1;
    // The flow loss's weight on latent pixels the objects cover (train_models.h); 1: uniform.
    double objectWeight = 1;
    int encodedScenes = 16384;  // scenes pre-encoded to latents for the transformer phase
    // Held-out scenes the VAE is measured on (PSNR, shapes read back) and the latent scaling and
    // RGB projection are fitted to, after the VAE phase and at export.
    int heldOutScenes = 256;
    // Then the VAE decoder alone (encoder frozen, so the transformer's latents keep their
    // meaning), with the loss weighted towards the objects: after the first phase small white
    // objects came back yellow and black ones dark red (see trainer.cpp).
    int decoderSteps = 600;
    int decoderBatch = 32;
    double decoderLr = 3e-4;
    double minutes = 0;  // wall-clock cap for this invocation (0: none)
    bool resume = false;
    double checkpointMinutes = 5;
    double residualScaleTransformer = 0;          // 0: the power of two that takes the trained peak
    double residualScaleVae = 0;                  // past 2^17 (residual_calibration.h)
    std::function<void(const std::string&)> log;  // progress lines
    const std::atomic<bool>* cancel = nullptr;    // checked every step: save and return
};

struct TrainResult {
    bool finished = false;  // every step done and the pipeline exported
    int vaeStepsDone = 0;
    int ditStepsDone = 0;
    int decoderStepsDone = 0;
    double vaePsnr = 0;    // on held-out scenes, after the VAE phase
    double vaeShapes = 0;  // LatentStatistics::heldOutShapes at the end
    std::string exportedDir;
};

// Throws std::runtime_error for an unusable output folder or a resume state that does not match.
TrainResult trainDemo(const TrainOptions& options);

}  // namespace hs::demo
