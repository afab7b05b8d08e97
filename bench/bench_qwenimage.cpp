// Qwen-Image transformer (diffusers QwenImageTransformer2DModel) against a plain-PyTorch port of
// it (bench/reference/qwenimage_reference.py) on the same weights, dtype and threads, measured
// side by side in one run: fp32, bf16 as oneDNN runs it (what Python's bf16 does; only where the
// CPU has bf16 instructions) and optionally fp16 / bf16 emulated, each with probes off vs layer
// level.
//   /usr/bin/python3 bench/reference/qwenimage_reference.py make DIR
//       (Qwen-Image's width with 1 of its 60 blocks; a 512 x 512 image, 256 text tokens)
//   bench_qwenimage DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed forwards of each kind per setting, after one warm-up (default 3)
//     --inputs     default DIR/inputs.safetensors
//     --emulated   also time fp16 and bf16 emulated (fp32 compute, every probe point rounded),
//                  Halfscope's CPU modes; Python has no counterpart
//     --compare    first check that the C++ fp32 output matches the port's (relative error
//                  <= 1e-4, qwenimage_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (qwenimage_reference.py serve) and the forwards alternate:
// ours probes off, ours layer probes, the port's; so load from other programs on a shared
// machine hits all three alike. Medians of wall and process CPU time; ours/theirs compares
// probes off with the port. Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
#include <cstdio>
#include <string>

#include "port_bench.h"

using namespace hs;

int main(int argc, char** argv) {
    bench::PortBench b;
    if (!b.start(argc, argv, "bench_qwenimage", "qwenimage_reference.py", 3)) return 2;
    b.describe("Qwen-Image transformer", "%s, %lld image tokens, %lld text tokens",
               b.ditShape().c_str(), (long long)b.model.in.at("in.hidden_states").size(1),
               (long long)b.model.in.at("in.encoder_hidden_states").size(1));
    return b.run("out.sample", "qwenimage", /*emulatedFp16=*/true);
}
