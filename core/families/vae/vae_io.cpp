#include "families/vae/vae_io.h"

#include "families/vae/vae_family.h"

namespace hs {

NamedTensors runAutoencoderKL(AutoencoderKL& model, const NamedTensors& inputs,
                              ProbeContext& probes) {
    AutoencoderKLComponent component(model);  // shares the module
    return component.run(inputs, probes);
}

}  // namespace hs
