#include "demo/massive_activations.h"

#include <regex>

namespace hs::demo {

namespace {

std::vector<std::string> scaleMatching(WeightMap& w, const std::regex& both,
                                       const std::regex& biasOnly, double c) {
    std::vector<std::string> scaled;
    torch::NoGradGuard noGrad;
    for (auto& kv : w) {
        const bool isBias = kv.first.size() > 5 && kv.first.compare(kv.first.size() - 5, 5, ".bias") == 0;
        if (std::regex_match(kv.first, both) || (isBias && std::regex_match(kv.first, biasOnly))) {
            kv.second = kv.second.to(torch::kFloat32) * c;
            scaled.push_back(kv.first);
        }
    }
    return scaled;
}

}  // namespace

std::vector<std::string> scaleFluxResidual(WeightMap& t, double c) {
    static const std::regex both(
        "(x_embedder|context_embedder|transformer_blocks\\.\\d+\\.(attn\\.to_out\\.0|attn\\.to_add_out|"
        "ff\\.net\\.2|ff_context\\.net\\.2)|single_transformer_blocks\\.\\d+\\.proj_out)\\."
        "(weight|bias)");
    static const std::regex none("$^");
    return scaleMatching(t, both, none, c);
}

std::vector<std::string> scaleVaeDecoderResidual(WeightMap& v, double c) {
    static const std::regex both(
        "decoder\\.(conv_in|(mid_block|up_blocks\\.\\d+)\\.resnets\\.\\d+\\.conv2|"
        "mid_block\\.attentions\\.0\\.to_out\\.0)\\.(weight|bias)");
    static const std::regex biasOnly(
        "decoder\\.(up_blocks\\.\\d+\\.resnets\\.\\d+\\.conv_shortcut|up_blocks\\.\\d+\\.upsamplers\\.0\\.conv)"
        "\\.bias");
    return scaleMatching(v, both, biasOnly, c);
}

}  // namespace hs::demo
