// The families that ship with Halfscope: adding one is a folder under models/ and a line here.
#include "models/anima/anima_family.h"
#include "models/clip/clip_family.h"
#include "models/cosmos/cosmos_family.h"
#include "models/flux/flux_family.h"
#include "models/qwen/qwen_family.h"
#include "models/qwenimage/qwenimage_family.h"
#include "models/registry.h"
#include "models/sd3/sd3_family.h"
#include "models/t5/t5_family.h"
#include "models/unet/unet_family.h"
#include "models/vae/vae_family.h"
#include "models/wan_vae/wan_vae_family.h"

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
