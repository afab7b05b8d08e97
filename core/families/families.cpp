// The families that ship with Halfscope: adding one is a folder under families/ and a
// line here (models/registry.h is the API they register with).
#include "families/anima/anima_family.h"
#include "families/clip/clip_family.h"
#include "families/cosmos/cosmos_family.h"
#include "families/flux/flux_family.h"
#include "families/qwen/qwen_family.h"
#include "families/qwenimage/qwenimage_family.h"
#include "models/registry.h"
#include "families/sd3/sd3_family.h"
#include "families/t5/t5_family.h"
#include "families/unet/unet_family.h"
#include "families/vae/vae_family.h"
#include "families/wan_vae/wan_vae_family.h"

namespace hs {

void registerBuiltinFamilies(FamilyRegistry& r) {
    r.add(clipTextFamily());
    r.add(fluxTransformerFamily());
    r.add(cosmosTransformerFamily());
    r.add(animaTextConditionerFamily());
    r.add(autoencoderKLFamily());
    r.add(t5EncoderFamily());
    r.add(qwenTextFamily());
    r.add(qwenImageTransformerFamily());
    r.add(sd3TransformerFamily());
    r.add(unet2DConditionFamily());
    r.add(wanVaeFamily());
}

}  // namespace hs
