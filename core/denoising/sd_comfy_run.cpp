#include "denoising/sd_comfy_run.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sampling/comfy_samplers.h"
#include "sampling/comfy_sigmas.h"

namespace hs {

namespace {

ComfyPrediction comfyPredictionOf(const std::string& predictionType) {
    if (predictionType == "v_prediction") return ComfyPrediction::V;
    if (predictionType == "sample") return ComfyPrediction::X0;
    return ComfyPrediction::Eps;
}

class SdComfyRun : public DenoisingRun {
public:
    SdComfyRun(const RunConfig& cfg, const torch::Device& device, SdText& text,
               UNet2DConditionModel unet, ComfyModelSampling ms, ComfySampler sampler,
               const torch::Tensor& noise, std::vector<std::string> notes)
        : m_cfg(cfg),
          m_device(device),
          m_text(text),
          m_unet(std::move(unet)),
          m_ms(std::move(ms)),
          m_sampler(std::move(sampler)),
          m_guided(comfyCfgGuides(cfg.guidance)),
          m_notes(std::move(notes)) {
        m_x = comfyInitialLatent(m_ms, m_sampler.sigmas()[0], noise).to(device);  // [1, C, h, w]
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        m_cond = m_text.encode(m_cfg, m_guided, m_device, probes);
        return m_cond.sequence;
    }

    int numSteps() const override { return m_sampler.numSteps(); }

    DenoiseStep step(int i, ProbeContext& probes) override {
        m_firstOutput = torch::Tensor();
        auto st = m_sampler.step(i, m_x, [&](const torch::Tensor& x, double sigma) {
            return denoise(x, sigma, probes);
        });
        const double sigma = m_sampler.sigmas()[size_t(i)];
        m_x = st.next.to(torch::kFloat32);
        return {sigma, m_ms.timestep(sigma), m_x, m_firstOutput, st.denoised.to(torch::kFloat32)};
    }

    torch::Tensor latents() const override { return m_x; }
    std::vector<std::string> notes() const override { return m_notes; }

private:
    // ComfyUI's BaseModel.apply_model per half of the batch, then the CFG mix of the two x0
    // estimates. x [1, C, h, w] float32.
    torch::Tensor denoise(const torch::Tensor& x, double sigma, ProbeContext& probes) {
        const float s = float(sigma);
        const int64_t batch = m_guided ? 2 : 1;
        const auto xs = batch == 2 ? torch::cat({x, x}) : x;  // [B, C, h, w]
        UNetInputs in;
        in.sample = xs / std::sqrt(s * s + 1.0f);  // EPS.calculate_input, sigma_data 1
        in.timestep =
            torch::full({batch}, m_ms.timestep(s), torch::TensorOptions().device(m_device));
        in.encoderHiddenStates = m_cond.context;  // [B, L, D], [uncond, cond]
        in.textEmbeds = m_cond.textEmbeds;
        in.timeIds = m_cond.timeIds;
        auto out = m_unet->forward(in, probes).to(torch::kFloat32);  // [B, C, h, w]
        torch::Tensor den;
        switch (m_ms.prediction()) {
            case ComfyPrediction::V:
                den = xs / (s * s + 1.0f) - out * s / std::sqrt(s * s + 1.0f);  // sigma_data 1
                break;
            case ComfyPrediction::X0:
                den = out;
                break;
            default:
                den = xs - out * s;
                break;
        }
        if (batch == 2) {
            auto d = den.chunk(2), o = out.chunk(2);
            den = d[0] + (d[1] - d[0]) * m_cfg.guidance;  // uncond + (cond - uncond) * cfg
            out = o[0] + (o[1] - o[0]) * m_cfg.guidance;
        }
        if (!m_firstOutput.defined()) m_firstOutput = out;
        return den;
    }

    RunConfig m_cfg;
    torch::Device m_device;
    SdText& m_text;
    UNet2DConditionModel m_unet;
    ComfyModelSampling m_ms;
    ComfySampler m_sampler;
    bool m_guided;
    std::vector<std::string> m_notes;
    SdConditioning m_cond;
    torch::Tensor m_x;            // [1, C, h, w] float32
    torch::Tensor m_firstOutput;  // the step's first guided UNet output, for the record
};

}  // namespace

void validateComfySampling(const RunConfig& cfg) {
    if (cfg.comfySampler.empty() && !cfg.comfyScheduler.empty())
        throw PipelineError("a ComfyUI scheduler ('" + cfg.comfyScheduler +
                            "') needs a ComfyUI sampler");
    if (!cfg.comfySampler.empty() && !cfg.scheduler.empty())
        throw PipelineError("pick either a sampler of the model's choices ('" + cfg.scheduler +
                            "') or ComfyUI's ('" + cfg.comfySampler + "'), not both");
}

std::unique_ptr<DenoisingRun> startSdComfyRun(const RunConfig& cfg, const torch::Device& device,
                                              SdText& text, UNet2DConditionModel unet,
                                              const nlohmann::json& schedulerConfig,
                                              const torch::Tensor& noise,
                                              std::vector<std::string> notes) {
    const std::string prediction =
        !cfg.predictionType.empty()
            ? cfg.predictionType
            : schedulerConfig.value("prediction_type", std::string("epsilon"));
    ComfyModelSampling ms =
        ComfyModelSampling::discrete(schedulerConfig, comfyPredictionOf(prediction));
    ComfySampler sampler =
        comfySamplerFor(ms, cfg.comfySampler, cfg.comfyScheduler, cfg.steps, cfg.seed, notes);
    return std::make_unique<SdComfyRun>(cfg, device, text, std::move(unet), std::move(ms),
                                        std::move(sampler), noise, std::move(notes));
}

}  // namespace hs
