#include "demo/prompt_following.h"

#include "io/image_tensor.h"
#include "families/vae/autoencoder_kl.h"
#include "numerics/probe.h"

namespace hs::demo {

void addReadings(PromptFollowing& tally, const Batch& batch, const torch::Tensor& pictures) {
    for (size_t i = 0; i < batch.scenes.size(); ++i) {
        const Scene& scene = batch.scenes[i];
        if (scene.objects.size() != 1) continue;
        const Image img = imageFromTensor(pictures[int64_t(i)]);  // 8-bit [S][S][3]
        tally.add(scene.objects[0], scene.background, readScene(img.pixels, img.width));
    }
}

PromptFollowing vaeReadBack(AutoencoderKLImpl& vae, int count, uint64_t firstSeed) {
    torch::NoGradGuard g;
    ProbeContext quiet(PrecisionPlan(), torch::Device(torch::kCPU), ProbeLevel::Off);
    PromptFollowing tally;
    const int size = vae.config().sampleSize.at(0);
    for (uint64_t seed = firstSeed; tally.scenes < count; seed += 32) {
        const Batch batch = makeBatch(seed, 32, size);  // about half hold one object
        const auto mean = vae.encode(batch.images, quiet).mean;
        addReadings(tally, batch, vae.decode(mean, quiet).to(torch::kFloat32));
    }
    return tally;
}

}  // namespace hs::demo
