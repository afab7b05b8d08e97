// Block-by-block weight streaming: a streamed Flux transformer and T5 encoder give bit-identical
// outputs and the same probe records as fully loaded ones (fp32, emulated fp16 and bf16), hold no
// block's weights between runs, the memory check chooses full / streamed / refuses by the budget,
// and a model three times the memory limit runs streamed within the limit plus one block (peak
// resident memory measured in a fresh process).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/pipeline_error.h"
#include "families/flux/flux_family.h"
#include "families/flux/flux_latents.h"
#include "families/t5/t5_family.h"
#include "flux1_fixture.h"
#include "io/safetensors.h"
#include "models/registry.h"
#include "pipeline/memory_check.h"
#include "test_util.h"

namespace hs {
namespace {

using ScopedLimit = test::ScopedMemoryLimit;

nlohmann::json fluxConfig(int width = 32, int doubles = 2, int singles = 3) {
    return test::smallFluxTransformerConfig(doubles, singles, width / 16,
                                            {{"guidance_embeds", true}});
}

// Seeded random weights of `module`'s shapes (norm scales around 1), written as `dtype` to
// `dir`/model.safetensors and opened again: the WeightMap values view the mapped file.
WeightMap writeWeightsWeightStream(torch::nn::Module& module, const std::string& dir,
                                   torch::ScalarType dtype, double scale) {
    torch::manual_seed(11);
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto& kv : stateOf(module)) {
        auto t = torch::randn(kv.second.sizes());
        const bool norm = kv.first.find("norm") != std::string::npos;
        tensors.emplace_back(kv.first, (norm ? 1 + 0.1 * t : scale * t).to(dtype));
    }
    writeSafetensors(dir + "/model.safetensors", tensors);
    return weightMapOf(TensorSet::open(dir + "/model.safetensors"));
}

class WeightStreamTest : public hs::test::TempDirTest {};

std::shared_ptr<Component> loadWeightStream(const char* className, const nlohmann::json& config,
                                            const WeightMap& weights, const PrecisionPolicy& policy,
                                            const std::string& component, LoadMode mode) {
    const auto family = FamilyRegistry::global().require(className, "test");
    return loadComponent(*family, {"test", config, weights}, policy, component, mode);
}

// A Flux transformer of one double and one single block, written to `dir` in bf16 and loaded
// streamed on the CPU in its stored formats.
struct StreamedFlux {
    std::shared_ptr<Component> component;
    WeightMap weights;
};
StreamedFlux streamedSmallFlux(const std::string& dir) {
    static const PrecisionPolicy policy(PrecisionPlan(), torch::kCPU);
    const auto config = fluxConfig(32, 1, 1);
    FluxTransformer shapes(FluxConfig::fromJson(config));
    StreamedFlux f;
    f.weights = writeWeightsWeightStream(*shapes, dir, torch::kBFloat16, 0.2);
    f.component = loadWeightStream("FluxTransformer2DModel", config, f.weights, policy,
                                   "transformer", LoadMode::Streamed);
    return f;
}

NamedTensors fluxInputs() {
    torch::manual_seed(9);
    return {{"in.hidden_states", packLatents(torch::randn({1, 4, 6, 8}))},  // [1, 12, 16]
            {"in.encoder_hidden_states", torch::randn({1, 5, 24})},
            {"in.pooled_projections", torch::randn({1, 20})},
            {"in.timestep", torch::tensor({0.6f})},
            {"in.guidance", torch::tensor({3.5f})},
            {"in.img_ids", prepareLatentImageIds(3, 4)},
            {"in.txt_ids", prepareTextIds(5)}};
}

NamedTensors t5Inputs() {
    torch::manual_seed(4);
    return {{"in.input_ids", torch::randint(0, 50, {2, 7}, torch::kInt64)},
            {"in.attention_mask",
             torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}).view({2, 7})}};
}

void expectSameRecords(const std::vector<ProbeRecord>& a, const std::vector<ProbeRecord>& b) {
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 10u);
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_EQ(a[i].format, b[i].format) << a[i].name;
        EXPECT_EQ(a[i].stats.count, b[i].stats.count) << a[i].name;
        EXPECT_EQ(a[i].stats.nan, b[i].stats.nan) << a[i].name;
        // Identical tensors reduce to identical statistics (NaN == NaN for empty stats).
        EXPECT_TRUE(a[i].stats.absMax == b[i].stats.absMax ||
                    (std::isnan(a[i].stats.absMax) && std::isnan(b[i].stats.absMax)))
            << a[i].name;
        EXPECT_TRUE(a[i].stats.mean == b[i].stats.mean ||
                    (std::isnan(a[i].stats.mean) && std::isnan(b[i].stats.mean)))
            << a[i].name;
    }
}

// No block parameter holds data after a streamed run: each is its one-element NaN placeholder.
void expectNothingHeld(Component& c) {
    StreamedBlocks* hook = c.streamedBlocks();
    ASSERT_TRUE(hook && hook->weightStream());
    const WeightStream& stream = *hook->weightStream();
    EXPECT_EQ(stream.materialisedBlocks(), 0u);
    size_t blockParams = 0;
    for (auto& p : c.module().named_parameters(true)) {
        bool inBlock = false;
        for (const auto& prefix : stream.blocks())
            inBlock |= p.key().compare(0, prefix.size(), prefix) == 0;
        if (!inBlock) {
            EXPECT_GE(p.value().storage().nbytes(), size_t(p.value().numel()) * 2) << p.key();
            continue;
        }
        ++blockParams;
        EXPECT_LE(p.value().storage().nbytes(), 4u) << p.key();
        EXPECT_TRUE(torch::isnan(p.value()).all().item<bool>()) << p.key();
    }
    EXPECT_GT(blockParams, 0u);
}

// Runs `inputs` through a full and a streamed load of the same file under each plan and expects
// the same bits and the same probe records.
void compareModes(const char* className, const nlohmann::json& config, const WeightMap& weights,
                  const std::string& component, const NamedTensors& inputs,
                  const std::string& outKey, const std::string& mixedRule) {
    test::ScopedCpuBf16 emulated(CpuBf16::Emulated);
    // Whole-component formats, and fp16 with one block's layer kept in fp32.
    for (const std::string& fmt :
         std::vector<std::string>{"=fp32", "=fp16", "=bf16", "=fp16," + mixedRule}) {
        const auto plan = PrecisionPlan::parse(component + fmt);
        ProbeContext pf(plan, torch::kCPU, ProbeLevel::Op), ps(plan, torch::kCPU, ProbeLevel::Op);
        auto full =
            loadWeightStream(className, config, weights, pf.policy(), component, LoadMode::Full);
        auto streamed = loadWeightStream(className, config, weights, ps.policy(), component,
                                         LoadMode::Streamed);
        EXPECT_EQ(full->loadMode(), LoadMode::Full);
        EXPECT_EQ(streamed->loadMode(), LoadMode::Streamed);
        expectNothingHeld(*streamed);
        const auto a = full->run(inputs, pf).at(outKey);
        const auto b = streamed->run(inputs, ps).at(outKey);
        EXPECT_TRUE(torch::isfinite(a).all().item<bool>()) << fmt;
        EXPECT_TRUE(torch::equal(a, b))
            << className << " " << fmt << ": max diff " << (a - b).abs().max().item<double>();
        expectSameRecords(pf.takeRecords(), ps.takeRecords());
        expectNothingHeld(*streamed);
        // A second run converts the blocks again and gives the same bits.
        EXPECT_TRUE(torch::equal(streamed->run(inputs, ps).at(outKey), b)) << fmt;
        const auto& stream = *streamed->streamedBlocks()->weightStream();
        EXPECT_EQ(size_t(stream.materialisations()), 2 * stream.blocks().size());
    }
}

TEST_F(WeightStreamTest, FluxStreamedEqualsFullBitForBit) {
    const auto config = fluxConfig();
    FluxTransformer shapes(FluxConfig::fromJson(config));
    const WeightMap weights = writeWeightsWeightStream(*shapes, m_dir, torch::kBFloat16, 0.2);
    EXPECT_EQ(blockPrefixesOf(weights, {"transformer_blocks.", "single_transformer_blocks."}),
              (std::vector<std::string>{
                  "transformer_blocks.0.", "transformer_blocks.1.", "single_transformer_blocks.0.",
                  "single_transformer_blocks.1.", "single_transformer_blocks.2."}));
    compareModes("FluxTransformer2DModel", config, weights, "transformer", fluxInputs(),
                 "out.sample", "transformer.single_transformer_blocks.1=fp32");
}

TEST_F(WeightStreamTest, T5StreamedEqualsFullBitForBit) {
    const auto config = test::tinyT5Config();  // gated, 2 blocks
    T5EncoderModel shapes(t5ConfigFromJson(config));
    const WeightMap weights = writeWeightsWeightStream(*shapes, m_dir, torch::kFloat32, 0.3);
    compareModes("T5EncoderModel", config, weights, "text_encoder_2", t5Inputs(),
                 "out.last_hidden_state",
                 "text_encoder_2.encoder.block.1.layer.1.DenseReluDense.wo=fp32");
}

// `cp other.safetensors model.safetensors` (or rsync --inplace) between two runs rewrites the
// streamed file in place: same path, inode and size. The next block read stops the run naming
// the file instead of mixing two models' weights.
TEST_F(WeightStreamTest, AFileRewrittenInPlaceBetweenRunsStopsTheNextRun) {
    const auto [c, weights] = streamedSmallFlux(m_dir);
    ProbeContext ctx(PrecisionPlan(), torch::kCPU, ProbeLevel::Off);
    EXPECT_NO_THROW(c->run(fluxInputs(), ctx));
    // The file's timestamps move in ticks of a few milliseconds.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string path = m_dir + "/model.safetensors";
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-64, std::ios::end);
        const std::string other(64, '\x11');
        f.write(other.data(), std::streamsize(other.size()));
    }
    try {
        c->run(fluxInputs(), ctx);
        FAIL() << "a run read a file rewritten in place";
    } catch (const FileError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(path), std::string::npos) << m;
        EXPECT_NE(m.find("file changed after it was opened"), std::string::npos) << m;
    }
}

TEST_F(WeightStreamTest, BlocksAreHeldOnlyInsideTheirScope) {
    const auto [c, weights] = streamedSmallFlux(m_dir);
    auto& stream = *c->streamedBlocks()->weightStream();
    const auto q = c->module().named_parameters()["transformer_blocks.0.attn.to_q.weight"];
    {
        auto outer = stream.materialise("transformer_blocks.0.");
        {
            auto inner = stream.materialise("transformer_blocks.0.");  // shares the conversion
        }
        EXPECT_TRUE(stream.isMaterialised("transformer_blocks.0."));
        EXPECT_FALSE(stream.isMaterialised("single_transformer_blocks.0."));
        EXPECT_TRUE(torch::equal(
            q, weights.at("transformer_blocks.0.attn.to_q.weight").to(torch::kFloat32)));
    }
    EXPECT_EQ(stream.materialisations(), 1);
    EXPECT_FALSE(stream.isMaterialised("transformer_blocks.0."));
    EXPECT_TRUE(torch::isnan(q).all().item<bool>());
    EXPECT_THROW(stream.materialise("transformer_blocks.7."), std::out_of_range);
    // The dtype between blocks is the one a run gets.
    EXPECT_EQ(q.scalar_type(), torch::kFloat32);
    // A family without blocks cannot stream.
    const auto vae = FamilyRegistry::global().require("AutoencoderKL", "test");
    EXPECT_TRUE(vae->blockStems.empty());
}

TEST_F(WeightStreamTest, TheBudgetChoosesFullStreamedOrRefuses) {
    const auto config = fluxConfig(64, 2, 2);
    FluxTransformer shapes(FluxConfig::fromJson(config));
    const WeightMap weights = writeWeightsWeightStream(*shapes, m_dir, torch::kBFloat16, 0.2);
    WeightMap small;  // a part that cannot stream (a stand-in VAE)
    small["decoder.weight"] = torch::zeros({1000});
    const std::vector<ComponentWeights> parts = {
        {"transformer", &weights, {"transformer_blocks.", "single_transformer_blocks."}},
        {"vae", &small, {}}};
    const PrecisionPolicy policy(PrecisionPlan::parse("transformer=fp16"), torch::kCPU);
    const uint64_t whole = weightBytes(parts, policy);
    const uint64_t block = tensorBytes(weights, "transformer", policy, "transformer_blocks.0.");
    const uint64_t blocks =
        tensorBytes(weights, "transformer", policy, "transformer_blocks.") +
        tensorBytes(weights, "transformer", policy, "single_transformer_blocks.");
    const uint64_t streamed = whole - blocks + block;
    ASSERT_GT(block, tensorBytes(weights, "transformer", policy, "single_transformer_blocks.0."));
    auto mb = [](uint64_t bytes) { return std::to_string(double(bytes) / 1e6); };
    {
        ScopedLimit limit(mb(whole * 5 / 4 + 1000));
        const auto c = chooseLoadModes("model", parts, policy);
        EXPECT_EQ(c.modes, (std::vector<LoadMode>{LoadMode::Full, LoadMode::Full}));
        EXPECT_NE(c.description.find("all components loaded whole"), std::string::npos)
            << c.description;
        EXPECT_NO_THROW(checkWeightsFit("model", parts, policy));
    }
    {
        ScopedLimit limit(mb(streamed * 5 / 4 + 1000));
        const auto c = chooseLoadModes("model", parts, policy);
        EXPECT_EQ(c.modes, (std::vector<LoadMode>{LoadMode::Streamed, LoadMode::Full}));
        EXPECT_NE(c.description.find("transformer streamed block by block"), std::string::npos)
            << c.description;
        EXPECT_NE(c.description.find("per block in fp32 (emulated fp16)"), std::string::npos)
            << c.description;
        EXPECT_NE(c.description.find("vae loaded whole"), std::string::npos) << c.description;
        // The same line as a message: each piece a template a translation can reach.
        const std::string ids =
            renderText(c.descriptionMessage, "not a message",
                       [](const MessageTemplate& t) { return "<" + std::string(t.id) + ">"; });
        EXPECT_EQ(ids, "<memory.streamed_emulated><memory.rest_whole><memory.budget.env>");
        EXPECT_EQ(englishText(c.descriptionMessage), c.description);
        EXPECT_THROW(checkWeightsFit("model", parts, policy), PipelineError);
        // A GPU's cap of the same size chooses the same, and says it is the cap.
        const MemoryBudget cap{memoryBudget(torch::kCPU)->bytes, MemoryBudget::Source::GpuCap};
        const auto g = chooseLoadModes("model", parts, policy, cap);
        EXPECT_EQ(g.modes, c.modes);
        EXPECT_NE(g.description.find("(GPU memory cap)"), std::string::npos) << g.description;
        EXPECT_EQ(g.descriptionMessage.back().id, "memory.budget.gpu_cap");
    }
    {
        ScopedLimit limit(mb(streamed * 5 / 4 - 1000));
        // A budget below even the streamed need is refused.
        const std::string m =
            test::messageOf<PipelineError>([&] { chooseLoadModes("model", parts, policy); });
        EXPECT_HAS(m, "even streamed block by block");
        EXPECT_HAS(m, "transformer ");
        EXPECT_HAS(m, "vae ");
        EXPECT_HAS(m, "HALFSCOPE_MEMORY_LIMIT_MB");
    }
}

// --- Peak resident memory of a streamed run, measured in a fresh process -----------------------

constexpr const char* kChildEnv = "HALFSCOPE_STREAM_RSS_CHILD";

// Width 512, 5 double + 4 single blocks: ~250 MB in fp32, stored in fp32; a double block is
// ~38 MB. The limit is 70 MB, so the weights are more than 3x the limit.
nlohmann::json rssConfig() {
    return fluxConfig(512, 5, 4);
}
constexpr double kRssLimitMb = 70;

uint64_t statusKb(const char* key) {
    std::ifstream f("/proc/self/status");
    for (std::string line; std::getline(f, line);)
        if (line.rfind(key, 0) == 0) return std::stoull(line.substr(std::strlen(key)));
    return 0;
}

// Only in the child process (its parent sets the variable): chooses the modes, loads the model
// streamed and runs it, writing "baseline_kb peak_kb largest_block_bytes whole_bytes".
TEST(WeightStreamChild, PeakRss) {
    const char* dir = std::getenv(kChildEnv);
    if (!dir) GTEST_SKIP() << "runs in the child of WeightStreamTest.StreamedRunStaysWithin...";
    const auto config = rssConfig();
    const WeightMap weights = weightMapOf(TensorSet::open(std::string(dir) + "/model.safetensors"));
    const PrecisionPolicy policy(PrecisionPlan::parse("transformer=fp32"), torch::kCPU);
    const auto family = FamilyRegistry::global().require("FluxTransformer2DModel", "test");
    const std::vector<ComponentWeights> parts = {{"transformer", &weights, family->blockStems}};
    const NamedTensors inputs = fluxInputs();
    // Start the peak here: what the process held before (LibTorch, the mapping) is not ours.
    { std::ofstream("/proc/self/clear_refs") << "5"; }
    const uint64_t baseline = statusKb("VmRSS:");
    const auto choice = chooseLoadModes(dir, parts, policy);
    ASSERT_EQ(choice.modes.at(0), LoadMode::Streamed) << choice.description;
    auto c =
        loadComponent(*family, {dir, config, weights}, policy, "transformer", choice.modes.at(0));
    ProbeContext probes(policy, ProbeLevel::Off);
    const auto out = c->run(inputs, probes).at("out.sample");
    ASSERT_TRUE(torch::isfinite(out).all().item<bool>());
    const uint64_t peak = statusKb("VmHWM:");
    std::ofstream(std::string(dir) + "/rss.txt")
        << baseline << " " << peak << " "
        << c->streamedBlocks()->weightStream()->largestBlockBytes() << " "
        << weightBytes(parts, policy) << "\n"
        << choice.description << "\n";
}

TEST_F(WeightStreamTest, StreamedRunStaysWithinTheLimitPlusOneBlock) {
    {
        FluxTransformer shapes(FluxConfig::fromJson(rssConfig()));
        writeWeightsWeightStream(*shapes, m_dir, torch::kFloat32, 0.02);
    }
    // The child's environment is made before fork(): between fork and exec only async-signal-
    // safe calls are allowed (another thread may hold the allocator's lock).
    std::vector<std::string> env = {std::string(kChildEnv) + "=" + m_dir,
                                    "HALFSCOPE_MEMORY_LIMIT_MB=" + std::to_string(kRssLimitMb),
                                    "OMP_WAIT_POLICY=PASSIVE"};
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "HALFSCOPE_", 10) != 0 && std::strncmp(*e, "OMP_WAIT", 8) != 0)
            env.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    char arg0[] = "halfscope_core_tests", arg1[] = "--gtest_filter=WeightStreamChild.PeakRss";
    char* argv[] = {arg0, arg1, nullptr};
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        execve("/proc/self/exe", argv, envp.data());
        _exit(127);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
    std::ifstream in(m_dir + "/rss.txt");
    uint64_t baselineKb = 0, peakKb = 0, blockBytes = 0, wholeBytes = 0;
    ASSERT_TRUE(in >> baselineKb >> peakKb >> blockBytes >> wholeBytes) << "no result from child";
    std::string description;
    std::getline(in >> std::ws, description);
    const double limit = kRssLimitMb * 1e6, growth = double(peakKb - baselineKb) * 1024;
    std::printf(
        "  weights %.1f MB (%.1fx the %.0f MB limit), largest block %.1f MB, peak RSS "
        "growth %.1f MB\n  %s\n",
        wholeBytes / 1e6, wholeBytes / limit, kRssLimitMb, blockBytes / 1e6, growth / 1e6,
        description.c_str());
    EXPECT_GE(double(wholeBytes), 3 * limit);
    EXPECT_LT(growth, limit + double(blockBytes));
}

}  // namespace
}  // namespace hs
