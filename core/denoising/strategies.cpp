// The pipeline shapes that ship with Halfscope: adding one is a strategy in this folder and a
// line here.
#include "demo/prompt_words.h"
#include "denoising/anima_strategy.h"
#include "denoising/cosmos2_strategy.h"
#include "denoising/flux_strategy.h"
#include "denoising/qwenimage_strategy.h"
#include "denoising/sd_strategy.h"
#include "denoising/strategy.h"

namespace hs {

void registerBuiltinStrategies(StrategyRegistry& r) {
    r.add({"Flux",
           {"FluxPipeline", demo::kDemoPipelineClass},
           makeFluxStrategy,
           {"FluxTransformer2DModel"}});
    r.add({"Stable Diffusion",
           {"StableDiffusionPipeline"},
           makeStableDiffusionStrategy,
           {"UNet2DConditionModel"},
           [](const nlohmann::json& unet) { return !isSdxlUNetConfig(unet); }});
    r.add({"Stable Diffusion XL",
           {"StableDiffusionXLPipeline"},
           makeStableDiffusionXLStrategy,
           {"UNet2DConditionModel"},
           isSdxlUNetConfig});
    r.add({"Anima", {"AnimaModularPipeline"}, makeAnimaStrategy, {"CosmosTransformer3DModel"}});
    r.add({"Cosmos-Predict2", {"Cosmos2TextToImagePipeline"}, makeCosmos2TextToImageStrategy});
    r.add({"Qwen-Image",
           {"QwenImagePipeline"},
           makeQwenImageStrategy,
           {"QwenImageTransformer2DModel"}});
}

}  // namespace hs
