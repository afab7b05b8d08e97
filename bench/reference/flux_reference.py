"""A plain-PyTorch port of diffusers' FluxTransformer2DModel forward, for timing Halfscope's C++
module against the same computation in Python on the same weights, dtype and thread count.

diffusers itself cannot be installed on this machine (no PyPI); this port follows its forward
op by op and is checked against the golden outputs that diffusers produced (tests/data/golden),
so it computes what the reference class computes.

  /usr/bin/python3 bench/reference/flux_reference.py check tests/data/golden/flux tests/data/golden/flux_io.safetensors
  /usr/bin/python3 bench/reference/flux_reference.py make DIR          # realistic-size folder + inputs
  /usr/bin/python3 bench/reference/flux_reference.py time DIR INPUTS [fp32|bf16] [repeat]

`check`, `compare`, `time` and `serve` are port_commands.py's.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
from common_ops import (attention as sdpa, feed_forward, linear, modulate, norm_out,  # noqa: E402
                        rms_norm, timestep_embedding, timestep_mlp)
from weight_init import RandomWeights  # noqa: E402


def rope(ids, axes, theta=10000):
    cos, sin = [], []
    pos = ids.float().double()
    for i, d in enumerate(axes):
        freqs = 1.0 / theta ** (torch.arange(0, d, 2, dtype=torch.float64)[: d // 2] / d)
        a = torch.outer(pos[:, i], freqs)
        cos.append(a.cos().repeat_interleave(2, 1).float())
        sin.append(a.sin().repeat_interleave(2, 1).float())
    return torch.cat(cos, -1), torch.cat(sin, -1)


def apply_rope(x, cs):  # x [B, H, L, D]
    cos, sin = cs
    re, im = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)
    rot = torch.stack([-im, re], -1).flatten(3)
    return (x.float() * cos + rot.float() * sin).to(x.dtype)


def heads(x, h):
    b, l, _ = x.shape
    return x.view(b, l, h, -1).transpose(1, 2)


def attention(w, p, x, ctx, cs, h):
    q, k, v = (heads(linear(w, p + n, x), h) for n in (".to_q", ".to_k", ".to_v"))
    q, k = rms_norm(q, w[p + ".norm_q.weight"]), rms_norm(k, w[p + ".norm_k.weight"])
    if ctx is not None:
        cq, ck, cv = (heads(linear(w, p + n, ctx), h) for n in (".add_q_proj", ".add_k_proj", ".add_v_proj"))
        cq, ck = rms_norm(cq, w[p + ".norm_added_q.weight"]), rms_norm(ck, w[p + ".norm_added_k.weight"])
        q, k, v = torch.cat([cq, q], 2), torch.cat([ck, k], 2), torch.cat([cv, v], 2)
    q, k = apply_rope(q, cs), apply_rope(k, cs)
    o = sdpa(q, k, v).transpose(1, 2).flatten(2).to(q.dtype)
    if ctx is None:
        return o, None
    lt = ctx.shape[1]
    return linear(w, p + ".to_out.0", o[:, lt:]), linear(w, p + ".to_add_out", o[:, :lt])


def double_block(w, p, x, c, temb, cs, h):
    e = linear(w, p + ".norm1.linear", F.silu(temb)).chunk(6, 1)
    ec = linear(w, p + ".norm1_context.linear", F.silu(temb)).chunk(6, 1)
    a, ac = attention(w, p + ".attn", modulate(x, e[1], e[0]), modulate(c, ec[1], ec[0]), cs, h)
    x = x + e[2][:, None] * a
    x = x + e[5][:, None] * feed_forward(w, p + ".ff", modulate(x, e[4], e[3]))
    c = c + ec[2][:, None] * ac
    c = c + ec[5][:, None] * feed_forward(w, p + ".ff_context", modulate(c, ec[4], ec[3]))
    return x, c


def single_block(w, p, s, temb, cs, h):
    e = linear(w, p + ".norm.linear", F.silu(temb)).chunk(3, 1)
    n = modulate(s, e[1], e[0])
    m = F.gelu(linear(w, p + ".proj_mlp", n), approximate="tanh")
    a, _ = attention(w, p + ".attn", n, None, cs, h)
    return s + e[2][:, None] * linear(w, p + ".proj_out", torch.cat([a, m], 2))


def forward(w, cfg, inp):
    h = cfg["num_attention_heads"]
    dtype = w["x_embedder.weight"].dtype
    x = linear(w, "x_embedder", inp["in.hidden_states"].to(dtype))
    t = timestep_embedding(inp["in.timestep"].to(dtype) * 1000, 256).to(dtype)
    temb = timestep_mlp(w, "time_text_embed.timestep_embedder", t)
    if cfg.get("guidance_embeds"):
        g = timestep_embedding(inp["in.guidance"].to(dtype) * 1000, 256).to(dtype)
        temb = temb + timestep_mlp(w, "time_text_embed.guidance_embedder", g)
    temb = temb + timestep_mlp(w, "time_text_embed.text_embedder", inp["in.pooled_projections"].to(dtype))
    c = linear(w, "context_embedder", inp["in.encoder_hidden_states"].to(dtype))
    cs = rope(torch.cat([inp["in.txt_ids"], inp["in.img_ids"]], 0), cfg["axes_dims_rope"])
    for i in range(cfg["num_layers"]):
        x, c = double_block(w, f"transformer_blocks.{i}", x, c, temb, cs, h)
    s = torch.cat([c, x], 1)
    for i in range(cfg["num_single_layers"]):
        s = single_block(w, f"single_transformer_blocks.{i}", s, temb, cs, h)
    return norm_out(w, s[:, c.shape[1]:], temb)


load_folder = port_commands.load_component


def make(d):
    # 2 double + 4 single blocks, 3 x 64 wide; 1024 image tokens (a 64 x 64 latent packed 2 x 2)
    # and 256 text tokens: the shapes of bench_flux.
    cfg = {"_class_name": "FluxTransformer2DModel", "patch_size": 1, "in_channels": 64,
           "out_channels": None, "num_layers": 2, "num_single_layers": 4,
           "attention_head_dim": 64, "num_attention_heads": 3, "joint_attention_dim": 256,
           "pooled_projection_dim": 256, "guidance_embeds": False, "axes_dims_rope": [16, 24, 24]}
    torch.manual_seed(0)
    w = RandomWeights()  # the key layout of a real checkpoint
    dim = 192

    def lin(p, i, o):
        w.linear(p, i, o, bias=0.02)
    lin("x_embedder", 64, dim)
    lin("context_embedder", 256, dim)
    for e in ("timestep_embedder", "text_embedder"):
        lin(f"time_text_embed.{e}.linear_1", 256, dim)
        lin(f"time_text_embed.{e}.linear_2", dim, dim)

    def attn(p, joint):
        for n in ("to_q", "to_k", "to_v"):
            lin(f"{p}.{n}", dim, dim)
        for n in ("norm_q", "norm_k") + (("norm_added_q", "norm_added_k") if joint else ()):
            w[f"{p}.{n}.weight"] = torch.ones(64)
        if joint:
            for n in ("add_q_proj", "add_k_proj", "add_v_proj"):
                lin(f"{p}.{n}", dim, dim)
            lin(f"{p}.to_out.0", dim, dim)
            lin(f"{p}.to_add_out", dim, dim)
    for i in range(2):
        p = f"transformer_blocks.{i}"
        lin(p + ".norm1.linear", dim, 6 * dim)
        lin(p + ".norm1_context.linear", dim, 6 * dim)
        attn(p + ".attn", True)
        for f in ("ff", "ff_context"):
            lin(f"{p}.{f}.net.0.proj", dim, 4 * dim)
            lin(f"{p}.{f}.net.2", 4 * dim, dim)
    for i in range(4):
        p = f"single_transformer_blocks.{i}"
        lin(p + ".norm.linear", dim, 3 * dim)
        lin(p + ".proj_mlp", dim, 4 * dim)
        lin(p + ".proj_out", 5 * dim, dim)
        attn(p + ".attn", False)
    lin("norm_out.linear", dim, 2 * dim)
    lin("proj_out", dim, 64)
    ids = torch.zeros(32, 32, 3)
    ids[..., 1] = torch.arange(32)[:, None]
    ids[..., 2] = torch.arange(32)[None, :]
    inp = {"in.hidden_states": torch.randn(1, 1024, 64), "in.encoder_hidden_states": torch.randn(1, 256, 256),
           "in.pooled_projections": torch.randn(1, 256), "in.timestep": torch.tensor([0.7]),
           "in.img_ids": ids.reshape(1024, 3), "in.txt_ids": torch.zeros(256, 3)}
    port_commands.write_bench_folder(d, cfg, w, inp)


def main():
    port_commands.bench_main(load_folder, forward, ["out.sample"], "diffusers'", make)


if __name__ == "__main__":
    main()
