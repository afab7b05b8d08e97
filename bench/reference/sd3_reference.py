"""A plain-PyTorch port of diffusers' SD3Transformer2DModel forward (Stable Diffusion 3 and 3.5:
dual attention, RMS qk-norm), for checking Halfscope's C++ module on configurations the goldens do
not cover (sd3_unseen.py) against the same computation in Python.

diffusers itself cannot be installed on this machine (no PyPI); this port follows its forward
op by op and is checked against the golden outputs that diffusers produced (tests/data/golden),
so it computes what the reference class computes.

  /usr/bin/python3 bench/reference/sd3_reference.py check tests/data/golden/sd35 tests/data/golden/sd35_io.safetensors
  /usr/bin/python3 bench/reference/sd3_reference.py compare FOLDER INPUTS CPP_OUTPUT

`check`, `compare`, `time` and `serve` are port_commands.py's. random_weights(cfg) gives a
folder's tensors in a real checkpoint's key layout for any configuration.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
from common_ops import (attention as sdpa, feed_forward, layer_norm, linear, modulate,  # noqa: E402
                        norm_out, rms_norm, timestep_embedding, timestep_mlp)
from weight_init import RandomWeights  # noqa: E402


def sincos_1d(dim, pos):
    """get_1d_sincos_pos_embed_from_grid: pos [M] -> [M, dim] in float64, [sin | cos]."""
    omega = torch.arange(dim // 2, dtype=torch.float64) / (dim / 2.0)
    out = torch.outer(pos.reshape(-1).double(), 1.0 / 10000 ** omega)
    return torch.cat([out.sin(), out.cos()], 1)


def sincos_pos_embed(dim, grid_size, base_size):
    """get_2d_sincos_pos_embed(dim, grid_size, base_size=base_size) (interpolation_scale 1):
    [grid_size^2, dim] float32, row-major over (h, w). The first half of the width encodes the
    column (diffusers meshes w first and calls that half emb_h), the second half the row."""
    g = torch.arange(grid_size, dtype=torch.float32) / (grid_size / base_size)
    gw, gh = torch.meshgrid(g, g, indexing="xy")  # gw[i, j] = g[j], gh[i, j] = g[i]
    return torch.cat([sincos_1d(dim // 2, gw), sincos_1d(dim // 2, gh)], 1).float()


def patch_embed(w, cfg, x):
    """PatchEmbed with SD3 cropping: conv (stride patch) -> [B, h*w, D] plus the centre h x w
    window of the stored pos_embed_max_size^2 table."""
    p, m = cfg["patch_size"], cfg["pos_embed_max_size"]
    y = F.conv2d(x, w["pos_embed.proj.weight"], w["pos_embed.proj.bias"], stride=p)
    h, wd = x.shape[-2] // p, x.shape[-1] // p
    if h > m or wd > m:
        raise ValueError(f"latent of {h} x {wd} patches exceeds pos_embed_max_size {m}")
    top, left = (m - h) // 2, (m - wd) // 2
    table = w["pos_embed.pos_embed"].reshape(1, m, m, -1)[:, top:top + h, left:left + wd]
    y = y.flatten(2).transpose(1, 2)
    return (y + table.reshape(1, h * wd, -1)).to(y.dtype)


def heads(x, h):
    b, l, _ = x.shape
    return x.view(b, l, h, -1).transpose(1, 2)


def qkv(w, p, names, norms, x, h):
    """Projections `names` of x split into h heads [B, h, L, d]; RMSNorm over each head of q and k
    where the checkpoint has the `norms` weights (qk_norm "rms_norm")."""
    q, k, v = (heads(linear(w, p + n, x), h) for n in names)
    if p + norms[0] + ".weight" in w:
        q = rms_norm(q, w[p + norms[0] + ".weight"])
        k = rms_norm(k, w[p + norms[1] + ".weight"])
    return q, k, v


def joint_attention(w, p, x, c, h, context_out):
    """JointAttnProcessor2_0 with a text stream: image tokens first, then text, in one
    attention; returns the image part through to_out.0 and the text part through to_add_out (or
    as it is, in the context_pre_only block, which has no to_add_out and whose text is dropped)."""
    q, k, v = qkv(w, p, (".to_q", ".to_k", ".to_v"), (".norm_q", ".norm_k"), x, h)
    cq, ck, cv = qkv(w, p, (".add_q_proj", ".add_k_proj", ".add_v_proj"),
                     (".norm_added_q", ".norm_added_k"), c, h)
    o = sdpa(torch.cat([q, cq], 2), torch.cat([k, ck], 2), torch.cat([v, cv], 2))
    o = o.transpose(1, 2).flatten(2).to(q.dtype)
    n = x.shape[1]
    co = linear(w, p + ".to_add_out", o[:, n:]) if context_out else None
    return linear(w, p + ".to_out.0", o[:, :n]), co


def self_attention(w, p, x, h):
    """JointAttnProcessor2_0 without a text stream (attn2 of SD3.5's dual-attention blocks)."""
    q, k, v = qkv(w, p, (".to_q", ".to_k", ".to_v"), (".norm_q", ".norm_k"), x, h)
    return linear(w, p + ".to_out.0", sdpa(q, k, v).transpose(1, 2).flatten(2).to(q.dtype))


def block(w, p, x, c, temb, h, dual, last):
    """JointTransformerBlock; returns (text, image), the text None after the last block."""
    st = F.silu(temb)
    # AdaLayerNormZero: shift, scale, gate (attention), shift, scale, gate (MLP); SD35AdaLayerNormZeroX
    # adds shift, scale, gate of attn2, which reads the same layer_norm(x) modulated by its own pair.
    e = linear(w, p + ".norm1.linear", st).chunk(9 if dual else 6, 1)
    nx = layer_norm(x)
    nx1 = nx * (1 + e[1][:, None]) + e[0][:, None]
    if last:  # AdaLayerNormContinuous: scale, shift
        scale, shift = linear(w, p + ".norm1_context.linear", st).chunk(2, 1)
        nc = modulate(c, scale, shift)
    else:
        ec = linear(w, p + ".norm1_context.linear", st).chunk(6, 1)
        nc = modulate(c, ec[1], ec[0])
    a, ca = joint_attention(w, p + ".attn", nx1, nc, h, not last)
    x = x + e[2][:, None] * a
    if dual:
        nx2 = nx * (1 + e[7][:, None]) + e[6][:, None]
        x = x + e[8][:, None] * self_attention(w, p + ".attn2", nx2, h)
    x = x + e[5][:, None] * feed_forward(w, p + ".ff", modulate(x, e[4], e[3]))
    if last:
        return None, x
    c = c + ec[2][:, None] * ca
    c = c + ec[5][:, None] * feed_forward(w, p + ".ff_context", modulate(c, ec[4], ec[3]))
    return c, x


def forward(w, cfg, inp):
    h = cfg["num_attention_heads"]
    p = cfg["patch_size"]
    out_ch = cfg.get("out_channels") or cfg["in_channels"]
    dual_layers = set(cfg.get("dual_attention_layers") or ())
    dtype = w["pos_embed.proj.weight"].dtype
    hs = inp["in.hidden_states"].to(dtype)
    b, _, height, width = hs.shape
    x = patch_embed(w, cfg, hs)
    pooled = inp["in.pooled_projections"].to(dtype)
    t = timestep_embedding(inp["in.timestep"].to(dtype), 256).to(dtype)
    temb = timestep_mlp(w, "time_text_embed.timestep_embedder", t) + \
        timestep_mlp(w, "time_text_embed.text_embedder", pooled)
    c = linear(w, "context_embedder", inp["in.encoder_hidden_states"].to(dtype))
    n = cfg["num_layers"]
    for i in range(n):
        c, x = block(w, f"transformer_blocks.{i}", x, c, temb, h, i in dual_layers, i == n - 1)
    y = norm_out(w, x, temb)  # [B, h*w, p*p*C]
    hp, wp = height // p, width // p
    y = torch.einsum("nhwpqc->nchpwq", y.reshape(b, hp, wp, p, p, out_ch))
    return y.reshape(b, out_ch, hp * p, wp * p)


load_folder = port_commands.load_component


def random_weights(cfg, generator=None):
    """Random tensors for the SD3Transformer2DModel of `cfg` in diffusers' key layout, the
    positional table as PatchEmbed computes and stores it."""
    w = RandomWeights(generator)
    dim = cfg["num_attention_heads"] * cfg["attention_head_dim"]
    hd, p, n = cfg["attention_head_dim"], cfg["patch_size"], cfg["num_layers"]
    out_ch = cfg.get("out_channels") or cfg["in_channels"]
    rms = cfg.get("qk_norm") == "rms_norm"
    dual_layers = set(cfg.get("dual_attention_layers") or ())

    def lin(k, i, o):
        w.linear(k, i, o, bias=0.02)
    w.conv("pos_embed.proj", cfg["in_channels"], dim, (p, p))
    m = cfg["pos_embed_max_size"]
    w["pos_embed.pos_embed"] = sincos_pos_embed(dim, m, cfg["sample_size"] // p).unsqueeze(0)
    lin("time_text_embed.timestep_embedder.linear_1", 256, dim)
    lin("time_text_embed.timestep_embedder.linear_2", dim, dim)
    lin("time_text_embed.text_embedder.linear_1", cfg["pooled_projection_dim"], dim)
    lin("time_text_embed.text_embedder.linear_2", dim, dim)
    lin("context_embedder", cfg["joint_attention_dim"], cfg["caption_projection_dim"])

    def attn(k, joint, context_out):
        for nm in ("to_q", "to_k", "to_v", "to_out.0"):
            lin(f"{k}.{nm}", dim, dim)
        if joint:
            for nm in ("add_q_proj", "add_k_proj", "add_v_proj"):
                lin(f"{k}.{nm}", dim, dim)
            if context_out:
                lin(f"{k}.to_add_out", dim, dim)
        if rms:
            for nm in ("norm_q", "norm_k") + (("norm_added_q", "norm_added_k") if joint else ()):
                w.norm(f"{k}.{nm}", hd)
    for i in range(n):
        k, last, dual = f"transformer_blocks.{i}", i == n - 1, i in dual_layers
        lin(k + ".norm1.linear", dim, (9 if dual else 6) * dim)
        lin(k + ".norm1_context.linear", dim, (2 if last else 6) * dim)
        attn(k + ".attn", True, not last)
        if dual:
            attn(k + ".attn2", False, False)
        for f in ("ff",) if last else ("ff", "ff_context"):
            lin(f"{k}.{f}.net.0.proj", dim, 4 * dim)
            lin(f"{k}.{f}.net.2", 4 * dim, dim)
    lin("norm_out.linear", dim, 2 * dim)
    lin("proj_out", dim, p * p * out_ch)
    return w


def main():
    port_commands.main(port_commands.standard_commands(load_folder, forward, ["out.sample"],
                                                       "diffusers'"))


if __name__ == "__main__":
    main()
