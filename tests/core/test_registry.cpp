// A family and a pipeline shape registered from inside a test, with no edit anywhere else: the
// toy family runs through run-module's code path, and a toy strategy runs it in a pipeline with
// the demo model's text encoder and VAE. Also: configs are bounded and checked against the
// weights before anything is allocated.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "denoising/strategy.h"
#include "io/model_folder.h"
#include "io/safetensors.h"
#include "models/common/config.h"
#include "models/registry.h"
#include "models/run_component.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"
#include "test_util.h"

using namespace hs;
namespace fs = std::filesystem;

namespace {

// "ToyDenoiser": one linear map over the channels of every latent pixel, y = W x + b.
class ToyModelImpl : public torch::nn::Module {
public:
    ToyModelImpl(int channels, const std::string& path) : m_out(path + ".proj", ProbeLevel::Layer) {
        proj = register_module("proj", nn::Linear(channels, channels));
    }
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes) {  // [N, C] -> [N, C]
        return probes.point(m_out, proj->forward(probes.enter(m_out.name, x, proj->weight)));
    }
    nn::Linear proj{nullptr};

private:
    ProbePoint m_out;
};
TORCH_MODULE(ToyModel);

class ToyComponent : public Component {
public:
    explicit ToyComponent(ToyModel m) : model(std::move(m)) {}
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& in, ProbeContext& probes) override {
        checkInputKeys(in, {"in.x"}, "ToyDenoiser");
        const int64_t c = model->proj->weight.size(0);
        auto x = requireInput(in, "in.x", {-1, c}, "[N, " + std::to_string(c) + "]");
        return {{"out.y", model->forward(x, probes).to(torch::kFloat32)}};
    }
    ToyModel model;
};

Family toyFamily() {
    Family f;
    f.name = "toy denoiser";
    f.classNames = {"ToyDenoiser"};
    f.role = Role::Denoiser;
    f.defaultComponent = "denoiser";
    f.io = "in.x -> out.y";
    f.build = [](const ComponentSource& s, const std::string& component) {
        const int c = cfgInt(s.config, "channels", 4, 1, kMaxWidth);
        return std::make_shared<ToyComponent>(ToyModel(c, component));
    };
    return f;
}

// Moves the latents toward what the toy predicts, from the run's seed; the text encoder only
// contributes its recorded embedding.
class ToyRun : public DenoisingRun {
public:
    ToyRun(const RunConfig& cfg, TextEncoderComponent& te, ToyComponent& toy, int channels,
           int64_t h, int64_t w)
        : m_cfg(cfg), m_te(te), m_toy(toy) {
        auto gen = at::detail::createCPUGenerator(cfg.seed);
        m_x = torch::randn({1, channels, h, w}, gen, torch::kFloat32);
    }
    torch::Tensor encodePrompt(ProbeContext& probes) override {
        auto ids = torch::full({1, 8}, 5, torch::kInt64);
        return m_te.encode(ids, probes).lastHiddenState;
    }
    int numSteps() const override { return m_cfg.steps; }
    DenoiseStep step(int i, ProbeContext& probes) override {
        const int64_t c = m_x.size(1);
        auto tokens = m_x.permute({0, 2, 3, 1}).reshape({-1, c});  // [h * w, C]
        auto v = m_toy.model->forward(tokens, probes).to(torch::kFloat32);
        v = v.reshape({1, m_x.size(2), m_x.size(3), c}).permute({0, 3, 1, 2});  // [1, C, h, w]
        DenoiseStep s;
        s.sigma = 1.0 - double(i) / m_cfg.steps;
        s.timestep = s.sigma * 1000;
        s.modelOutput = v;
        s.denoised = m_x - v;
        s.next = m_x - v / double(m_cfg.steps);
        m_x = s.next;
        return s;
    }
    torch::Tensor latents() const override { return m_x; }

private:
    RunConfig m_cfg;
    TextEncoderComponent& m_te;
    ToyComponent& m_toy;
    torch::Tensor m_x;
};

class ToyStrategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return {{"text_encoder", Role::TextEncoder, true, true},
                {"denoiser", Role::Denoiser, true, true},
                {"vae", Role::Vae, true, true}};
    }
    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder&) override {
        m_te = dynamic_cast<TextEncoderComponent*>(c.at("text_encoder").get());
        m_toy = dynamic_cast<ToyComponent*>(c.at("denoiser").get());
        m_vae = dynamic_cast<VaeComponent*>(c.at("vae").get());
        ASSERT_TRUE(m_te && m_toy && m_vae);
    }
    int sizeMultiple() const override { return m_vae->downFactor(); }
    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg, const torch::Device&) override {
        const int f = m_vae->downFactor();
        return std::make_unique<ToyRun>(cfg, *m_te, *m_toy, m_vae->latentChannels(), cfg.height / f,
                                        cfg.width / f);
    }

private:
    TextEncoderComponent* m_te = nullptr;
    ToyComponent* m_toy = nullptr;
    VaeComponent* m_vae = nullptr;
};

void writeJsonRegistry(const fs::path& p, const nlohmann::json& j) {
    std::ofstream(p) << j.dump(2);
}

// A component folder of the toy family: channels x channels weights, a scaled identity.
fs::path writeToyComponent(const fs::path& dir, int channels, float scale) {
    fs::create_directories(dir);
    writeJsonRegistry(dir / "config.json",
                      {{"_class_name", "ToyDenoiser"}, {"channels", channels}});
    std::vector<std::pair<std::string, torch::Tensor>> w = {
        {"proj.weight", torch::eye(channels) * scale},
        {"proj.bias", torch::full({channels}, 0.5f)}};
    writeSafetensors((dir / "diffusion_pytorch_model.safetensors").string(), w);
    return dir;
}

void registerToysOnce() {
    static bool done = [] {
        FamilyRegistry::global().add(toyFamily());
        StrategyRegistry::global().add(
            {"Toy", {"ToyPipeline"}, [] { return std::make_unique<ToyStrategy>(); }});
        return true;
    }();
    (void)done;
}

}  // namespace

TEST(Registry, AToyFamilyRunsThroughRunModulesCodePath) {
    registerToysOnce();
    const fs::path dir = writeToyComponent(test::tempDir("toy-family") + "/denoiser", 4, 3.f);
    NamedTensors in{{"in.x", torch::tensor({{1.f, 2.f, 3.f, 70000.f}})}};
    ComponentRunOptions o;
    o.level = ProbeLevel::Layer;
    ComponentRun r = runComponentFolder(dir.string(), in, o);
    EXPECT_EQ(r.familyName, "toy denoiser");
    EXPECT_EQ(r.component, "denoiser");
    EXPECT_EQ(r.plan.toString(), "denoiser=fp32");
    EXPECT_TRUE(
        torch::equal(r.outputs.at("out.y"), torch::tensor({{3.5f, 6.5f, 9.5f, 210000.5f}})));
    EXPECT_FALSE(r.firstNonFinite.has_value());

    // The same component in fp16: the input enters as fp16 (70000 -> Inf), the point is named.
    o.precision = Format::FP16;
    r = runComponentFolder(dir.string(), in, o);
    ASSERT_TRUE(r.firstNonFinite.has_value());
    EXPECT_EQ(r.firstNonFinite->at.name, "denoiser.proj");
    EXPECT_EQ(r.execution, Execution::Emulated);
    EXPECT_TRUE(std::isinf(r.outputs.at("out.y")[0][3].item<float>()));

    // Its inputs are checked like any family's, and a class nobody loads is named.
    try {
        runComponentFolder(dir.string(), {{"in.x", torch::zeros({2, 3})}}, {});
        FAIL() << "a mis-shaped input was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("[N, 4]"), std::string::npos) << e.what();
    }
    writeJsonRegistry(dir / "config.json", {{"_class_name", "NoSuchModel"}});
    try {
        runComponentFolder(dir.string(), in, {});
        FAIL() << "an unknown class was accepted";
    } catch (const std::runtime_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("'NoSuchModel' is not supported"), std::string::npos) << m;
        EXPECT_NE(m.find("ToyDenoiser"), std::string::npos) << m;
    }
}

TEST(Registry, AToyStrategyRunsAPipelineWithRolesFromItsSlots) {
    registerToysOnce();
    const fs::path dir = test::tempDir("toy-pipeline");
    const fs::path demo = findDemoModel();
    for (const char* part : {"text_encoder", "vae"})
        fs::copy(demo / part, dir / part, fs::copy_options::recursive);
    writeToyComponent(dir / "denoiser", 4, 0.5f);
    writeJsonRegistry(dir / "model_index.json",
                      {{"_class_name", "ToyPipeline"},
                       {"text_encoder", {"transformers", "CLIPTextModel"}},
                       {"denoiser", {"diffusers", "ToyDenoiser"}},
                       {"vae", {"diffusers", "AutoencoderKL"}}});
    auto p = Pipeline::load(dir.string(), PrecisionPlan::parse("denoiser=fp16"),
                            torch::Device(torch::kCPU));
    ASSERT_EQ(p->components().size(), 3u);
    EXPECT_EQ(componentWithRole(p->components(), Role::Denoiser)->name, "denoiser");
    EXPECT_EQ(componentWithRole(p->components(), Role::Vae)->className, "AutoencoderKL");
    EXPECT_EQ(p->effectivePlan().toString(), "text_encoder=bf16,vae=bf16,denoiser=fp16");
    RunConfig cfg;
    cfg.steps = 3;
    const RunRecord r = p->run(cfg);
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.verdict.empty(), false);
    EXPECT_GT(r.textEmbedding.count, 0);
    bool sawToy = false, sawVae = false;
    for (const auto& pr : r.probes) {
        sawToy |= pr.name == "denoiser.proj" && pr.format == Format::FP16;
        sawVae |= pr.name.rfind("vae.decoder.", 0) == 0;
    }
    EXPECT_TRUE(sawToy);
    EXPECT_TRUE(sawVae);

    // A required slot that model_index.json lacks is named before anything loads.
    writeJsonRegistry(dir / "model_index.json",
                      {{"_class_name", "ToyPipeline"},
                       {"text_encoder", {"transformers", "CLIPTextModel"}},
                       {"vae", {"diffusers", "AutoencoderKL"}}});
    try {
        Pipeline::load(dir.string(), PrecisionPlan(), torch::Device(torch::kCPU));
        FAIL() << "a pipeline without its denoiser loaded";
    } catch (const PipelineError& e) {
        EXPECT_NE(std::string(e.what()).find("no 'denoiser' component"), std::string::npos)
            << e.what();
    }
}

TEST(Registry, ClassNamesAreTakenOnce) {
    registerToysOnce();
    EXPECT_THROW(FamilyRegistry::global().add(toyFamily()), std::invalid_argument);
    EXPECT_NE(FamilyRegistry::global().find("FluxTransformer2DModel"), nullptr);
    EXPECT_EQ(FamilyRegistry::global().find("FluxTransformer2DModel")->role, Role::Denoiser);
    EXPECT_EQ(FamilyRegistry::global().find("nothing"), nullptr);
}

TEST(ConfigBounds, SizesAreBoundedAndOverflowIsAnError) {
    const nlohmann::json huge = {{"num_layers", 1000000000}};
    try {
        cfgInt(huge, "num_layers", 1, 0, kMaxLayers);
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("'num_layers' is 1000000000, outside 0..1024"),
                  std::string::npos)
            << e.what();
    }
    // Past int's range: an error, not a truncation to 1410065408.
    EXPECT_THROW(cfgInt({{"hidden_size", 10000000000LL}}, "hidden_size", 1, 1, kMaxWidth),
                 ConfigError);
    EXPECT_THROW(cfgInt({{"hidden_size", 18446744073709551615ULL}}, "hidden_size", 1, 1, kMaxWidth),
                 ConfigError);
    EXPECT_THROW(cfgInt({{"hidden_size", -5}}, "hidden_size", 1, 1, kMaxWidth), ConfigError);
    EXPECT_THROW(cfgInt({{"hidden_size", 1e9}}, "hidden_size", 1, 1, kMaxWidth), ConfigError);
    EXPECT_THROW(
        cfgIntList({{"block_out_channels", {64, 1 << 30}}}, "block_out_channels", {}, 1, kMaxWidth),
        ConfigError);
    EXPECT_EQ(cfgInt({{"hidden_size", 3072}}, "hidden_size", 1, 1, kMaxWidth), 3072);
    // A corrupt value of a real family's config is refused at load, naming file and field.
    const fs::path dir = test::tempDir("bounded") + "/transformer";
    fs::copy(fs::path(findDemoModel()) / "transformer", dir, fs::copy_options::recursive);
    auto cfg = readJsonFile((dir / "config.json").string());
    cfg["num_layers"] = 1000000000;
    writeJsonRegistry(dir / "config.json", cfg);
    try {
        runComponentFolder(dir.string(), {}, {});
        FAIL() << "a billion layers were accepted";
    } catch (const ConfigError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("transformer/config.json: 'num_layers'"), std::string::npos) << m;
    }
}

TEST(ConfigBounds, WeightsAreCheckedAgainstTheConfigBeforeAllocating) {
    // A config within every bound that would need over 10 TB in fp32 (1024 blocks, 16384 wide),
    // against the demo transformer's weights: refused from the meta-device model, at once.
    const fs::path dir = test::tempDir("shape-check") + "/transformer";
    fs::copy(fs::path(findDemoModel()) / "transformer", dir, fs::copy_options::recursive);
    auto cfg = readJsonFile((dir / "config.json").string());
    cfg["num_layers"] = 1024;
    cfg["num_attention_heads"] = 256;
    writeJsonRegistry(dir / "config.json", cfg);
    const ComponentFolder folder = openComponent(dir.string());
    const auto family = FamilyRegistry::global().require(folder.className, dir.string());
    ComponentSource source{folder.dir, folder.config, weightMapOf(folder.weights)};
    const auto t0 = std::chrono::steady_clock::now();
    try {
        loadComponent(*family, source, PrecisionPolicy(PrecisionPlan(), torch::kCPU),
                      "transformer");
        FAIL() << "weights of another shape were accepted";
    } catch (const WeightError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("has shape"), std::string::npos) << m;
        EXPECT_NE(m.find(dir.string()), std::string::npos) << m;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 20.0);  // building 1024 meta blocks; a real allocation would fail or swap
}
