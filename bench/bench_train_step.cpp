// One training step of the demo model's text encoder + transformer (rectified flow, bf16
// autocast, AdamW) and of its VAE, on random latents / scenes: seconds per step, so recipe
// changes are measured before a two-hour training run.
//   bench_train_step [steps=6] [dit_batch=128] [vae_batch=32]
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "demo/adamw.h"
#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/demo_config.h"
#include "demo/demo_tokenizer.h"
#include "demo/train_models.h"
#include "runtime/runtime.h"

using namespace hs;
using namespace hs::demo;
using Clock = std::chrono::steady_clock;

namespace {

template <typename F>
double secondsPerStep(int steps, F&& step) {
    step();  // warm-up: oneDNN primitive creation, allocator growth
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) step();
    return std::chrono::duration<double>(Clock::now() - t0).count() / steps;
}

}  // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 6;
    const int ditBatch = argc > 2 ? std::max(1, std::atoi(argv[2])) : 128;
    const int vaeBatch = argc > 3 ? std::max(1, std::atoi(argv[3])) : 32;
    const int threads = configureRuntime(0);
    const auto dir = std::filesystem::temp_directory_path() / "halfscope-bench-tokenizer";
    const BpeVocabulary vocab = learnBpe(grammarWords());
    writeTokenizerFolder(dir.string(), vocab, kTextLength);
    torch::manual_seed(0);
    TrainModels m = makeTrainModels(vocab, dir.string());

    // The transformer phase's data: random "latents" and real captions.
    const int n = 1024;
    auto batch = makeBatch(1, n);
    EncodedSet data;
    data.latents = torch::randn({n, 4, 16, 16});
    data.scenes = batch.scenes;
    auto e = m.tokenizer.encodePadded("", kTextLength);
    data.emptyIds = torch::tensor(std::vector<int64_t>(e.begin(), e.end()), torch::kInt64);

    std::vector<std::pair<std::string, torch::Tensor>> ditParams, vaeParams;
    for (auto& p : m.textEncoder->named_parameters(true))
        ditParams.emplace_back(p.key(), p.value());
    for (auto& p : m.transformer->named_parameters(true))
        ditParams.emplace_back(p.key(), p.value());
    for (auto& p : m.vae->named_parameters(true)) vaeParams.emplace_back(p.key(), p.value());
    AdamW ditOpt(ditParams, {});
    AdamW vaeOpt(vaeParams, {});

    auto ditStep = [&] {
        ditOpt.zeroGrad();
        torch::Tensor loss;
        {
            AutocastBf16 ac;
            loss = flowMatchingLoss(m, data, ditBatch, 0.1);
        }
        loss.backward();
        ditOpt.step(1e-4);
    };
    const double dit = secondsPerStep(steps, ditStep);
    // HALFSCOPE_TRACE=FILE: one more transformer step under the LibTorch profiler (chrome trace).
    if (const char* trace = std::getenv("HALFSCOPE_TRACE")) {
        torch::autograd::profiler::RecordProfile guard(trace);
        ditStep();
    }
    auto images = makeBatch(2, vaeBatch).images;
    const double vae = secondsPerStep(steps, [&] {
        vaeOpt.zeroGrad();
        torch::Tensor loss;
        {
            AutocastBf16 ac;
            auto mom = m.vae->encode(images, m.probes);
            loss = (m.vae->decode(mom.mean, m.probes).to(torch::kFloat32) - images).abs().mean();
        }
        loss.backward();
        vaeOpt.step(1e-4);
    });
    std::printf("%d threads, %d timed steps after one warm-up\n", threads, steps);
    std::printf("  transformer + text encoder, batch %d: %.3f s/step (%.1f samples/s)\n", ditBatch,
                dit, ditBatch / dit);
    std::printf("  VAE, batch %d: %.3f s/step (%.1f samples/s)\n", vaeBatch, vae, vaeBatch / vae);
    std::filesystem::remove_all(dir);
    return 0;
}
