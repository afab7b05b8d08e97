// halfscope-cli evaluate-demo: how well the demo model follows its prompts.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "demo/prompt_following.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"

namespace hs::cli {
namespace {

int runEvaluateDemo(const Args& args) {
    args.allowOnly({"model", "count", "steps", "guidance", "plan", "json", "verbose"});
    demo::EvaluationOptions o;
    o.count = args.getInt("count", o.count);
    o.steps = args.getInt("steps", o.steps);
    o.guidance = args.getDouble("guidance", o.guidance);
    if (o.count < 1 || o.steps < 1) throw UsageError("--count and --steps must be positive");
    const std::string dir = args.get("model").value_or(findDemoModel());
    if (dir.empty())
        throw std::runtime_error("the embedded demo model was not found; give --model DIR");
    PrecisionPlan plan;
    if (auto p = args.get("plan")) plan = PrecisionPlan::parse(*p);
    auto pipeline = Pipeline::load(dir, plan, torch::Device(torch::kCPU));
    const bool verbose = args.has("verbose");
    o.onScene = [&](int i, const demo::Scene& s, const demo::SceneReading& r) {
        if (verbose) {
            std::fprintf(stderr, "%3d %-58s -> %s %s %s, %s background (IoU %.2f)\n", i + 1,
                         s.caption().c_str(), r.colour >= 0 ? demo::palette()[r.colour].name : "-",
                         demo::shapeNames()[int(r.shape)].c_str(),
                         demo::positionPhrases()[int(r.position)].c_str(),
                         demo::palette()[r.background].name, r.shapeIoU);
        } else if ((i + 1) % 10 == 0) {
            std::fprintf(stderr, "%d/%d scenes\n", i + 1, o.count);
        }
    };
    const demo::PromptFollowing t = demo::evaluatePromptFollowing(*pipeline, o);
    nlohmann::json shapes;
    for (int s = 0; s < 5; ++s)
        shapes[demo::shapeNames()[s]] = {{"correct", t.shapeCorrect[s]},
                                         {"total", t.shapeTotal[s]}};
    const nlohmann::json j = {{"scenes", t.scenes},
                              {"plan", pipeline->effectivePlan().toString()},
                              {"steps", o.steps},
                              {"guidance", o.guidance},
                              {"background_colour", t.rate(t.background)},
                              {"object_colour", t.rate(t.colour)},
                              {"position", t.rate(t.position)},
                              {"size", t.rate(t.size)},
                              {"shape_circle_square_triangle", t.basicShapeRate()},
                              {"shapes", shapes}};
    if (args.has("json")) {
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    std::printf("%d held-out single-object scenes, %d steps, guidance %.2f, plan %s\n", t.scenes,
                o.steps, o.guidance, pipeline->effectivePlan().toString().c_str());
    std::printf("  background colour  %5.1f%%\n", 100 * t.rate(t.background));
    std::printf("  object colour      %5.1f%%\n", 100 * t.rate(t.colour));
    std::printf("  position           %5.1f%%\n", 100 * t.rate(t.position));
    std::printf("  size               %5.1f%%\n", 100 * t.rate(t.size));
    std::printf("  shape (circle, square, triangle) %5.1f%%\n", 100 * t.basicShapeRate());
    for (int s = 0; s < 5; ++s)
        std::printf("    %-8s %3d / %3d  %5.1f%%\n", demo::shapeNames()[s].c_str(),
                    t.shapeCorrect[s], t.shapeTotal[s], 100 * t.shapeRate(demo::Shape(s)));
    return kExitOk;
}

const Registrar reg({"evaluate-demo",
                     "measure how well the demo model follows its prompts",
                     "usage: halfscope-cli evaluate-demo [--model DIR] [--count N] [--steps N]\n"
                     "                                   [--guidance G] [--plan PLAN] [--json]\n"
                     "                                   [--verbose]\n\n"
                     "Generates N held-out single-object scenes from their captions (seeds the\n"
                     "trainer never draws) and reads each picture back: background colour, the\n"
                     "object's colour, position, size and shape (the rendered shape mask with\n"
                     "the best overlap). Prints the rates; --verbose lists every scene.\n",
                     runEvaluateDemo,
                     {"json", "verbose"}});

}  // namespace
}  // namespace hs::cli
