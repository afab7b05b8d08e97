#include "models/common/layers.h"

#include <ATen/Context.h>

#include <cmath>

#include "numerics/format.h"

namespace hs::nn {

namespace {

thread_local bool t_meta = false;

// torch.nn's default for Linear and Conv2d: kaiming_uniform_(a=sqrt(5)) for the weight and
// uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias.
void resetLikeTorch(torch::Tensor& weight, torch::Tensor& bias) {
    torch::NoGradGuard g;
    torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
    if (bias.defined()) {
        const int64_t fanIn = weight.numel() / weight.size(0);
        const double bound = fanIn > 0 ? 1.0 / std::sqrt(double(fanIn)) : 0.0;
        bias.uniform_(-bound, bound);
    }
}

void resetNorm(torch::Tensor& weight, torch::Tensor& bias) {
    torch::NoGradGuard g;
    weight.fill_(1);
    bias.zero_();
}

}  // namespace

MetaConstruction::MetaConstruction() : m_old(t_meta) {
    t_meta = true;
}

MetaConstruction::~MetaConstruction() {
    t_meta = m_old;
}

torch::Tensor Tf32Layer::tf32Operand(const torch::Tensor& t) {
    return roundToTf32(t);
}

Tf32Layer::Tf32Allowed::Tf32Allowed()
    : m_blas(at::globalContext().allowTF32CuBLAS()), m_dnn(at::globalContext().allowTF32CuDNN()) {
    at::globalContext().setAllowTF32CuBLAS(true);
    at::globalContext().setAllowTF32CuDNN(true);
}

Tf32Layer::Tf32Allowed::~Tf32Allowed() {
    at::globalContext().setAllowTF32CuBLAS(m_blas);
    at::globalContext().setAllowTF32CuDNN(m_dnn);
}

torch::TensorOptions parameterOptions() {
    return torch::TensorOptions()
        .dtype(torch::kFloat32)
        .device(t_meta ? torch::kMeta : torch::kCPU);
}

LinearImpl::LinearImpl(int64_t in, int64_t out, bool withBias) {
    weight = register_parameter("weight", torch::empty({out, in}, parameterOptions()));
    if (withBias) bias = register_parameter("bias", torch::empty({out}, parameterOptions()));
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
    return product(
        asTypeOf(x, weight), weight,
        [&](const torch::Tensor& a, const torch::Tensor& w) { return torch::linear(a, w, bias); });
}

void LinearImpl::resetParameters() {
    resetLikeTorch(weight, bias);
}

Conv2dImpl::Conv2dImpl(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                       bool withBias)
    : m_stride(stride), m_padding(padding) {
    weight =
        register_parameter("weight", torch::empty({out, in, kernel, kernel}, parameterOptions()));
    if (withBias) bias = register_parameter("bias", torch::empty({out}, parameterOptions()));
}

torch::Tensor Conv2dImpl::forward(const torch::Tensor& x) {
    return product(asTypeOf(x, weight), weight,
                   [&](const torch::Tensor& a, const torch::Tensor& w) {
                       return torch::conv2d(a, w, bias, m_stride, m_padding);
                   });
}

void Conv2dImpl::resetParameters() {
    resetLikeTorch(weight, bias);
}

LayerNormImpl::LayerNormImpl(int64_t dim, double eps) : m_eps(eps) {
    weight = register_parameter("weight", torch::empty({dim}, parameterOptions()));
    bias = register_parameter("bias", torch::empty({dim}, parameterOptions()));
}

torch::Tensor LayerNormImpl::forward(const torch::Tensor& x) {
    return torch::layer_norm(asTypeOf(x, weight), {weight.size(0)}, weight, bias, m_eps);
}

void LayerNormImpl::resetParameters() {
    resetNorm(weight, bias);
}

GroupNormImpl::GroupNormImpl(int64_t groups, int64_t channels, double eps)
    : m_groups(groups), m_eps(eps) {
    weight = register_parameter("weight", torch::empty({channels}, parameterOptions()));
    bias = register_parameter("bias", torch::empty({channels}, parameterOptions()));
}

torch::Tensor GroupNormImpl::forward(const torch::Tensor& x) {
    auto xin = asTypeOf(x, weight);
    if (xin.scalar_type() == torch::kBFloat16 && xin.device().is_cpu())
        return torch::group_norm(xin.to(torch::kFloat), m_groups, weight.to(torch::kFloat),
                                 bias.to(torch::kFloat), m_eps)
            .to(torch::kBFloat16);
    return torch::group_norm(xin, m_groups, weight, bias, m_eps);
}

void GroupNormImpl::resetParameters() {
    resetNorm(weight, bias);
}

RMSNormImpl::RMSNormImpl(int64_t dim, double eps) : m_eps(eps) {
    weight = register_parameter("weight", torch::empty({dim}, parameterOptions()));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
    auto var = x.to(torch::kFloat32).pow(2).mean(-1, /*keepdim=*/true);  // [..., 1] fp32
    auto y = x * torch::rsqrt(var + m_eps);  // [..., dim], promoted to fp32 as in diffusers
    const auto wt = weight.scalar_type();
    if (wt == torch::kFloat16 || wt == torch::kBFloat16) y = y.to(wt);
    return y * weight;
}

void RMSNormImpl::resetParameters() {
    torch::NoGradGuard g;
    weight.fill_(1);
}

EmbeddingImpl::EmbeddingImpl(int64_t num, int64_t dim) {
    weight = register_parameter("weight", torch::empty({num, dim}, parameterOptions()));
}

torch::Tensor EmbeddingImpl::forward(const torch::Tensor& ids) {
    return torch::embedding(weight, ids);
}

void EmbeddingImpl::resetParameters() {
    torch::NoGradGuard g;
    weight.normal_(0, 1);
}

void initialiseForTraining(torch::nn::Module& module) {
    for (auto& m : module.modules(/*include_self=*/true)) {
        if (auto* l = m->as<LinearImpl>())
            l->resetParameters();
        else if (auto* c = m->as<Conv2dImpl>())
            c->resetParameters();
        else if (auto* n = m->as<LayerNormImpl>())
            n->resetParameters();
        else if (auto* g = m->as<GroupNormImpl>())
            g->resetParameters();
        else if (auto* e = m->as<EmbeddingImpl>())
            e->resetParameters();
        else if (auto* r = m->as<RMSNormImpl>())
            r->resetParameters();
        else if (auto* s = dynamic_cast<SelfInitialising*>(m.get()))
            s->resetParameters();
    }
}

}  // namespace hs::nn
