// Step previews for every latent format: which latent-to-RGB map a VAE config takes (its own
// factors, ComfyUI's published ones, or a fit from its decodes), the fit itself, and runs of the
// tiny pipelines, each step with a projected preview that names its map.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "families/vae/autoencoder_kl.h"
#include "families/vae/vae_family.h"
#include "families/vae/vae_latent_rgb.h"
#include "families/wan_vae/wan_latent_rgb.h"
#include "families/wan_vae/wan_vae_family.h"
#include "flux1_fixture.h"
#include "golden_helpers.h"
#include "io/image_tensor.h"
#include "io/model_folder.h"
#include "models/latent_rgb.h"
#include "numerics/probe.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "qwenimage_fixture.h"
#include "runtime/demo_location.h"
#include "sd_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

// ---- which map a config takes -----------------------------------------------------------------

// An AutoencoderKL config of the default (small) shape with `fields` over it.
AutoencoderKLConfig klConfig(const nlohmann::json& fields) {
    nlohmann::json j = {{"_class_name", "AutoencoderKL"}};
    j.update(fields);
    return AutoencoderKLConfig::fromJson(j);
}

std::string originOf(const nlohmann::json& fields) {
    const LatentRgbMap m = latentRgbMapOf(klConfig(fields));
    return m.defined() ? m.origin : "none";
}

// Row `r` of a map's factors (the bias is row C).
std::vector<float> rowOf(const LatentRgbMap& m, int64_t r) {
    auto row = m.factors[r].contiguous();
    return {row.data_ptr<float>(), row.data_ptr<float>() + 3};
}

TEST(PreviewMapChoice, EachPublishedFormatFromAMatchingConfig) {
    const std::string comfy = "published: ComfyUI's ";
    EXPECT_EQ(originOf({{"latent_channels", 4}, {"scaling_factor", 0.18215}}),
              comfy + "SD15 latent_rgb_factors");
    EXPECT_EQ(originOf({{"latent_channels", 4}, {"scaling_factor", 0.13025}}),
              comfy + "SDXL latent_rgb_factors");
    EXPECT_EQ(
        originOf({{"latent_channels", 16}, {"scaling_factor", 1.5305}, {"shift_factor", 0.0609}}),
        comfy + "SD3 latent_rgb_factors");
    EXPECT_EQ(
        originOf({{"latent_channels", 16}, {"scaling_factor", 0.3611}, {"shift_factor", 0.1159}}),
        comfy + "Flux latent_rgb_factors");
    // diffusers writes "shift_factor": null for the 4-channel VAEs.
    EXPECT_EQ(
        originOf({{"latent_channels", 4}, {"scaling_factor", 0.13025}, {"shift_factor", nullptr}}),
        comfy + "SDXL latent_rgb_factors");

    // The figures themselves: first row and bias of each.
    const auto sd15 = latentRgbMapOf(klConfig({{"latent_channels", 4}}));  // the default 0.18215
    ASSERT_EQ(sd15.factors.sizes(), (std::vector<int64_t>{5, 3}));
    EXPECT_EQ(rowOf(sd15, 0), (std::vector<float>{0.3512f, 0.2297f, 0.3227f}));
    EXPECT_EQ(rowOf(sd15, 4), (std::vector<float>{0, 0, 0}));
    const auto xl = latentRgbMapOf(klConfig({{"latent_channels", 4}, {"scaling_factor", 0.13025}}));
    EXPECT_EQ(rowOf(xl, 3), (std::vector<float>{-0.3165f, -0.2492f, -0.2188f}));
    EXPECT_EQ(rowOf(xl, 4), (std::vector<float>{0.1084f, -0.0175f, -0.0011f}));
    const auto sd3 = latentRgbMapOf(
        klConfig({{"latent_channels", 16}, {"scaling_factor", 1.5305}, {"shift_factor", 0.0609}}));
    ASSERT_EQ(sd3.factors.sizes(), (std::vector<int64_t>{17, 3}));
    EXPECT_EQ(rowOf(sd3, 15), (std::vector<float>{-0.1448f, -0.1463f, -0.1189f}));
    EXPECT_EQ(rowOf(sd3, 16), (std::vector<float>{0.2394f, 0.2135f, 0.1925f}));
    const auto flux = latentRgbMapOf(
        klConfig({{"latent_channels", 16}, {"scaling_factor", 0.3611}, {"shift_factor", 0.1159}}));
    EXPECT_EQ(rowOf(flux, 0), (std::vector<float>{-0.0346f, 0.0244f, 0.0681f}));
    EXPECT_EQ(rowOf(flux, 16), (std::vector<float>{-0.0329f, -0.0718f, -0.0851f}));

    // The Wan VAE family: Wan 2.1's format (Qwen-Image, Cosmos-Predict2, Anima) for 16 channels.
    const LatentRgbMap wan = wanLatentRgbMap(WanVaeConfig::fromJson({{"z_dim", 16}}));
    ASSERT_TRUE(wan.defined());
    EXPECT_EQ(wan.origin, comfy + "Wan21 latent_rgb_factors");
    ASSERT_EQ(wan.factors.sizes(), (std::vector<int64_t>{17, 3}));
    EXPECT_EQ(rowOf(wan, 0), (std::vector<float>{-0.1299f, -0.1692f, 0.2932f}));
    EXPECT_EQ(rowOf(wan, 16), (std::vector<float>{-0.1835f, -0.0868f, -0.3360f}));
    WanVaeConfig other;
    other.zDim = 48;
    EXPECT_FALSE(wanLatentRgbMap(other).defined());
}

TEST(PreviewMapChoice, NoPublishedMapForANearMiss) {
    // SD3's channels with Flux's scaling and shift: Flux's space.
    EXPECT_EQ(
        originOf({{"latent_channels", 16}, {"scaling_factor", 0.3611}, {"shift_factor", 0.1159}}),
        "published: ComfyUI's Flux latent_rgb_factors");
    // SD 1.5's scaling on 16 channels, Flux's scaling with SD3's shift or none, SDXL's scaling
    // with a shift, 4 channels at 0.5, SDXL's scaling with per-channel mean and std (Playground
    // style): another space each, so none (the pipeline fits one).
    EXPECT_EQ(originOf({{"latent_channels", 16}, {"scaling_factor", 0.18215}}), "none");
    EXPECT_EQ(
        originOf({{"latent_channels", 16}, {"scaling_factor", 0.3611}, {"shift_factor", 0.0609}}),
        "none");
    EXPECT_EQ(originOf({{"latent_channels", 16}, {"scaling_factor", 0.3611}}), "none");
    EXPECT_EQ(
        originOf({{"latent_channels", 4}, {"scaling_factor", 0.13025}, {"shift_factor", 0.1}}),
        "none");
    EXPECT_EQ(originOf({{"latent_channels", 4}, {"scaling_factor", 0.5}}), "none");
    EXPECT_EQ(originOf({{"latent_channels", 4},
                        {"scaling_factor", 0.13025},
                        {"latents_mean", {0.0, 0.0, 0.0, 0.0}},
                        {"latents_std", {1.0, 1.0, 1.0, 1.0}}}),
              "none");
    EXPECT_EQ(originOf({{"latent_channels", 8}, {"scaling_factor", 0.18215}}), "none");
}

TEST(PreviewMapChoice, TheConfigsOwnFactorsWin) {
    std::vector<double> own(15, 0.25);
    own[14] = -0.5;
    const LatentRgbMap m =
        latentRgbMapOf(klConfig({{"latent_channels", 4}, {"latent_rgb_factors", own}}));
    EXPECT_EQ(m.origin, "the VAE config's latent_rgb_factors");
    EXPECT_EQ(rowOf(m, 4), (std::vector<float>{0.25f, 0.25f, -0.5f}));
    // Of another size: left out, so the published map of its format applies.
    EXPECT_EQ(originOf({{"latent_channels", 4}, {"latent_rgb_factors", {0.1, 0.2}}}),
              "published: ComfyUI's SD15 latent_rgb_factors");
}

// ---- the fit ----------------------------------------------------------------------------------

const torch::Device kCpu(torch::kCPU);

// The golden AutoencoderKL (4 channels, two levels, random weights), the tiny Wan 2.1 VAE (random
// weights) or the demo model's trained VAE, with their weights.
std::shared_ptr<VaeComponent> vaeFrom(const std::string& dir) {
    const nlohmann::json config = readJsonFile(dir + "/config.json");
    const WeightMap w = test::readTensorsFile(dir + "/diffusion_pytorch_model.safetensors");
    const PrecisionPolicy policy(PrecisionPlan(), kCpu);
    if (config["_class_name"] == "AutoencoderKL")
        return std::make_shared<AutoencoderKLComponent>(loadAutoencoderKL(config, w, policy));
    return std::make_shared<WanVaeComponent>(loadWanVae(config, w, policy));
}

struct HeldOutErrors {
    double fitted, zero, mean;  // MSE of the map, of the zero map, of the held-out mean colour
};

// `map` against the pooled decodes of `samples` latents drawn from `seed`.
HeldOutErrors heldOutErrors(VaeComponent& vae, const LatentRgbMap& map, uint64_t seed,
                            int samples = 4, int grid = 8) {
    torch::NoGradGuard noGrad;
    ProbeContext quiet(PrecisionPlan(), kCpu, ProbeLevel::Off);
    auto gen = at::detail::createCPUGenerator(seed);
    const auto latents =
        torch::randn({samples, vae.latentChannels(), grid, grid}, gen, torch::kFloat32);
    const auto image = vae.decode(vae.unscale(latents), quiet).to(torch::kFloat32);
    const int64_t f = vae.downFactor();
    const auto pooled = torch::avg_pool2d(image, {f, f});  // [S, 3, grid, grid]
    double fitted = 0;
    for (int i = 0; i < samples; ++i)
        fitted += (projectLatentsToRgb(map, latents.slice(0, i, i + 1)) - pooled[i])
                      .pow(2)
                      .mean()
                      .item<double>();
    const auto mean = pooled.mean({0, 2, 3}, true);  // [1, 3, 1, 1]
    return {fitted / samples, pooled.pow(2).mean().item<double>(),
            (pooled - mean).pow(2).mean().item<double>()};
}

// The fit on latents of seed 0 predicts the decodes of seed 1's: its error `overZero` times below
// the zero map's and `overMean` times below that of the held-out decodes' own mean colour (what
// a bias alone could give at best).
void expectFitPredicts(const std::string& dir, double overZero, double overMean) {
    SCOPED_TRACE(dir);
    const auto vae = vaeFrom(dir);
    ProbeContext quiet(PrecisionPlan(), kCpu, ProbeLevel::Off);
    const auto t0 = std::chrono::steady_clock::now();
    const LatentRgbMap map = fitLatentRgbMap(*vae, quiet, kCpu);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(map.defined());
    EXPECT_EQ(map.origin, "fitted at load from 8 VAE decodes");
    EXPECT_EQ(map.factors.sizes(), (std::vector<int64_t>{vae->latentChannels() + 1, 3}));
    const HeldOutErrors e = heldOutErrors(*vae, map, 1);
    std::printf("  %s: fit %.3f s; held-out MSE %.5f, zero map %.5f, mean colour %.5f\n",
                dir.c_str(), seconds, e.fitted, e.zero, e.mean);
    EXPECT_LT(e.fitted * overZero, e.zero);
    EXPECT_LT(e.fitted * overMean, e.mean);
    // Once more: the same draw, the same map.
    EXPECT_TRUE(torch::equal(fitLatentRgbMap(*vae, quiet, kCpu).factors, map.factors));
}

TEST(PreviewMapFit, PredictsThePooledDecodeOfLatentsItWasNotFittedOn) {
    // A trained VAE is close to linear in the mean colour of a latent pixel (measured: MSE 0.050,
    // the zero map 0.169, the mean colour 0.084).
    const std::string demo = findDemoModel();
    ASSERT_FALSE(demo.empty()) << "resources/demo-model is missing";
    expectFitPredicts(demo + "/vae", 3.0, 1.5);
    // Random weights decode far less linearly; the fit still beats both (golden: 0.150 against
    // 0.201 and 0.154; Wan: 0.044 against 0.065 and 0.051).
    expectFitPredicts(test::dataPath("golden/vae"), 1.25, 1.0);
    expectFitPredicts(test::dataPath("wan_vae/wan21_tiny"), 1.25, 1.0);
}

// A VAE whose decodes are NaN: no map, and a message saying so.
class NanDecodingVae : public AutoencoderKLComponent {
public:
    using AutoencoderKLComponent::AutoencoderKLComponent;
    torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes) override {
        return torch::full_like(AutoencoderKLComponent::decode(z, probes), NAN);
    }
};

TEST(PreviewMapFit, NonFiniteDecodesAreRefusedByName) {
    const nlohmann::json config = test::readJson(test::dataPath("golden/vae/config.json"));
    NanDecodingVae vae(AutoencoderKL(AutoencoderKLConfig::fromJson(config)));
    ProbeContext quiet(PrecisionPlan(), kCpu, ProbeLevel::Off);
    EXPECT_EQ(test::messageOf<PipelineError>([&] { fitLatentRgbMap(vae, quiet, kCpu); }),
              "the VAE's decodes of random latents hold NaN or Inf values");
}

// ---- runs -------------------------------------------------------------------------------------

// Every step of `r` has one projected preview, named by `origin`, at the latents' size.
void expectProjectedSteps(const RunRecord& r, const std::string& origin) {
    ASSERT_FALSE(r.steps.empty());
    std::vector<int> seen;
    for (const PreviewImage& p : r.previews) {
        if (p.fullDecode) continue;
        seen.push_back(p.step);
        EXPECT_EQ(p.projection, origin) << "step " << p.step;
        EXPECT_EQ(p.width, r.steps[0].latentWidth);
        EXPECT_EQ(p.height, r.steps[0].latentHeight);
        EXPECT_EQ(p.rgb.size(), size_t(p.width) * p.height * 3);
    }
    std::vector<int> all;
    for (const StepRecord& s : r.steps) all.push_back(s.step);
    EXPECT_EQ(seen, all);
}

class PreviewMapPipelines : public ::testing::Test {
protected:
    static void SetUpTestSuite() { s_root = test::tempDir("preview-maps"); }
    static void TearDownTestSuite() {
        std::error_code ec;
        std::filesystem::remove_all(s_root, ec);
    }
    static RunRecord run(const std::string& folder, RunConfig cfg) {
        cfg.modelDir = folder;
        cfg.probeLevel = ProbeLevel::Off;
        return Pipeline::load(folder, PrecisionPlan(), kCpu)->run(cfg);
    }
    static inline std::string s_root;
};

TEST_F(PreviewMapPipelines, SdRunsShowSd15sPublishedMap) {
    const auto f = test::writeTinySd(s_root + "/sd", false, test::sdEulerConfig());
    const RunRecord r = run(f.folder, test::tinyRunConfig("a lighthouse", 3, 6.0, 24, 16, 2));
    expectProjectedSteps(r, "published: ComfyUI's SD15 latent_rgb_factors");
}

TEST_F(PreviewMapPipelines, FluxRunsShowFluxsPublishedMap) {
    const auto f = test::writeTinyFlux1(s_root + "/flux", true);
    const RunRecord r = run(f.folder, test::tinyRunConfig("a red fox", 7, 3.5, 16, 24, 2));
    expectProjectedSteps(r, "published: ComfyUI's Flux latent_rgb_factors");
}

TEST_F(PreviewMapPipelines, QwenImageRunsShowWan21sPublishedMap) {
    const auto f = test::writeTinyQwenImage(s_root + "/qwen");
    const RunRecord r = run(f.folder, test::tinyRunConfig("A cat", 42, 4.0, 32, 16, 2));
    expectProjectedSteps(r, "published: ComfyUI's Wan21 latent_rgb_factors");
}

// An SD pipeline whose VAE config matches no published format: a map fitted from its decodes,
// once for the pipeline, the same for every step and run; with a VAE that decodes NaN, a grey
// tile on every step that says why.
TEST_F(PreviewMapPipelines, AnUnknownVaeGetsAFittedMapOrSaysWhyNot) {
    auto f = test::writeTinySd(s_root + "/unknown", false, test::sdEulerConfig());
    f.vaeConfig["scaling_factor"] = 0.5;
    test::writeJsonFile(f.folder + "/vae/config.json", f.vaeConfig);
    const RunConfig cfg = test::tinyRunConfig("a lighthouse", 3, 6.0, 24, 16, 3);
    auto p = Pipeline::load(f.folder, PrecisionPlan(), kCpu);
    const auto t0 = std::chrono::steady_clock::now();
    const LatentRgbMap& map = p->latentRgbMap();
    std::printf("  the tiny SD VAE's fit: %.3f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_EQ(map.origin, "fitted at load from 8 VAE decodes");
    const torch::Tensor factors = map.factors.clone();
    RunConfig c = cfg;
    c.modelDir = f.folder;
    const RunRecord r = p->run(c);
    expectProjectedSteps(r, "fitted at load from 8 VAE decodes");
    EXPECT_TRUE(torch::equal(p->latentRgbMap().factors, factors));

    f.vae["decoder.conv_out.bias"] = torch::full_like(f.vae["decoder.conv_out.bias"], NAN);
    test::writeWeightsFile(f.folder + "/vae/diffusion_pytorch_model.safetensors", f.vae);
    const RunRecord bad = run(f.folder, cfg);
    const std::string why =
        "none: a map fitted from the VAE's decodes failed: the VAE's decodes of random latents "
        "hold NaN or Inf values";
    expectProjectedSteps(bad, why);
    for (const PreviewImage& pv : bad.previews)
        if (!pv.fullDecode) EXPECT_EQ(pv.rgb, std::vector<uint8_t>(pv.rgb.size(), 128));
}

// The demo model's VAE config carries its own factors: its previews are what they were, the
// plain projection through them.
TEST_F(PreviewMapPipelines, TheDemoModelKeepsItsOwnFactors) {
    const std::string dir = findDemoModel();
    ASSERT_FALSE(dir.empty()) << "resources/demo-model is missing";
    const auto vaeConfig = readJsonFile(dir + "/vae/config.json");
    const auto own = vaeConfig.at("latent_rgb_factors").get<std::vector<double>>();
    auto p = Pipeline::load(dir, PrecisionPlan(), kCpu);
    RunConfig cfg;
    cfg.prompt = "a large red circle on the left, blue background";
    cfg.steps = 3;
    cfg.keepLatents = true;
    cfg.width = p->defaults().width;
    cfg.height = p->defaults().height;
    const RunRecord r = p->run(cfg);
    ASSERT_NO_FATAL_FAILURE(expectProjectedSteps(r, "the VAE config's latent_rgb_factors"));
    const auto f = torch::tensor(own, torch::kFloat64).to(torch::kFloat32).view({-1, 3});
    for (const PreviewImage& pv : r.previews) {
        const StepRecord& s = r.steps[size_t(pv.step)];
        const int64_t c = s.latentChannels;
        auto x0 = torch::tensor(s.denoisedValues).view({1, c, s.latentHeight, s.latentWidth});
        // The projection as the pipeline made it before maps had origins.
        auto x = x0[0].permute({1, 2, 0});
        auto rgb = (torch::matmul(x, f.slice(0, 0, c)) + f[c]).permute({2, 0, 1}).contiguous();
        EXPECT_EQ(pv.rgb, imageFromTensor(rgb, PixelRange::MinusOneToOne, true).pixels)
            << "step " << pv.step;
    }
}

}  // namespace
}  // namespace hs
