#include "models/common/attention.h"

#include <torch/version.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace hs {

QkvPoints::QkvPoints(const std::string& path, const std::array<const char*, 5>& names) {
    auto op = [&](const char* n) { return ProbePoint(path + "." + n, ProbeLevel::Op); };
    q = op(names[0]);
    k = op(names[1]);
    v = op(names[2]);
    nq = op(names[3]);
    nk = op(names[4]);
}

QkvPoints::QkvPoints(const std::string& path, bool added)
    : QkvPoints(path,
                added ? std::array<const char*, 5>{"add_q_proj", "add_k_proj", "add_v_proj",
                                                   "norm_added_q", "norm_added_k"}
                      : std::array<const char*, 5>{"to_q", "to_k", "to_v", "norm_q", "norm_k"}) {}

JointAttentionParams::JointAttentionParams(const Shape& s, const std::string& path)
    : m_heads(s.heads), m_headDim(s.headDim), m_img(path, false) {
    const int64_t inner = int64_t(s.heads) * s.headDim;
    auto linear = [&](const char* name) { return register_module(name, nn::Linear(s.dim, inner)); };
    auto norm = [&](const char* name) {
        return register_module(name, nn::RMSNorm(s.headDim, 1e-6));
    };
    // One stream's projections and (qk_norm) head norms, registered in diffusers' order.
    auto stream = [&](const std::array<const char*, 5>& names, nn::Linear& q, nn::Linear& k,
                      nn::Linear& v, nn::RMSNorm& nq, nn::RMSNorm& nk) {
        q = linear(names[0]);
        k = linear(names[1]);
        v = linear(names[2]);
        if (!s.qkNorm) return;
        nq = norm(names[3]);
        nk = norm(names[4]);
    };
    stream({"to_q", "to_k", "to_v", "norm_q", "norm_k"}, to_q, to_k, to_v, norm_q, norm_k);
    if (s.text) {
        m_txt = QkvPoints(path, true);
        stream({"add_q_proj", "add_k_proj", "add_v_proj", "norm_added_q", "norm_added_k"},
               add_q_proj, add_k_proj, add_v_proj, norm_added_q, norm_added_k);
    }
    if (s.imageOut) {
        to_out0 = nn::Linear(inner, s.dim);
        to_out = register_module("to_out", torch::nn::ModuleList());
        to_out->push_back(to_out0);
    }
    if (s.textOut) to_add_out = register_module("to_add_out", nn::Linear(inner, s.dim));
}

Qkv JointAttentionParams::imageQkv(ProbeContext& probes, const torch::Tensor& x, bool headsFirst) {
    return projectQkv(probes, x, m_heads, m_headDim, headsFirst, to_q, to_k, to_v, norm_q, norm_k,
                      m_img);
}

Qkv JointAttentionParams::textQkv(ProbeContext& probes, const torch::Tensor& context,
                                  bool headsFirst) {
    return projectQkv(probes, context, m_heads, m_headDim, headsFirst, add_q_proj, add_k_proj,
                      add_v_proj, norm_added_q, norm_added_k, m_txt);
}

Qkv projectQkv(ProbeContext& probes, const torch::Tensor& x, int heads, int headDim,
               bool headsFirst, nn::Linear& lq, nn::Linear& lk, nn::Linear& lv, nn::RMSNorm& nq,
               nn::RMSNorm& nk, const QkvPoints& n) {
    const int64_t B = x.size(0), L = x.size(1);
    auto split = [&](const torch::Tensor& t) {
        auto h = t.view({B, L, heads, headDim});  // [B, L, H, Dh]
        return headsFirst ? h.transpose(1, 2) : h;
    };
    Qkv r;
    r.q = split(probes.point(n.q, lq->forward(x)));
    r.k = split(probes.point(n.k, lk->forward(x)));
    r.v = split(probes.point(n.v, lv->forward(x)));
    if (!nq.is_empty()) r.q = probes.point(n.nq, nq->forward(r.q));
    if (!nk.is_empty()) r.k = probes.point(n.nk, nk->forward(r.k));
    return r;
}

torch::Tensor applyRope(const torch::Tensor& x, const RopeTables& rope) {
    const int64_t L = x.size(1), D = x.size(3);
    auto xf = x.to(torch::kFloat32);  // [B, L, H, D]
    auto pairs = xf.reshape({x.size(0), L, x.size(2), D / 2, 2});
    auto rotated = torch::stack({-pairs.select(-1, 1), pairs.select(-1, 0)}, -1).flatten(3);
    auto cos = rope.cos.to(xf.device()).view({1, L, 1, D});
    auto sin = rope.sin.to(xf.device()).view({1, L, 1, D});
    return (xf * cos + rotated * sin).to(x.scalar_type());  // [B, L, H, D]
}

torch::Tensor fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& v) {
#if TORCH_VERSION_MAJOR >= 2
    return at::scaled_dot_product_attention(q, k, v);
#else
    const auto st = q.scalar_type();
    const bool half = st == torch::kFloat16 || st == torch::kBFloat16;
    auto qf = half ? q.to(torch::kFloat32) : q;                      // [B, H, Lq, D]
    auto kt = (half ? k.to(torch::kFloat32) : k).transpose(-2, -1);  // [B, H, D, Lk]
    const double scale = 1.0 / std::sqrt(double(q.size(-1)));
    auto one = [&](const torch::Tensor& qc) {
        auto s = torch::matmul(qc, kt).mul_(scale);  // [B, H, n, Lk] fp32
        auto p = torch::softmax(s, -1);
        return torch::matmul(p.to(v.scalar_type()), v);  // [B, H, n, D]
    };
    return overQueryChunks(qf, k.size(2), one);
#endif
}

torch::Tensor overQueryChunks(const torch::Tensor& q, int64_t keys,
                              const std::function<torch::Tensor(const torch::Tensor&)>& one) {
    const int64_t Lq = q.size(2);
    const int64_t perRow = std::max<int64_t>(1, q.size(0) * q.size(1) * keys);
    const int64_t rows = std::max<int64_t>(1, (int64_t(256) << 20) / 4 / perRow);
    if (rows >= Lq) return one(q);
    std::vector<torch::Tensor> outs;
    for (int64_t r = 0; r < Lq; r += rows)
        outs.push_back(one(q.narrow(2, r, std::min(rows, Lq - r))));
    return torch::cat(outs, 2);
}

}  // namespace hs
