// Qwen text encoder (transformers Qwen3Model / Qwen2Model) against a plain-PyTorch port of it
// (bench/reference/qwen_reference.py) on the same weights, dtype and threads, measured side by
// side in one run: fp32, bf16 as oneDNN runs it (only where the CPU has bf16 instructions) and
// optionally bf16 emulated, each with probes off vs layer level.
//   /usr/bin/python3 bench/reference/qwen_reference.py make DIR   (Qwen3-0.6B widths, 4 layers)
//   bench_qwen DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed forwards of each kind per setting, after one warm-up (default 5)
//     --inputs     default DIR/inputs.safetensors (512 tokens, 100 of them right padding)
//     --emulated   also time bf16 emulated (fp32 compute, every probe point rounded to bf16)
//     --compare    first check that the C++ fp32 outputs match the port's (worst relative
//                  error <= 1e-4, qwen_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (qwen_reference.py serve) and the forwards alternate: ours
// probes off, ours layer probes, the port's; medians of wall and process CPU time.
// Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
#include <cstdio>
#include <string>

#include "port_bench.h"

using namespace hs;

int main(int argc, char** argv) {
    bench::PortBench b;
    if (!b.start(argc, argv, "bench_qwen", "qwen_reference.py", 5)) return 2;
    const auto& c = b.model.folder.config;
    b.describe(b.model.folder.className.c_str(),
               "hidden %d, MLP %d, %d query / %d key-value heads x %d, %d layers, %s",
               c.value("hidden_size", 0), c.value("intermediate_size", 0),
               c.value("num_attention_heads", 0), c.value("num_key_value_heads", 0),
               c.value("head_dim", 0), c.value("num_hidden_layers", 0), b.tokenBatch().c_str());
    // --compare checks every output (the port's compare takes the worst)
    return b.run("", "qwen");
}
