#pragma once
// The Qwen-Image transformer family: diffusers QwenImageTransformer2DModel (Qwen-Image's
// denoiser).
#include "models/roles.h"
#include "models/common/named_tensors.h"
#include "models/qwenimage/qwenimage_transformer.h"
#include "models/registry.h"

namespace hs {

class QwenImageTransformerComponent : public Component {
public:
    explicit QwenImageTransformerComponent(QwenImageTransformer m) : model(std::move(m)) {}
    // This family's component in `slot` for a strategy's attach() (null when empty).
    static QwenImageTransformerComponent* in(const ComponentMap& c, const std::string& slot) {
        return componentOfKindIn<QwenImageTransformerComponent>(c, slot, "a Qwen-Image transformer (QwenImageTransformer2DModel)");
    }
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;
    StreamedBlocks* streamedBlocks() override { return model.get(); }

    QwenImageTransformer model;
};

// Inputs (keys not starting with "in." are ignored):
//   in.hidden_states                [B, F*hp*wp, in_channels]  2 x 2-packed latents
//   in.encoder_hidden_states        [B, L_txt, joint_attention_dim]
//   in.encoder_hidden_states_mask   [B, L_txt] (nonzero: a real token); absent: all attended
//   in.timestep                     [B], [1] or a scalar: the pipeline's t / 1000
//   in.img_shapes                   [B, 3] or [1, 3] integers (frames, hp, wp), one image size
//                                   for the whole batch (as diffusers' QwenEmbedRope uses it)
// Output: out.sample [B, F*hp*wp, patch_size^2 * out_channels], float32. Throws InputError naming
// the key and the expected shape. Runs without autograd on the device of `probes`.
NamedTensors runQwenImageTransformer(QwenImageTransformer& model, const NamedTensors& inputs,
                                     ProbeContext& probes);
QwenImageInputs qwenImageInputsFrom(const QwenImageConfig& config, const NamedTensors& inputs,
                                    const torch::Device& device);

Family qwenImageTransformerFamily();

}  // namespace hs
