// Block-by-block weight streaming on a full-width Flux transformer: one forward fully loaded vs
// streamed (HALFSCOPE_MEMORY_LIMIT_MB below the weights), each in a fresh child process so its
// peak resident memory is its own; prints peak RSS growth, ms per block and the ratios.
//   bench_stream [doubles=2] [singles=2] [text_tokens=64]
// Shape: FLUX.1's width (3072 = 24 heads x 128, MLP ratio 4, in_channels 64, joint_attention_dim
// 4096, pooled 768) with a few blocks, bf16 weights in a temporary safetensors file; 16 x 16
// packed latents (a 256 x 256 image: 256 image tokens) and `text_tokens` text tokens (FLUX.1
// uses 512; too slow on 2 cores). The plan is transformer=bf16 (emulated on CPUs without bf16
// instructions: fp32 tensors).
#include <limits.h>
#include <time.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "io/safetensors.h"
#include "families/flux/flux_family.h"
#include "families/flux/flux_latents.h"
#include "pipeline/memory_check.h"
#include "runtime/runtime.h"

using namespace hs;

namespace {

nlohmann::json benchConfig(int doubles, int singles) {
    return {{"_class_name", "FluxTransformer2DModel"},
            {"patch_size", 1},
            {"in_channels", 64},
            {"num_layers", doubles},
            {"num_single_layers", singles},
            {"attention_head_dim", 128},
            {"num_attention_heads", 24},
            {"joint_attention_dim", 4096},
            {"pooled_projection_dim", 768},
            {"guidance_embeds", true},
            {"axes_dims_rope", {16, 56, 56}}};
}

// Random bf16 weights of the config's shapes (norm scales around 1), written tensor by tensor
// from a model built on the meta device, so nothing but the file's bytes is ever allocated.
void writeWeights(const nlohmann::json& config, const std::string& path) {
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    {
        nn::MetaConstruction meta;
        FluxTransformer shapes(FluxConfig::fromJson(config));
        for (auto& kv : stateOf(*shapes)) tensors.emplace_back(kv.first, kv.second);
    }
    torch::manual_seed(3);
    for (auto& [name, t] : tensors) {
        const auto shape = t.sizes().vec();
        const double scale = 1.0 / std::sqrt(double(shape.back()));
        t = name.find("norm") != std::string::npos
                ? (1 + 0.1 * torch::randn(shape)).to(torch::kBFloat16)
                : (scale * torch::randn(shape)).to(torch::kBFloat16);
    }
    writeSafetensors(path, tensors);
}

uint64_t statusKb(const char* key) {
    std::ifstream f("/proc/self/status");
    for (std::string line; std::getline(f, line);)
        if (line.rfind(key, 0) == 0) return std::stoull(line.substr(std::strlen(key)));
    return 0;
}

// The child: loads `dir`'s model in the mode the memory check chooses, runs one forward and
// prints "peak_growth_mb forward_ms materialise_ms materialisations description".
int child(const std::string& dir, int doubles, int singles, int textTokens) {
    torch::NoGradGuard noGrad;
    const auto config = benchConfig(doubles, singles);
    const WeightMap weights = weightMapOf(TensorSet::open(dir + "/model.safetensors"));
    const PrecisionPolicy policy(PrecisionPlan::parse("transformer=bf16"), torch::kCPU);
    const auto family = FamilyRegistry::global().require("FluxTransformer2DModel", "bench");
    torch::manual_seed(4);
    const NamedTensors inputs = {
        {"in.hidden_states", packLatents(torch::randn({1, 16, 32, 32}))},  // [1, 256, 64]
        {"in.encoder_hidden_states", torch::randn({1, textTokens, 4096})},
        {"in.pooled_projections", torch::randn({1, 768})},
        {"in.timestep", torch::full({1}, 0.7f)},
        {"in.guidance", torch::full({1}, 3.5f)},
        {"in.img_ids", prepareLatentImageIds(16, 16)},
        {"in.txt_ids", prepareTextIds(textTokens)}};
    { std::ofstream("/proc/self/clear_refs") << "5"; }  // the peak starts here
    const uint64_t baseline = statusKb("VmRSS:");
    const std::vector<ComponentWeights> parts = {{"transformer", &weights, family->blockStems}};
    const auto choice = chooseLoadModes(dir, parts, policy);
    auto c =
        loadComponent(*family, {dir, config, weights}, policy, "transformer", choice.modes.at(0));
    ProbeContext probes(policy, ProbeLevel::Off);
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = c->run(inputs, probes).at("out.sample");
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    TORCH_CHECK(torch::isfinite(out).all().item<bool>(), "non-finite output");
    const uint64_t peak = statusKb("VmHWM:");
    double convertMs = 0;
    int64_t conversions = 0;
    if (auto* s = c->streamedBlocks(); s && s->weightStream()) {
        convertMs = s->weightStream()->materialiseMs();
        conversions = s->weightStream()->materialisations();
    }
    std::printf("%.1f %.1f %.1f %lld %s\n", double(peak - baseline) * 1024 / 1e6, ms, convertMs,
                static_cast<long long>(conversions), choice.description.c_str());
    return 0;
}

struct Result {
    double peakMb = 0, forwardMs = 0, convertMs = 0;
    long long conversions = 0;
    std::string description;
};

Result runChild(const std::string& self, const std::string& dir, const std::string& limit,
                int doubles, int singles, int text) {
    const std::string cmd = "env HALFSCOPE_MEMORY_LIMIT_MB=" + limit + " '" + self + "' --child '" +
                            dir + "' " + std::to_string(doubles) + " " + std::to_string(singles) +
                            " " + std::to_string(text);
    FILE* p = popen(cmd.c_str(), "r");
    Result r;
    char line[4096] = {0};
    if (!p || !std::fgets(line, sizeof line, p)) {
        std::fprintf(stderr, "child failed: %s\n", cmd.c_str());
        std::exit(1);
    }
    pclose(p);
    int used = 0;
    std::sscanf(line, "%lf %lf %lf %lld %n", &r.peakMb, &r.forwardMs, &r.convertMs, &r.conversions,
                &used);
    r.description = std::string(line + used);
    if (!r.description.empty() && r.description.back() == '\n') r.description.pop_back();
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int threads = configureRuntime();
    if (argc >= 6 && std::string(argv[1]) == "--child")
        return child(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
    const int doubles = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
    const int singles = argc > 2 ? std::max(1, std::atoi(argv[2])) : 2;
    const int text = argc > 3 ? std::max(1, std::atoi(argv[3])) : 64;
    char self[PATH_MAX] = {0};
    if (::readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;

    const auto dir = std::filesystem::temp_directory_path() /
                     ("halfscope-bench-stream-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    writeWeights(benchConfig(doubles, singles), (dir / "model.safetensors").string());
    const WeightMap weights = weightMapOf(TensorSet::open((dir / "model.safetensors").string()));
    const PrecisionPolicy policy(PrecisionPlan::parse("transformer=bf16"), torch::kCPU);
    const std::vector<ComponentWeights> parts = {
        {"transformer", &weights, {"transformer_blocks.", "single_transformer_blocks."}}};
    const uint64_t whole = weightBytes(parts, policy);
    // The streamed need (non-block weights + the largest block, a quarter more for activations)
    // and 10% more: well below what a full load needs, so the memory check streams.
    uint64_t blocks = 0, largest = 0;
    for (const auto& prefix : blockPrefixesOf(weights, parts[0].blockStems)) {
        const uint64_t b = tensorBytes(weights, "transformer", policy, prefix);
        blocks += b;
        largest = std::max(largest, b);
    }
    const uint64_t need = (whole - blocks + largest) * 5 / 4;
    const std::string limit = std::to_string(need * 11 / 10 / 1000000);

    std::printf(
        "Flux at full width (3072 = 24 x 128), %d double + %d single blocks, bf16 stored (%.2f "
        "GB), plan transformer=bf16 (%.2f GB held), 256 image + %d text tokens, %d threads\n",
        doubles, singles, double(storedBytes(weights)) / 1e9, double(whole) / 1e9, text, threads);
    // A limit far above the weights, so the full child loads whole whatever else runs here.
    const Result full = runChild(self, dir.string(), "1000000", doubles, singles, text);
    const Result streamed = runChild(self, dir.string(), limit, doubles, singles, text);
    const int nBlocks = doubles + singles;
    std::printf("%-9s %12s %12s %14s  %s\n", "mode", "peak RSS MB", "ms/block", "convert ms/blk",
                "memory check");
    for (const auto* r : {&full, &streamed})
        std::printf("%-9s %12.1f %12.1f %14.1f  %s\n", r == &full ? "full" : "streamed", r->peakMb,
                    r->forwardMs / nBlocks,
                    r->conversions ? r->convertMs / double(r->conversions) : 0.0,
                    r->description.c_str());
    std::printf("streamed / full: peak RSS %.3fx, time per block %.3fx (limit %s MB)\n",
                streamed.peakMb / full.peakMb, streamed.forwardMs / full.forwardMs, limit.c_str());
    std::filesystem::remove_all(dir);
    return 0;
}
