// halfscope-cli generate: one text-to-image run with probes, on the demo model by default.
#include "cli/cli_report.h"
#include "cli/command.h"
#include "cli/generate_run.h"
#include "cli/run_options.h"

namespace hs::cli {
namespace {

int runGenerate(const Args& args) {
    args.allowOnly(withRunOptions({"out", "report", "json", HS_TARGET_OPTIONS, "check-fixes"}));
    const std::string out = args.require("out");
    return generateImage(args, runConfigFrom(args), out,
                         [&](const RunDefaults& defaults, RunConfig& cfg) {
                             applyModelDefaults(args, defaults, cfg);
                             return std::vector<std::string>{};
                         });
}

const Registrar kGenerateCommand(
    {"generate",
     "one text-to-image run with probes (demo model by default)",
     "usage: halfscope-cli generate --out IMG.png [run options] [--plan RULES]\n"
     "                              [--report FILE.html] [--json]\n"
     "                              [--target GPU | --target-cc X.Y] [--target-memory GB]\n\n"
     "Runs the pipeline (the embedded demo model when --model is not given). Without --plan\n"
     "each component runs in its stored dtype; rules name components as model_index.json\n"
     "does, e.g. --plan 'transformer=fp16' or 'vae=fp16,vae.decoder.up_blocks.0=bf16'.\n"
     "The PNG is written as a pipeline saves it (NaN pixels black). --report writes a\n"
     "self-contained HTML report, FILE.json beside it (schema: core/report/SCHEMA.md) and\n"
     "the per-step and per-layer statistics as CSV. Progress on stderr; --json prints the\n"
     "run record on stdout.\n\n"
     "exit status (the verdict's; --json carries it as exit_status):\n"
     "  0  a clean picture: no NaN/Inf anywhere in the run\n"
     "  1  the image holds NaN/Inf or is black\n"
     "  2  usage or input error\n"
     "  3  the image is fine (verdict ok), but a NaN/Inf appeared inside the run and was\n"
     "     contained, e.g. clipped by a clamp rule: the plan works only because a remedy held\n"
     "     an overflow back. A 'contained: ...' line (--json: \"contained\") names where it\n"
     "     appeared and the plan's remedy that covered it\n\n" HS_ADVISE_FOR_HELP
         HS_CHECK_FIXES_HELP HS_RUN_OPTIONS_HELP,
     runGenerate,
     {"json", "check-fixes"}});

}  // namespace
}  // namespace hs::cli
