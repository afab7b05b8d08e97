// VAE decode of a 4x32x32 latent to a 256x256 image with the SD 1.x/2.x/SDXL VAE layout
// (block_out_channels [128, 256, 512, 512], 2 layers per block, mid-block attention, random
// weights): fp32 vs bf16, probes off vs layer level. Off and layer runs alternate, so load from
// other processes hits both alike; the median of the runs is reported, as wall time and as
// process CPU time (steadier than wall time on a shared machine).
//   bench_vae [runs] [--small] [--fp16]
//     runs     timed runs per setting after one warm-up (default 3)
//     --small  block_out_channels [64, 128, 256, 256] (a quarter of the FLOPs)
//     --fp16   also time fp16 (emulated on CPU: fp32 compute, every op output rounded)
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "families/vae/autoencoder_kl.h"
#include "runtime/runtime.h"

using namespace hs;
using hs::bench::cpuMs;
using hs::bench::median;

namespace {

struct Timing {
    double wall, cpu;
};

// One decode; the records are taken out afterwards (outside the timing) so they do not pile up.
Timing decodeMs(AutoencoderKL& model, const torch::Tensor& z, ProbeContext& probes) {
    const double c0 = cpuMs();
    const auto t0 = std::chrono::steady_clock::now();
    auto image = model->decode(z, probes);  // [1, 3, 256, 256]
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpuMs();
    (void)image;
    probes.takeRecords();
    return {std::chrono::duration<double, std::milli>(t1 - t0).count(), c1 - c0};
}

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int threads = configureRuntime();
    int runs = 3;
    bool small = false, fp16 = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--small"))
            small = true;
        else if (!std::strcmp(argv[i], "--fp16"))
            fp16 = true;
        else
            runs = std::max(1, std::atoi(argv[i]));
    }
    const std::vector<int> channels =
        small ? std::vector<int>{64, 128, 256, 256} : std::vector<int>{128, 256, 512, 512};
    const std::vector<std::string> down(4, "DownEncoderBlock2D"), up(4, "UpDecoderBlock2D");
    const nlohmann::json config = {{"block_out_channels", channels},
                                   {"down_block_types", down},
                                   {"up_block_types", up},
                                   {"layers_per_block", 2},
                                   {"latent_channels", 4},
                                   {"norm_num_groups", 32},
                                   {"sample_size", 256}};
    torch::manual_seed(0);
    WeightMap weights;
    {
        AutoencoderKL init(AutoencoderKLConfig::fromJson(config));
        nn::initialiseForTraining(*init);
        for (auto& kv : stateOf(*init)) weights.emplace(kv.first, kv.second.detach().clone());
    }
    const auto z = torch::randn({1, 4, 32, 32});  // [1, 4, 32, 32] decoder-space latents

    std::printf(
        "VAE decode 1x4x32x32 -> 1x3x256x256, block_out_channels [%d, %d, %d, %d], "
        "%d threads, median of %d runs\n",
        channels[0], channels[1], channels[2], channels[3], threads, runs);
    std::vector<std::string> formats{"fp32", "bf16"};
    if (fp16) formats.push_back("fp16");
    std::vector<double> off(formats.size());
    for (size_t f = 0; f < formats.size(); ++f) {
        ProbeContext pOff(PrecisionPlan::parse("vae=" + formats[f]), torch::kCPU, ProbeLevel::Off);
        ProbeContext pLayer(PrecisionPlan::parse("vae=" + formats[f]), torch::kCPU,
                            ProbeLevel::Layer);
        AutoencoderKL model = loadAutoencoderKL(config, weights, pOff.policy());
        decodeMs(model, z, pOff);  // warm-up (oneDNN primitive creation, allocator)
        std::vector<double> wOff, wLayer, cOff, cLayer;
        const size_t records = (model->decode(z, pLayer), pLayer.takeRecords().size());
        for (int r = 0; r < runs; ++r) {
            const Timing a = decodeMs(model, z, pOff);
            const Timing b = decodeMs(model, z, pLayer);
            wOff.push_back(a.wall), cOff.push_back(a.cpu);
            wLayer.push_back(b.wall), cLayer.push_back(b.cpu);
        }
        off[f] = median(wOff);
        std::printf(
            "  %-4s%s wall: off %8.1f ms, layer %8.1f ms, ratio %.3f | cpu: off %8.1f ms, "
            "layer %8.1f ms, ratio %.3f (%zu records)\n",
            formats[f].c_str(), formats[f] == "fp16" ? " (emulated)" : "", off[f], median(wLayer),
            median(wLayer) / off[f], median(cOff), median(cLayer), median(cLayer) / median(cOff),
            records);
    }
    std::printf("bf16 / fp32 (probes off): %.2f\n", off[1] / off[0]);
    return 0;
}
