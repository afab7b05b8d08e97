// The pipeline shapes that ship with Halfscope: adding one is a strategy in this folder and a
// line here.
#include "demo/prompt_words.h"
#include "denoising/anima_strategy.h"
#include "denoising/cosmos2_strategy.h"
#include "denoising/flux_strategy.h"
#include "denoising/qwenimage_strategy.h"
#include "denoising/sd3_strategy.h"
#include "denoising/sd_strategy.h"
#include "denoising/strategy.h"

namespace hs {

void registerBuiltinStrategies(StrategyRegistry& r) {
    r.add({"Flux",
           {"FluxPipeline", demo::kDemoPipelineClass},
           makeFluxStrategy,
           {"FluxTransformer2DModel"},
           {},
           fluxPartMisfit,
           fluxVariantName,
           {{"vae", "ae.safetensors"},
            {"text_encoder", "clip_l.safetensors"},
            {"text_encoder_2", "t5xxl (t5xxl_fp16.safetensors)"}}});
    r.add({"Stable Diffusion",
           {"StableDiffusionPipeline"},
           makeStableDiffusionStrategy,
           {"UNet2DConditionModel"},
           [](const nlohmann::json& unet) { return !isSdxlUNetConfig(unet); },
           sdPartMisfit});
    r.add({"Stable Diffusion XL",
           {"StableDiffusionXLPipeline"},
           makeStableDiffusionXLStrategy,
           {"UNet2DConditionModel"},
           isSdxlUNetConfig,
           sdPartMisfit});
    r.add({"Stable Diffusion 3",
           {"StableDiffusion3Pipeline"},
           makeSd3Strategy,
           {"SD3Transformer2DModel"},
           {},
           sd3PartMisfit,
           {},
           {{"text_encoder", "clip_l.safetensors"},
            {"text_encoder_2", "clip_g.safetensors"},
            {"text_encoder_3", "t5xxl (t5xxl_fp16.safetensors)"}},
           sd3SlotTakes});
    r.add({"Anima", {"AnimaModularPipeline"}, makeAnimaStrategy, {"CosmosTransformer3DModel"}});
    r.add({"Cosmos-Predict2", {"Cosmos2TextToImagePipeline"}, makeCosmos2TextToImageStrategy});
    r.add({"Qwen-Image",
           {"QwenImagePipeline"},
           makeQwenImageStrategy,
           {"QwenImageTransformer2DModel"}});
}

}  // namespace hs
