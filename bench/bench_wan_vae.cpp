// Wan 2.1 / Qwen-Image VAE decode (diffusers AutoencoderKLQwenImage / AutoencoderKLWan, one
// frame) against the plain-PyTorch port (bench/reference/wan_vae_reference.py, which runs
// diffusers' causal Conv3d kernels over the zero-padded frame) on the same weights, dtype and
// threads, side by side in one run: fp32, bf16 as oneDNN runs it (only where the CPU has bf16
// instructions) and optionally bf16 emulated, each with probes off vs layer level.
//   /usr/bin/python3 bench/reference/wan_vae_reference.py make DIR   (Qwen-Image widths, 32x32)
//   bench_wan_vae DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed decodes of each kind per setting, after one warm-up (default 3)
//     --inputs     default DIR/inputs.safetensors (in.z [1, 16, 1, 32, 32] -> 256x256)
//     --emulated   also time bf16 emulated (fp32 compute, every probe point rounded to bf16)
//     --compare    first check that the C++ fp32 output matches the port's (<= 1e-4)
//     --no-python  C++ timings only
// The port runs in a second process (serve: OMP_NUM_THREADS = our threads, passive waits,
// weights loaded once) and the decodes alternate: ours probes off, ours layer probes, the
// port's. Medians of wall and process CPU time; ours/theirs compares probes off with the port.
#include <cstdio>
#include <string>

#include "models/common/weights.h"
#include "port_bench.h"

using namespace hs;

int main(int argc, char** argv) {
    bench::PortBench b;
    if (!b.start(argc, argv, "bench_wan_vae", "wan_vae_reference.py", 3)) return 2;
    auto& m = b.model;
    m.in = NamedTensors{{"in.z", m.in.at("in.z")}};  // decode only
    std::printf("%s %s: base_dim %d, z_dim %d, decode %s, %d threads, median of %d runs\n",
                m.folder.className.c_str(), b.args.dir.c_str(),
                m.folder.config.value("base_dim", 96), m.folder.config.value("z_dim", 16),
                shapeText(m.in.at("in.z").sizes()).c_str(), b.threads, b.args.runs);
    return b.run("out.decode.sample", "wan_vae", /*emulatedFp16=*/false,
                 /*targetsSummary=*/false);
}
