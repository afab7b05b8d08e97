// halfscope-cli library: the models already on this machine (Hugging Face cache, ComfyUI,
// AUTOMATIC1111/Forge, folders added), described from their headers, cached between runs.
#include <iostream>

#include "cli/command.h"
#include "cli/library_options.h"
#include "library/library_file_set.h"
#include "library/library_format.h"
#include "library/library_scan.h"

namespace hs::cli {

namespace {

int runLibrary(const Args& args) {
    args.allowOnly({HS_LIBRARY_OPTIONS, "json"});
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] +
                         "': give folders with --comfyui, --a1111, --add or --hf-cache");
    const LibraryOptions o = libraryOptionsFrom(args);
    const LibraryReport r = scanLibrary(o);
    if (args.has("json"))
        std::cout << toJson(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        std::cout << formatLibrary(r);
    if (r.entries.empty() && o.comfyui.empty() && o.a1111.empty() && o.user.empty())
        std::cerr << "halfscope-cli library: no Hugging Face cache here and no folder given; try "
                     "--comfyui DIR, --a1111 DIR or --add DIR\n";
    return kExitOk;
}

const Registrar kLibraryCommand({
    "library",
    "list the models already on this machine, from their headers (no weights read)",
    "usage: halfscope-cli library [--comfyui DIR] [--a1111 DIR] [--add DIR|FILE]...\n"
    "                             [--hf-cache DIR] [--no-cache] [--cache-file FILE] [--json]\n"
    "\n"
    "Finds models without copying or loading them, in:\n"
    "  the Hugging Face cache  --hf-cache DIR, else $HF_HUB_CACHE, $HF_HOME/hub or\n"
    "                          ~/.cache/huggingface/hub (the snapshot refs/main names)\n"
    "  ComfyUI                 --comfyui DIR: models/checkpoints, diffusion_models, unet, vae,\n"
    "                          clip, text_encoders, and the folders of extra_model_paths.yaml\n"
    "  AUTOMATIC1111 / Forge   --a1111 DIR: models/Stable-diffusion, models/VAE,\n"
    "                          models/text_encoder\n"
    "  folders and files added --add DIR|FILE (repeatable): diffusers pipeline or component\n"
    "                          folders, .safetensors files, *.safetensors.index.json sets\n"
    "\n"
    "Each entry: family, variant and layout as the detectors see them, stored dtype,\n"
    "parameters, size on disk (symlinks followed, a shared blob counted once) and what the\n"
    "headers say about fp16 (\"unknown\" unless every weight is stored fp16; `inspect` reads\n"
    "the weights for the full check). Files that cannot be read are listed with their error.\n"
    "Only headers are read, and they are cached by path, size, mtime and inode in\n"
    "$XDG_CACHE_HOME/halfscope/library.json (or ~/.cache/halfscope/library.json).\n"
    "\n"
    "  --json            machine-readable output\n"
    "  --no-cache        read every header, neither use nor write the cache\n"
    "  --cache-file F    the cache file to use instead\n"
    "  --max-entries N   stop listing after N entries (default 5000; the output says so)\n"
    "  --max-depth N     folder levels looked into below each folder (default 8)\n",
    runLibrary,
    {"json", "no-cache"},
});

}  // namespace

}  // namespace hs::cli
