// A1111 / Forge infotexts other than the samples: the grammar of parse_generation_parameters
// (multi-line prompts, quoted values, a last line of fewer than three fields), sampler and
// schedule names, and what is reported as unsupported.
#include <gtest/gtest.h>

#include "../test_util.h"
#include "reproduce/sampler_names.h"
#include "reproduce_fixture.h"

namespace hs::test {

TEST(ReproduceInfotext, MultiLinePromptsAndQuotedValues) {
    const Infotext info = parseInfotext(
        "  masterpiece, a castle\non a hill: at dusk\n"
        "Negative prompt: lowres,\nbad hands\n"
        "Steps: 28, Sampler: DPM++ 2M, Schedule type: Karras, CFG scale: 5, Seed: 3, "
        "Size: 832x1216, Model hash: 1234567890, Model: juggernautXL, "
        "Lora hashes: \"add_detail: 7c6bad76eb54, film: 0123\", "
        "Hires prompt: \"a, b\", Version: v1.10.1\n");
    EXPECT_EQ(info.prompt, "masterpiece, a castle\non a hill: at dusk");
    EXPECT_EQ(info.negativePrompt, "lowres,\nbad hands");
    ASSERT_TRUE(info.find("Lora hashes"));
    EXPECT_EQ(*info.find("Lora hashes"), "add_detail: 7c6bad76eb54, film: 0123");
    EXPECT_EQ(*info.find("Hires prompt"), "a, b");
    EXPECT_EQ(*info.find("Size-1"), "832");
    const ReproduceSettings s = settingsFromInfotext(info);
    EXPECT_EQ(s.sampler, "dpmpp_2m");
    EXPECT_EQ(s.scheduler, "karras");
    EXPECT_EQ(s.width, 832);
    EXPECT_EQ(s.height, 1216);
    EXPECT_EQ(s.cfg, 5.0);
    EXPECT_EQ(s.files, std::vector<std::string>{"juggernautXL"});
    EXPECT_EQ(s.unsupported, (std::vector<std::string>{"LoRA add_detail", "LoRA film"}));
}

TEST(ReproduceInfotext, FewerThanThreeFieldsAreAllPrompt) {
    const Infotext info = parseInfotext("a dog\nSteps: 20, Seed: 5");
    EXPECT_EQ(info.prompt, "a dog\nSteps: 20, Seed: 5");
    EXPECT_TRUE(info.fields.empty());
    // Prompt only, no negative.
    const ReproduceSettings s = settingsOfInfotext("just a prompt");
    EXPECT_EQ(s.prompt, "just a prompt");
    EXPECT_EQ(s.negativePrompt, "");
    EXPECT_TRUE(s.seed.is_null());
    EXPECT_FALSE(s.steps);
}

TEST(ReproduceInfotext, SamplerNamesMapToComfyUis) {
    auto name = [](const char* sampler, const char* schedule) {
        const ComfySamplerName n = comfySamplerName(sampler, schedule);
        return n.sampler + " + " + n.scheduler;
    };
    EXPECT_EQ(name("DPM++ 2M Karras", ""), "dpmpp_2m + karras");
    EXPECT_EQ(name("Euler a", ""), "euler_ancestral + normal");
    EXPECT_EQ(name("DPM++ 2M SDE Exponential", ""), "dpmpp_2m_sde + exponential");
    EXPECT_EQ(name("DPM++ 2M SDE Heun", ""), "dpmpp_2m_sde + normal");
    EXPECT_EQ(name("DPM++ SDE", "Automatic"), "dpmpp_sde + karras");  // its default schedule
    EXPECT_EQ(name("Euler", "Simple"), "euler + simple");
    EXPECT_EQ(name("DDIM", ""), "ddim + normal");
    EXPECT_EQ(name("UniPC", "SGM Uniform"), "uni_pc + sgm_uniform");
    EXPECT_EQ(name("LCM", "Uniform"), "lcm + normal");
    const ComfySamplerName unknown = comfySamplerName("Restart", "");
    EXPECT_FALSE(unknown.samplerKnown);
    EXPECT_EQ(unknown.sampler, "restart");
}

TEST(ReproduceInfotext, ForgeFluxHiresAndImg2img) {
    const ReproduceSettings hires = settingsOfInfotext(
        "a fox <lora:fur_detail:0.7>\n"
        "Steps: 20, Sampler: Euler, Schedule type: Simple, CFG scale: 1, "
        "Distilled CFG Scale: 3, Seed: 9, Size: 768x768, Model: flux1-dev-fp8, "
        "Denoising strength: 0.4, Hires upscale: 1.5, Hires steps: 10, Hires upscaler: Latent, "
        "Module 1: ae, Module 2: clip_l");
    EXPECT_EQ(hires.guidance, 3.0);
    EXPECT_EQ(hires.stages, 2);
    EXPECT_FALSE(hires.denoise);  // the hires pass's, not the first stage's
    EXPECT_EQ(hires.unsupported, (std::vector<std::string>{"LoRA fur_detail", "hires fix"}));
    EXPECT_EQ(hires.files, (std::vector<std::string>{"ae", "clip_l", "flux1-dev-fp8"}));
    EXPECT_EQ(hires.family, "flux");

    const ReproduceSettings img2img = settingsOfInfotext(
        "a fox\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 9, Size: 512x512, "
        "Denoising strength: 0.55, Refiner: sd_xl_refiner_1.0 [7440042bbd]");
    EXPECT_EQ(img2img.denoise, 0.55);
    EXPECT_EQ(img2img.stages, 2);
    EXPECT_EQ(img2img.files, std::vector<std::string>{"sd_xl_refiner_1.0"});
    EXPECT_EQ(nlohmann::json::parse(toJson(img2img).dump())["settings"]["denoise"], 0.55);
}

TEST(ReproduceInfotext, ANumberThatDoesNotReadIsAnError) {
    EXPECT_HAS(messageOf([] { settingsOfInfotext("p\nSteps: many, Seed: 1, CFG scale: 7"); }),
               "the infotext's Steps is not an integer");
}

}  // namespace hs::test
