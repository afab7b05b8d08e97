#pragma once
// What a pipeline asks of a component in a given role, whatever its family: a denoising
// strategy (denoising/) talks to text encoders and VAEs through these, and only to the
// denoiser of its own shape directly.
#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/latent_rgb.h"
#include "models/registry.h"

namespace hs {

struct TextEncoding {
    torch::Tensor lastHiddenState;            // [B, L, D]
    torch::Tensor pooled;                     // [B, D] (undefined when the encoder has none)
    torch::Tensor projected;                  // [B, P] the pooled vector through the encoder's
                                              // projection (CLIP's text_embeds), if it has one
    std::vector<torch::Tensor> hiddenStates;  // every layer's output, embeddings first
};

// What token ids an encoder can take, from its config (loading checked the weights against it).
struct TokenTable {
    int64_t rows = -1;          // rows of the token embedding (vocab_size): ids in [0, rows)
    int64_t maxPositions = -1;  // rows of a learned position table (CLIP); -1: none (T5's
                                // relative buckets, Qwen's RoPE), so no length limit
    int64_t maxLength = -1;     // the most ids one call takes (the position table, or the bound
                                // the model's config or Halfscope sets)
};

class TextEncoderComponent : public Component {
public:
    // ids [B, L] int64 on the component's device; mask [B, L] (1 token, 0 padding) or undefined
    // (every token attended). An encoder that masks nothing (CLIP, causal with an end token)
    // refuses a mask with padding.
    virtual TextEncoding encode(const torch::Tensor& ids, const torch::Tensor& mask,
                                ProbeContext& probes) = 0;
    TextEncoding encode(const torch::Tensor& ids, ProbeContext& probes) {
        return encode(ids, torch::Tensor(), probes);
    }
    virtual int64_t width() const = 0;  // D
    // P of TextEncoding::projected (CLIPTextModelWithProjection's text_embeds); 0: none.
    virtual int64_t projectionWidth() const { return 0; }
    virtual TokenTable tokenTable() const = 0;
};

struct VaeMoments {
    torch::Tensor mean;    // [B, latent_channels, h, w]
    torch::Tensor logvar;  // [B, latent_channels, h, w]
};

class VaeComponent : public Component {
public:
    virtual int latentChannels() const = 0;
    virtual int imageChannels() const { return 3; }  // the encoder's input channels
    virtual int downFactor() const = 0;              // image pixels per latent pixel, each axis
    // Diffusion-space latents [B, C, h, w] (what a sampler produces) -> the decoder's input,
    // with the VAE config's scaling and shift (or per-channel mean and std).
    virtual torch::Tensor unscale(const torch::Tensor& latents) const = 0;
    // Decoder-space latents [B, C, h, w] -> image [B, 3, h * f, w * f] in [-1, 1] nominal.
    virtual torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes) = 0;
    // Image [B, 3, H, W] -> the posterior's moments in decoder space.
    virtual VaeMoments encode(const torch::Tensor& image, ProbeContext& probes) = 0;
    // The linear latent-to-RGB map for fast previews that the config implies: its own
    // latent_rgb_factors, else the published factors of the latent format it matches; none (the
    // pipeline then fits one from decodes, fitLatentRgbMap) when neither applies.
    virtual LatentRgbMap latentRgbMap() const { return {}; }
    // The config's force_upcast: diffusers' pipelines decode this VAE in fp32 when it is fp16
    // (SD / SDXL VAEs overflow fp16).
    virtual bool forceUpcast() const { return false; }
    // Whether its latents are a causal video VAE's (AutoencoderKLWan: a frame axis, per-channel
    // mean and std), the latent space of the Wan, Cosmos-Predict2, Anima and Qwen-Image
    // denoisers; an image VAE's latents mean something else at the same channel count.
    virtual bool videoLatents() const { return false; }
    // The image size its config says it was trained at (sample_size), {height, width}; {0, 0}
    // when it says none.
    virtual std::pair<int, int> sampleSize() const { return {0, 0}; }
};

// run-module for a text encoder: in.input_ids [B, L] (1 <= L <= tokenTable().maxLength, ids in
// the vocabulary) and an optional in.attention_mask [B, L] of 0 (padding) / 1 (token) ->
// encode() -> out.last_hidden_state, out.pooler_output and out.text_embeds (when the encoder
// gives them) and out.hidden_states.N (every layer's output, embeddings first), float32.
NamedTensors runTextEncoder(TextEncoderComponent& encoder, const NamedTensors& inputs,
                            ProbeContext& probes);

// run-module for a VAE, through decode() and encode(); a video VAE (videoLatents()) takes and
// gives one-frame videos, a frame axis of 1 after the channels:
//   in.z [B, latent_channels, (1,) h, w] (decoder-space latents) -> out.decode.sample
//   in.x [B, image_channels, (1,) H, W] (H, W multiples of downFactor()) -> out.encode.mean,
//        out.encode.logvar
// Either input or both; outputs float32 on the CPU. More than one frame is an InputError (the
// causal feature cache that carries video frames across chunks is not implemented).
NamedTensors runVae(VaeComponent& vae, const NamedTensors& inputs, ProbeContext& probes);

using ComponentMap = std::map<std::string, std::shared_ptr<Component>>;

// The component in `slot` in its role, for a strategy's attach(): null when the slot is empty,
// PipelineError "the 'slot' component is not a text encoder (<its family>)" when it is another
// kind.
TextEncoderComponent* textEncoderIn(const ComponentMap& components, const std::string& slot);
VaeComponent* vaeIn(const ComponentMap& components, const std::string& slot);

// The same for a family's own component type, for the family's `in()`: the denoiser (and the
// adapter) a strategy drives directly.
Component* componentIn(const ComponentMap& components, const std::string& slot,
                       const std::function<bool(Component*)>& isKind, const std::string& what);
template <typename T>
T* componentOfKindIn(const ComponentMap& components, const std::string& slot,
                     const std::string& what) {
    return static_cast<T*>(componentIn(
        components, slot, [](Component* c) { return dynamic_cast<T*>(c) != nullptr; }, what));
}

}  // namespace hs
