#include "demo/base_checkpoint.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "demo/demo_config.h"
#include "demo/massive_activations.h"
#include "demo/residual_calibration.h"
#include "io/safetensors.h"
#include "base/affixes.h"

namespace hs::demo {

namespace fs = std::filesystem;

namespace {

const char* kTokenRows = "text_model.embeddings.token_embedding.weight";

nlohmann::json readJson(const fs::path& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("base checkpoint: cannot read " + path.string());
    try {
        return nlohmann::json::parse(f);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("base checkpoint: " + path.string() + ": " + e.what());
    }
}

WeightMap readFp32(const fs::path& path) {
    if (!fs::exists(path)) throw std::runtime_error("base checkpoint: no " + path.string());
    const TensorSet set = TensorSet::open(path.string());
    WeightMap w;
    for (auto& kv : weightMapOf(set)) w[kv.first] = kv.second.to(torch::kFloat32).clone();
    return w;
}

// Whole words of the grammar that the base vocabulary may know under another name.
const std::map<std::string, std::string> kSynonymOf = {
    {"big", "large"},     {"tiny", "small"}, {"little", "small"}, {"center", "centre"},
    {"middle", "centre"}, {"upper", "top"},  {"lower", "bottom"}, {"backdrop", "background"}};

// The export multiplied the residual writers by a power of two to push the streams past fp16's
// range. Training wants them at their natural size: divided by the power of two that brings the
// peak under 64 (trained demo streams peak at 30-60), the function is the same and the weights
// are as a fresh training run would have them.
double naturalScaleOf(double peak, const std::string& what) {
    if (!(peak > 0) || !std::isfinite(peak))
        throw std::runtime_error("base checkpoint: the " + what +
                                 "'s residual stream is not finite in fp32");
    return std::max(1.0, std::exp2(std::floor(std::log2(peak / 32.0))));
}

// The base key of a grown VAE's key: the encoder's down blocks shift by the levels added in
// front; the decoder's up blocks keep their indices (the added level is the last).
std::string baseVaeKey(const std::string& key, int grown) {
    const std::string down = "encoder.down_blocks.";
    if (key.rfind(down, 0) != 0) return key;
    const size_t dot = key.find('.', down.size());
    const int i = std::stoi(key.substr(down.size(), dot - down.size())) - grown;
    return i < 0 ? std::string() : down + std::to_string(i) + key.substr(dot);
}

std::string trainingSectionOf(const fs::path& readme) {
    std::ifstream f(readme);
    const std::string text{std::istreambuf_iterator<char>(f), {}};
    const std::string heading = "## Training\n\n";
    const size_t at = text.find(heading);
    if (at == std::string::npos) return {};
    std::string section = text.substr(at + heading.size());
    for (size_t i = 0; (i = section.find("\n###", i)) != std::string::npos; i += 5)
        section.insert(i + 1, "#");
    return section;
}

}  // namespace

AutoencoderKL loadFolderVae(const std::string& dirName) {
    const fs::path dir = fs::path(dirName) / "vae";
    const PrecisionPolicy fp32(PrecisionPlan(), torch::Device(torch::kCPU));
    auto vae = loadAutoencoderKL(readJson(dir / "config.json"),
                                 readFp32(dir / "diffusion_pytorch_model.safetensors"), fp32);
    vae->eval();
    return vae;
}

BaseCheckpoint loadBaseCheckpoint(const std::string& dirName) {
    torch::NoGradGuard noGrad;
    const fs::path dir(dirName);
    BaseCheckpoint b{{}, {}, 1, ClipTokenizer::fromFolder((dir / "tokenizer").string())};
    const PrecisionPolicy fp32(PrecisionPlan(), torch::Device(torch::kCPU));

    const auto textConfig = readJson(dir / "text_encoder" / "config.json");
    b.textEncoder = readFp32(dir / "text_encoder" / "model.safetensors");
    auto text = loadClipText(textConfig, b.textEncoder, fp32);
    b.transformer = readFp32(dir / "transformer" / "diffusion_pytorch_model.safetensors");
    auto flux = loadFluxTransformer(transformerConfig(), b.transformer, fp32);
    text->eval();
    flux->eval();

    b.residualScale =
        naturalScaleOf(transformerResidualPeak(text, flux, b.tokenizer), "transformer");
    scaleFluxResidual(b.transformer, 1.0 / b.residualScale);

    const auto vaeConfig = readJson(dir / "vae" / "config.json");
    b.imageSize = vaeConfig.value("sample_size", 0);
    if (b.imageSize <= 0 || b.imageSize > 1024)
        throw std::runtime_error("base checkpoint: " + (dir / "vae" / "config.json").string() +
                                 " has no usable sample_size");
    b.vaeWeights = readFp32(dir / "vae" / "diffusion_pytorch_model.safetensors");
    b.vae = loadAutoencoderKL(vaeConfig, b.vaeWeights, fp32);
    b.vae->eval();
    b.vaeResidualScale = naturalScaleOf(vaeDecoderResidualPeak(b.vae, b.imageSize), "VAE decoder");
    scaleVaeDecoderResidual(b.vaeWeights, 1.0 / b.vaeResidualScale);
    b.vae = loadAutoencoderKL(vaeConfig, b.vaeWeights, fp32);
    b.vae->eval();
    b.scaling = vaeConfig.value("scaling_factor", 1.0);
    b.shift = vaeConfig.value("shift_factor", 0.0);
    b.rgbFactors = vaeConfig.value("latent_rgb_factors", std::vector<double>{});
    b.training = trainingSectionOf(dir / "README.md");
    if (b.rgbFactors.size() != 15)
        throw std::runtime_error("base checkpoint: " + (dir / "vae" / "config.json").string() +
                                 " lacks the 15 latent_rgb_factors");
    return b;
}

int transplantTextEncoder(const BaseCheckpoint& base, const ClipTokenizer& tokenizer,
                          ClipTextModel& target) {
    torch::NoGradGuard noGrad;
    const torch::Tensor baseRows = base.textEncoder.at(kTokenRows);  // [V_base, D]
    int copied = 0;
    for (auto& p : target->named_parameters(true)) {
        if (p.key() != kTokenRows) {
            auto it = base.textEncoder.find(p.key());
            if (it == base.textEncoder.end() || !it->second.sizes().equals(p.value().sizes()))
                throw std::runtime_error("base checkpoint: its text encoder has no " + p.key() +
                                         " of shape " + shapeText(p.value().sizes()));
            p.value().copy_(it->second);
            continue;
        }
        auto rows = p.value();  // [V, D]
        const torch::Tensor mean = baseRows.mean(0);
        for (int64_t id = 0; id < rows.size(0); ++id) {
            const std::string token = tokenizer.tokenOf(int(id));
            std::optional<int> from = base.tokenizer.idOf(token);
            if (from) {
                ++copied;
            } else if (token.size() > 4 && token.compare(token.size() - 4, 4, "</w>") == 0) {
                auto syn = kSynonymOf.find(token.substr(0, token.size() - 4));
                if (syn != kSynonymOf.end()) from = base.tokenizer.idOf(syn->second + "</w>");
            }
            rows[id].copy_(from ? baseRows[*from] : mean);
        }
    }
    return copied;
}

int growVae(const BaseCheckpoint& base, AutoencoderKL& target) {
    torch::NoGradGuard noGrad;
    const int grown = int(target->config().blockOutChannels.size()) -
                      int(base.vae->config().blockOutChannels.size());
    if (grown < 0) throw std::runtime_error("base checkpoint: its VAE is deeper than this one");
    int copied = 0;
    for (auto& p : target->named_parameters(true)) {
        const std::string& key = p.key();
        auto it = base.vaeWeights.find(baseVaeKey(key, grown));
        if (it != base.vaeWeights.end() && it->second.sizes().equals(p.value().sizes())) {
            p.value().copy_(it->second);
            ++copied;
        } else if (endsWith(key, ".conv2.weight") || endsWith(key, ".conv2.bias") ||
                   endsWith(key, "samplers.0.conv.bias")) {
            p.value().zero_();  // a new resnet adds nothing to its input
        } else if (endsWith(key, "samplers.0.conv.weight")) {
            // [C, C, 3, 3]: the centre tap passes each channel through, so the sampler only
            // repeats (up) or picks (down) pixels.
            p.value().zero_();
            for (int64_t c = 0; c < p.value().size(0); ++c) p.value()[c][c][1][1] = 1.0f;
        }
    }
    return copied;
}

}  // namespace hs::demo
