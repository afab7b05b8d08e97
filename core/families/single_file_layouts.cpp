// The single-file layouts Halfscope knows, in detection order: adding a family's single file is
// a line here (models/single_file.h says how a layout is written).
#include "models/single_file.h"

#include "families/clip/clip_single_file.h"
#include "families/clip/openclip_layout.h"
#include "families/cosmos/cosmos_original_layout.h"
#include "families/flux/flux_bfl_layout.h"
#include "families/qwen/qwen_single_file.h"
#include "families/qwenimage/qwenimage_comfy_layout.h"
#include "families/sd3/sd3_original_layout.h"
#include "families/t5/t5_single_file.h"
#include "families/unet/unet_ldm_layout.h"
#include "families/vae/vae_ldm_layout.h"
#include "families/wan_vae/wan_vae_original_layout.h"

namespace hs {

namespace {

// A layout Halfscope recognises (so that the error says what the file is) but cannot load yet.
// It owns every key under its prefix.
SingleFileLayout recognisedOnly(std::string name, std::vector<std::string> prefixes,
                                std::string marker, std::string why) {
    SingleFileLayout l;
    l.name = std::move(name);
    l.prefixes = std::move(prefixes);
    l.roots = {""};
    l.detect = [marker](const WeightMap& all, const std::string& p) {
        return all.count(p + marker) > 0;
    };
    l.notConverted = std::move(why);
    return l;
}

std::vector<SingleFileLayout> makeLayouts() {
    const std::vector<std::string> dit{"model.diffusion_model.", ""};
    const std::string noFamily = "Halfscope has no family for it yet";
    // Markers from diffusers' CHECKPOINT_KEY_NAMES. Flux.2, Chroma and HunyuanVideo also have
    // img_in / txt_in / double_blocks, so they come before the BFL Flux.1 layout.
    return {
        recognisedOnly("Flux.2 transformer", dit, "single_stream_modulation.lin.weight", noFamily),
        recognisedOnly("Chroma transformer", dit, "distilled_guidance_layer.in_proj.bias",
                       noFamily),
        recognisedOnly("HunyuanVideo transformer", dit,
                       "txt_in.individual_token_refiner.blocks.0.adaLN_modulation.1.bias",
                       noFamily),
        sd3OriginalLayout(),
        fluxBflLayout(),
        cosmosOriginalLayout(),
        qwenImageComfyLayout(),
        animaAdapterOriginalLayout(),
        unetLdmLayout(),
        unetLdmEmaOnlyLayout(),
        vaeLdmLayout(),
        wanVaeOriginalLayout(),
        clipSingleFileLayout(),
        openClipLayout(),
        t5SingleFileLayout(),
        qwenSingleFileLayout(),
    };
}

}  // namespace

const std::vector<SingleFileLayout>& singleFileLayouts() {
    static const std::vector<SingleFileLayout> layouts = makeLayouts();
    return layouts;
}

}  // namespace hs
