// T5 encoder (transformers T5EncoderModel) against a plain-PyTorch port of it
// (bench/reference/t5_reference.py) on the same weights, dtype and threads, measured side by side
// in one run: fp32, bf16 as oneDNN runs it (what Python's bf16 does; only where the CPU has bf16
// instructions) and optionally bf16 emulated, each with probes off vs layer level.
//   /usr/bin/python3 bench/reference/t5_reference.py make DIR   (T5 v1.1 XXL width, 2 blocks)
//   bench_t5 DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed forwards of each kind per setting, after one warm-up (default 5)
//     --inputs     default DIR/inputs.safetensors (no mask, as FluxPipeline encodes);
//                  DIR/inputs_masked.safetensors adds the attention mask
//     --emulated   also time bf16 emulated (fp32 compute, every probe point rounded to bf16),
//                  Halfscope's CPU default; Python has no counterpart
//     --compare    first check that the C++ fp32 output matches the port's (relative error
//                  <= 1e-4, t5_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (t5_reference.py serve: OMP_NUM_THREADS = our threads,
// passive waits, weights loaded once) and the forwards alternate: ours probes off, ours layer
// probes, the port's; so load from other programs on a shared machine hits all three alike.
// Medians of wall and process CPU time; ours/theirs compares probes off with the port.
// Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
#include <cstdio>
#include <string>

#include "port_bench.h"

using namespace hs;

int main(int argc, char** argv) {
    bench::PortBench b;
    if (!b.start(argc, argv, "bench_t5", "t5_reference.py", 5)) return 2;
    const auto& c = b.model.folder.config;
    b.describe("T5 encoder", "d_model %d, d_ff %d, %d heads x %d, %d layers, %s",
               c.value("d_model", 0), c.value("d_ff", 0), c.value("num_heads", 0),
               c.value("d_kv", 0), c.value("num_layers", 0), b.tokenBatch().c_str());
    return b.run("out.last_hidden_state", "t5");
}
