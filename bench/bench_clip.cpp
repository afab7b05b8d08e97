// CLIP-L-sized text encoding (hidden 768, 12 layers, 77 tokens, batch 2, random weights):
// fp32 vs bf16, probes off vs layer level, measured side by side in one run.
//   bench_clip [runs]   (default 3 timed runs after one warm-up)
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "families/clip/clip_run.h"
#include "runtime/runtime.h"

using namespace hs;

namespace {

double timeMs(ClipTextModel& model, const NamedTensors& in, ProbeContext& probes, int runs) {
    runClipText(model, in, probes);  // warm-up
    probes.takeRecords();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) {
        runClipText(model, in, probes);
        probes.takeRecords();
    }
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count() / runs;
}

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int threads = configureRuntime();
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    torch::NoGradGuard noGrad;
    const nlohmann::json config = {{"vocab_size", 49408},
                                   {"hidden_size", 768},
                                   {"intermediate_size", 3072},
                                   {"num_attention_heads", 12},
                                   {"num_hidden_layers", 12},
                                   {"max_position_embeddings", 77},
                                   {"hidden_act", "quick_gelu"},
                                   {"eos_token_id", 2},
                                   {"architectures", {"CLIPTextModel"}}};
    torch::manual_seed(0);
    WeightMap weights;
    {
        ClipTextModel init(clipTextConfigFromJson(config));
        nn::initialiseForTraining(*init);
        for (auto& kv : stateOf(*init)) {
            const bool normWeight = kv.first.find("norm") != std::string::npos &&
                                    kv.first.find(".weight") != std::string::npos;
            weights.emplace(kv.first, normWeight ? torch::ones(kv.second.sizes())
                                                 : 0.02 * torch::randn(kv.second.sizes()));
        }
    }
    auto ids = torch::randint(0, 49406, {2, 77}, torch::kInt64);  // [2, 77]
    ids.select(1, 0).fill_(49406);
    ids.select(1, 76).fill_(49407);
    const NamedTensors in = {{"in.input_ids", ids}};

    std::printf(
        "CLIP text encoder, hidden 768, 12 layers, batch 2 x 77 tokens, %d threads, "
        "mean of %d runs\n",
        threads, runs);
    double ms[2][2];
    const char* formats[2] = {"fp32", "bf16"};
    const ProbeLevel levels[2] = {ProbeLevel::Off, ProbeLevel::Layer};
    for (int f = 0; f < 2; ++f) {
        for (int l = 0; l < 2; ++l) {
            ProbeContext probes(PrecisionPlan::parse(std::string("text_encoder=") + formats[f]),
                                torch::kCPU, levels[l]);
            ClipTextModel model = loadClipText(config, weights, probes.policy());
            ms[f][l] = timeMs(model, in, probes, runs);
            std::printf("  %s, probes %-5s: %8.1f ms\n", formats[f],
                        probeLevelName(levels[l]).c_str(), ms[f][l]);
        }
    }
    std::printf("bf16 / fp32 (probes off): %.2f\n", ms[1][0] / ms[0][0]);
    std::printf("layer probes / off: fp32 %.2f, bf16 %.2f\n", ms[0][1] / ms[0][0],
                ms[1][1] / ms[1][0]);
    return 0;
}
