#include "pipeline_fixture.h"

#include <algorithm>
#include <cmath>

#include "base/pipeline_error.h"

namespace hs::test {

namespace fs = std::filesystem;

float maxDifference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    float d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return d;
}

void expectSameRun(const RunRecord& a, const RunRecord& b, const std::string& what) {
    ASSERT_EQ(a.steps.size(), b.steps.size()) << what;
    for (size_t i = 0; i < a.steps.size(); ++i) {
        EXPECT_EQ(a.steps[i].sigma, b.steps[i].sigma) << what << " step " << i;
        EXPECT_EQ(maxDifference(a.steps[i].latentValues, b.steps[i].latentValues), 0.f)
            << what << " step " << i;
    }
    ASSERT_TRUE(a.savedImage && b.savedImage) << what;
    EXPECT_TRUE(a.savedImage->rgb == b.savedImage->rgb) << what;
    EXPECT_EQ(a.image.mean, b.image.mean) << what;
}

void expectNanFromTheFirstStep(const RunRecord& r) {
    EXPECT_EQ(r.verdict, "nan/inf") << r.verdictExplanation;
    EXPECT_EQ(r.textEmbedding.finite, r.textEmbedding.count);  // the text path is clean
    ASSERT_FALSE(r.steps.empty());
    EXPECT_GT(r.steps[0].latent.nan, 0);
    ASSERT_TRUE(r.firstNonFinite.has_value());
}

bool hasNote(const RunRecord& r, const std::string& part) {
    for (const auto& n : r.notes)
        if (n.find(part) != std::string::npos) return true;
    return false;
}

int64_t probeCount(const RunRecord& r, const std::string& name, int step) {
    for (const auto& p : r.probes)
        if (p.name == name && p.step == step) return p.stats.count;
    return -1;
}

std::map<std::string, double> ditPeaks(const RunRecord& r) {
    std::map<std::string, double> peaks;
    for (const auto& p : r.probes)
        if (p.step == 0 && p.name.rfind("transformer.", 0) == 0)
            peaks[p.name] = std::max(peaks[p.name], p.stats.absMax);
    return peaks;
}

std::vector<std::string> nonFiniteOrder(const RunRecord& r,
                                        const std::function<bool(const std::string&)>& infAt,
                                        size_t n) {
    std::vector<std::string> order;
    for (const auto& q : r.probes) {
        if (q.step != 0 || q.name.rfind("transformer.", 0) != 0) continue;
        const bool inf = q.stats.posInf + q.stats.negInf > 0;
        if ((inf && infAt(q.name)) ||
            (q.stats.nan > 0 && (order.empty() || order.back().rfind("NaN ", 0) != 0)))
            order.push_back((q.stats.nan > 0 ? "NaN " : "Inf ") + q.name);
        if (order.size() == n) break;
    }
    return order;
}

double residualScaleFor(double peak) {
    return std::exp2(std::ceil(std::log2(131072.0 / peak)));
}

double meanPixelDifference(const RunRecord& a, const RunRecord& b) {
    if (!a.savedImage || !b.savedImage || a.savedImage->rgb.size() != b.savedImage->rgb.size())
        return INFINITY;
    double d = 0;
    for (size_t i = 0; i < a.savedImage->rgb.size(); ++i)
        d += std::abs(int(a.savedImage->rgb[i]) - int(b.savedImage->rgb[i]));
    return d / double(a.savedImage->rgb.size());
}

uint64_t safetensorsBytes(const std::string& folder) {
    uint64_t bytes = 0;
    for (const auto& e : fs::recursive_directory_iterator(folder))
        if (e.path().extension() == ".safetensors") bytes += e.file_size();
    return bytes;
}

std::unique_ptr<Pipeline> loadStreaming(const std::string& folder) {
    const uint64_t bytes = safetensorsBytes(folder);
    for (int pct = 124; pct > 10; pct -= 2) {
        ScopedMemoryLimit limit(std::to_string(bytes * pct / 100 / 1e6));
        try {
            auto p = Pipeline::load(folder, PrecisionPlan(), kCpuPipeline);
            if (p->memoryPlan().find("streamed") != std::string::npos) return p;
        } catch (const PipelineError& e) {
            ADD_FAILURE() << "refused at " << pct << "% before streaming: " << e.what();
            return nullptr;
        }
    }
    ADD_FAILURE() << "no budget made the pipeline stream";
    return nullptr;
}

std::string expectTheCommandLineFailsInFp16AndNotUnder(const std::string& args,
                                                       const std::string& out,
                                                       const std::string& fixedPlan) {
    fs::create_directories(out);
    int status = -1;
    const std::string text =
        runCli("generate " + args + " --plan transformer=fp16 --advise-for t4 --out " + out +
                   "/fp16.png --report " + out + "/fp16.html",
               status);
    EXPECT_EQ(status, 1) << text;
    EXPECT_NE(text.find("image: nan/inf"), std::string::npos) << text;
    EXPECT_NE(text.find("advice for GPU Tesla T4 (compute capability 7.5)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("bf16 is emulated and slow"), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(out + "/fp16.json"));
    const std::string fixed = runCli(
        "generate " + args + " --plan " + fixedPlan + " --out " + out + "/fixed.png", status);
    EXPECT_EQ(status, 0) << fixed;
    EXPECT_NE(fixed.find("image: ok"), std::string::npos) << fixed;
    EXPECT_TRUE(fs::exists(out + "/fixed.png"));
    return text;
}

void expectScheduleShiftedByThree(const RunRecord& r, int steps, double sLast) {
    ASSERT_EQ(r.steps.size(), size_t(steps));
    for (int i = 0; i < steps; ++i) {
        const double s = 1.0 - i * (1.0 - sLast) / (steps - 1);
        const double want = 3 * s / (1 + 2 * s);
        EXPECT_NEAR(r.steps[size_t(i)].sigma, want, 1e-6) << i;
        EXPECT_NEAR(r.steps[size_t(i)].timestep, 1000 * want, 1e-3) << i;
    }
}

RunConfig defaultRunOf(const Pipeline& p, uint64_t seed, int steps) {
    return runConfigOf(kDefaultPrompt, seed, RunConfig().guidance, p.defaults().width,
                       p.defaults().height, steps);
}

RunConfig tinyRunConfig(const std::string& prompt, uint64_t seed, double guidance, int width,
                        int height, int steps) {
    RunConfig c = runConfigOf(prompt, seed, guidance, width, height, steps);
    c.keepLatents = true;
    return c;
}

ModelFiles comfySetOf(const std::string& vae, const std::string& textEncoder,
                      const std::string& textEncoder2) {
    ModelFiles m;
    m.vae = vae;
    m.textEncoder = textEncoder;
    m.textEncoder2 = textEncoder2;
    return m;
}

// ---- the parameterised suites -------------------------------------------------------------------

TinyPipelineCase::TinyPipelineCase(std::string label,
                                   std::function<TinyPipeline(const std::string&)> write,
                                   std::function<RunConfig()> config)
    : label(std::move(label)), write(std::move(write)), config(std::move(config)) {}

TinyPipelineCase& TinyPipelineCase::runWith(std::function<RunConfig()> c) {
    config = std::move(c);
    return *this;
}

TinyPipelineCase& TinyPipelineCase::folderHolds(std::vector<std::string> c, int multiple) {
    components = std::move(c);
    sizeMultiple = multiple;
    return *this;
}

TinyPipelineCase& TinyPipelineCase::defaultsTo(int steps, double guidance, bool negative) {
    defaultSteps = steps;
    defaultGuidance = guidance;
    negativePrompt = negative;
    return *this;
}

TinyPipelineCase& TinyPipelineCase::fileDetected(size_t parts, const std::string& as) {
    detectedParts = parts;
    detectedAs = as;
    return *this;
}

TinyPipelineCase& TinyPipelineCase::textEmbeddingOf(int64_t count) {
    textEmbeddingCount = count;
    return *this;
}

TinyPipelineCase& TinyPipelineCase::latentsAre(int channels, int height, int width) {
    latentShape = {channels, height, width};
    return *this;
}

namespace {

// Each case's pipeline, by label, and the folder it was written under.
struct WrittenPipelines {
    std::map<std::string, std::pair<std::string, TinyPipeline>> byLabel;
};

WrittenPipelines& writtenPipelines() {
    static WrittenPipelines w;
    return w;
}

}  // namespace

const TinyPipeline& TinyPipelineSuite::pipeline() {
    auto& written = writtenPipelines().byLabel;
    const TinyPipelineCase& c = GetParam();
    auto it = written.find(c.label);
    if (it == written.end()) {
        const std::string root = tempDir("tiny-" + c.label);
        it = written.emplace(c.label, std::make_pair(root, c.write(root))).first;
    }
    return it->second.second;
}

void TinyPipelineSuite::TearDownTestSuite() {
    auto& written = writtenPipelines().byLabel;
    for (const auto& kv : written) {
        std::error_code ec;
        fs::remove_all(kv.second.first, ec);
    }
    written.clear();
}

void expectFp16BlackAndBf16Clean(Pipeline& p, RunConfig cfg, const RunRecord& bad,
                                 const RunRecord& reference, const std::string& block,
                                 const std::string& firstOver) {
    // Nothing in fp16 goes past 65504 as a finite value: it rounds to Inf.
    for (const auto& q : bad.probes)
        if (q.format == Format::FP16) EXPECT_EQ(q.stats.overFp16, 0) << q.name;
    ASSERT_TRUE(bad.savedImage.has_value());
    EXPECT_EQ(*std::max_element(bad.savedImage->rgb.begin(), bad.savedImage->rgb.end()), 0);

    cfg.plan = PrecisionPlan::parse("transformer=bf16");
    p.setPlan(cfg.plan);
    const RunRecord fixed = p.run(cfg);
    EXPECT_EQ(fixed.verdict, "ok") << fixed.verdictExplanation;
    EXPECT_FALSE(fixed.firstNonFinite.has_value());
    // bf16 holds the values past 65504 as they are: the first is where fp16 made Inf.
    std::string first;
    int64_t over = 0;
    for (const auto& q : fixed.probes) {
        if (q.stats.overFp16 > 0 && first.empty()) first = q.name;
        if (q.name.rfind(block, 0) == 0) over += q.stats.overFp16;
    }
    EXPECT_EQ(first, firstOver);
    EXPECT_GT(over, 0);
    const double dBf16 = test::meanPixelDifference(fixed, reference);
    const double dFp16 = test::meanPixelDifference(bad, reference);
    std::printf(
        "  mean |pixel difference| to the unscaled fp32 image (0-255): bf16 %.3f, fp16 "
        "%.3f (all NaN, saved black)\n",
        dBf16, dFp16);
    EXPECT_LT(dBf16, 3.0);
    EXPECT_GT(dFp16, 50.0);
}

}  // namespace hs::test
