// ComfyUI graphs other than the samples: other sampler, scheduler, guider, encoder and model
// sampling nodes, values on primitive nodes, unknown nodes, and the UI workflow's own nodes.
#include <gtest/gtest.h>

#include "../test_util.h"
#include "reproduce_fixture.h"

namespace hs::test {

namespace {

using json = nlohmann::json;

json link(const char* node, int slot = 0) {
    return json::array({node, slot});
}

json node(const char* type, json inputs) {
    return {{"class_type", type}, {"inputs", std::move(inputs)}};
}

// A KSampler node at cfg 8 on the default graph's model (node 4) and prompts (6, 7), sampling the
// latent of node `latent`.
json kSampler(int64_t seed, int steps, const char* sampler, const char* scheduler, json denoise,
              const char* latent) {
    return node("KSampler", {{"seed", seed},
                             {"steps", steps},
                             {"cfg", 8},
                             {"sampler_name", sampler},
                             {"scheduler", scheduler},
                             {"denoise", denoise},
                             {"model", link("4")},
                             {"positive", link("6")},
                             {"negative", link("7")},
                             {"latent_image", link(latent)}});
}

// A node of a UI workflow: its `mode` (0 on, 2 muted, 4 bypassed), its widgets' values and its
// input slots, each left out when empty.
json uiNode(int id, const char* type, int mode, json widgets, json inputs = json::array()) {
    json n = {{"id", id}, {"type", type}, {"mode", mode}};
    if (!widgets.empty()) n["widgets_values"] = std::move(widgets);
    if (!inputs.empty()) n["inputs"] = std::move(inputs);
    return n;
}

// An input slot of a UI workflow's node, fed by the link `link`.
json uiInput(const char* name, const char* type, int link) {
    return {{"name", name}, {"type", type}, {"link", link}};
}

// An SD 1.5 text-to-image graph as ComfyUI's default workflow has it.
json defaultGraph() {
    return {
        {"3", kSampler(156680208700286, 20, "dpmpp_2m", "karras", 1, "5")},
        {"4", node("CheckpointLoaderSimple", {{"ckpt_name", "v1-5-pruned-emaonly.safetensors"}})},
        {"5", node("EmptyLatentImage", {{"width", 512}, {"height", 768}, {"batch_size", 1}})},
        {"6", node("CLIPTextEncode", {{"text", "a bottle\nof wine"}, {"clip", link("4", 1)}})},
        {"7", node("CLIPTextEncode", {{"text", "text, watermark"}, {"clip", link("4", 1)}})},
        {"8", node("VAEDecode", {{"samples", link("3")}, {"vae", link("4", 2)}})},
        {"9", node("SaveImage", {{"filename_prefix", "ComfyUI"}, {"images", link("8")}})},
    };
}

}  // namespace

TEST(ReproduceComfy, KSamplerGraphGivesItsSettings) {
    const ReproduceSettings s = settingsOfGraph(defaultGraph());
    EXPECT_EQ(s.prompt, "a bottle\nof wine");
    EXPECT_EQ(s.negativePrompt, "text, watermark");
    EXPECT_EQ(s.seed, json(156680208700286));
    EXPECT_EQ(s.steps, 20);
    EXPECT_EQ(s.cfg, 8.0);
    EXPECT_FALSE(s.guidance);
    EXPECT_EQ(s.width, 512);
    EXPECT_EQ(s.height, 768);
    EXPECT_EQ(s.sampler, "dpmpp_2m");
    EXPECT_EQ(s.scheduler, "karras");
    EXPECT_EQ(s.files, std::vector<std::string>{"v1-5-pruned-emaonly.safetensors"});
    EXPECT_EQ(s.stages, 1);
    EXPECT_TRUE(s.unsupported.empty());
    const json j = json::parse(toJson(s).dump());
    EXPECT_FALSE(j["settings"].contains("denoise"));  // 1: the whole schedule
    EXPECT_TRUE(j["family"].is_null());
}

TEST(ReproduceComfy, LorasAndUnknownNodesOffThePathAreListed) {
    json g = defaultGraph();
    g["10"] = node("LoraLoader", {{"lora_name", "add_detail.safetensors"},
                                  {"strength_model", 0.8},
                                  {"strength_clip", 1},
                                  {"model", link("4")},
                                  {"clip", link("4", 1)}});
    g["3"]["inputs"]["model"] = link("10");
    g["11"] = node("UltimateSDUpscale", {{"image", link("8")}});
    g["3"]["inputs"]["denoise"] = 0.6;
    g["3"]["inputs"]["seed"] = 18446744073709551615ull;  // ComfyUI's largest seed
    const ReproduceSettings s = settingsOfGraph(g);
    EXPECT_EQ(s.unsupported, (std::vector<std::string>{"LoraLoader", "UltimateSDUpscale"}));
    EXPECT_EQ(s.files, (std::vector<std::string>{"add_detail.safetensors",
                                                 "v1-5-pruned-emaonly.safetensors"}));
    EXPECT_EQ(s.denoise, 0.6);
    const json j = json::parse(toJson(s).dump());
    EXPECT_EQ(j["settings"]["denoise"], 0.6);
    EXPECT_EQ(j["settings"]["seed"].get<uint64_t>(), 18446744073709551615ull);
}

TEST(ReproduceComfy, SamplerCustomAdvancedWithCfgGuiderAndSd3Shift) {
    // SD3.5-style: CFGGuider, a zeroed-out negative, ModelSamplingSD3, TripleCLIPLoader,
    // KarrasScheduler, a sampler node with its own settings; seed and steps on primitive nodes.
    const json g = {
        {"1", node("SamplerCustomAdvanced", {{"noise", link("2")},
                                             {"guider", link("3")},
                                             {"sampler", link("4")},
                                             {"sigmas", link("5")},
                                             {"latent_image", link("6")}})},
        {"2", node("RandomNoise", {{"noise_seed", link("20")}})},
        {"3", node("CFGGuider", {{"cfg", 4.5},
                                 {"model", link("7")},
                                 {"positive", link("8")},
                                 {"negative", link("9")}})},
        {"4", node("SamplerDPMPP_2M_SDE", {{"solver_type", "midpoint"}, {"eta", 1.0}})},
        {"5", node("KarrasScheduler",
                   {{"steps", link("21")}, {"sigma_max", 14.6}, {"sigma_min", 0.03}, {"rho", 7}})},
        {"6", node("EmptySD3LatentImage", {{"width", 1216}, {"height", 832}, {"batch_size", 1}})},
        {"7", node("ModelSamplingSD3", {{"shift", 3.0}, {"model", link("10")}})},
        {"8", node("CLIPTextEncodeSD3", {{"clip_l", "a cat"},
                                         {"clip_g", "a cat"},
                                         {"t5xxl", "a cat on a mat"},
                                         {"empty_padding", "none"},
                                         {"clip", link("11")}})},
        {"9", node("ConditioningZeroOut", {{"conditioning", link("12")}})},
        {"10", node("UNETLoader",
                    {{"unet_name", "sd3.5_large.safetensors"}, {"weight_dtype", "fp8_e4m3fn"}})},
        {"11", node("TripleCLIPLoader", {{"clip_name1", "clip_l.safetensors"},
                                         {"clip_name2", "clip_g.safetensors"},
                                         {"clip_name3", "t5xxl_fp8_e4m3fn_scaled.safetensors"}})},
        {"12", node("CLIPTextEncode", {{"text", "ignored"}, {"clip", link("11")}})},
        {"20", node("PrimitiveInt", {{"value", 42}})},
        {"21", node("PrimitiveInt", {{"value", 28}})},
    };
    const ReproduceSettings s = settingsOfGraph(g);
    EXPECT_EQ(s.prompt, "a cat on a mat");
    EXPECT_EQ(s.negativePrompt, "");
    EXPECT_EQ(s.seed, json(42));
    EXPECT_EQ(s.steps, 28);
    EXPECT_EQ(s.cfg, 4.5);
    EXPECT_EQ(s.sampler, "dpmpp_2m_sde");
    EXPECT_EQ(s.scheduler, "karras");
    EXPECT_EQ(s.width, 1216);
    EXPECT_EQ(s.shift, 3.0);
    EXPECT_FALSE(s.maxShift);
    EXPECT_EQ(s.files.size(), 4u);
    // Its eta and solver type are its own: listed.
    EXPECT_EQ(s.unsupported, std::vector<std::string>{"SamplerDPMPP_2M_SDE"});
    const json j = json::parse(toJson(s).dump());
    EXPECT_EQ(j["settings"]["shift"], 3.0);
    EXPECT_FALSE(j["settings"].contains("max_shift"));
}

TEST(ReproduceComfy, ControlNetAndFluxTextEncoderOnThePromptPath) {
    json g = defaultGraph();
    // ControlNetApplyAdvanced passes positive (output 0) and negative (output 1) on.
    g["20"] = node("ControlNetApplyAdvanced", {{"positive", link("21")},
                                               {"negative", link("7")},
                                               {"strength", 1.0},
                                               {"control_net", link("22")}});
    g["21"] = node("CLIPTextEncodeFlux", {{"clip_l", "short"},
                                          {"t5xxl", "the long prompt"},
                                          {"guidance", 2.5},
                                          {"clip", link("4", 1)}});
    g["22"] = node("ControlNetLoader", {{"control_net_name", "canny.safetensors"}});
    g["3"]["inputs"]["positive"] = link("20", 0);
    g["3"]["inputs"]["negative"] = link("20", 1);
    const ReproduceSettings s = settingsOfGraph(g);
    EXPECT_EQ(s.prompt, "the long prompt");
    EXPECT_EQ(s.negativePrompt, "text, watermark");
    EXPECT_EQ(s.guidance, 2.5);
    EXPECT_EQ(s.family, "flux");
    EXPECT_EQ(s.unsupported,
              (std::vector<std::string>{"ControlNetApplyAdvanced", "ControlNetLoader"}));
    EXPECT_EQ(s.files.size(), 2u);
}

TEST(ReproduceComfy, HiresFixGraphHasTwoStagesAndReadsTheFirst) {
    json g = defaultGraph();
    g["10"] =
        node("LatentUpscaleBy",
             {{"upscale_method", "nearest-exact"}, {"scale_by", 1.5}, {"samples", link("3")}});
    g["11"] = kSampler(1, 12, "euler", "normal", 0.5, "10");
    g["8"]["inputs"]["samples"] = link("11");
    const ReproduceSettings s = settingsOfGraph(g);
    EXPECT_EQ(s.stages, 2);
    EXPECT_EQ(s.seed, json(156680208700286));
    EXPECT_EQ(s.steps, 20);
    EXPECT_EQ(s.sampler, "dpmpp_2m");
    EXPECT_EQ(s.width, 512);
}

TEST(ReproduceComfy, FluxGraphWithAuraFlowShiftAndDisabledNoise) {
    json g = defaultGraph();
    g["3"]["class_type"] = "SamplerCustom";
    g["3"]["inputs"] = {
        {"add_noise", true},     {"noise_seed", 7},        {"cfg", 1.0},
        {"model", link("12")},   {"positive", link("13")}, {"negative", link("7")},
        {"sampler", link("14")}, {"sigmas", link("15")},   {"latent_image", link("16")}};
    g["12"] = node("ModelSamplingAuraFlow", {{"shift", 1.73}, {"model", link("4")}});
    g["13"] = node("FluxGuidance", {{"guidance", 4.0}, {"conditioning", link("6")}});
    g["14"] = node("KSamplerSelect", {{"sampler_name", "res_multistep"}});
    g["15"] = node("BasicScheduler",
                   {{"scheduler", "beta"}, {"steps", 30}, {"denoise", 1.0}, {"model", link("12")}});
    g["16"] = node("EmptyHunyuanLatentVideo",
                   {{"width", 848}, {"height", 480}, {"length", 1}, {"batch_size", 1}});
    const ReproduceSettings s = settingsOfGraph(g);
    EXPECT_EQ(s.seed, json(7));
    EXPECT_EQ(s.sampler, "res_multistep");
    EXPECT_EQ(s.scheduler, "beta");
    EXPECT_EQ(s.steps, 30);
    EXPECT_EQ(s.guidance, 4.0);
    EXPECT_EQ(s.shift, 1.73);
    EXPECT_EQ(s.width, 848);
    EXPECT_EQ(s.height, 480);
    EXPECT_EQ(s.family, "flux");
}

TEST(ReproduceComfy, AnUnknownNodeOnThePathIsAnError) {
    json g = defaultGraph();
    g["6"] = node("SomeCustomEncoder", {{"clip", link("4", 1)}, {"style", "anime"}});
    EXPECT_HAS(messageOf([&] { settingsOfGraph(g); }),
               "the prompt comes from node 6 (SomeCustomEncoder), which Halfscope does not read");
    g = defaultGraph();
    g["3"]["class_type"] = "KSamplerEfficient";
    EXPECT_HAS(messageOf([&] { settingsOfGraph(g); }), "no sampler node Halfscope reads");
    g = defaultGraph();
    g["3"]["inputs"]["seed"] = link("5");  // a seed from a node that holds none
    EXPECT_HAS(messageOf([&] { settingsOfGraph(g); }),
               "input 'seed' comes from node 5 (EmptyLatentImage), whose value Halfscope cannot "
               "read");
}

TEST(ReproduceComfy, UiWorkflowResolvesRerouteBypassAndWidgetOrder) {
    // KSampler's widgets: seed, its "control after generate", steps, cfg, sampler, scheduler,
    // denoise. A reroute carries the model; a bypassed LoRA passes it on; a muted node is gone.
    const json w = {
        {"nodes",
         json::array({
             uiNode(
                 3, "KSampler", 0,
                 json::array({99, "randomize", 25, 6.5, "euler_ancestral", "normal", 1}),
                 json::array({uiInput("model", "MODEL", 1), uiInput("positive", "CONDITIONING", 2),
                              uiInput("negative", "CONDITIONING", 3),
                              uiInput("latent_image", "LATENT", 4)})),
             uiNode(4, "CheckpointLoaderSimple", 0, json::array({"sd_xl_base_1.0.safetensors"})),
             uiNode(10, "Reroute", 0, json::array(), json::array({uiInput("", "*", 11)})),
             uiNode(12, "LoraLoaderModelOnly", 4, json::array({"lcm.safetensors", 1.0}),
                    json::array({uiInput("model", "MODEL", 12)})),
             uiNode(5, "EmptyLatentImage", 0, json::array({832, 1216, 1})),
             uiNode(6, "CLIPTextEncode", 0, json::array({"a lighthouse"})),
             uiNode(7, "CLIPTextEncode", 0, json::array({"fog"})),
             uiNode(13, "SaveImage", 2, json::array(),
                    json::array({uiInput("images", "IMAGE", 20)})),
             uiNode(14, "Note", 0, json::array({"hi"})),
         })},
        {"links",
         json::array(
             {json::array({1, 10, 0, 3, 0, "MODEL"}), json::array({11, 12, 0, 10, 0, "MODEL"}),
              json::array({12, 4, 0, 12, 0, "MODEL"}), json::array({2, 6, 0, 3, 1, "CONDITIONING"}),
              json::array({3, 7, 0, 3, 2, "CONDITIONING"}),
              json::array({4, 5, 0, 3, 3, "LATENT"})})},
    };
    const ReproduceSettings s = settingsOfWorkflow(w);
    EXPECT_EQ(s.seed, json(99));
    EXPECT_EQ(s.steps, 25);
    EXPECT_EQ(s.cfg, 6.5);
    EXPECT_EQ(s.sampler, "euler_ancestral");
    EXPECT_EQ(s.scheduler, "normal");
    EXPECT_EQ(s.prompt, "a lighthouse");
    EXPECT_EQ(s.negativePrompt, "fog");
    EXPECT_EQ(s.width, 832);
    EXPECT_EQ(s.height, 1216);
    // The bypassed LoRA does not run: neither its file nor its type is reported.
    EXPECT_EQ(s.files, std::vector<std::string>{"sd_xl_base_1.0.safetensors"});
    EXPECT_TRUE(s.unsupported.empty());
    EXPECT_EQ(s.family, "sdxl");
}

}  // namespace hs::test
