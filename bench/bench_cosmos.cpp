// Cosmos transformer (diffusers CosmosTransformer3DModel, Cosmos-Predict2 / Anima's denoiser)
// against a plain-PyTorch port of it (bench/reference/cosmos_reference.py) on the same weights,
// dtype and threads, measured side by side in one run: fp32, bf16 as oneDNN runs it (what
// Python's bf16 does; only where the CPU has bf16 instructions) and optionally bf16 emulated,
// each with probes off vs layer level.
//   /usr/bin/python3 bench/reference/cosmos_reference.py make DIR
//       (Cosmos-Predict2-2B's width with 2 of its 28 blocks; a 512 x 512 image, 512 text tokens)
//   bench_cosmos DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed forwards of each kind per setting, after one warm-up (default 3)
//     --inputs     default DIR/inputs.safetensors
//     --emulated   also time bf16 emulated (fp32 compute, every probe point rounded to bf16),
//                  Halfscope's CPU default; Python has no counterpart
//     --compare    first check that the C++ fp32 output matches the port's (relative error
//                  <= 1e-4, cosmos_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (cosmos_reference.py serve) and the forwards alternate:
// ours probes off, ours layer probes, the port's; so load from other programs on a shared
// machine hits all three alike. Medians of wall and process CPU time; ours/theirs compares
// probes off with the port. Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
#include <cstdio>
#include <string>

#include "models/common/weights.h"
#include "port_bench.h"

using namespace hs;

int main(int argc, char** argv) {
    bench::PortBench b;
    if (!b.start(argc, argv, "bench_cosmos", "cosmos_reference.py", 3)) return 2;
    b.describe("Cosmos transformer", "%s, mlp_ratio %.1f, latents %s, %lld text tokens",
               b.ditShape().c_str(), b.model.folder.config.value("mlp_ratio", 0.0),
               shapeText(b.model.in.at("in.hidden_states").sizes()).c_str(),
               (long long)b.model.in.at("in.encoder_hidden_states").size(1));
    return b.run("out.sample", "cosmos");
}
