// UNet2DConditionModel (diffusers, SD 1.5's widths) against a plain-PyTorch port of it
// (bench/reference/unet_reference.py) on the same weights, dtype and threads, measured side by
// side in one run: fp32, bf16 as oneDNN runs it (what Python's bf16 does; only where the CPU has
// bf16 instructions) and optionally the emulated formats, each with probes off vs layer level.
//   bench_unet [DIR] [runs] [--emulated] [--compare] [--no-python]
//     DIR          default /tmp/halfscope_bench_unet; made when it holds no config.json with
//                  /usr/bin/python3 bench/reference/unet_reference.py make DIR
//                  (block_out_channels [320, 640, 1280, 1280], 8 heads, 1 resnet per block,
//                  768-wide context of 77 tokens, a 2 x 4 x 32 x 32 latent: a guided step of a
//                  256 x 256 image; `make DIR --layers 2 --size 64` gives SD 1.5 at 512 x 512)
//     runs         timed forwards of each kind per setting, after one warm-up (default 3)
//     --emulated   also time fp16 and bf16 emulated (fp32 compute, every probe point rounded),
//                  Halfscope's CPU fp16; Python has no counterpart
//     --compare    first check that the C++ fp32 output matches the port's (relative error
//                  <= 1e-4, unet_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (unet_reference.py serve: OMP_NUM_THREADS = our threads,
// passive waits, weights loaded once) and the forwards alternate: ours probes off, ours layer
// probes, the port's; so load from other programs on a shared machine hits all three alike.
// Medians of wall and process CPU time; ours/theirs compares probes off with the port.
// Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "port_bench.h"

using namespace hs;

namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    bench::PortBench b;
    if (!b.start(argc, argv, "bench_unet", "unet_reference.py", 3, /*load=*/false,
                 "/tmp/halfscope_bench_unet"))
        return 2;
    const bench::PortBenchArgs& args = b.args;
    if (!exists(args.dir + "/config.json")) {
        std::printf("making %s (random weights, SD 1.5 widths)...\n", args.dir.c_str());
        std::fflush(stdout);
        std::string text;
        if (bench::Port(b.script, {"make", args.dir}, b.threads).finish(&text) != 0) {
            std::printf("%s", text.c_str());
            return 1;
        }
    }
    b.load();
    const auto& c = b.model.folder.config;
    const auto sample = b.model.in.at("in.sample");
    const auto ctx = b.model.in.at("in.encoder_hidden_states");
    std::printf(
        "UNet2DConditionModel %s: block_out_channels %s, %d resnets per block, heads %s, "
        "sample %lld x %lld x %lld x %lld, context %lld x %lld, %d threads, median of %d runs\n",
        args.dir.c_str(), c["block_out_channels"].dump().c_str(), c.value("layers_per_block", 0),
        c["attention_head_dim"].dump().c_str(), (long long)sample.size(0),
        (long long)sample.size(1), (long long)sample.size(2), (long long)sample.size(3),
        (long long)ctx.size(1), (long long)ctx.size(2), b.threads, args.runs);
    return b.run("out.sample", "unet", /*emulatedFp16=*/true);
}
