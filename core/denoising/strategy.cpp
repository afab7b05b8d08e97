#include "denoising/strategy.h"

#include <cstdlib>

namespace hs {

VaeComponent* videoVaeIn(const ComponentMap& components, const std::string& slot,
                         const std::string& what) {
    return static_cast<VaeComponent*>(componentIn(
        components, slot,
        [](Component* c) {
            const auto* v = dynamic_cast<VaeComponent*>(c);
            return v && v->videoLatents();
        },
        what));
}

torch::Tensor initialNoise(const RunConfig& cfg, const VaeComponent& vae) {
    auto gen = at::detail::createCPUGenerator(cfg.seed);
    return torch::randn(
        {1, vae.latentChannels(), cfg.height / vae.downFactor(), cfg.width / vae.downFactor()}, gen,
        torch::kFloat32);
}

StrategyRegistry& StrategyRegistry::global() {
    static StrategyRegistry* r = [] {
        auto* reg = new StrategyRegistry;
        registerBuiltinStrategies(*reg);
        return reg;
    }();
    return *r;
}

void StrategyRegistry::add(StrategyInfo info) {
    if (!info.make) throw std::invalid_argument("strategy '" + info.name + "' has no factory");
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& s : m_strategies)
        for (const auto& mine : info.pipelineClasses)
            for (const auto& theirs : s.pipelineClasses)
                if (mine == theirs)
                    throw std::invalid_argument("pipeline class '" + mine +
                                                "' is already run by strategy '" + s.name + "'");
    m_strategies.push_back(std::move(info));
}

std::unique_ptr<DenoisingStrategy> StrategyRegistry::make(const std::string& pipelineClass,
                                                          const std::string& where) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::string list;
    for (const auto& s : m_strategies)
        for (const auto& c : s.pipelineClasses) {
            if (c == pipelineClass) return s.make();
            list += (list.empty() ? "" : ", ") + c;
        }
    throw PipelineError(where + ": pipeline class '" + pipelineClass +
                        "' is not supported (supported: " + list + ")");
}

int textEncoderNumber(const std::string& slot) {
    if (slot.rfind("text_encoder", 0) != 0) return 0;
    return slot.size() > 13 ? std::atoi(slot.c_str() + 13) : 1;
}

const PipelineComponent& requiredPart(const PipelineFolder& folder, const std::string& name,
                                      const std::string& missing) {
    const PipelineComponent* c = folder.find(name);
    if (!c) throw PipelineError(folder.dir + ": " + missing);
    return *c;
}

std::vector<ComponentSlot> encoderSlots(int n, Role role, bool required) {
    const std::string suffix = n > 1 ? "_" + std::to_string(n) : "";
    return {{"text_encoder" + suffix, role, required, true},
            {"tokenizer" + suffix, Role::Other, required, false}};
}

std::vector<ComponentSlot> denoiserSlots(const std::string& denoiser) {
    return {{denoiser, Role::Denoiser, true, true},
            {"vae", Role::Vae, true, true},
            {"scheduler", Role::Other, true, false}};
}

std::vector<ComponentSlot> slotsOf(std::initializer_list<std::vector<ComponentSlot>> parts) {
    std::vector<ComponentSlot> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

int64_t configInt(const nlohmann::json& config, const char* key) {
    const auto it = config.find(key);
    return it != config.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

std::string vaeLatentMisfit(const PartCheck& part, const std::string& pipeline, int64_t packing,
                            int64_t alsoTakes, const std::string& advice) {
    const int64_t latent = configInt(part.partConfig, "latent_channels"),
                  in = configInt(part.denoiserConfig, "in_channels");
    if (latent <= 0 || in <= 0 || in == packing * latent || in == alsoTakes) return {};
    return part.partName + " is a VAE of another family: its latents have " +
           std::to_string(latent) + " channels, " + part.modelName + " takes " +
           std::to_string(in / packing) + " (in_channels " + std::to_string(in) + "); " +
           (advice.empty() ? "pick the VAE made for " + pipeline : advice);
}

std::shared_ptr<const StrategyInfo> StrategyRegistry::info(const std::string& pipelineClass) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& s : m_strategies)
        for (const auto& c : s.pipelineClasses)
            if (c == pipelineClass) return std::make_shared<const StrategyInfo>(s);
    return nullptr;
}

std::string StrategyRegistry::pipelineClassFor(const std::string& denoiserClass,
                                               const nlohmann::json& denoiserConfig) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& s : m_strategies)
        for (const auto& c : s.denoiserClasses)
            if (c == denoiserClass && !s.pipelineClasses.empty() &&
                (!s.runsDenoiser || s.runsDenoiser(denoiserConfig)))
                return s.pipelineClasses[0];
    return {};
}

}  // namespace hs
