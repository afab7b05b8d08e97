// halfscope-cli reproduce: how an image was made, read from its metadata (ComfyUI's graph, an
// A1111 / Forge infotext). Reading only, for now: --dry-run.
#include <iostream>

#include "cli/command.h"
#include "reproduce/reproduce.h"

namespace hs::cli {

namespace {

int runReproduce(const Args& args) {
    args.allowOnly({"json", "dry-run"});
    if (args.positional().size() != 1) throw UsageError("expected one IMAGE (a PNG file)");
    if (!args.has("dry-run")) {
        std::cerr << "halfscope-cli reproduce: running an image's settings is not implemented "
                     "yet; --dry-run reads and prints them\n";
        return kExitUsage;
    }
    const ReproduceSettings s = readReproduceSettings(args.positional()[0]);
    if (args.has("json"))
        std::cout << toJson(s).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        std::cout << formatSettings(s);
    return kExitOk;
}

const Registrar kReproduceCommand({
    "reproduce",
    "read how an image was made (ComfyUI graph, A1111 / Forge infotext)",
    "usage: halfscope-cli reproduce IMAGE --dry-run [--json]\n"
    "\n"
    "Reads IMAGE's PNG text chunks: ComfyUI's API graph ('prompt'), else its UI workflow\n"
    "('workflow'), else an A1111 / Forge infotext ('parameters'), and prints the settings the\n"
    "image was made with: prompt, negative prompt, seed, steps, cfg, guidance, size, sampler\n"
    "and scheduler (ComfyUI's names: \"DPM++ 2M Karras\" is dpmpp_2m + karras), denoise when\n"
    "not 1, the model sampling's shift when the graph sets it; the model files it names; the\n"
    "number of sampling stages (base + refiner: 2, the first is the one reproduced); the\n"
    "model family when the files or graph tell it; and what Halfscope cannot run (node types,\n"
    "LoRAs, hires fix), by name.\n"
    "Only PNG is read: JPEG and WebP metadata are refused.\n"
    "\n"
    "  --dry-run   read and print the settings (running them is not implemented yet)\n"
    "  --json      one JSON object: source, settings, files, stages, family, unsupported\n"
    "\n"
    "exit status: 0 success, 2 usage or input error (not a PNG, no metadata, a graph that\n"
    "does not read; and without --dry-run, as running is not implemented yet)\n",
    runReproduce,
    {"json", "dry-run"},
});

}  // namespace

}  // namespace hs::cli
