// fp8 safetensors (F8_E4M3, F8_E5M2) and ComfyUI's scaled fp8: the decode tables against values
// worked out by hand, files whose fp8 bytes encode chosen values next to the same values as F32,
// a T5 encoder and a Flux transformer loaded from e4m3, scaled e4m3 and e5m2 files giving exactly
// the F32 files' outputs, the scales applied and reported, and hostile files refused.
#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "base/affixes.h"
#include "flux1_fixture.h"
#include "fp8_files.h"
#include "inspect/inspect.h"
#include "inspect/weight_stats.h"
#include "io/float8.h"
#include "io/scaled_fp8.h"
#include "library/header_probe.h"
#include "single_file_helpers.h"

using namespace hs;

namespace {

using test::nearestCode;
using test::rawOf;
using test::RawTensor;
using test::writeRaw;

// ---- the tables -------------------------------------------------------------------------------

struct Known {
    uint8_t byte;
    float value;  // worked out by hand from the format's definition
};

const Known kE4m3[] = {
    {0x00, 0.0f},         {0x01, 0.001953125f},  // 2^-9, the smallest subnormal
    {0x07, 0.013671875f},                        // 7 * 2^-9, the largest subnormal
    {0x08, 0.015625f},                           // 2^-6, the smallest normal
    {0x38, 1.0f},         {0x3C, 1.5f},         {0x40, 2.0f},
    {0xB8, -1.0f},        {0x78, 256.0f},  // exponent all ones is finite in e4m3fn
    {0x7E, 448.0f},       {0xFE, -448.0f},      {0x81, -0.001953125f}};

const Known kE5m2[] = {{0x00, 0.0f},
                       {0x01, 0.0000152587890625f},  // 2^-16
                       {0x03, 0.0000457763671875f},  // 3 * 2^-16, the largest subnormal
                       {0x04, 0.00006103515625f},    // 2^-14
                       {0x3C, 1.0f},
                       {0x3E, 1.5f},
                       {0xBC, -1.0f},
                       {0x7B, 57344.0f},
                       {0xFB, -57344.0f}};

TEST(Fp8, TablesHoldTheHandComputedValues) {
    for (const Known& k : kE4m3)
        EXPECT_EQ(float8Table(Float8::E4M3)[k.byte], k.value) << int(k.byte);
    for (const Known& k : kE5m2)
        EXPECT_EQ(float8Table(Float8::E5M2)[k.byte], k.value) << int(k.byte);
    // Signed zeros.
    for (Float8 f : {Float8::E4M3, Float8::E5M2}) {
        EXPECT_FALSE(std::signbit(float8Table(f)[0x00]));
        EXPECT_TRUE(std::signbit(float8Table(f)[0x80]));
        EXPECT_EQ(float8Table(f)[0x80], 0.0f);
    }
    // e4m3fn: NaN at 0x7F and 0xFF only, no Inf.
    int nan = 0, inf = 0;
    for (float v : float8Table(Float8::E4M3)) nan += std::isnan(v), inf += std::isinf(v);
    EXPECT_EQ(nan, 2);
    EXPECT_EQ(inf, 0);
    EXPECT_TRUE(std::isnan(float8Table(Float8::E4M3)[0x7F]));
    EXPECT_TRUE(std::isnan(float8Table(Float8::E4M3)[0xFF]));
    // e5m2: Inf at 0x7C/0xFC, NaN at 0x7D-0x7F and 0xFD-0xFF.
    const auto& e5 = float8Table(Float8::E5M2);
    EXPECT_EQ(e5[0x7C], std::numeric_limits<float>::infinity());
    EXPECT_EQ(e5[0xFC], -std::numeric_limits<float>::infinity());
    for (int b : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(e5[size_t(b)])) << b;
    // e5m2 is fp16's upper byte: c10's fp16 decoding, an independent implementation, agrees on
    // all 256 codes.
    for (int b = 0; b < 256; ++b) {
        c10::Half h;
        h.x = uint16_t(b << 8);
        const float want = float(h);
        if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(e5[size_t(b)])) << b;
        } else {
            EXPECT_EQ(e5[size_t(b)], want) << b;
            EXPECT_EQ(std::signbit(e5[size_t(b)]), std::signbit(want)) << b;
        }
    }
}

// ---- writing fp8 files ------------------------------------------------------------------------

// How a test file stores its 2-D ".weight" tensors.
enum class Store { E4M3, ScaledE4M3, E5M2 };
const char* storeName(Store s) {
    return s == Store::E4M3 ? "e4m3" : s == Store::ScaledE4M3 ? "scaled e4m3" : "e5m2";
}

// Scaled files store weight / kScale, so that the weight is its fp8 value times kScale: a power
// of two, so the float32 product is exact and the F32 file can hold the same numbers.
constexpr float kScale = 0.125f;

bool storedInFp8(const std::string& key, const torch::Tensor& t) {
    return t.dim() == 2 && t.is_floating_point() && endsWith(key, ".weight");
}

struct Fp8Files {
    std::string fp8, f32;
};

// `weights` (prefixed with `prefix`) written twice: 2-D weights as fp8 codes in `store` (the
// rest F32), and every tensor as F32 holding exactly the values the fp8 file decodes to.
Fp8Files writePair(const std::string& dir, const std::string& stem, const WeightMap& weights,
                   Store store, const std::string& prefix = "") {
    const Float8 f = store == Store::E5M2 ? Float8::E5M2 : Float8::E4M3;
    const float scale = store == Store::ScaledE4M3 ? kScale : 1.0f;
    std::vector<RawTensor> fp8;
    WeightMap f32;
    for (const auto& [key, t] : weights) {
        if (!storedInFp8(key, t)) {
            fp8.push_back(rawOf(prefix + key, t.to(torch::kFloat32)));
            f32[key] = t.to(torch::kFloat32);
            continue;
        }
        const torch::Tensor v = t.to(torch::kFloat32).contiguous();
        std::string codes(size_t(v.numel()), '\0');
        torch::Tensor decoded = torch::empty_like(v);
        for (int64_t i = 0; i < v.numel(); ++i) {
            const uint8_t c = nearestCode(f, v.data_ptr<float>()[i] / scale);
            codes[size_t(i)] = char(c);
            decoded.data_ptr<float>()[i] = float8Table(f)[c] * scale;
        }
        fp8.push_back(
            {prefix + key, f == Float8::E4M3 ? "F8_E4M3" : "F8_E5M2", v.sizes().vec(), codes});
        f32[key] = decoded;
        if (store == Store::ScaledE4M3)
            fp8.push_back(rawOf(prefix + key.substr(0, key.size() - 6) + "scale_weight",
                                torch::tensor({kScale})));
    }
    if (store == Store::ScaledE4M3) fp8.push_back({prefix + "scaled_fp8", "F8_E4M3", {0}, ""});
    Fp8Files out;
    out.fp8 = writeRaw(dir + "/" + stem + "_fp8.safetensors", fp8);
    out.f32 = test::writeWeights(dir, stem + "_f32.safetensors", f32, prefix);
    return out;
}

constexpr Store kStores[] = {Store::E4M3, Store::ScaledE4M3, Store::E5M2};

TEST(Fp8, DecodedTensorsEqualTheF32Values) {
    const test::ScopedDir tmp("fp8-decode");
    std::string e4, e5;
    std::vector<float> e4v, e5v;
    for (const Known& k : kE4m3) e4 += char(k.byte), e4v.push_back(k.value);
    for (const Known& k : kE5m2) e5 += char(k.byte), e5v.push_back(k.value);
    const int64_t n4 = int64_t(e4v.size()), n5 = int64_t(e5v.size());
    // An odd first tensor, so the fp8 data starts at an odd offset.
    const std::string path =
        writeRaw(tmp.path + "/values.safetensors", {{"a_odd", "U8", {1}, std::string(1, '\x05')},
                                                    {"e4", "F8_E4M3", {n4}, e4},
                                                    {"e5", "F8_E5M2", {n5}, e5},
                                                    rawOf("e4_f32", torch::tensor(e4v)),
                                                    rawOf("e5_f32", torch::tensor(e5v)),
                                                    {"e4_nan", "F8_E4M3", {2}, "\x7F\xFF"},
                                                    {"e5_inf", "F8_E5M2", {2, 1}, "\x7C\xFC"},
                                                    {"empty", "F8_E5M2", {0, 3}, ""}});
    const TensorSet set = TensorSet::open(path);
    const torch::Tensor a = set.tensor("e4"), b = set.tensor("e5");
    EXPECT_EQ(a.scalar_type(), torch::kFloat32);
    EXPECT_TRUE(torch::equal(a, set.tensor("e4_f32")));
    EXPECT_TRUE(torch::equal(b, set.tensor("e5_f32")));
    EXPECT_TRUE(torch::isnan(set.tensor("e4_nan")).all().item<bool>());
    const torch::Tensor inf = set.tensor("e5_inf");
    EXPECT_EQ(inf.sizes(), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(inf[0][0].item<float>(), std::numeric_limits<float>::infinity());
    EXPECT_EQ(inf[1][0].item<float>(), -std::numeric_limits<float>::infinity());
    EXPECT_EQ(set.tensor("empty").sizes(), (std::vector<int64_t>{0, 3}));
    // An owning copy, not a view of the mapping: writable, and alive without the set.
    EXPECT_NO_THROW(set.tensor("e4").add_(1));
    // weightMapOf decodes the same way.
    const WeightMap w = weightMapOf(set);
    EXPECT_TRUE(torch::equal(w.at("e4"), a));
}

// ---- models loaded from fp8 files -------------------------------------------------------------

// The component of a one-component single file, run on `inputs` in fp32.
NamedTensors runFile(const std::string& path, const NamedTensors& inputs) {
    const SingleFileContents f = readSingleFile(path);
    EXPECT_EQ(f.components.size(), 1u) << path;
    EXPECT_TRUE(f.ignored.empty()) << path << ": " << f.ignored.size() << " keys ignored, e.g. "
                                   << (f.ignored.empty() ? "" : f.ignored[0]);
    return test::runConverted(f.components.at(0), inputs, path);
}

void expectSameOutputs(const NamedTensors& got, const NamedTensors& want, const std::string& what) {
    int compared = 0;
    for (const auto& [key, t] : want) {
        if (key.rfind("out.", 0) != 0) continue;
        ASSERT_TRUE(got.count(key)) << what << " " << key;
        EXPECT_TRUE(torch::equal(got.at(key), t)) << what << " " << key;
        ++compared;
    }
    EXPECT_GT(compared, 0) << what;
}

TEST(Fp8, T5FromFp8FilesRunsExactlyAsFromF32) {
    const WeightMap golden = test::openWeights(test::dataPath("golden/t5/model.safetensors"));
    const NamedTensors io = test::openTensors(test::dataPath("golden/t5_io.safetensors"));
    const NamedTensors in{{"in.input_ids", io.at("in.input_ids")}};
    const test::ScopedDir tmp("fp8-t5");
    for (Store store : kStores) {
        SCOPED_TRACE(storeName(store));
        const Fp8Files files = writePair(tmp.path, storeName(store), golden, store);
        const NamedTensors want = runFile(files.f32, in);
        expectSameOutputs(runFile(files.fp8, in), want, storeName(store));
        // Rounded to fp8, the weights are still close to the golden model's.
        EXPECT_LE(test::relErr(want.at("out.last_hidden_state"), io.at("out.last_hidden_state")),
                  0.5);
    }
}

TEST(Fp8, FluxTransformerFromFp8FilesRunsExactlyAsFromF32) {
    const nlohmann::json config =
        test::smallFluxTransformerConfig(2, 1, 2, {{"axes_dims_rope", {4, 4, 8}}});
    const WeightMap bfl =
        test::fluxToBfl(test::randomWeightsOf(config, "FluxTransformer2DModel", 5), 2, 1);
    const NamedTensors in = test::smallFluxInputs();
    const test::ScopedDir tmp("fp8-flux");
    for (Store store : kStores) {
        SCOPED_TRACE(storeName(store));
        // Under ComfyUI's prefix, the scaled marker with it ("model.diffusion_model.scaled_fp8").
        const Fp8Files files =
            writePair(tmp.path, storeName(store), bfl, store, "model.diffusion_model.");
        EXPECT_EQ(detectSingleFile(test::openWeights(files.fp8)),
                  std::vector<std::string>{
                      "Black Forest Labs Flux transformer (model.diffusion_model.*)"});
        expectSameOutputs(runFile(files.fp8, in), runFile(files.f32, in), storeName(store));
    }
}

// ---- scales -----------------------------------------------------------------------------------

// A scaled file: lin.weight = codes * 0.3 (not a power of two), lin.scale_input = 0.5,
// norm.weight F32 without a scale.
std::string writeScaled(const std::string& dir) {
    return writeRaw(dir + "/scaled.safetensors",
                    {{"lin.weight", "F8_E4M3", {2, 2}, "\x38\x40\xB8\x01"},  // 1, 2, -1, 2^-9
                     rawOf("lin.scale_weight", torch::tensor(0.3f)),
                     rawOf("lin.scale_input", torch::tensor({0.5f})),
                     rawOf("norm.weight", torch::tensor({1.5f, 2.5f})),
                     {"scaled_fp8", "F8_E4M3", {0}, ""}});
}

TEST(Fp8, ScaledWeightsAreMultipliedAndScaleInputIsReported) {
    const test::ScopedDir tmp("fp8-scaled");
    const std::string path = writeScaled(tmp.path);
    const TensorSet set = TensorSet::open(path);
    const WeightMap w = weightMapOf(set);
    EXPECT_EQ(test::keySet(w), (std::set<std::string>{"lin.weight", "norm.weight"}));
    const float s = 0.3f;
    const torch::Tensor want = torch::tensor({1.0f * s, 2.0f * s, -1.0f * s, 0.001953125f * s});
    EXPECT_TRUE(torch::equal(w.at("lin.weight"), want.reshape({2, 2})));
    EXPECT_TRUE(torch::equal(w.at("norm.weight"), torch::tensor({1.5f, 2.5f})));

    const ScaledFp8 scales = readScaledFp8(set);
    EXPECT_EQ(scales.markers, std::vector<std::string>{"scaled_fp8"});
    EXPECT_EQ(scales.weightScales.at("lin.weight"), s);
    EXPECT_EQ(scales.inputScales.at("lin.weight"), 0.5f);

    // inspect: the dtype, the decoded and scaled range, the scale_input.
    const InspectReport r = inspectPath(path);
    ASSERT_EQ(r.components.size(), 1u);
    const ComponentSummary& c = r.components[0];
    EXPECT_EQ(c.tensors, 2);  // the marker and the scales are not model tensors
    EXPECT_EQ(c.dtypes.at("scaled e4m3").tensors, 1);
    EXPECT_EQ(c.total.checked, 6);
    EXPECT_EQ(c.total.absMax, 2.5f);
    EXPECT_EQ(c.scaledWeights, 1);
    EXPECT_EQ(c.inputScales.at("lin.weight"), 0.5f);
    EXPECT_NE(formatReport(r).find("scale_input (not applied)"), std::string::npos);
    EXPECT_EQ(toJson(r)["components"][0]["scaled_fp8"]["scale_input"]["lin.weight"], 0.5);

    // The weight check reads the scaled values; an unscaled e5m2 file shows "e5m2".
    const auto stats = weightStatsOf(set, "x");
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].key, "lin.weight");
    EXPECT_EQ(stats[0].dtype, "scaled e4m3");
    EXPECT_EQ(stats[0].maxAbs, double(2.0f * s));
    const std::string e5 =
        writeRaw(tmp.path + "/e5.safetensors", {{"w.weight", "F8_E5M2", {2}, "\x3C\xBC"}});
    const auto e5stats = weightStatsOf(TensorSet::open(e5), "x");
    ASSERT_EQ(e5stats.size(), 1u);
    EXPECT_EQ(e5stats[0].dtype, "e5m2");
    EXPECT_EQ(e5stats[0].maxAbs, 1.0);
}

TEST(Fp8, LibraryDescribesScaledFp8FilesFromTheirHeader) {
    const WeightMap golden = test::openWeights(test::dataPath("golden/t5/model.safetensors"));
    const test::ScopedDir tmp("fp8-library");
    const Fp8Files files =
        writePair(tmp.path, "t5xxl_fp8_e4m3fn_scaled", golden, Store::ScaledE4M3);
    const FileProbe p = probeSafetensorsFile(files.fp8);
    EXPECT_TRUE(p.error.empty()) << p.error;
    EXPECT_TRUE(p.conversionError.empty()) << p.conversionError;
    ASSERT_EQ(p.parts.size(), 1u);
    EXPECT_EQ(p.parts[0].className, "T5EncoderModel");
    EXPECT_GT(p.dtypes.at("scaled e4m3"), 0);
    EXPECT_EQ(p.tensors, int64_t(golden.size()));  // no marker, no scales
    EXPECT_EQ(probeSafetensorsFile(writePair(tmp.path, "e4", golden, Store::E4M3).fp8)
                  .dtypes.count("e4m3"),
              1u);
}

// ---- hostile files ----------------------------------------------------------------------------

TEST(Fp8, HostileFilesGiveClearErrors) {
    const test::ScopedDir tmp("fp8-hostile");
    const std::string& dir = tmp.path;
    const RawTensor weight{"lin.weight", "F8_E4M3", {2}, "\x38\x40"};
    const RawTensor marker{"scaled_fp8", "F8_E4M3", {0}, ""};
    auto scaledWith = [&](const std::string& name, const RawTensor& scale) {
        return writeRaw(dir + "/" + name + ".safetensors", {weight, scale, marker});
    };
    struct Case {
        std::string label, path, message;
    };
    const std::vector<Case> cases{
        {"truncated data", writeRaw(dir + "/short.safetensors", {weight}, 1),
         "run past the end of the data area (1 bytes; is the file truncated?)"},
        {"scale of shape [2]",
         scaledWith("shape", rawOf("lin.scale_weight", torch::tensor({1.0f, 2.0f}))),
         "'lin.scale_weight' has shape [2], expected one value"},
        {"scale of dtype I64",
         scaledWith("dtype", rawOf("lin.scale_weight", torch::tensor({int64_t(2)}))),
         "'lin.scale_weight' is I64, expected a float32 scale"},
        {"NaN scale", scaledWith("nan", rawOf("lin.scale_weight", torch::tensor(std::nanf("")))),
         "expected a finite scale"},
        {"Inf scale_input", scaledWith("inf", rawOf("lin.scale_input", torch::tensor(INFINITY))),
         "expected a finite scale"},
        {"scale without its weight",
         scaledWith("orphan", rawOf("other.scale_weight", torch::tensor(2.0f))),
         "'other.scale_weight' has no weight 'other.weight'"}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.label);
        test::expectFileError([&] { weightMapOf(TensorSet::open(c.path)); }, c.path, c.message);
        test::expectFileError([&] { readSingleFile(c.path); }, c.path, c.message);
        test::expectFileError([&] { inspectPath(c.path); }, c.path, c.message);
        // The library reads headers only: the truncated file is its error; a scale's value is
        // not read there. It never throws.
        EXPECT_NO_THROW(probeSafetensorsFile(c.path));
    }
    // Without a marker the scale keys are ordinary tensors: the layout refuses them by name.
    const std::string unmarked = writeRaw(dir + "/unmarked.safetensors",
                                          {weight, rawOf("lin.scale_weight", torch::tensor(2.0f))});
    EXPECT_NE(probeSafetensorsFile(cases[0].path).error.find("truncated"), std::string::npos);
    EXPECT_EQ(test::keySet(weightMapOf(TensorSet::open(unmarked))),
              (std::set<std::string>{"lin.scale_weight", "lin.weight"}));
}

}  // namespace
