// halfscope-cli train-demo: trains the embedded demo model on CPU.
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>

#include "cli/command.h"
#include "demo/trainer.h"
#include "io/terminal_text.h"

namespace hs::cli {
namespace {

std::atomic<bool> g_trainInterrupted{false};
extern "C" void onSignal(int) {
    g_trainInterrupted.store(true);
}

int runTrainDemo(const Args& args) {
    args.allowOnly({"out", "base", "dit-lr", "vae-lr", "minutes", "resume", "seed", "vae-steps",
                    "dit-steps", "vae-batch", "dit-batch", "encoded-scenes", "decoder-steps",
                    "decoder-batch", "decoder-lr", "object-weight", "json"});
    demo::TrainOptions o;
    o.outDir = args.require("out");
    o.base = args.get("base").value_or("");
    o.ditLr = args.getDouble("dit-lr", o.ditLr);
    o.vaeLr = args.getDouble("vae-lr", o.vaeLr);
    o.minutes = args.getDouble("minutes", 0);
    o.resume = args.has("resume");
    o.seed = uint64_t(args.getInt("seed", int(o.seed)));
    o.vaeSteps = args.getInt("vae-steps", o.vaeSteps);
    o.ditSteps = args.getInt("dit-steps", o.ditSteps);
    o.vaeBatch = args.getInt("vae-batch", o.vaeBatch);
    o.ditBatch = args.getInt("dit-batch", o.ditBatch);
    o.encodedScenes = args.getInt("encoded-scenes", o.encodedScenes);
    o.decoderSteps = args.getInt("decoder-steps", o.decoderSteps);
    o.decoderBatch = args.getInt("decoder-batch", o.decoderBatch);
    o.decoderLr = args.getDouble("decoder-lr", o.decoderLr);
    o.objectWeight = args.getDouble("object-weight", o.objectWeight);
    const int leastRefitSteps = o.base.empty() ? 1 : 0;
    if (o.vaeSteps < leastRefitSteps || o.ditSteps < leastRefitSteps || o.vaeBatch < 1 ||
        o.ditBatch < 1 || o.decoderSteps < 0 || o.decoderBatch < 1 ||
        o.encodedScenes < o.ditBatch || !(o.ditLr > 0 && o.ditLr < 1) ||
        !(o.vaeLr > 0 && o.vaeLr < 1) || !(o.decoderLr > 0 && o.decoderLr < 1) ||
        !(o.objectWeight >= 1 && o.objectWeight <= 100))
        throw UsageError(
            "step counts and batch sizes must be positive (--decoder-steps may be "
            "0, and --vae-steps and --dit-steps with --base), --encoded-scenes at least "
            "--dit-batch, and the learning rates in (0, 1), --object-weight in [1, 100]");
    const auto t0 = std::chrono::steady_clock::now();
    o.log = [t0](const std::string& line) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "[%7.1f s] %s\n", s, printable(line).c_str());
    };
    g_trainInterrupted = false;
    o.cancel = &g_trainInterrupted;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
#ifdef SIGBREAK
    std::signal(SIGBREAK, onSignal);  // Windows' Ctrl-Break (app/cli/main.cpp)
#endif
    const auto r = demo::trainDemo(o);
    if (!r.finished) {
        std::cerr << (g_trainInterrupted ? "interrupted" : "time limit reached")
                  << ": state saved; continue with --resume\n";
        return kExitOk;
    }
    std::cout << "demo model written to " << r.exportedDir << "\n";
    return kExitOk;
}

const Registrar kTrainDemoCommand(
    {"train-demo",
     "train the embedded demo model on CPU",
     "usage: halfscope-cli train-demo --out DIR [--base DIR] [--minutes N]\n"
     "                                [--resume] [--dit-lr LR] [--vae-lr LR]\n"
     "                                [--seed S] [--vae-steps N] [--dit-steps N]\n"
     "                                [--vae-batch N] [--dit-batch N]\n"
     "                                [--encoded-scenes N] [--decoder-steps N]\n"
     "                                [--decoder-batch N] [--decoder-lr LR]\n"
     "                                [--object-weight W] [--threads N]\n\n"
     "Trains the VAE, then the text encoder and transformer (rectified flow,\n"
     "10% caption dropout), then the VAE decoder alone (object pixels weighted\n"
     "10x), and writes a bf16 pipeline folder to DIR. Progress\n"
     "goes to stderr. The training state is saved every 5 minutes, on Ctrl-C and\n"
     "when --minutes runs out, in DIR.train-state; --resume continues from it.\n"
     "Deterministic given the seed and the step counts.\n"
     "--object-weight W weighs the transformer's loss on the latent pixels\n"
     "the objects cover W times (default 1: uniform).\n\n"
     "--base DIR refits a trained demo pipeline folder instead: its transformer\n"
     "and latent space stay, its text encoder moves to this grammar's vocabulary\n"
     "(token rows by string, new words from a synonym), the VAE phase teaches\n"
     "this VAE the base's latents, and the transformer phase fine-tunes; the\n"
     "decoder phase draws whole pictures from the base's latents. With\n"
     "--vae-steps 0 --dit-steps 0 only the decoder is refitted.\n",
     runTrainDemo,
     {"resume"}});

}  // namespace
}  // namespace hs::cli
