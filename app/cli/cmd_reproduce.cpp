// halfscope-cli reproduce: how an image was made, read from its metadata (ComfyUI's graph, an
// A1111 / Forge infotext), the files it names found in the model library, and the run made
// again with those settings.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli/cli_report.h"
#include "cli/command.h"
#include "cli/generate_run.h"
#include "cli/library_options.h"
#include "cli/run_options.h"
#include "library/library_file_set.h"
#include "library/library_lookup.h"
#include "reproduce/reproduce.h"
#include "reproduce/reproduce_run.h"

namespace hs::cli {

namespace {

namespace fs = std::filesystem;

// The run options given on the command line, which win over the image's.
GivenOptions givenOptions(const Args& args) {
    GivenOptions given;
    for (const char* o : {"prompt", "negative", "seed", "steps", "guidance", "width", "height",
                          "shift", "scheduler"})
        if (args.has(o)) given.insert(o);
    return given;
}

std::string searchedFolders(const LibraryOptions& o) {
    std::string out;
    auto add = [&](const std::string& kind, const std::vector<std::string>& dirs) {
        for (const auto& d : dirs) out += "\n  " + kind + ": " + d;
    };
    add("Hugging Face cache",
        o.hfCaches.empty() && o.defaultHfCache ? defaultHfCaches() : o.hfCaches);
    add("ComfyUI", o.comfyui);
    add("A1111 / Forge", o.a1111);
    add("added", o.user);
    return out.empty() ? "\n  (none: give --comfyui DIR, --a1111 DIR or --add DIR)" : out;
}

// Looks the image's files up in the library (reading each new header once, as `library`
// does); A1111's model hash is computed only when its Model is not found by name.
LibraryReport lookUpFiles(const LibraryOptions& o, ReproduceSettings& s) {
    LibraryReport library = scanLibrary(o);
    LibraryCache cache(o.cachePath);
    resolveImageFiles(s, library, sha256Through(cache));
    try {
        cache.save();
    } catch (const std::exception& e) {
        std::cerr << "note: the library cache was not written: " << e.what() << "\n";
    }
    return library;
}

// The run's model from the files found: the one holding the denoiser, the others in the VAE
// and text-encoder slots (library/library_file_set.h). Throws std::runtime_error (exit 2)
// naming what is missing and where it was looked for.
void modelFromFiles(const ReproduceSettings& s, const LibraryReport& library,
                    const LibraryOptions& o, RunConfig& cfg) {
    std::string missing;
    for (const std::string& f : missingRunFiles(s)) missing += "\n  " + f;
    if (s.runFiles.empty())
        throw UsageError("the image names no model file: give the model with --model DIR|FILE");
    if (!missing.empty())
        throw std::runtime_error(
            "the image's model files were not found:" + missing +
            "\nsearched:" + searchedFolders(o) +
            "\ngive the folders with --comfyui, --a1111 or --add, or the model "
            "with --model DIR|FILE");
    const LibraryFileSet set = assembleFileSet(entriesOfRunFiles(s, library));
    if (!set.error.empty())
        throw std::runtime_error("the image's files do not make a model: " + set.error);
    if (!set.missing.empty()) {
        std::string parts;
        for (const auto& m : set.missing) parts += "\n  " + m;
        throw std::runtime_error("the image's files do not make a whole model:" + parts);
    }
    cfg.modelDir = set.model;
    cfg.modelFiles = set.with;
}

std::string defaultOutput(const std::string& image) {
    return fs::path(image).stem().string() + ".reproduced.png";
}

int runReproduce(const Args& args) {
    args.allowOnly(withRunOptions({"json", "dry-run", "out", "report", "check-fixes",
                                   HS_LIBRARY_OPTIONS, HS_TARGET_OPTIONS}));
    if (args.positional().size() != 1) throw UsageError("expected one IMAGE (a PNG file)");
    const std::string image = args.positional()[0];
    const GivenOptions given = givenOptions(args);
    if (args.has("dry-run")) {
        // What only a run takes: said, not ignored.
        std::vector<std::string> runOnly(given.begin(), given.end());
        for (const char* o : {"out", "report", "check-fixes"})
            if (args.has(o)) runOnly.push_back(o);
        if (!runOnly.empty())
            throw UsageError("--" + runOnly.front() +
                             " applies to a run; --dry-run reads the image and looks up its files");
    }
    ReproduceSettings s = readReproduceSettings(image);
    const LibraryOptions libraryOptions = libraryOptionsFrom(args);
    LibraryReport library;
    if (!args.has("model")) library = lookUpFiles(libraryOptions, s);
    if (args.has("dry-run")) {
        if (args.has("json"))
            std::cout << toJson(s).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                      << "\n";
        else
            std::cout << formatSettings(s);
        return kExitOk;
    }
    RunConfig cfg = runConfigFrom(args);  // --model, --plan, --device ...; the demo otherwise
    if (!args.has("model")) modelFromFiles(s, library, libraryOptions, cfg);
    std::vector<std::string> notes = applyImageSettings(s, given, cfg);
    for (const std::string& u : s.unsupported) notes.push_back("not reproduced: " + u);
    const std::string out = args.get("out").value_or(defaultOutput(image));
    return generateImage(args, cfg, out, [&](const RunDefaults& d, RunConfig& c) {
        // The model's defaults where neither the image nor the command line says.
        if (!given.count("steps") && !s.steps) c.steps = d.steps;
        if (!given.count("guidance") && !s.guidance && !s.cfg) c.guidance = d.guidance;
        if (!given.count("width") && !s.width && d.width) c.width = d.width;
        if (!given.count("height") && !s.height && d.height) c.height = d.height;
        const auto sampler = applyImageSampler(s, given, d.comfySamplers, c);
        notes.insert(notes.end(), sampler.begin(), sampler.end());
        for (const std::string& n : notes) std::cerr << "note: " << n << "\n";
        return notes;
    });
}

const Registrar kReproduceCommand({
    "reproduce",
    "run an image again from its metadata (ComfyUI graph, A1111 / Forge infotext)",
    "usage: halfscope-cli reproduce IMAGE [--dry-run] [--json] [--out FILE.png]\n"
    "                               [--comfyui DIR] [--a1111 DIR] [--add DIR|FILE]\n"
    "                               [--model DIR|FILE] [run options]\n"
    "\n"
    "Reads IMAGE's PNG text chunks: ComfyUI's API graph ('prompt'), else its UI workflow\n"
    "('workflow'), else an A1111 / Forge infotext ('parameters'): prompt, negative prompt,\n"
    "seed, steps, cfg, guidance, size, sampler and scheduler (ComfyUI's names: \"DPM++ 2M\n"
    "Karras\" is dpmpp_2m + karras), denoise when not 1, the model sampling's shift when the\n"
    "graph sets it; the model files it names and those the first stage runs (base + refiner\n"
    "has 2 stages: the first is reproduced); the family when the files or graph tell it; and\n"
    "what Halfscope cannot run (node types, LoRAs, hires fix), by name.\n"
    "The files are looked up in the model library (the Hugging Face cache and the folders\n"
    "given, as `library` takes them) by name, and A1111's Model also by its Model hash (the\n"
    "SHA-256 is computed once per file and kept in the library's cache).\n"
    "Then the image's settings run as `generate` runs (progress, PNG, --json, --report); a\n"
    "run option given here wins over the image's, and --model replaces its files. What runs\n"
    "otherwise than the image says (a sampler not implemented, a stage, a LoRA) is printed and\n"
    "kept in the run's notes. Only PNG is read: JPEG and WebP metadata are refused.\n"
    "\n"
    "  --dry-run   read, look up and print the settings; run nothing\n"
    "  --json      with --dry-run: one JSON object: source, settings, files, run_files,\n"
    "              model_hash, resolved (each file -> path or null), stages, family,\n"
    "              unsupported; else the run record, as generate --json\n"
    "  --out FILE  the PNG (default: IMAGE's name + .reproduced.png, here)\n"
    "\n"
    "exit status (as generate's; --json carries it as exit_status):\n"
    "  0  a clean picture, or a dry run\n"
    "  1  the image holds NaN/Inf or is black\n"
    "  2  usage or input error: not a PNG, no metadata, a graph that does not read, a model\n"
    "     file not found (each is named with the folders searched)\n"
    "  3  the image is fine, but a NaN/Inf appeared inside the run and a remedy of the plan\n"
    "     contained it (a 'contained: ...' line names where)\n\n" HS_ADVISE_FOR_HELP
        HS_CHECK_FIXES_HELP HS_RUN_OPTIONS_HELP,
    runReproduce,
    {"json", "dry-run", "no-cache", "check-fixes"},
});

}  // namespace

}  // namespace hs::cli
