#pragma once
// The weighted layers every family builds on, as LibTorch modules whose parameters carry the
// checkpoint's key names (weight, bias) but are allocated without initial values: loading
// overwrites every one of them, and torch::nn's random initialisation took half of the demo
// model's load time (it would take minutes for a 12 B model). A trainer that starts from random
// weights calls initialiseForTraining() once after building its modules.
//
// Each layer casts its input to its weight's dtype first (a plan may give neighbouring layers
// different formats), so that callers never cast by hand.
//
// While a MetaConstruction scope is alive on the thread, new layers put their parameters on the
// meta device: a model built so holds no memory, and its named_parameters() tell the names and
// shapes a checkpoint must have (checkWeights) before anything real is allocated.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace hs {

// Casts x to w's dtype when they differ (modules may hold blocks in different formats).
inline torch::Tensor asTypeOf(const torch::Tensor& x, const torch::Tensor& w) {
    return x.scalar_type() == w.scalar_type() ? x : x.to(w.scalar_type());
}

// Builds make(i, "<pathPrefix><i>") for i in [0, n) into `blocks`, the
// typed views, and registers them on `owner` as the ModuleList `name`, whose checkpoint keys
// read "<name>.<i>.*". Returns the list.
template <class Block, class Make>
torch::nn::ModuleList registerBlocks(torch::nn::Module& owner, const std::string& name, int n,
                                     const std::string& pathPrefix, std::vector<Block>& blocks,
                                     Make make) {
    auto list = owner.register_module(name, torch::nn::ModuleList());
    for (int i = 0; i < n; ++i) {
        blocks.push_back(make(i, pathPrefix + std::to_string(i)));
        list->push_back(blocks.back());
    }
    return list;
}

// Moves x to w's device when they differ (a streamed block's weights arrive on its device).
inline torch::Tensor onDeviceOf(const torch::Tensor& x, const torch::Tensor& w) {
    return x.device() == w.device() ? x : x.to(w.device());
}

}  // namespace hs

namespace hs::nn {

class MetaConstruction {
public:
    MetaConstruction();
    ~MetaConstruction();
    MetaConstruction(const MetaConstruction&) = delete;
    MetaConstruction& operator=(const MetaConstruction&) = delete;

private:
    bool m_old;
};
// A module holding tensors of its own beyond the layers here (SD3's positional table), which
// initialiseForTraining() asks to fill them as the reference model initialises them.
class SelfInitialising {
public:
    virtual ~SelfInitialising() = default;
    virtual void resetParameters() = 0;
};

// Options for a new parameter: float32 on the CPU, or on the meta device (see above).
torch::TensorOptions parameterOptions();

// How a layer whose product is a matmul or a convolution computes it in fp32: plainly, in tf32
// emulated (both operands rounded with roundToTf32, fp32 arithmetic and accumulation), or in
// tf32 on the GPU's tensor cores (TF32 allowed for this op alone; LibTorch's default is off in
// Halfscope, runtime/configure.h). Set by loadWeights from the plan's tf32 rules.
enum class Tf32Mode { Off, Emulated, Native };

class Tf32Layer {
public:
    virtual ~Tf32Layer() = default;
    Tf32Mode tf32 = Tf32Mode::Off;

    // op(x', w'): x and w as this layer's mode gives them to the product.
    template <class Op>
    torch::Tensor product(const torch::Tensor& x, const torch::Tensor& w, Op op) const {
        if (tf32 == Tf32Mode::Off) return op(x, w);
        if (tf32 == Tf32Mode::Emulated) return op(tf32Operand(x), tf32Operand(w));
        Tf32Allowed allowed;
        return op(x, w);
    }

private:
    static torch::Tensor tf32Operand(const torch::Tensor& t);
    // Allows TF32 in cuBLAS and cuDNN while alive, then restores what was set.
    class Tf32Allowed {
    public:
        Tf32Allowed();
        ~Tf32Allowed();

    private:
        bool m_blas, m_dnn;
    };
};

// torch.nn.Linear: weight [out, in], bias [out]. x [..., in] -> [..., out]
class LinearImpl : public torch::nn::Module, public Tf32Layer {
public:
    LinearImpl(int64_t in, int64_t out, bool bias = true);
    torch::Tensor forward(const torch::Tensor& x);
    void resetParameters();
    torch::Tensor weight, bias;
};
TORCH_MODULE(Linear);

// torch.nn.Conv2d with square kernel, stride and zero padding: weight [out, in, k, k].
// x [B, in, H, W] -> [B, out, H', W']
class Conv2dImpl : public torch::nn::Module, public Tf32Layer {
public:
    Conv2dImpl(int64_t in, int64_t out, int64_t kernel, int64_t stride = 1, int64_t padding = 0,
               bool bias = true);
    torch::Tensor forward(const torch::Tensor& x);
    void resetParameters();
    torch::Tensor weight, bias;

private:
    int64_t m_stride, m_padding;
};
TORCH_MODULE(Conv2d);

// torch.nn.LayerNorm over the last axis, with weight and bias. x [..., dim] -> [..., dim]
class LayerNormImpl : public torch::nn::Module {
public:
    LayerNormImpl(int64_t dim, double eps);
    torch::Tensor forward(const torch::Tensor& x);
    void resetParameters();
    torch::Tensor weight, bias;

private:
    double m_eps;
};
TORCH_MODULE(LayerNorm);

// torch.nn.GroupNorm with affine parameters. x [B, C, ...] -> same. On the CPU a bf16 input is
// normalised in fp32 and rounded back once: LibTorch 1.13's native bf16 kernel applies the
// normalisation as x * scale + bias in bf16, so a channel group with a large mean lost up to ~20
// bf16 ulps (0.36 absolute on outputs of magnitude 3); GPUs normalise in fp32 and store bf16.
class GroupNormImpl : public torch::nn::Module {
public:
    GroupNormImpl(int64_t groups, int64_t channels, double eps);
    torch::Tensor forward(const torch::Tensor& x);
    void resetParameters();
    torch::Tensor weight, bias;

private:
    int64_t m_groups;
    double m_eps;
};
TORCH_MODULE(GroupNorm);

// diffusers RMSNorm(dim, eps, elementwise_affine=True), transformers' T5LayerNorm: over the
// last axis, statistics in fp32, the result cast to the weight dtype when that is a half type,
// then scaled. x [..., dim] -> [..., dim]
class RMSNormImpl : public torch::nn::Module {
public:
    RMSNormImpl(int64_t dim, double eps);
    torch::Tensor forward(const torch::Tensor& x);
    void resetParameters();
    torch::Tensor weight;

private:
    double m_eps;
};
TORCH_MODULE(RMSNorm);

// torch.nn.Embedding: weight [num, dim]. ids [...] integer -> [..., dim]
class EmbeddingImpl : public torch::nn::Module {
public:
    EmbeddingImpl(int64_t num, int64_t dim);
    torch::Tensor forward(const torch::Tensor& ids);
    void resetParameters();
    torch::Tensor weight;
};
TORCH_MODULE(Embedding);

// Initialises every layer above inside `module` as torch.nn (and diffusers, for RMSNorm) does
// on construction (kaiming-uniform weights and fan-in-bounded biases, unit norms, normal
// embeddings), drawing from LibTorch's default generator in module order.
void initialiseForTraining(torch::nn::Module& module);

}  // namespace hs::nn
