// halfscope-cli evaluate-demo: how well the demo model follows its prompts.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "demo/base_checkpoint.h"
#include "demo/dataset.h"
#include "evaluation/demo_prompts.h"
#include "io/image_io.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"

namespace hs::cli {
namespace {

using demo::PromptFollowing;

nlohmann::json rateJson(int n, int of) {
    return {{"rate", PromptFollowing::rate(n, of)}, {"correct", n}, {"of", of}};
}

nlohmann::json tallyJson(const PromptFollowing& t) {
    nlohmann::json shapes;
    for (int s = 0; s < 5; ++s)
        shapes[demo::shapeNames()[s]] = rateJson(t.shapeCorrect[s], t.shapeTotal[s]);
    int shapesCorrect = 0;
    for (int s = 0; s < 5; ++s) shapesCorrect += t.shapeCorrect[s];
    return {{"scenes", t.scenes},
            {"object_drawn", rateJson(t.found, t.scenes)},
            {"background_colour", rateJson(t.background, t.backgroundStated)},
            {"object_colour", rateJson(t.colour, t.scenes)},
            {"position", rateJson(t.position, t.positionStated)},
            {"size", rateJson(t.size, t.sizeStated)},
            {"shape", rateJson(shapesCorrect, t.scenes)},
            {"shapes", shapes}};
}

void printRate(const char* what, int n, int of) {
    std::printf("  %-18s %5.1f%%  (%d / %d)\n", what, 100 * PromptFollowing::rate(n, of), n, of);
}

void printTally(const char* title, const PromptFollowing& t) {
    std::printf("%s: %d single-object scenes\n", title, t.scenes);
    printRate("object drawn", t.found, t.scenes);
    printRate("background colour", t.background, t.backgroundStated);
    printRate("object colour", t.colour, t.scenes);
    printRate("position", t.position, t.positionStated);
    printRate("size", t.size, t.sizeStated);
    std::printf("  %-18s %5.1f%%\n", "shape", 100 * t.shapeRate());
    for (int s = 0; s < 5; ++s)
        std::printf("    %-8s %3d / %3d  %5.1f%%\n", demo::shapeNames()[s].c_str(),
                    t.shapeCorrect[s], t.shapeTotal[s], 100 * t.shapeRate(demo::Shape(s)));
}

std::string readingText(const demo::SceneReading& r) {
    if (!r.objectFound)
        return std::string("nothing drawn, ") + demo::palette()[r.background].name + " background";
    return demo::sizeNames()[int(r.size)] + " " + demo::palette()[r.colour].name + " " +
           demo::shapeNames()[int(r.shape)] + " " + demo::positionPhrases()[int(r.position)] +
           ", " + demo::palette()[r.background].name + " background";
}

// --prompts FILE: the user's own prompts, one per line, each generated (seed = its line's
// index) and read back; --grid OUT.png puts the pictures in rows of four, in file order.
int runOwnPrompts(const Args& args, Pipeline& pipeline, const demo::EvaluationOptions& o) {
    const std::string file = *args.get("prompts");
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file);
    std::vector<std::string> prompts;
    for (std::string line; std::getline(in, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos) prompts.push_back(line);
    if (prompts.empty()) throw std::runtime_error(file + " holds no prompt");
    if (prompts.size() > 64) throw UsageError("--prompts takes at most 64 prompts");
    std::vector<Image> images;
    for (size_t i = 0; i < prompts.size(); ++i) {
        const RunRecord rec = pipeline.run(demo::evaluationRun(pipeline, prompts[i], i, o));
        if (!rec.savedImage) throw std::runtime_error("the run produced no image: " + rec.error);
        const auto& img = *rec.savedImage;
        std::printf("%2zu %-60s -> %s\n", i + 1, prompts[i].c_str(),
                    readingText(demo::readScene(img.rgb, img.width)).c_str());
        for (const auto& n : rec.notes) std::printf("   note: %s\n", n.c_str());
        images.push_back(Image{img.width, img.height, 3, img.rgb});
    }
    if (auto out = args.get("grid")) {
        const int columns = std::min<int>(4, int(images.size())), gap = 4;
        const int rows = (int(images.size()) + columns - 1) / columns;
        const int w = images[0].width, h = images[0].height;
        Image grid{columns * w + (columns + 1) * gap, rows * h + (rows + 1) * gap, 3, {}};
        grid.pixels.assign(size_t(grid.width) * grid.height * 3, 255);
        for (size_t i = 0; i < images.size(); ++i) {
            const int x0 = gap + int(i % columns) * (w + gap),
                      y0 = gap + int(i / columns) * (h + gap);
            for (int y = 0; y < h; ++y)
                std::copy_n(images[i].at(0, y), size_t(w) * 3, grid.at(x0, y0 + y));
        }
        writePng(*out, grid);
        std::printf("wrote %s\n", out->c_str());
    }
    return kExitOk;
}

int runEvaluateDemo(const Args& args) {
    args.allowOnly({"model", "count", "steps", "guidance", "plan", "templates", "prompts", "grid",
                    "json", "verbose"});
    demo::EvaluationOptions o;
    o.count = args.getInt("count", o.count);
    o.steps = args.getInt("steps", o.steps);
    o.guidance = args.getDouble("guidance", o.guidance);
    if (o.count < 1 || o.steps < 1) throw UsageError("--count and --steps must be positive");
    const std::string which = args.get("templates").value_or("both");
    if (which != "both" && which != "held-out" && which != "training")
        throw UsageError("--templates must be held-out, training or both, not \"" + which + "\"");
    const std::string dir = args.get("model").value_or(findDemoModel());
    if (dir.empty())
        throw std::runtime_error("the embedded demo model was not found; give --model DIR");
    PrecisionPlan plan;
    if (auto p = args.get("plan")) plan = PrecisionPlan::parse(*p);
    auto pipeline = Pipeline::load(dir, plan, torch::Device(torch::kCPU));
    if (args.has("grid") && !args.has("prompts")) throw UsageError("--grid needs --prompts FILE");
    if (args.has("prompts")) return runOwnPrompts(args, *pipeline, o);
    const bool verbose = args.has("verbose");
    o.onScene = [&](int i, const demo::Scene&, const std::string& prompt,
                    const demo::SceneReading& r) {
        if (verbose) {
            std::fprintf(stderr, "%3d %-70s -> %s %s %s %s, %s background (IoU %.2f)\n", i + 1,
                         prompt.c_str(), demo::sizeNames()[int(r.size)].c_str(),
                         r.colour >= 0 ? demo::palette()[r.colour].name : "-",
                         demo::shapeNames()[int(r.shape)].c_str(),
                         demo::positionPhrases()[int(r.position)].c_str(),
                         demo::palette()[r.background].name, r.shapeIoU);
        } else if ((i + 1) % 10 == 0) {
            std::fprintf(stderr, "%d/%d scenes\n", i + 1, o.count);
        }
    };
    nlohmann::json j = {{"plan", pipeline->effectivePlan().toString()},
                        {"steps", o.steps},
                        {"guidance", o.guidance}};
    std::vector<std::pair<const char*, PromptFollowing>> results;
    for (auto [name, set, title] :
         {std::tuple{"held_out", demo::TemplateSet::HeldOut, "held-out templates"},
          std::tuple{"training", demo::TemplateSet::Training, "training grammar"}}) {
        if (which != "both" && (set == demo::TemplateSet::HeldOut) != (which == "held-out"))
            continue;
        o.templates = set;
        const PromptFollowing t = demo::evaluatePromptFollowing(*pipeline, o);
        j[name] = tallyJson(t);
        results.emplace_back(title, t);
    }
    // The ceiling: the same kind of scenes through the VAE alone (seeds of their own).
    const PromptFollowing vae = demo::vaeReadBack(*demo::loadFolderVae(dir), o.count,
                                                  demo::kHeldOutSeedBase + 2000000000ull);
    j["vae_alone"] = tallyJson(vae);
    if (args.has("json")) {
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    std::printf(
        "%d steps, guidance %.2f, plan %s; background, position and size count where the "
        "prompt states them\n",
        o.steps, o.guidance, pipeline->effectivePlan().toString().c_str());
    for (const auto& [title, t] : results) printTally(title, t);
    printTally("its VAE alone (the scenes encoded and decoded, no prompt: the ceiling above)", vae);
    return kExitOk;
}

const Registrar kEvaluateDemoCommand(
    {"evaluate-demo",
     "measure how well the demo model follows its prompts",
     "usage: halfscope-cli evaluate-demo [--model DIR] [--count N] [--steps N]\n"
     "                                   [--guidance G] [--plan PLAN]\n"
     "                                   [--templates held-out|training|both]\n"
     "                                   [--json] [--verbose]\n"
     "       halfscope-cli evaluate-demo --prompts FILE [--grid OUT.png] [...]\n\n"
     "Generates N single-object scenes (seeds the trainer never draws) for each\n"
     "template set, from captions with optional size, position and background,\n"
     "and reads each picture back: whether an object was drawn, background and\n"
     "object colour, position, size and shape (the rendered shape mask with the\n"
     "best overlap). The held-out templates are phrasings the trainer never\n"
     "drew. Prints the rates of each set; --verbose lists every scene. Then N\n"
     "scenes through the model's VAE alone (encoded and decoded, no prompt): the\n"
     "ceiling of every rate above, since the pictures come out of that decoder.\n\n"
     "--prompts FILE generates each line of FILE instead (seed: its index) and\n"
     "prints what was read back from each picture; --grid OUT.png puts them in\n"
     "rows of four, in file order.\n",
     runEvaluateDemo,
     {"json", "verbose"}});

}  // namespace
}  // namespace hs::cli
