// ComfyUI's single-file Anima (anima-*.safetensors): the Cosmos-Predict2 DiT in NVIDIA's layout
// under "net." with the LLM adapter inside it as "net.llm_adapter.*". The file under test was
// written from the golden diffusers folders by the inverse of diffusers' own rename table
// (bench/reference/cosmos_reference.py to-original), so converting it back must give those
// folders' weights and outputs.
#include <gtest/gtest.h>

#include "families/cosmos/cosmos_original_layout.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;

std::string animaPath() {
    return dataPath("cosmos/anima_original.safetensors");
}

// The golden config.json, with the fields the file cannot say set as the conversion assumes.
nlohmann::json expectedCosmosConfig() {
    auto j = test::readJsonAt(dataPath("golden/cosmos/config.json"));
    nlohmann::json want = {{"_class_name", "CosmosTransformer3DModel"},
                           {"max_size", {128, 240, 240}},  // golden: [4, 16, 16]
                           {"extra_pos_embed_type", nullptr},
                           {"use_crossattn_projection", false}};
    for (const char* k : {"in_channels", "out_channels", "num_attention_heads",
                          "attention_head_dim", "num_layers", "mlp_ratio", "text_embed_dim",
                          "adaln_lora_dim", "patch_size", "rope_scale", "concat_padding_mask"})
        want[k] = j[k];
    return want;
}

nlohmann::json expectedAdapterConfig() {
    auto j = test::readJsonAt(dataPath("golden/anima_adapter/config.json"));
    j.erase("_diffusers_version");
    j["min_sequence_length"] = 512;  // golden: 8; not in the file
    return j;
}

// `f`'s component in `slot`: of class `className` with `config`, its weights the golden
// diffusers folder's (tests/data/golden/<golden>).
const ConvertedComponent& expectGoldenComponent(const SingleFileContents& f,
                                                const std::string& slot, const std::string& golden,
                                                const std::string& className,
                                                const nlohmann::json& config) {
    const ConvertedComponent& c = test::componentIn(f, slot);
    EXPECT_EQ(c.className, className);
    EXPECT_EQ(c.config, config);
    test::expectSameWeights(
        c.weights,
        test::openWeights(dataPath("golden/" + golden + "/diffusion_pytorch_model.safetensors")));
    return c;
}

double relSingleFileAnima(const torch::Tensor& got, const torch::Tensor& want) {
    return ((got - want).norm() / want.norm()).item<double>();
}

// The adapter pads its output to min_sequence_length (512 here, 8 in the golden case, whose 10
// tokens are past it): the first 10 rows are diffusers' output, the rest zeros.
void expectAdapterOutput(const torch::Tensor& got, const torch::Tensor& want) {
    ASSERT_EQ(got.dim(), 3);
    ASSERT_EQ(got.size(1), 512);
    const int64_t n = want.size(1);
    const double err = relSingleFileAnima(got.narrow(1, 0, n), want);
    std::printf("  anima adapter out.text_embeds rel err %.3e\n", err);
    EXPECT_LE(err, 1e-4);
    EXPECT_EQ(got.narrow(1, n, 512 - n).abs().max().item<double>(), 0.0);
}

TEST(SingleFileAnima, OriginalFileConvertsToTheGoldenFoldersAndReproducesTheirOutputs) {
    const WeightMap file = test::openWeights(animaPath());
    EXPECT_EQ(detectSingleFile(file),
              (std::vector<std::string>{"Cosmos-Predict2 / Anima DiT (NVIDIA layout) (net.*)",
                                        "Anima LLM adapter (net.llm_adapter.*)"}));
    const SingleFileContents f = convertSingleFile(file, animaPath());
    ASSERT_EQ(f.components.size(), 2u);
    EXPECT_TRUE(f.notConverted.empty());
    EXPECT_TRUE(f.ignored.empty());  // pos_embedder.*, accum_*, _extra_state dropped by the DiT

    const ConvertedComponent& dit = expectGoldenComponent(
        f, "transformer", "cosmos", "CosmosTransformer3DModel", expectedCosmosConfig());
    EXPECT_EQ(dit.weights.at("transformer_blocks.1.attn2.to_k.weight").data_ptr(),
              file.at("net.blocks.1.cross_attn.k_proj.weight").data_ptr());  // a view
    EXPECT_EQ(dit.description,
              "Cosmos-Predict2 DiT (Anima), NVIDIA layout under net., 2 blocks, fp32; 2 heads x "
              "16, AdaLN-LoRA 8, text width 24, 4 channels + padding mask; patch_size [1, 2, 2], "
              "rope_scale [1, 4, 4] and max_size [128, 240, 240] assumed as "
              "Cosmos-Predict2-2B-Text2Image has them (not in the file)");
    const NamedTensors cosmosIo = test::openTensors(dataPath("golden/cosmos_io.safetensors"));
    const auto sample = test::runConverted(dit, cosmosIo, animaPath()).at("out.sample");
    const double err = relSingleFileAnima(sample, cosmosIo.at("out.sample"));
    std::printf("  anima DiT out.sample rel err %.3e\n", err);
    EXPECT_LE(err, 1e-4);

    const ConvertedComponent& adapter = expectGoldenComponent(
        f, "text_conditioner", "anima_adapter", "AnimaTextConditioner", expectedAdapterConfig());
    EXPECT_EQ(adapter.description,
              "Anima LLM adapter, under net.llm_adapter., 2 blocks, fp32; 4 heads, width 32, "
              "Qwen3 width 24; min_sequence_length 512 assumed (not in the file)");
    const NamedTensors animaIo = test::openTensors(dataPath("golden/anima_adapter_io.safetensors"));
    expectAdapterOutput(test::runConverted(adapter, animaIo, animaPath()).at("out.text_embeds"),
                        animaIo.at("out.text_embeds"));
}

TEST(SingleFileAnima, RunModuleOnTheOriginalFileMatchesBothGoldenOutputs) {
    const test::ScopedDir tmp("anima-cli");
    struct Case {
        const char* component;
        const char* io;
        const char* out;
    };
    for (const Case& c :
         {Case{"transformer", "golden/cosmos_io.safetensors", "out.sample"},
          Case{"text_conditioner", "golden/anima_adapter_io.safetensors", "out.text_embeds"}}) {
        const std::string out = tmp.path + "/" + c.component + ".safetensors";
        int status = -1;
        const std::string printed =
            test::runCli("run-module --model '" + animaPath() + "' --component " + c.component +
                             " --inputs '" + dataPath(c.io) + "' --output '" + out + "'",
                         status);
        ASSERT_EQ(status, 0) << printed;
        const auto got = test::openWeights(out).at(c.out);
        const auto want = test::openWeights(dataPath(c.io)).at(c.out);
        if (std::string(c.component) == "text_conditioner") {
            expectAdapterOutput(got, want);
        } else {
            const double err = relSingleFileAnima(got, want);
            std::cout << "[ anima run-module " << c.component << " ] relative error " << err
                      << "\n";
            EXPECT_LE(err, 1e-4);
        }
    }
}

TEST(SingleFileAnima, AFileWithoutTheAdapterConvertsTheDitAloneAndSaysSo) {
    WeightMap dit;
    for (const auto& kv : test::openWeights(animaPath()))
        if (kv.first.rfind("net.llm_adapter.", 0) != 0) dit.emplace(kv.first, kv.second);
    const SingleFileContents f = convertSingleFile(dit, "predict2.safetensors");
    ASSERT_EQ(f.components.size(), 1u);
    EXPECT_EQ(f.components[0].slot, "transformer");
    EXPECT_EQ(f.components[0].config, expectedCosmosConfig());
    const std::string& d = f.components[0].description;
    EXPECT_EQ(d.find("(Anima)"), std::string::npos) << d;
    EXPECT_NE(d.find("; Anima's LLM adapter (net.llm_adapter.*) is missing: the text "
                     "conditioner must come from elsewhere"),
              std::string::npos)
        << d;
}

TEST(SingleFileAnima, AMissingBlockTensorIsAWeightErrorNamingIt) {
    WeightMap file = test::openWeights(animaPath());
    file.erase("net.blocks.1.cross_attn.k_proj.weight");
    std::string m =
        test::errorOf<WeightError>([&] { convertSingleFile(file, "anima-broken.safetensors"); });
    EXPECT_NE(m.find("anima-broken.safetensors"), std::string::npos) << m;
    EXPECT_NE(m.find("net.blocks.1.cross_attn.k_proj.weight"), std::string::npos) << m;

    // The adapter's own keys are named as the file spells them too.
    file = test::openWeights(animaPath());
    file.erase("net.llm_adapter.blocks.1.mlp.2.bias");
    m = test::errorOf<WeightError>([&] { convertSingleFile(file, "anima-broken.safetensors"); });
    EXPECT_NE(m.find("net.llm_adapter.blocks.1.mlp.2.bias"), std::string::npos) << m;
}

}  // namespace
}  // namespace hs
