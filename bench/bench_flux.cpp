// Flux block stack on the CPU: fp32, bf16 and emulated fp16, probes off vs layer level, measured
// side by side in one run (interleaved repetitions, medians of wall and process CPU time), with
// the probe-cost ratio.
//   bench_flux [repetitions=5] [heads=3]
// Shape: 1024 image tokens (a 64 x 64 latent packed 2 x 2) + 256 text tokens, heads x 64 wide,
// 2 double-stream + 4 single-stream blocks (FLUX.1 has 19 + 38 at 24 x 128).
#include <time.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "families/flux/flux_latents.h"
#include "families/flux/flux_transformer.h"
#include "runtime/runtime.h"

using namespace hs;
using hs::bench::cpuMs;
using hs::bench::median;

namespace {

nlohmann::json benchConfig(int heads) {
    return {{"patch_size", 1},
            {"in_channels", 64},
            {"num_layers", 2},
            {"num_single_layers", 4},
            {"attention_head_dim", 64},
            {"num_attention_heads", heads},
            {"joint_attention_dim", 256},
            {"pooled_projection_dim", 64},
            {"guidance_embeds", true},
            {"axes_dims_rope", {16, 24, 24}}};
}

WeightMap randomWeights(const nlohmann::json& config) {
    torch::manual_seed(3);
    FluxTransformer m(FluxConfig::fromJson(config));
    nn::initialiseForTraining(*m);
    WeightMap w;
    for (auto& kv : stateOf(*m)) {
        torch::Tensor t = kv.second.detach().clone();
        if (kv.first.find(".norm_") != std::string::npos) t = 1 + 0.1 * torch::randn_like(t);
        w.emplace(kv.first, t);
    }
    return w;
}

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int threads = configureRuntime();
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const int heads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    torch::NoGradGuard noGrad;

    const auto config = benchConfig(heads);
    const WeightMap weights = randomWeights(config);
    torch::manual_seed(4);
    FluxInputs in;
    in.hiddenStates = packLatents(torch::randn({1, 16, 64, 64}));  // [1, 1024, 64]
    in.encoderHiddenStates = torch::randn({1, 256, 256});          // [1, 256, 256]
    in.pooledProjections = torch::randn({1, 64});
    in.timestep = torch::full({1}, 0.7f);
    in.guidance = torch::full({1}, 3.5f);
    in.imgIds = prepareLatentImageIds(32, 32);
    in.txtIds = prepareTextIds(256);

    std::printf(
        "Flux stack: %d x 64 wide (D = %d), 2 double + 4 single blocks, 1024 image + 256 "
        "text tokens, %d threads, %d repetitions (median)\n",
        heads, heads * 64, threads, reps);
    std::printf("%-6s %-9s %9s %9s %7s | %9s %9s %7s | %7s\n", "format", "execution", "wall off",
                "layer", "ratio", "cpu off", "layer", "ratio", "records");
    for (const char* fmt : {"fp32", "bf16", "fp16"}) {
        const auto plan = PrecisionPlan::parse(std::string("transformer=") + fmt);
        ProbeContext off(plan, torch::kCPU, ProbeLevel::Off);
        ProbeContext layer(plan, torch::kCPU, ProbeLevel::Layer);
        auto model = loadFluxTransformer(config, weights, off.policy());
        model->forward(in, off);  // warm-up (allocator, oneDNN primitives)
        model->forward(in, layer);
        layer.takeRecords();
        std::vector<double> tOff, tLayer, cOff, cLayer;
        size_t records = 0;
        for (int r = 0; r < reps; ++r) {  // interleaved, so load changes hit both alike
            for (int which = 0; which < 2; ++which) {
                ProbeContext& p = which ? layer : off;
                const double c0 = cpuMs();
                auto t0 = std::chrono::steady_clock::now();
                auto y = model->forward(in, p);
                auto dt = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - t0);
                (which ? cLayer : cOff).push_back(cpuMs() - c0);
                (which ? tLayer : tOff).push_back(dt.count());
                if (which) records = p.takeRecords().size();
                TORCH_CHECK(torch::isfinite(y).all().item<bool>(), "non-finite output in ", fmt);
            }
        }
        const double a = median(tOff), b = median(tLayer), ca = median(cOff), cb = median(cLayer);
        std::printf("%-6s %-9s %9.1f %9.1f %6.3fx | %9.1f %9.1f %6.3fx | %7zu\n", fmt,
                    executionName(off.policy().executionFor("transformer")).c_str(), a, b, b / a,
                    ca, cb, cb / ca, records);
    }
    return 0;
}
