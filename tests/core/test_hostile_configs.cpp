// Hostile config.json values: absurd sizes (2^40 wide, 10^9 layers, negative heads) and sizes
// each within bounds whose product is an absurd matrix are ConfigErrors naming the key, raised
// before anything is allocated (each case runs in microseconds); a 2 MB value, or one nested 60
// deep, never reaches a message whole.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "families/clip/clip_config.h"
#include "models/common/config.h"
#include "families/flux/flux_config.h"
#include "families/qwen/qwen_config.h"
#include "families/t5/t5_config.h"
#include "families/unet/unet_config.h"
#include "families/vae/vae_config.h"
#include "families/wan_vae/wan_vae_config.h"
#include "sampling/scheduler_config.h"
#include "test_util.h"

namespace {

using json = nlohmann::json;

// The ConfigError `fn` throws; a failure when it throws anything else or nothing.
template <typename Fn>
std::string configErrorOf(Fn fn) {
    const std::string m = hs::test::messageOf<hs::ConfigError>(fn);
    if (m == "no error") ADD_FAILURE() << "no error";
    return m;
}

json with(json base, const std::string& key, json value) {
    base[key] = std::move(value);
    return base;
}

TEST(HostileConfigs, FluxAbsurdSizesNameTheKey) {
    const json base = {{"_class_name", "FluxTransformer2DModel"}};
    const auto t0 = std::chrono::steady_clock::now();
    auto flux = [](const json& j) { return configErrorOf([&] { hs::FluxConfig::fromJson(j); }); };
    EXPECT_HAS(flux(with(base, "joint_attention_dim", int64_t(1) << 40)),
               "'joint_attention_dim' is 1099511627776, outside 1..131072");
    EXPECT_HAS(flux(with(base, "num_layers", 1000000000)), "'num_layers' is 1000000000");
    EXPECT_HAS(flux(with(base, "num_attention_heads", -3)), "'num_attention_heads' is -3");
    // Each within its bound, the product not: 4096 heads x 128 wide.
    EXPECT_HAS(flux(with(base, "num_attention_heads", 4096)),
               "'num_attention_heads' x 'attention_head_dim' is 524288");
    // 1024 x 128 = 131072 wide: within the width bound, a 2^36-element feed-forward.
    EXPECT_HAS(flux(with(base, "num_attention_heads", 1024)), "more than 2147483648");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
}

TEST(HostileConfigs, UnetAbsurdSizesNameTheKey) {
    const json base = {{"_class_name", "UNet2DConditionModel"}};
    auto unet = [](const json& j) { return configErrorOf([&] { hs::unetConfigFromJson(j); }); };
    EXPECT_HAS(unet(with(base, "layers_per_block", 1000000000)), "'layers_per_block'");
    EXPECT_HAS(unet(with(base, "cross_attention_dim", -1)), "'cross_attention_dim'");
    // Found by fuzz_config: 0 heads passed the lower bound and divided the channels.
    EXPECT_HAS(unet(with(base, "attention_head_dim", 0)), "'attention_head_dim' is 0, outside 1..");
    EXPECT_HAS(unet(with(base, "block_out_channels", json::array({int64_t(1) << 40}))),
               "'block_out_channels' is 1099511627776");
    // 131072 channels: a multiple of 32 groups and 8 heads, within the width bound, and a
    // GEGLU feed-forward of 2^37 elements.
    const json wide = with(base, "block_out_channels", json::array({320, 640, 1280, 131072}));
    EXPECT_HAS(unet(wide), "'block_out_channels (the largest)' (131072)");
}

TEST(HostileConfigs, TextEncodersAbsurdSizesNameTheKey) {
    auto t5 = [](const json& j) { return configErrorOf([&] { hs::t5ConfigFromJson(j); }); };
    EXPECT_HAS(t5({{"d_model", int64_t(1) << 40}}), "'d_model' is 1099511627776");
    EXPECT_HAS(t5({{"num_layers", 1000000000}}), "'num_layers' is 1000000000");
    EXPECT_HAS(t5({{"num_heads", -8}}), "'num_heads' is -8");
    // 2^22 tokens x 2^16 wide: each allowed, a 2^38-element embedding.
    EXPECT_HAS(t5({{"vocab_size", 1 << 22}, {"d_model", 1 << 16}}),
               "'vocab_size' (4194304) x 'd_model' (65536)");

    const json qwen = {{"architectures", json::array({"Qwen3Model"})}, {"vocab_size", 1000}};
    auto q = [](const json& j) { return configErrorOf([&] { hs::qwenConfigFromJson(j); }); };
    EXPECT_HAS(q(with(qwen, "num_attention_heads", -1)), "'num_attention_heads' is -1");
    // Found by fuzz_config: 0 is stored unsigned and passed every lower bound of 1 (here a
    // division by zero heads).
    EXPECT_HAS(q(with(qwen, "num_key_value_heads", 0)), "'num_key_value_heads' is 0, outside 1..");
    EXPECT_HAS(t5({{"num_heads", 0}}), "'num_heads' is 0, outside 1..");
    EXPECT_HAS(q(with(qwen, "num_hidden_layers", 1000000000)), "'num_hidden_layers'");
    EXPECT_HAS(q(with(with(qwen, "hidden_size", 100000), "intermediate_size", 100000)),
               "'hidden_size' (100000) x 'intermediate_size' (100000)");

    auto clip = [](const json& j) {
        return configErrorOf([&] { hs::clipTextConfigFromJson(j, false); });
    };
    EXPECT_HAS(clip({{"hidden_size", int64_t(1) << 40}}), "'hidden_size' is 1099511627776");
    EXPECT_HAS(
        clip({{"vocab_size", 1 << 24}, {"hidden_size", 1 << 16}, {"num_attention_heads", 8}}),
        "'vocab_size' (16777216) x 'hidden_size' (65536)");
}

TEST(HostileConfigs, VaeAbsurdSizesNameTheKey) {
    auto vae = [](const json& j) {
        return configErrorOf([&] { hs::AutoencoderKLConfig::fromJson(j); });
    };
    EXPECT_HAS(vae({{"latent_channels", int64_t(1) << 40}}), "'latent_channels'");
    EXPECT_HAS(vae({{"layers_per_block", 1000000000}}), "'layers_per_block' is 1000000000");
    EXPECT_HAS(vae({{"norm_num_groups", -32}}), "'norm_num_groups' is -32");
    const auto four = [](const char* type) { return json::array({type, type, type, type}); };
    EXPECT_HAS(vae({{"block_out_channels", {128, 256, 512, 65536}},
                    {"down_block_types", four("DownEncoderBlock2D")},
                    {"up_block_types", four("UpDecoderBlock2D")}}),
               "'block_out_channels (the largest)' (65536)");

    auto wan = [](const json& j) { return configErrorOf([&] { hs::WanVaeConfig::fromJson(j); }); };
    EXPECT_HAS(wan({{"_class_name", "AutoencoderKLWan"}, {"base_dim", 16384}}),
               "'the widest level (base_dim x dim_mult)' (65536)");
}

TEST(HostileConfigs, HugeOrDeepValuesAreNotQuotedWhole) {
    // 2 MB in a list of numbers nested 60 deep (within the depth limit), a 2 MB string, a flat
    // list of 2 MB: every message stays short.
    json deep = std::vector<int>(1 << 18, 12345678);
    for (int i = 0; i < 60; ++i) deep = json::array({deep});
    std::string e = configErrorOf([&] { hs::FluxConfig::fromJson({{"num_layers", deep}}); });
    EXPECT_HAS(e, "'num_layers' must be an integer, got a list of 1 item");
    EXPECT_LT(e.size(), 200u);

    e = configErrorOf([&] { hs::unetConfigFromJson({{"only_cross_attention", deep}}); });
    EXPECT_HAS(e, "'only_cross_attention'");
    EXPECT_LT(e.size(), 200u);

    const std::string big(2 << 20, 'q');
    e = configErrorOf([&] { hs::AutoencoderKLConfig::fromJson({{"act_fn", big}}); });
    EXPECT_HAS(e, "'act_fn' is a string of 2097152 bytes");
    EXPECT_LT(e.size(), 200u);

    e = configErrorOf([&] {
        hs::AutoencoderKLConfig::fromJson(
            {{"latents_mean", std::vector<std::string>(1 << 16, "abcdefghijklmnopqrstuvwxyz")}});
    });
    EXPECT_HAS(e, "'latents_mean'");
    EXPECT_LT(e.size(), 200u);

    e = configErrorOf([&] { hs::t5ConfigFromJson({{"d_model", std::vector<int>(1 << 19, 5)}}); });
    EXPECT_HAS(e, "'d_model' must be an integer, got [5, 5");
    EXPECT_LT(e.size(), 200u);
}

TEST(HostileConfigs, SchedulerConfigsStayLinearAndShort) {
    // 200 000 keys, all listed in _use_default_values: a list search per key would take minutes.
    json j = json::object();
    json defaults = json::array();
    for (int i = 0; i < 200000; ++i) {
        const std::string k = "k" + std::to_string(i);
        j[k] = i;
        defaults.push_back(k);
    }
    j["_use_default_values"] = defaults;
    const auto t0 = std::chrono::steady_clock::now();
    hs::SchedulerConfigReader r(j, "DDIMScheduler");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
    EXPECT_FALSE(r.has("k7"));

    // A 2 MB string where a choice is expected is not quoted whole.
    hs::SchedulerConfigReader big({{"prediction_type", std::string(2 << 20, 'p')}},
                                  "DDIMScheduler");
    const std::string e =
        configErrorOf([&] { big.getChoice("prediction_type", "epsilon", {"epsilon"}); });
    EXPECT_HAS(e, "'prediction_type' is a string of 2097152 bytes");
    EXPECT_LT(e.size(), 200u);
}

}  // namespace
