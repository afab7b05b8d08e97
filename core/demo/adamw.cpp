#include "demo/adamw.h"

#include <cmath>

namespace hs::demo {

AdamW::AdamW(std::vector<std::pair<std::string, torch::Tensor>> params, Options opt)
    : m_params(std::move(params)), m_opt(opt) {
    for (auto& p : m_params) {
        m_m.push_back(torch::zeros_like(p.second));
        m_v.push_back(torch::zeros_like(p.second));
    }
}

void AdamW::zeroGrad() {
    for (auto& p : m_params)
        if (p.second.grad().defined()) p.second.mutable_grad().zero_();
}

double AdamW::step(double lr) {
    torch::NoGradGuard noGrad;
    double sq = 0;
    for (auto& p : m_params)
        if (p.second.grad().defined()) sq += p.second.grad().to(torch::kFloat64).pow(2).sum().item<double>();
    const double norm = std::sqrt(sq);
    const double scale = (m_opt.clipNorm > 0 && norm > m_opt.clipNorm) ? m_opt.clipNorm / norm : 1.0;
    ++m_step;
    const double bc1 = 1 - std::pow(m_opt.beta1, double(m_step));
    const double bc2 = 1 - std::pow(m_opt.beta2, double(m_step));
    for (size_t i = 0; i < m_params.size(); ++i) {
        auto& w = m_params[i].second;
        if (!w.grad().defined()) continue;
        auto g = w.grad() * scale;
        m_m[i].mul_(m_opt.beta1).add_(g, 1 - m_opt.beta1);
        m_v[i].mul_(m_opt.beta2).addcmul_(g, g, 1 - m_opt.beta2);
        if (m_opt.weightDecay > 0 && w.dim() >= 2) w.mul_(1 - lr * m_opt.weightDecay);
        auto denom = (m_v[i] / bc2).sqrt_().add_(m_opt.eps);
        w.addcdiv_(m_m[i], denom, -lr / bc1);
    }
    return norm;
}

void AdamW::saveState(WeightMap& out, const std::string& prefix) const {
    for (size_t i = 0; i < m_params.size(); ++i) {
        out[prefix + "m." + m_params[i].first] = m_m[i];
        out[prefix + "v." + m_params[i].first] = m_v[i];
    }
}

void AdamW::loadState(const WeightMap& in, const std::string& prefix, int64_t step) {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < m_params.size(); ++i) {
        auto m = in.find(prefix + "m." + m_params[i].first);
        auto v = in.find(prefix + "v." + m_params[i].first);
        if (m == in.end() || v == in.end())
            throw std::runtime_error("resume state lacks optimizer moments for '" +
                                     m_params[i].first + "'");
        m_m[i].copy_(m->second);
        m_v[i].copy_(v->second);
    }
    m_step = step;
}

}  // namespace hs::demo
