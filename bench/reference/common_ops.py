"""Layers that several reference ports compute the same way, written once so that each port reads
as its model's forward. `w` is a checkpoint's tensors by key, `p` a module's key prefix."""
import math

import torch
import torch.nn.functional as F


def linear(w, p, x):
    """nn.Linear; without a bias where the checkpoint has none."""
    return F.linear(x, w[p + ".weight"], w.get(p + ".bias"))


def conv(w, p, x, stride=1, padding=1):
    return F.conv2d(x, w[p + ".weight"], w[p + ".bias"], stride=stride, padding=padding)


def group_norm(w, p, x, groups, eps=1e-6):
    return F.group_norm(x, groups, w[p + ".weight"], w[p + ".bias"], eps=eps)


def layer_norm(x, eps=1e-6):
    """LayerNorm over the last dimension without weight or bias (elementwise_affine=False)."""
    return F.layer_norm(x, (x.shape[-1],), eps=eps)


def affine_layer_norm(w, p, x, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), w[p + ".weight"], w[p + ".bias"], eps=eps)


def rms_norm(x, weight, eps=1e-6):
    """diffusers' RMSNorm, which is also transformers' T5LayerNorm: the variance in fp32, the
    normalised value cast to a half weight's dtype before the weight multiplies it."""
    variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
    x = x * torch.rsqrt(variance + eps)
    if weight.dtype in (torch.float16, torch.bfloat16):
        x = x.to(weight.dtype)
    return x * weight


def timestep_embedding(t, dim, flip_sin_to_cos=True, shift=0, scale=1):
    """diffusers' get_timestep_embedding: t [B] -> [B, dim] sinusoids of t * 10000^(-i / (dim/2 -
    shift)), `scale` multiplying the arguments (after the product), [cos | sin] when flipped,
    a zero column appended for an odd `dim`."""
    half = dim // 2
    exponent = -math.log(10000) * torch.arange(start=0, end=half, dtype=torch.float32)
    exponent = exponent / (half - shift)
    emb = t[:, None].float() * torch.exp(exponent)[None, :]
    if scale != 1:
        emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half:], emb[:, :half]], dim=-1)
    if dim % 2 == 1:
        emb = F.pad(emb, (0, 1, 0, 0))
    return emb


def timestep_mlp(w, p, x):
    """TimestepEmbedding: linear_1, SiLU, linear_2."""
    return linear(w, p + ".linear_2", F.silu(linear(w, p + ".linear_1", x)))


def feed_forward(w, p, x, approximate="tanh"):
    """diffusers' FeedForward with a GELU ("gelu-approximate" by default, exact with "none"):
    net.0.proj, GELU, net.2."""
    return linear(w, p + ".net.2", F.gelu(linear(w, p + ".net.0.proj", x), approximate=approximate))


def softmax_attention(q, k, v, key_mask=None):
    """Attention over q, k, v [B, H, L, D] with the scores q.k / sqrt(D) and their softmax in fp32,
    the probabilities cast back to v's dtype; key_mask [B, S] (bool) leaves out the false keys."""
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if key_mask is not None:
        s = s.masked_fill(~key_mask[:, None, None, :], float("-inf"))
    return torch.softmax(s, -1).to(v.dtype) @ v


def attention(q, k, v):
    """F.scaled_dot_product_attention where torch has it (2.0 on), else softmax_attention."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v)
    return softmax_attention(q, k, v)


def rotate_half(x):
    """The rotation of RoPE in the half-split layout: [x1 | x2] -> [-x2 | x1]."""
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def modulate(x, scale, shift):
    """layer_norm(x) * (1 + scale) + shift, scale and shift [B, D] over x [B, L, D]."""
    return layer_norm(x) * (1 + scale[:, None]) + shift[:, None]


def norm_out(w, x, temb):
    """AdaLayerNormContinuous (norm_out.linear of SiLU(temb) gives scale, shift), then proj_out."""
    scale, shift = linear(w, "norm_out.linear", F.silu(temb)).chunk(2, dim=-1)
    return linear(w, "proj_out", modulate(x, scale, shift))


def upsample(w, p, x, size=None):
    """Upsample2D: nearest 2x, or to `size`, then p.conv; diffusers upsamples bfloat16 in float32
    (torch < 2.1 has no bfloat16 nearest kernel)."""
    dtype = x.dtype
    if dtype == torch.bfloat16:
        x = x.float()
    if size is None:
        x = F.interpolate(x, scale_factor=2.0, mode="nearest")
    else:
        x = F.interpolate(x, size=size, mode="nearest")
    return conv(w, p + ".conv", x.to(dtype))
