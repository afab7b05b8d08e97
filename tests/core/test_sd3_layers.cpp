// The SD3 transformer's layers in another configuration than the goldens' (patch 2, three
// blocks, two of them dual): its shapes, batches and reduced precision, the unpatchify order, odd
// sides refused; the 2-D sin-cos positional table and its crop against diffusers' formula; an
// fp16 overflow named inside its block. (The fp32-residual remedy on SD3.5's residual streams is
// the ResidualStreams suite's SD3 case, test_residual_remedies.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "family_suites.h"
#include "golden_helpers.h"
#include "families/sd3/sd3_family.h"
#include "families/sd3/sd3_layers.h"
#include "sd3_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

// ---- another configuration: patch 2, three blocks, dual attention in two ---------------------

TEST(SD3Transformer, OtherConfigurationRunsWithItsShapesAndInReducedPrecision) {
    const auto config = test::otherSd3Config();
    const auto weights = test::randomSd3Weights(config);
    EXPECT_TRUE(weights.count("transformer_blocks.1.attn2.norm_q.weight"));
    EXPECT_FALSE(weights.count("transformer_blocks.2.attn2.to_q.weight"));
    EXPECT_FALSE(weights.count("transformer_blocks.2.attn.to_add_out.weight"));
    EXPECT_FALSE(weights.count("transformer_blocks.2.ff_context.net.2.weight"));
    EXPECT_EQ(weights.at("transformer_blocks.0.norm1.linear.weight").sizes(),
              (std::vector<int64_t>{9 * 24, 24}));
    EXPECT_EQ(weights.at("transformer_blocks.2.norm1.linear.weight").sizes(),
              (std::vector<int64_t>{6 * 24, 24}));
    EXPECT_EQ(weights.at("transformer_blocks.2.norm1_context.linear.weight").sizes(),
              (std::vector<int64_t>{2 * 24, 24}));
    EXPECT_EQ(weights.at("pos_embed.proj.weight").sizes(), (std::vector<int64_t>{24, 16, 2, 2}));
    EXPECT_EQ(weights.at("proj_out.weight").sizes(), (std::vector<int64_t>{4 * 16, 24}));

    const NamedTensors in = test::otherSd3Inputs();
    ProbeContext p32 = contextFor("");
    auto m32 = test::loadSd3Transformer(config, weights, p32);
    auto o32 = m32->run(in, p32).at("out.sample");
    ASSERT_EQ(o32.sizes(), (std::vector<int64_t>{2, 16, 12, 10}));
    EXPECT_TRUE(torch::isfinite(o32).all().item<bool>());
    // The two batch entries differ in timestep and inputs, so their outputs must differ too.
    EXPECT_GT((o32[0] - o32[1]).abs().max().item<double>(), 1e-3);
    // A batch entry alone gives the same as within the batch; a [1] timestep is broadcast.
    NamedTensors one{
        {"in.hidden_states", in.at("in.hidden_states").narrow(0, 1, 1)},
        {"in.encoder_hidden_states", in.at("in.encoder_hidden_states").narrow(0, 1, 1)},
        {"in.pooled_projections", in.at("in.pooled_projections").narrow(0, 1, 1)},
        {"in.timestep", torch::tensor(350.f)}};
    EXPECT_LT(relErr(m32->run(one, p32).at("out.sample")[0], o32[1]), 1e-5);
    // predict() is run() for a strategy.
    auto* sd3 = dynamic_cast<SD3TransformerComponent*>(m32.get());
    ASSERT_NE(sd3, nullptr);
    EXPECT_TRUE(
        torch::equal(sd3->predict(in.at("in.hidden_states"), in.at("in.encoder_hidden_states"),
                                  in.at("in.pooled_projections"), in.at("in.timestep"), p32),
                     o32));
    EXPECT_EQ(sd3->config().numLayers, 3);

    test::expectReducedPrecisionAgrees(
        [&](const std::string& plan) {
            ProbeContext p = contextFor(plan);
            return test::loadSd3Transformer(config, weights, p)->run(in, p).at("out.sample");
        },
        o32,
        {{"transformer=bf16", 5e-2},
         {"transformer=fp16", 1e-2},
         {"transformer=bf16,transformer.transformer_blocks.1=fp32", 5e-2}});
}

// proj_out's feature f of patch (i, j) is (dy * p + dx) * C + c for pixel (p i + dy, p j + dx)
// of channel c (diffusers' reshape to [B, h, w, p, p, C] and einsum "nhwpqc->nchpwq"): with
// proj_out's weight zero the output is its bias laid out so.
TEST(SD3Transformer, UnpatchifyFollowsDiffusersLayout) {
    const auto config = test::otherSd3Config();
    auto weights = test::randomSd3Weights(config);
    weights["proj_out.weight"] = torch::zeros_like(weights.at("proj_out.weight"));
    weights["proj_out.bias"] = torch::arange(64, torch::kFloat32);
    ProbeContext probes = contextFor("");
    auto out = test::loadSd3Transformer(config, weights, probes)
                   ->run(test::otherSd3Inputs(), probes)
                   .at("out.sample");  // [2, 16, 12, 10]
    const int64_t p = 2, C = 16;
    for (int64_t c : {0, 5, 15})
        for (int64_t y : {0, 1, 6, 11})
            for (int64_t x : {0, 3, 8, 9})
                EXPECT_EQ(out[1][c][y][x].item<float>(), float(((y % p) * p + x % p) * C + c))
                    << c << " " << y << " " << x;
}

// Patch 2: odd sides are refused by name.
TEST(SD3Transformer, InputErrorsNameTheKeyAndShape) {
    const auto config = test::otherSd3Config();
    ProbeContext probes = contextFor("");
    auto other = test::loadSd3Transformer(config, test::randomSd3Weights(config), probes);
    auto* sd3 = dynamic_cast<SD3TransformerComponent*>(other.get());
    ASSERT_NE(sd3, nullptr);
    expectThrowNaming<InputError>(
        [&] {
            sd3->predict(torch::zeros({1, 16, 11, 10}), torch::zeros({1, 5, 20}),
                         torch::zeros({1, 18}), torch::tensor({500.f}), probes);
        },
        {"in.hidden_states", "multiples of 2"});
}

// ---- the positional table ------------------------------------------------------------------

// diffusers get_2d_sincos_pos_embed(dim, n, base_size) written out: position i along an axis is
// i / (n / base_size); channels [0, dim/2) embed the column, [dim/2, dim) the row, each half
// [sin(pos w_k) | cos(pos w_k)] with w_k = 1 / 10000^(k / (dim / 4)).
double sincosReferenceSD3(int64_t dim, int64_t n, int64_t base, int64_t row, int64_t col,
                          int64_t ch) {
    const int64_t half = dim / 2, quarter = dim / 4;
    const double pos = double(ch < half ? col : row) / (double(n) / double(base));
    const int64_t k = ch % half;
    const double w = 1.0 / std::pow(10000.0, double(k % quarter) / double(quarter));
    return k < quarter ? std::sin(pos * w) : std::cos(pos * w);
}

TEST(SD3TransformerPosEmbed, TableAndCropFollowDiffusersFormula) {
    // An 8-wide table over a 4 x 4 grid with base_size 2: positions 0, 0.5, 1, 1.5.
    const auto table = sd3SincosPosEmbed(8, 4, 2);
    ASSERT_EQ(table.sizes(), (std::vector<int64_t>{16, 8}));
    EXPECT_EQ(table.scalar_type(), torch::kFloat);
    // Row 1, column 3: the column at 1.5, the row at 0.5; w = 1, 0.01.
    const std::vector<double> token13{std::sin(1.5),   std::sin(0.015), std::cos(1.5),
                                      std::cos(0.015), std::sin(0.5),   std::sin(0.005),
                                      std::cos(0.5),   std::cos(0.005)};
    for (int64_t ch = 0; ch < 8; ++ch)
        EXPECT_NEAR(table[1 * 4 + 3][ch].item<double>(), token13[size_t(ch)], 1e-7) << ch;
    EXPECT_NEAR(table[1 * 4 + 3][0].item<double>(), 0.9974949866, 1e-7);
    EXPECT_NEAR(table[1 * 4 + 3][6].item<double>(), 0.8775825619, 1e-7);
    for (int64_t r = 0; r < 4; ++r)
        for (int64_t c = 0; c < 4; ++c)
            for (int64_t ch = 0; ch < 8; ++ch)
                ASSERT_NEAR(table[r * 4 + c][ch].item<double>(),
                            sincosReferenceSD3(8, 4, 2, r, c, ch), 1e-7)
                    << r << " " << c << " " << ch;

    // cropped_pos_embed(2, 3) of the 4 x 4 table: top (4 - 2) // 2 = 1, left (4 - 3) // 2 = 0.
    const auto crop = sd3CropPosEmbed(table.unsqueeze(0), 4, 2, 3);
    ASSERT_EQ(crop.sizes(), (std::vector<int64_t>{1, 6, 8}));
    for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 3; ++c)
            for (int64_t ch = 0; ch < 8; ++ch)
                ASSERT_NEAR(crop[0][r * 3 + c][ch].item<double>(),
                            sincosReferenceSD3(8, 4, 2, r + 1, c, ch), 1e-7);
    // 5 x 5 table, 1 x 4 crop: top 2, left 0 (floor of (5 - 4) / 2).
    const auto t5 = sd3SincosPosEmbed(8, 5, 5);
    const auto c14 = sd3CropPosEmbed(t5.unsqueeze(0), 5, 1, 4);
    EXPECT_TRUE(torch::equal(c14[0], t5.narrow(0, 2 * 5, 4)));
    EXPECT_ANY_THROW(sd3CropPosEmbed(t5.unsqueeze(0), 5, 6, 1));
}

// The goldens store the table diffusers computed at construction: the same formula.
TEST(SD3TransformerPosEmbed, GoldenTableIsTheFormula) {
    const test::ModelCase g = openCase("golden/sd3", "golden/sd3_io.safetensors");
    const auto& stored = g.weights.at("pos_embed.pos_embed");
    ASSERT_EQ(stored.sizes(), (std::vector<int64_t>{1, 96 * 96, 32}));
    const auto ours = sd3SincosPosEmbed(32, 96, 32).unsqueeze(0);  // base_size 32 // 1
    const double err = (ours - stored).abs().max().item<double>();
    std::printf("  max |formula - stored table| = %.3e\n", err);
    EXPECT_LT(err, 1e-6);
}

// The product's core case: a block's feed-forward output passes 65504 in fp16 (diffusers does
// not clip SD3's streams, so the Inf reaches the stream and the output).
TEST(SD3Transformer, Fp16OverflowIsNamedInsideTheBlock) {
    const auto config = test::otherSd3Config();
    auto weights = test::randomSd3Weights(config);
    // x3e5 keeps every weight finite in fp16 (|w| <= 3e5 / sqrt(96) = 3.1e4 < 65504): what
    // overflows is the activations, as in the real failure.
    weights["transformer_blocks.1.ff.net.2.weight"] *= 3e5;
    const NamedTensors in = test::otherSd3Inputs();
    const std::string block = "transformer.transformer_blocks.1";
    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) { return test::loadSd3Transformer(config, weights, p); }, in,
         "transformer=fp16", block, block + ".ff"},
        {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module},
        [&](ProbeLevel level, const FirstNonFinite& first, Component& m16, ProbeContext& p16) {
            EXPECT_EQ(first.at.name, level == ProbeLevel::Module ? block : block + ".ff");
            EXPECT_FALSE(torch::isfinite(m16.run(in, p16).at("out.sample")).all().item<bool>());
        });
}

}  // namespace
}  // namespace hs
