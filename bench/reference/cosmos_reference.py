"""A plain-PyTorch port of diffusers' CosmosTransformer3DModel forward (Cosmos-Predict2 text to
image: concat_padding_mask, no extra positional embedding, 3-axis RoPE with NTK-scaled thetas,
AdaLN-LoRA modulation, self- and cross-attention with RMS q/k norms, GELU MLP, final AdaLN and
unpatchify), for reference numbers and timing. diffusers cannot be installed here; the port is
checked against the golden output diffusers produced (tests/data/golden/cosmos).

  /usr/bin/python3 bench/reference/cosmos_reference.py check DIR IO.safetensors
  /usr/bin/python3 bench/reference/cosmos_reference.py case OUT_DIR   # tests/data/cosmos cases
  /usr/bin/python3 bench/reference/cosmos_reference.py make DIR     # bench_cosmos's folder + inputs
  /usr/bin/python3 bench/reference/cosmos_reference.py serve DIR INPUTS [fp32|bf16]
  /usr/bin/python3 bench/reference/cosmos_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
  /usr/bin/python3 bench/reference/cosmos_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/cosmos_reference.py anima-check DIR IO.safetensors
  /usr/bin/python3 bench/reference/cosmos_reference.py anima-case OUT_DIR
  /usr/bin/python3 bench/reference/cosmos_reference.py to-original OUT.safetensors [COSMOS ANIMA]

`case` writes small configurations that the golden file does not cover (other head counts and
head width, MLP ratio, LoRA width, rope_scale, patch sizes (2, 2, 2) over 2 frames, a padding
mask at another size, a batch of 2 with per-sample timesteps): for each a config, seeded
weights and io (in.* / out.sample) for tests/core/test_cosmos.cpp.

`make` writes Cosmos-Predict2-2B's width (16 heads of 128, MLP ratio 4, AdaLN-LoRA 256, text
width 1024, max_size (128, 240, 240), rope_scale (1, 4, 4)) with 2 of its 28 blocks, and inputs
for a 512 x 512 image (a 16 x 1 x 64 x 64 latent: 1024 tokens after 2 x 2 patches) with 512 text
tokens and the zero padding mask the pipeline passes. `serve` answers bench/bench_cosmos.cpp; it,
`check`, `compare` and `time` are port_commands.py's (serve and time cast the inputs to the dtype
too).

The `anima-*` commands do the same for diffusers' AnimaTextConditioner (Anima's LLM adapter:
learned T5-token embeddings that self-attend and cross-attend to Qwen3 hidden states, RoPE on
both, RMS or layer norms, GELU MLP, out_proj + RMSNorm, the target mask applied and the output
padded to min_sequence_length), for tests/core/test_anima_adapter.cpp: `anima-case` writes a
configuration with model_dim == target_dim (no in_proj), layer norms, no self-attention, 2 heads
and a batch of 2 with padded source and target masks.

`to-original` writes the golden diffusers weights (tests/data/golden/cosmos and anima_adapter,
or the two folders given) back into ComfyUI's single-file Anima layout: the DiT under "net." with
NVIDIA's keys, by the inverse of diffusers' own TRANSFORMER_KEYS_RENAME_DICT_COSMOS_2_0 (read
from scripts/convert_cosmos_to_diffusers.py in the diffusers mirror when it can be, else the
transcription below), the adapter under "net.llm_adapter." with its keys unchanged (what
scripts/convert_anima_to_diffusers.py's split_anima_transformer_checkpoint removes), and a few of
the buffers the conversion drops (pos_embedder.*, accum_iteration, an _extra_state), for
tests/core/test_single_file_anima.cpp.
"""
import ast
import json
import math
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from common_ops import (feed_forward, layer_norm, rms_norm, rotate_half,  # noqa: E402
                        softmax_attention, timestep_embedding, timestep_mlp)
from weight_init import RandomWeights  # noqa: E402


def rope(cfg, T, H, W):
    # CosmosRotaryPosEmbed.forward with fps None (images)
    hd = cfg["attention_head_dim"]
    pt, ph, pw = cfg["patch_size"]
    max_size = [s // p for s, p in zip(cfg["max_size"], cfg["patch_size"])]
    dim_h = hd // 6 * 2
    dim_w = hd // 6 * 2
    dim_t = hd - dim_h - dim_w
    rs = cfg["rope_scale"]
    h_theta = 10000.0 * rs[1] ** (dim_h / (dim_h - 2))
    w_theta = 10000.0 * rs[2] ** (dim_w / (dim_w - 2))
    t_theta = 10000.0 * rs[0] ** (dim_t / (dim_t - 2))
    pe = [T // pt, H // ph, W // pw]
    seq = torch.arange(max(max_size), dtype=torch.float32)
    rng = lambda d: torch.arange(0, d, 2, dtype=torch.float32)[: d // 2] / d  # noqa: E731
    hf = 1.0 / (h_theta ** rng(dim_h))
    wf = 1.0 / (w_theta ** rng(dim_w))
    tf = 1.0 / (t_theta ** rng(dim_t))
    emb_h = torch.outer(seq[: pe[1]], hf)[None, :, None, :].repeat(pe[0], 1, pe[2], 1)
    emb_w = torch.outer(seq[: pe[2]], wf)[None, None, :, :].repeat(pe[0], pe[1], 1, 1)
    emb_t = torch.outer(seq[: pe[0]], tf)[:, None, None, :].repeat(1, pe[1], pe[2], 1)
    freqs = torch.cat([emb_t, emb_h, emb_w] * 2, dim=-1).flatten(0, 2).float()
    return torch.cos(freqs), torch.sin(freqs)


def apply_rope(x, cs):  # x [B, H, S, D], use_real_unbind_dim=-2
    cos, sin = cs
    re, im = x.reshape(*x.shape[:-1], 2, -1).unbind(-2)
    rot = torch.cat([-im, re], dim=-1)
    return (x.float() * cos[None, None] + rot.float() * sin[None, None]).to(x.dtype)


def attention(w, p, x, ctx, heads, cs):
    # Attention(qk_norm="rms_norm", eps=1e-5, no biases) with CosmosAttnProcessor2_0
    ctx = x if ctx is None else ctx
    q = F.linear(x, w[p + ".to_q.weight"])
    k = F.linear(ctx, w[p + ".to_k.weight"])
    v = F.linear(ctx, w[p + ".to_v.weight"])
    q, k, v = (t.unflatten(2, (heads, -1)).transpose(1, 2) for t in (q, k, v))
    q = rms_norm(q, w[p + ".norm_q.weight"], 1e-5)
    k = rms_norm(k, w[p + ".norm_k.weight"], 1e-5)
    if cs is not None:
        q = apply_rope(q, cs)
        k = apply_rope(k, cs)
    o = softmax_attention(q, k, v)  # [B, H, S, D]
    o = o.transpose(1, 2).flatten(2, 3).type_as(q)
    return F.linear(o, w[p + ".to_out.0.weight"])


def ada_norm(w, p, x, emb, temb, chunks):
    # CosmosAdaLayerNormZero (chunks 3) / CosmosAdaLayerNorm (chunks 2, temb[..., :2D])
    e = F.linear(F.linear(F.silu(emb), w[p + ".linear_1.weight"]), w[p + ".linear_2.weight"])
    e = e + temb[..., : e.shape[-1]]
    parts = e.chunk(chunks, dim=-1)
    h = layer_norm(x)
    if e.ndim == 2:
        parts = [t.unsqueeze(1) for t in parts]
    h = h * (1 + parts[1]) + parts[0]
    return h, (parts[2] if chunks == 3 else None)


def block(w, p, x, text, emb, temb, cs, heads):
    h, g = ada_norm(w, p + ".norm1", x, emb, temb, 3)
    x = x + g * attention(w, p + ".attn1", h, None, heads, cs)
    h, g = ada_norm(w, p + ".norm2", x, emb, temb, 3)
    x = x + g * attention(w, p + ".attn2", h, text, heads, None)
    h, g = ada_norm(w, p + ".norm3", x, emb, temb, 3)
    return x + g * feed_forward(w, p + ".ff", h, approximate="none")


def forward(w, cfg, inp):
    x = inp["in.hidden_states"]
    t = inp["in.timestep"]
    text = inp["in.encoder_hidden_states"]
    B, C, T, H, W = x.shape
    pt, ph, pw = cfg["patch_size"]
    heads = cfg["num_attention_heads"]
    if cfg.get("concat_padding_mask", True):
        pm = inp["in.padding_mask"]
        pm = F.interpolate(pm, size=[H, W], mode="nearest")  # torchvision resize NEAREST
        x = torch.cat([x, pm.unsqueeze(2).repeat(B, 1, T, 1, 1)], dim=1)
    cs = rope(cfg, T, H, W)
    Tp, Hp, Wp = T // pt, H // ph, W // pw
    x = x.reshape(B, x.shape[1], Tp, pt, Hp, ph, Wp, pw).permute(0, 2, 4, 6, 1, 3, 5, 7).flatten(4, 7)
    x = F.linear(x, w["patch_embed.proj.weight"]).flatten(1, 3)  # [B, THW, D]
    dim = x.shape[-1]
    tp = timestep_embedding(t, dim).type_as(x)  # Timesteps(dim, flip_sin_to_cos=True, shift 0)
    temb = timestep_mlp(w, "time_embed.t_embedder", tp)
    emb = rms_norm(tp, w["time_embed.norm.weight"], 1e-6)
    for i in range(cfg["num_layers"]):
        x = block(w, f"transformer_blocks.{i}", x, text, emb, temb, cs, heads)
    x, _ = ada_norm(w, "norm_out", x, emb, temb, 2)
    x = F.linear(x, w["proj_out.weight"])
    x = x.unflatten(2, (ph, pw, pt, -1)).unflatten(1, (Tp, Hp, Wp))
    x = x.permute(0, 7, 1, 6, 2, 4, 3, 5).flatten(6, 7).flatten(4, 5).flatten(2, 3)
    return x


load_folder = port_commands.load_component


def base_config(**kw):
    return {"_class_name": "CosmosTransformer3DModel", "in_channels": 4, "out_channels": 4,
            "num_attention_heads": 2, "attention_head_dim": 16, "num_layers": 2, "mlp_ratio": 2.0,
            "text_embed_dim": 24, "adaln_lora_dim": 8, "max_size": [4, 16, 16],
            "patch_size": [1, 2, 2], "rope_scale": [1.0, 4.0, 4.0], "concat_padding_mask": True,
            "extra_pos_embed_type": None, **kw}


def random_weights(cfg, seed):
    w = RandomWeights(torch.Generator().manual_seed(seed))
    hd, nh = cfg["attention_head_dim"], cfg["num_attention_heads"]
    d = hd * nh
    lora = cfg["adaln_lora_dim"]
    pt, ph, pw = cfg["patch_size"]
    cin = cfg["in_channels"] + (1 if cfg["concat_padding_mask"] else 0)
    lin = w.linear
    lin("patch_embed.proj", cin * pt * ph * pw, d)
    lin("time_embed.t_embedder.linear_1", d, d)
    lin("time_embed.t_embedder.linear_2", d, 3 * d)
    w.norm("time_embed.norm", d)
    ff = int(d * cfg["mlp_ratio"])
    for i in range(cfg["num_layers"]):
        p = f"transformer_blocks.{i}"
        for n in ("norm1", "norm2", "norm3"):
            lin(f"{p}.{n}.linear_1", d, lora)
            lin(f"{p}.{n}.linear_2", lora, 3 * d)
        for a, kv in (("attn1", d), ("attn2", cfg["text_embed_dim"])):
            lin(f"{p}.{a}.to_q", d, d)
            lin(f"{p}.{a}.to_k", kv, d)
            lin(f"{p}.{a}.to_v", kv, d)
            lin(f"{p}.{a}.to_out.0", d, d)
            w.norm(f"{p}.{a}.norm_q", hd)
            w.norm(f"{p}.{a}.norm_k", hd)
        lin(f"{p}.ff.net.0.proj", d, ff)
        lin(f"{p}.ff.net.2", ff, d)
    lin("norm_out.linear_1", d, lora)
    lin("norm_out.linear_2", lora, 2 * d)
    lin("proj_out", d, pt * ph * pw * cfg["out_channels"])
    return w


def make_case(out, name, cfg, shape, text_len, mask_hw, timestep, seed):
    w = random_weights(cfg, seed)
    port_commands.write_component(os.path.join(out, name), cfg, w)
    g = torch.Generator().manual_seed(seed + 1)
    inp = {"in.hidden_states": torch.randn(*shape, generator=g),
           "in.timestep": torch.tensor(timestep, dtype=torch.float32),
           "in.encoder_hidden_states": torch.randn(shape[0], text_len, cfg["text_embed_dim"], generator=g)}
    if cfg["concat_padding_mask"]:
        inp["in.padding_mask"] = (torch.rand(1, 1, *mask_hw, generator=g) > 0.7).float()
    inp["out.sample"] = forward(w, cfg, inp)
    safetensors_io.save(os.path.join(out, name + "_io.safetensors"), inp)


# ---- AnimaTextConditioner ----

def torch_rms_norm(x, weight, eps=1e-6):
    # torch.nn.RMSNorm
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def anima_norm(w, p, x, cfg):
    if cfg.get("use_layer_norm", False):
        return F.layer_norm(x, (x.shape[-1],), w[p + ".weight"], w[p + ".bias"], eps=1e-5)
    return torch_rms_norm(x, w[p + ".weight"])


def anima_rope(n, hd, dtype):
    inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    freqs = torch.outer(torch.arange(n).float(), inv)
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos().to(dtype), emb.sin().to(dtype)  # [n, hd]


def rotate(x, cs):  # x [B, L, H, D]
    cos, sin = cs
    return x * cos[None, :, None] + rotate_half(x) * sin[None, :, None]


def anima_attention(w, p, x, ctx, mask, heads, cs_q, cs_k):
    B, L, _ = x.shape
    S = ctx.shape[1]
    q = F.linear(x, w[p + ".q_proj.weight"]).view(B, L, heads, -1)
    k = F.linear(ctx, w[p + ".k_proj.weight"]).view(B, S, heads, -1)
    v = F.linear(ctx, w[p + ".v_proj.weight"]).view(B, S, heads, -1)
    q = torch_rms_norm(q, w[p + ".q_norm.weight"])
    k = torch_rms_norm(k, w[p + ".k_norm.weight"])
    q, k = rotate(q, cs_q), rotate(k, cs_k)
    s = q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2) / math.sqrt(q.shape[-1])  # [B, H, L, S]
    if mask is not None:
        s = s.masked_fill(~mask.bool()[:, None, None, :], float("-inf"))
    o = torch.softmax(s, -1) @ v.transpose(1, 2)  # [B, H, L, D]
    return F.linear(o.transpose(1, 2).flatten(2, 3), w[p + ".o_proj.weight"])


def anima_forward(w, cfg, inp):
    src = inp["in.source_hidden_states"]
    ids = inp["in.target_input_ids"]
    tmask = inp.get("in.target_attention_mask")
    smask = inp.get("in.source_attention_mask")
    heads = cfg["num_attention_heads"]
    hd = cfg["model_dim"] // heads
    x = F.embedding(ids, w["embed.weight"]).to(src.dtype)
    if "in_proj.weight" in w:
        x = F.linear(x, w["in_proj.weight"], w["in_proj.bias"])
    cs_t = anima_rope(x.shape[1], hd, x.dtype)
    cs_s = anima_rope(src.shape[1], hd, x.dtype)
    for i in range(cfg["num_layers"]):
        p = f"blocks.{i}"
        if cfg.get("use_self_attention", True):
            h = anima_norm(w, p + ".norm_self_attn", x, cfg)
            x = x + anima_attention(w, p + ".self_attn", h, h, tmask, heads, cs_t, cs_t)
        h = anima_norm(w, p + ".norm_cross_attn", x, cfg)
        x = x + anima_attention(w, p + ".cross_attn", h, src, smask, heads, cs_t, cs_s)
        h = anima_norm(w, p + ".norm_mlp", x, cfg)
        h = F.linear(F.gelu(F.linear(h, w[p + ".mlp.0.weight"], w[p + ".mlp.0.bias"])),
                     w[p + ".mlp.2.weight"], w[p + ".mlp.2.bias"])
        x = x + h
    x = torch_rms_norm(F.linear(x, w["out_proj.weight"], w["out_proj.bias"]), w["norm.weight"])
    if tmask is not None:
        x = x * tmask.to(x)[..., None]
    if x.shape[1] < cfg["min_sequence_length"]:
        x = F.pad(x, (0, 0, 0, cfg["min_sequence_length"] - x.shape[1]))
    return x


def anima_weights(cfg, seed):
    w = RandomWeights(torch.Generator().manual_seed(seed))
    d, td, sd = cfg["model_dim"], cfg["target_dim"], cfg["source_dim"]
    hd = d // cfg["num_attention_heads"]
    mlp = int(d * cfg["mlp_ratio"])
    w["embed.weight"] = w.randn(cfg["target_vocab_size"], td)

    def lin(p, i, o, bias=True):
        w.linear(p, i, o, bias=0.05 if bias else None)

    def norm(p, dim):
        w.norm(p, dim, bias=0.05 if cfg.get("use_layer_norm", False) else None)
    if d != td:
        lin("in_proj", td, d)
    for i in range(cfg["num_layers"]):
        p = f"blocks.{i}"
        attns = (("self_attn", d), ("cross_attn", sd)) if cfg.get("use_self_attention", True) else (("cross_attn", sd),)
        for a, kv in attns:
            norm(f"{p}.norm_{a}", d)
            lin(f"{p}.{a}.q_proj", d, d, False)
            lin(f"{p}.{a}.k_proj", kv, d, False)
            lin(f"{p}.{a}.v_proj", kv, d, False)
            lin(f"{p}.{a}.o_proj", d, d, False)
            w.norm(f"{p}.{a}.q_norm", hd)
            w.norm(f"{p}.{a}.k_norm", hd)
        norm(f"{p}.norm_mlp", d)
        lin(f"{p}.mlp.0", d, mlp)
        lin(f"{p}.mlp.2", mlp, d)
    lin("out_proj", d, td)
    w.norm("norm", td)
    return w


DIFFUSERS_MIRROR = "/work/.mirror/huggingface+diffusers/repo"

# Transcribed from diffusers' scripts/convert_cosmos_to_diffusers.py
# (TRANSFORMER_KEYS_RENAME_DICT_COSMOS_2_0), used when the mirror cannot be read. Order matters:
# the script applies each str.replace in turn.
RENAME_COSMOS_2_0 = [
    ("t_embedder.1", "time_embed.t_embedder"),
    ("t_embedding_norm", "time_embed.norm"),
    ("blocks", "transformer_blocks"),
    ("adaln_modulation_self_attn.1", "norm1.linear_1"),
    ("adaln_modulation_self_attn.2", "norm1.linear_2"),
    ("adaln_modulation_cross_attn.1", "norm2.linear_1"),
    ("adaln_modulation_cross_attn.2", "norm2.linear_2"),
    ("adaln_modulation_mlp.1", "norm3.linear_1"),
    ("adaln_modulation_mlp.2", "norm3.linear_2"),
    ("self_attn", "attn1"),
    ("cross_attn", "attn2"),
    ("q_proj", "to_q"),
    ("k_proj", "to_k"),
    ("v_proj", "to_v"),
    ("output_proj", "to_out.0"),
    ("q_norm", "norm_q"),
    ("k_norm", "norm_k"),
    ("mlp.layer1", "ff.net.0.proj"),
    ("mlp.layer2", "ff.net.2"),
    ("x_embedder.proj.1", "patch_embed.proj"),
    ("final_layer.adaln_modulation.1", "norm_out.linear_1"),
    ("final_layer.adaln_modulation.2", "norm_out.linear_2"),
    ("final_layer.linear", "proj_out"),
]


def cosmos_rename_table():
    """The script's own table from the mirror, else the transcription; and where it came from."""
    try:
        text = subprocess.run(
            ["git", "-C", DIFFUSERS_MIRROR, "show", "HEAD:scripts/convert_cosmos_to_diffusers.py"],
            capture_output=True, text=True, check=True).stdout
        for node in ast.parse(text).body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and getattr(node.targets[0], "id", "") == "TRANSFORMER_KEYS_RENAME_DICT_COSMOS_2_0"):
                return list(ast.literal_eval(node.value).items()), "the diffusers mirror"
    except (OSError, subprocess.CalledProcessError, SyntaxError, ValueError):
        pass
    return RENAME_COSMOS_2_0, "the transcription"


def to_diffusers_key(table, key):
    # convert_transformer: remove "net.", then every replacement in order
    key = key[len("net."):] if key.startswith("net.") else key
    for old, new in table:
        key = key.replace(old, new)
    return key


def to_original_key(table, key):
    for old, new in reversed(table):
        key = key.replace(new, old)
    return "net." + key


def to_original(out_path, cosmos_dir, anima_dir):
    table, source = cosmos_rename_table()
    _, dit = load_folder(cosmos_dir)
    _, adapter = load_folder(anima_dir)
    out = {}
    for key, t in dit.items():
        orig = to_original_key(table, key)
        # the inverse must be exact: the script's own forward renames give the key back
        assert to_diffusers_key(table, orig) == key, (key, orig)
        out[orig] = t
    for key, t in adapter.items():
        out["net.llm_adapter." + key] = t
    cfg = json.load(open(os.path.join(cosmos_dir, "config.json")))
    d = cfg["attention_head_dim"]
    # buffers the conversion drops (TRANSFORMER_SPECIAL_KEYS_REMAP_COSMOS_2_0)
    out["net.pos_embedder.seq"] = torch.arange(max(cfg["max_size"]), dtype=torch.float32)
    out["net.pos_embedder.dim_spatial_range"] = torch.arange(0, d // 6 * 2, 2).float()
    out["net.accum_iteration"] = torch.tensor([1000], dtype=torch.int64)
    out["net.blocks.0.self_attn.q_norm._extra_state"] = torch.zeros(1, dtype=torch.int32)
    safetensors_io.save(out_path, dict(sorted(out.items())))
    print(f"wrote {out_path}: {len(out)} tensors, renames from {source}")


def make(d):
    cfg = base_config(in_channels=16, out_channels=16, num_attention_heads=16,
                      attention_head_dim=128, num_layers=2, mlp_ratio=4.0,
                      text_embed_dim=1024, adaln_lora_dim=256, max_size=[128, 240, 240])
    w = random_weights(cfg, 0)
    port_commands.write_component(d, cfg, w)
    g = torch.Generator().manual_seed(1)
    safetensors_io.save(os.path.join(d, "inputs.safetensors"), {
        "in.hidden_states": torch.randn(1, 16, 1, 64, 64, generator=g),
        "in.timestep": torch.tensor([0.6]),
        "in.encoder_hidden_states": torch.randn(1, 512, 1024, generator=g),
        "in.padding_mask": torch.zeros(1, 1, 512, 512)})
    print(f"wrote {d}: {w.count()} parameters")


def anima_case(out):
    cfg = {"_class_name": "AnimaTextConditioner", "source_dim": 20, "target_dim": 16,
           "model_dim": 16, "num_layers": 2, "num_attention_heads": 2, "mlp_ratio": 3.0,
           "target_vocab_size": 50, "use_self_attention": False, "use_layer_norm": True,
           "min_sequence_length": 12}
    w = anima_weights(cfg, 7300)
    port_commands.write_component(os.path.join(out, "anima_ln"), cfg, w)
    g = torch.Generator().manual_seed(7301)
    inp = {"in.source_hidden_states": torch.randn(2, 9, 20, generator=g),
           "in.target_input_ids": torch.randint(0, 50, (2, 7), generator=g),
           "in.target_attention_mask": torch.tensor([[1] * 7, [1] * 4 + [0] * 3]),
           "in.source_attention_mask": torch.tensor([[1] * 6 + [0] * 3, [1] * 9])}
    inp["out.text_embeds"] = anima_forward(w, cfg, inp)
    safetensors_io.save(os.path.join(out, "anima_ln_io.safetensors"), inp)


def cases(out):
    # 3 heads of 24 (rope dims t 8, h 8, w 8), mlp 3.0, LoRA 4, rope_scale (2, 1, 3),
    # 2 frames patched (2, 2, 2), a batch of 2 at two timesteps, a 4 x 6 mask upsampled to 8 x 12.
    make_case(out, "heads3_t2", base_config(
        num_attention_heads=3, attention_head_dim=24, num_layers=3, mlp_ratio=3.0,
        adaln_lora_dim=4, rope_scale=[2.0, 1.0, 3.0], patch_size=[2, 2, 2], in_channels=3,
        out_channels=5, text_embed_dim=20, max_size=[8, 32, 32]),
        [2, 3, 2, 8, 12], 9, [4, 6], [0.3, 0.75], 7100)
    # No padding-mask channel, one head of 12 (rope dims t 4, h 4, w 4), patch (1, 1, 1).
    make_case(out, "nomask_p1", base_config(
        num_attention_heads=1, attention_head_dim=12, num_layers=1, concat_padding_mask=False,
        patch_size=[1, 1, 1], max_size=[2, 8, 8]),
        [1, 4, 1, 5, 7], 3, None, [0.5], 7200)


def main():
    here = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "golden")
    port_commands.main({
        **port_commands.standard_commands(load_folder, forward, ["out.sample"], "diffusers'",
                                          cast_inputs=True),
        "anima-check": lambda argv: port_commands.check(argv, load_folder, anima_forward,
                                                        ["out.text_embeds"], "diffusers'"),
        "make": lambda argv: make(argv[2]), "case": lambda argv: cases(argv[2]),
        "anima-case": lambda argv: anima_case(argv[2]),
        "to-original": lambda argv: to_original(
            argv[2], argv[3] if len(argv) > 4 else os.path.join(here, "cosmos"),
            argv[4] if len(argv) > 4 else os.path.join(here, "anima_adapter"))}, usage=__doc__)


if __name__ == "__main__":
    main()
