// `inspect`: module grouping, exact fp16/bf16 range counts (also with flush-to-zero on), the
// report on golden folders, a pipeline and a crafted file, and the CLI's output and exit codes.
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "inspect/inspect.h"
#include "models/common/weights.h"
#include "numerics/format.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

// Finite float32 values with known fate in fp16 / bf16 (see the expectations below).
torch::Tensor rangeProbe() {
    return torch::tensor({65504.f, 65519.f, 65520.f, -70000.f, 1e5f, 3.4e38f,  // big
                          3e-8f, 2.9e-8f, std::ldexp(1.f, -25), 1e-10f,        // fp16 edge
                          1e-5f, -6e-5f, 1e-3f, 0.f, -0.f, 1e-40f, 1e-45f,     // small
                          NAN, INFINITY});
}

void expectProbeCounts(const hs::TensorRange& r) {
    EXPECT_EQ(r.count, 19);
    EXPECT_EQ(r.nonFinite, 2);
    EXPECT_FLOAT_EQ(float(r.absMax), 3.4e38f);
    // 65520 is the tie between 65504 and 65536 and rounds (to even) to Inf; 65519 does not.
    EXPECT_EQ(r.fp16.overflow, 4);   // 65520, -70000, 1e5, 3.4e38
    EXPECT_EQ(r.fp16.underflow, 5);  // 2.9e-8, 2^-25 (tie to 0), 1e-10, 1e-40, 1e-45
    EXPECT_EQ(r.fp16.subnormal, 3);  // 3e-8 (-> 2^-24), 1e-5, -6e-5
    EXPECT_EQ(r.bf16.overflow, 1);   // 3.4e38 is past bf16's midpoint to 2^128
    EXPECT_EQ(r.bf16.underflow, 1);  // 1e-45 < 2^-134
    EXPECT_EQ(r.bf16.subnormal, 1);  // 1e-40
}

struct FlushDenormal {
    explicit FlushDenormal(bool on) { at::globalContext().setFlushDenormal(on); }
    ~FlushDenormal() { at::globalContext().setFlushDenormal(false); }
};

const hs::ModuleSummary* moduleNamed(const hs::ComponentSummary& c, const std::string& name) {
    for (const auto& m : c.modules)
        if (m.name == name) return &m;
    return nullptr;
}

}  // namespace

TEST(InspectTest, TopLevelModule) {
    EXPECT_EQ(hs::topLevelModule("decoder.up_blocks.0.resnets.0.conv1.weight"), "decoder");
    EXPECT_EQ(hs::topLevelModule("text_model.encoder.layers.0.mlp.fc1.weight"),
              "text_model.encoder");
    EXPECT_EQ(hs::topLevelModule("text_model.final_layer_norm.bias"),
              "text_model.final_layer_norm");
    EXPECT_EQ(hs::topLevelModule("logit_scale"), "logit_scale");
}

TEST(InspectTest, RangeCountsMatchCasts) {
    const auto probe = rangeProbe();
    expectProbeCounts(hs::rangeCheck(probe));
    {
        // configureRuntime() turns flush-to-zero/denormals-are-zero on: counts must not change.
        // (The probe is made before: building a tensor under FTZ already flushes 1e-40.)
        FlushDenormal ftz(true);
        expectProbeCounts(hs::rangeCheck(probe));
    }
    expectProbeCounts(hs::rangeCheck(rangeProbe().to(torch::kFloat64)));

    // Cross-check against LibTorch's own casts on many random magnitudes.
    torch::manual_seed(5);
    auto x = torch::randn({100000}) *
             torch::pow(10.0, torch::randint(-12, 7, {100000}).to(torch::kFloat32));
    auto r = hs::rangeCheck(x);
    auto h = x.to(torch::kFloat16).to(torch::kFloat32);
    EXPECT_EQ(r.fp16.overflow, torch::isinf(h).sum().item<int64_t>());
    EXPECT_EQ(r.fp16.underflow, ((h == 0) & (x != 0)).sum().item<int64_t>());
    EXPECT_EQ(r.fp16.subnormal, ((h.abs() < hs::kFp16MinNormal) & (h != 0)).sum().item<int64_t>());
    EXPECT_GT(r.fp16.overflow, 0);
    EXPECT_GT(r.fp16.underflow, 0);

    // Stored bf16 and fp16.
    auto b = torch::tensor({1e5f, 7e4f, 6e4f, 1e-9f, 1e-6f}).to(torch::kBFloat16);
    auto rb = hs::rangeCheck(b);
    EXPECT_EQ(rb.fp16.overflow, 2);
    EXPECT_EQ(rb.fp16.underflow, 1);
    EXPECT_EQ(rb.fp16.subnormal, 1);
    EXPECT_EQ(rb.bf16.overflow + rb.bf16.underflow, 0);
    auto rh = hs::rangeCheck(torch::tensor({65504.f, 1e-6f, 1.f}).to(torch::kFloat16));
    EXPECT_EQ(rh.fp16.overflow + rh.fp16.underflow, 0);
    EXPECT_EQ(rh.fp16.subnormal, 1);
}

TEST(InspectTest, CraftedFile) {
    const std::string dir = hs::test::tempDir("inspect");
    const std::string file = dir + "/crafted.safetensors";
    auto enc = torch::zeros({4, 4});
    enc[0][0] = 70000.f, enc[1][1] = -1e6f, enc[2][2] = 65520.f, enc[3][3] = 1e-9f;
    hs::writeSafetensors(
        file, {
                  {"encoder.conv.weight", enc},
                  {"encoder.conv.bias", torch::full({4}, 1e-6f)},  // fp16 subnormal
                  {"decoder.conv.weight", torch::tensor({1e5f, -2e5f, 1.f}).to(torch::kBFloat16)},
                  {"text_model.encoder.w", torch::ones({3}, torch::kFloat16)},
                  {"position_ids", torch::arange(5, torch::kInt64)},
              });
    const auto r = hs::inspectPath(file);
    EXPECT_EQ(r.kind, "file");
    ASSERT_EQ(r.components.size(), 1u);
    const auto& c = r.components[0];
    EXPECT_EQ(c.tensors, 5);
    EXPECT_EQ(c.parameters, 16 + 4 + 3 + 3 + 5);
    EXPECT_EQ(c.dtypes.at("F32").tensors, 2);
    EXPECT_EQ(c.dtypes.at("BF16").parameters, 3);
    EXPECT_EQ(c.dtypes.at("I64").tensors, 1);
    EXPECT_EQ(c.total.checked, 16 + 4 + 3 + 3);  // the I64 tensor is counted, not checked
    EXPECT_EQ(c.total.fp16.overflow, 5);
    EXPECT_EQ(c.total.fp16.underflow, 1);
    EXPECT_EQ(c.total.fp16.subnormal, 4);

    std::vector<std::string> names;
    for (const auto& m : c.modules) names.push_back(m.name);
    EXPECT_EQ(names, (std::vector<std::string>{"decoder", "encoder", "position_ids",
                                               "text_model.encoder"}));
    EXPECT_EQ(moduleNamed(c, "encoder")->fp16.overflow, 3);
    EXPECT_EQ(moduleNamed(c, "encoder")->tensors, 2);
    EXPECT_EQ(moduleNamed(c, "decoder")->fp16.overflow, 2);
    EXPECT_DOUBLE_EQ(moduleNamed(c, "encoder")->absMax, 1e6);

    const auto j = hs::toJson(r);
    EXPECT_EQ(j["components"][0]["total"]["fp16"]["overflow"], 5);
    EXPECT_EQ(j["components"][0]["dtypes"]["BF16"]["tensors"], 1);
    const std::string text = hs::formatReport(r);
    EXPECT_NE(text.find("fp16: 5 weights would overflow to Inf (in decoder encoder)"),
              std::string::npos)
        << text;
    fs::remove_all(dir);
}

TEST(InspectTest, GoldenFolders) {
    const auto vae = hs::inspectPath(hs::test::dataPath("golden/vae"));
    EXPECT_EQ(vae.kind, "component");
    EXPECT_EQ(vae.className, "AutoencoderKL");
    const auto& c = vae.components.at(0);
    EXPECT_EQ(c.parameters, 658375);  // manifest.json num_params
    EXPECT_EQ(c.tensors, 124);
    EXPECT_EQ(c.dtypes.at("F32").tensors, 124);
    EXPECT_NE(moduleNamed(c, "decoder"), nullptr);
    EXPECT_NE(moduleNamed(c, "post_quant_conv"), nullptr);
    EXPECT_EQ(c.total.fp16.overflow, 0);  // small random weights
    EXPECT_EQ(c.total.nonFinite, 0);
    EXPECT_EQ(c.total.checked, c.parameters);

    const auto clip = hs::inspectPath(hs::test::dataPath("golden/clip"));
    EXPECT_EQ(clip.components.at(0).parameters, 68473);
    EXPECT_NE(moduleNamed(clip.components[0], "text_model.encoder"), nullptr);
    EXPECT_NE(moduleNamed(clip.components[0], "text_model.embeddings"), nullptr);

    const auto flux =
        hs::inspectPath(hs::test::dataPath("golden/flux/diffusion_pytorch_model.safetensors"));
    EXPECT_EQ(flux.kind, "file");
    EXPECT_EQ(flux.components.at(0).parameters, 77764);

    EXPECT_THROW(hs::inspectPath(hs::test::dataPath("golden/clip_tokenizer")), hs::FileError);
    EXPECT_THROW(hs::inspectPath(hs::test::dataPath("golden/absent")), hs::FileError);
}

TEST(InspectTest, SingleFileLayouts) {
    const std::string bflPath = hs::test::dataPath("golden/flux_bfl.safetensors");
    const auto bfl = hs::inspectPath(bflPath);
    ASSERT_TRUE(bfl.singleFile.examined);
    EXPECT_TRUE(bfl.singleFile.error.empty()) << bfl.singleFile.error;
    ASSERT_EQ(bfl.singleFile.components.size(), 1u);
    EXPECT_EQ(bfl.singleFile.components[0].className, "FluxTransformer2DModel");
    const std::string text = hs::formatReport(bfl);
    EXPECT_NE(text.find("Single-file layout:\n  transformer: FluxTransformer2DModel - Flux "
                        "transformer, Black Forest Labs layout, 1 double + 1 single blocks"),
              std::string::npos)
        << text;
    EXPECT_EQ(hs::toJson(bfl)["single_file"]["components"][0]["slot"], "transformer");

    // An LDM checkpoint: its three parts convert, and one line names it.
    const auto sd = hs::inspectPath(hs::test::dataPath("golden/sd15_single.safetensors"));
    ASSERT_EQ(sd.singleFile.components.size(), 3u);
    const std::string sdText = hs::formatReport(sd);
    EXPECT_NE(sdText.find("  vae: AutoencoderKL - AutoencoderKL, LDM layout under "
                          "first_stage_model."),
              std::string::npos)
        << sdText;
    EXPECT_NE(sdText.find("  text_encoder: CLIPTextModel - CLIP text encoder"), std::string::npos);
    EXPECT_NE(sdText.find("  unet: UNet2DConditionModel - UNet2DConditionModel, LDM layout "
                          "under model.diffusion_model.: SD 1.x-style"),
              std::string::npos)
        << sdText;
    EXPECT_NE(sdText.find("Single file: SD 1.x-style, LDM layout: UNet "), std::string::npos)
        << sdText;

    // A diffusers weights file: inspected as before, no layout recognised.
    const auto plain =
        hs::inspectPath(hs::test::dataPath("golden/flux/diffusion_pytorch_model.safetensors"));
    EXPECT_TRUE(plain.singleFile.layouts.empty());
    EXPECT_NE(hs::formatReport(plain).find("Single-file layout: none recognised"),
              std::string::npos);

    // A layout that does not convert is reported, and the tensor table still comes.
    const std::string dir = hs::test::tempDir("inspect-single");
    auto w = hs::weightMapOf(hs::TensorSet::open(bflPath));
    w.erase("double_blocks.0.img_attn.qkv.bias");
    std::vector<std::pair<std::string, torch::Tensor>> list(w.begin(), w.end());
    hs::writeSafetensors(dir + "/broken.safetensors", list);
    const auto broken = hs::inspectPath(dir + "/broken.safetensors");
    EXPECT_NE(broken.singleFile.error.find("missing tensor 'double_blocks.0.img_attn.qkv.bias'"),
              std::string::npos)
        << broken.singleFile.error;
    EXPECT_EQ(broken.components.at(0).tensors, 51);  // 52 less the one removed
    EXPECT_NE(hs::formatReport(broken).find("  ! does not convert: "), std::string::npos);

    int status = -1;
    // The CLI reports it in full, then exits 2 with the reason.
    const std::string brokenCli =
        hs::test::runCli("inspect " + dir + "/broken.safetensors", status);
    EXPECT_EQ(status, 2) << brokenCli;
    EXPECT_NE(brokenCli.find("Single-file layout"), std::string::npos) << brokenCli;
    const size_t reason = brokenCli.find("halfscope-cli inspect: " + dir + "/broken.safetensors: ");
    ASSERT_NE(reason, std::string::npos) << brokenCli;
    EXPECT_NE(brokenCli.find("missing tensor 'double_blocks.0.img_attn.qkv.bias'", reason),
              std::string::npos)
        << brokenCli;
    const std::string cli = hs::test::runCli("inspect " + bflPath, status);
    EXPECT_EQ(status, 0) << cli;
    EXPECT_NE(cli.find("transformer: FluxTransformer2DModel - Flux transformer, Black Forest Labs "
                       "layout"),
              std::string::npos)
        << cli;
    fs::remove_all(dir);
}

TEST(InspectTest, Pipeline) {
    const std::string p = hs::test::tempDir("inspect-pipe");
    std::ofstream(p + "/model_index.json") << R"({"_class_name": "FluxPipeline",
        "vae": ["diffusers", "AutoencoderKL"], "text_encoder": ["transformers", "CLIPTextModel"],
        "transformer": ["diffusers", "FluxTransformer2DModel"],
        "scheduler": ["diffusers", "FlowMatchEulerDiscreteScheduler"]})";
    hs::test::linkGoldenFluxComponents(p);
    fs::create_directories(p + "/scheduler");
    std::ofstream(p + "/scheduler/scheduler_config.json") << "{}";

    const auto r = hs::inspectPath(p);
    EXPECT_EQ(r.kind, "pipeline");
    EXPECT_EQ(r.className, "FluxPipeline");
    ASSERT_EQ(r.components.size(), 4u);
    int64_t params = 0;
    for (const auto& c : r.components) params += c.parameters;
    EXPECT_EQ(params, 658375 + 68473 + 77764);
    EXPECT_FALSE(r.hasErrors());
    const std::string text = hs::formatReport(r);
    EXPECT_NE(text.find("[scheduler] scheduler"), std::string::npos) << text;
    EXPECT_NE(text.find("[transformer] model FluxTransformer2DModel"), std::string::npos) << text;

    // A component holding only a pickle checkpoint: reported with its error, the rest still
    // inspected, and the CLI exits with 2.
    std::ofstream(p + "/model_index.json") << R"({"_class_name": "FluxPipeline",
        "vae": ["diffusers", "AutoencoderKL"], "text_encoder_2": ["transformers", "T5EncoderModel"]})";
    fs::create_directories(p + "/text_encoder_2");
    std::ofstream(p + "/text_encoder_2/config.json") << R"({"architectures": ["T5EncoderModel"]})";
    std::ofstream(p + "/text_encoder_2/pytorch_model.bin") << "pickle";
    const auto bad = hs::inspectPath(p);
    ASSERT_EQ(bad.components.size(), 2u);
    EXPECT_TRUE(bad.hasErrors());
    EXPECT_NE(bad.components[0].error.find("arbitrary code"), std::string::npos);
    EXPECT_EQ(bad.components[0].className, "T5EncoderModel");
    EXPECT_EQ(bad.components[1].parameters, 658375);
    EXPECT_NE(hs::formatReport(bad).find("! cannot read:"), std::string::npos);
    EXPECT_NE(hs::toJson(bad)["components"][0]["error"].get<std::string>().find("pickle"),
              std::string::npos);
    int status = -1;
    hs::test::runCli("inspect " + p, status);
    EXPECT_EQ(status, 2);
    fs::remove_all(p);
}

TEST(InspectTest, Cli) {
    int status = -1;
    const std::string out =
        hs::test::runCli("inspect --json " + hs::test::dataPath("golden/vae"), status);
    EXPECT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["class"], "AutoencoderKL");
    EXPECT_EQ(j["components"][0]["parameters"], 658375);
    EXPECT_EQ(j["cpu_execution"]["bf16"], "emulated");  // the default, on every CPU
    EXPECT_EQ(j["cpu_execution"]["fp16"], "emulated");

    const std::string table =
        hs::test::runCli("inspect " + hs::test::dataPath("golden/clip"), status);
    EXPECT_EQ(status, 0);
    EXPECT_NE(table.find("text_model.encoder"), std::string::npos) << table;
    EXPECT_NE(table.find("On this CPU: fp32 native; bf16 emulated"), std::string::npos) << table;
    const auto native = nlohmann::json::parse(hs::test::runCli(
        "inspect --json --cpu-bf16 native " + hs::test::dataPath("golden/vae"), status, true));
    EXPECT_EQ(native["cpu_execution"]["bf16"], "native");

    const std::string missing = hs::test::runCli("inspect /nonexistent/model", status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
    hs::test::runCli("inspect", status);
    EXPECT_EQ(status, 2);
}
