"""A plain-PyTorch port of transformers' Qwen3Model and Qwen2Model forward (and the language
model of Qwen2_5_VLForConditionalGeneration), for checking Halfscope's C++ module on
configurations the golden files do not cover and for timing it against the same computation in
Python on the same weights, dtype and thread count.

transformers itself cannot be installed on this machine (no PyPI); this port follows
Qwen3Model.forward / Qwen2Model.forward of transformers 4.45 op by op: embed_tokens, the 4-D
additive mask of _prepare_4d_causal_attention_mask_with_cache_position (finfo.min above the
diagonal and at padded keys), the default rotary table (inv_freq = theta^(-2i/Dh), cos/sin cast
to the hidden states' dtype), pre-norm decoder layers (RMSNorm with the variance in fp32;
q/k/v projections, Qwen3's RMSNorm over each head of q and k before the rotation, repeat_kv for
grouped-query heads, eager attention with softmax in fp32; SwiGLU MLP), the final norm, and
output_hidden_states (embeddings, every layer's output but the last, then the normed one).
For Qwen2_5_VLForConditionalGeneration with an attention mask the text positions are
get_rope_index's cumsum(mask) - 1 (1 at padding); its 3-section mrope reduces to the plain
rotation for text. It is checked against the golden output that transformers produced.

  /usr/bin/python3 bench/reference/qwen_reference.py check tests/data/golden/qwen3 tests/data/golden/qwen3_io.safetensors
  /usr/bin/python3 bench/reference/qwen_reference.py check tests/data/golden/qwen2 tests/data/golden/qwen2_io.safetensors
  /usr/bin/python3 bench/reference/qwen_reference.py cases tests/data/qwen   # the test cases
  /usr/bin/python3 bench/reference/qwen_reference.py make DIR                # Qwen3-0.6B widths
  /usr/bin/python3 bench/reference/qwen_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/qwen_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
  /usr/bin/python3 bench/reference/qwen_reference.py serve DIR INPUTS [fp32|bf16]

`serve` is for bench/bench_qwen.cpp; it and `time` are port_commands.py's. `check` and `compare`
give the worst relative error over every output.
`make` writes Qwen3-0.6B's widths (hidden 1024, MLP 3072, 16 query heads and 8 key/value heads
of 128, rope_theta 1e6) with 4 of its 28 layers and a 4096-token vocabulary (the embedding
lookup costs nothing; the real 151936 would make the folder 600 MB larger), and one prompt of
512 tokens with 100 of right padding, as Anima's pipeline pads it.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from common_ops import linear, rotate_half  # noqa: E402


def text_config(cfg):
    return cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else cfg


def key_prefix(w):
    for p in ("", "model.", "model.language_model."):
        if p + "embed_tokens.weight" in w:
            return p
    raise KeyError("no embed_tokens.weight under '', 'model.' or 'model.language_model.'")


def rms_norm(w, k, x, eps):
    # Qwen3RMSNorm / Qwen2RMSNorm: variance in fp32, back to the input dtype, then the weight
    dtype = x.dtype
    x = x.to(torch.float32)
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return w[k + ".weight"] * x.to(dtype)


def forward(w, cfg, io):
    arch = cfg.get("architectures", ["Qwen3Model"])[0]
    c = text_config(cfg)
    qwen3 = arch.startswith("Qwen3")
    H, D = c["num_attention_heads"], c["hidden_size"]
    KV = c.get("num_key_value_heads") or H
    Dh = c.get("head_dim") or (128 if qwen3 else D // H)
    eps, theta = c.get("rms_norm_eps", 1e-6), c.get("rope_theta", 1e6)
    p = key_prefix(w)
    ids = io["in.input_ids"].long()
    mask = io.get("in.attention_mask")
    B, L = ids.shape
    h = F.embedding(ids, w[p + "embed_tokens.weight"])
    dtype = h.dtype
    # _prepare_4d_causal_attention_mask_with_cache_position
    lowest = torch.finfo(dtype).min
    causal = torch.triu(torch.full((L, L), lowest, dtype=dtype), diagonal=1)[None, None].expand(B, 1, L, L).clone()
    if mask is not None:
        padding = causal + mask[:, None, None, :].to(dtype)
        causal = causal.masked_fill(padding == 0, lowest)
    # positions: 0 .. L-1; Qwen2.5-VL's get_rope_index for text with a mask
    pos = torch.arange(L)[None].expand(B, L)
    if arch == "Qwen2_5_VLForConditionalGeneration" and mask is not None:
        pos = (mask.long().cumsum(-1) - 1).masked_fill(mask == 0, 1)
    inv_freq = 1.0 / (theta ** (torch.arange(0, Dh, 2, dtype=torch.int64).float() / Dh))
    freqs = pos[..., None].float() * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(dtype)[:, None], emb.sin().to(dtype)[:, None]  # [B, 1, L, Dh]
    hidden = [h]
    n = c["num_hidden_layers"]
    for i in range(n):
        k = f"{p}layers.{i}."
        x = rms_norm(w, k + "input_layernorm", h, eps)
        q = linear(w, k + "self_attn.q_proj", x).view(B, L, H, Dh)
        kk = linear(w, k + "self_attn.k_proj", x).view(B, L, KV, Dh)
        v = linear(w, k + "self_attn.v_proj", x).view(B, L, KV, Dh).transpose(1, 2)
        if qwen3:
            q = rms_norm(w, k + "self_attn.q_norm", q, eps)
            kk = rms_norm(w, k + "self_attn.k_norm", kk, eps)
        q, kk = q.transpose(1, 2), kk.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        kk = kk * cos + rotate_half(kk) * sin
        kk = kk[:, :, None].expand(B, KV, H // KV, L, Dh).reshape(B, H, L, Dh)
        v = v[:, :, None].expand(B, KV, H // KV, L, Dh).reshape(B, H, L, Dh)
        a = torch.matmul(q, kk.transpose(2, 3)) * Dh ** -0.5 + causal
        a = F.softmax(a, dim=-1, dtype=torch.float32).to(dtype)
        o = torch.matmul(a, v).transpose(1, 2).reshape(B, L, H * Dh)
        h = h + linear(w, k + "self_attn.o_proj", o)
        x = rms_norm(w, k + "post_attention_layernorm", h, eps)
        x = F.silu(linear(w, k + "mlp.gate_proj", x)) * linear(w, k + "mlp.up_proj", x)
        h = h + linear(w, k + "mlp.down_proj", x)
        if i + 1 < n:
            hidden.append(h)
    h = rms_norm(w, p + "norm", h, eps)
    hidden.append(h)
    out = {"out.last_hidden_state": h}
    for j, t in enumerate(hidden):
        out[f"out.hidden_states.{j}"] = t
    return out


def load_folder(d, dtype=torch.float32):
    return port_commands.load_component(d, dtype, "model.safetensors", floating_only=True)


def worst(out, ref):
    return max(port_commands.rel_err(out[k], ref[k], torch.float64)
               for k in ref if k.startswith("out."))


def random_weights(cfg, prefix, seed):
    """Weights with the checkpoint's names and shapes, drawn from `seed`."""
    g = torch.Generator().manual_seed(seed)
    arch = cfg["architectures"][0]
    c = text_config(cfg)
    qwen3 = arch.startswith("Qwen3")
    H, D, I = c["num_attention_heads"], c["hidden_size"], c["intermediate_size"]
    KV = c.get("num_key_value_heads") or H
    Dh = c.get("head_dim") or D // H
    qkv_bias = c.get("attention_bias", False) if qwen3 else True
    o_bias = c.get("attention_bias", False) if qwen3 else False

    def rnd(*shape, scale=0.2):
        return torch.randn(*shape, generator=g) * scale

    w = {prefix + "embed_tokens.weight": rnd(c["vocab_size"], D, scale=1.0)}
    for i in range(c["num_hidden_layers"]):
        k = f"{prefix}layers.{i}."
        w[k + "input_layernorm.weight"] = 1 + rnd(D, scale=0.1)
        w[k + "post_attention_layernorm.weight"] = 1 + rnd(D, scale=0.1)
        for name, out_dim in (("q", H * Dh), ("k", KV * Dh), ("v", KV * Dh)):
            w[f"{k}self_attn.{name}_proj.weight"] = rnd(out_dim, D)
            if qkv_bias:
                w[f"{k}self_attn.{name}_proj.bias"] = rnd(out_dim)
        w[k + "self_attn.o_proj.weight"] = rnd(D, H * Dh)
        if o_bias:
            w[k + "self_attn.o_proj.bias"] = rnd(D)
        if qwen3:
            w[k + "self_attn.q_norm.weight"] = 1 + rnd(Dh, scale=0.1)
            w[k + "self_attn.k_norm.weight"] = 1 + rnd(Dh, scale=0.1)
        w[k + "mlp.gate_proj.weight"] = rnd(I, D)
        w[k + "mlp.up_proj.weight"] = rnd(I, D)
        w[k + "mlp.down_proj.weight"] = rnd(D, I)
    w[prefix + "norm.weight"] = 1 + rnd(D, scale=0.1)
    return w


def write_case(d, cfg, w, io):
    port_commands.write_component(d, cfg, w, "model.safetensors", indent=1)
    out = forward({k: v for k, v in w.items() if not k.startswith(("visual.", "lm_head."))}, cfg, io)
    safetensors_io.save(os.path.join(d + "_io.safetensors"), {**io, **out})


def cases(root):
    """The configurations tests/core/test_qwen.cpp checks beyond the golden ones."""
    g = torch.Generator().manual_seed(7)
    # Qwen3 with attention_bias, multi-query (5 query heads on 1 key/value head), head_dim 12
    # (q width 60 over a 40-wide model), rope_theta 1e4, eps 1e-5. Prompts: full, right-padded,
    # left-padded (its first queries see only padding: eager attention spreads them evenly).
    cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 90,
           "hidden_size": 40, "intermediate_size": 56, "num_hidden_layers": 2,
           "num_attention_heads": 5, "num_key_value_heads": 1, "head_dim": 12,
           "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "attention_bias": True,
           "max_position_embeddings": 64, "hidden_act": "silu", "tie_word_embeddings": True}
    ids = torch.randint(0, 90, (3, 10), generator=g)
    mask = torch.ones(3, 10, dtype=torch.int64)
    mask[1, 7:] = 0
    mask[2, :3] = 0
    write_case(os.path.join(root, "qwen3_mqa"), cfg, random_weights(cfg, "model.", 11),
               {"in.input_ids": ids, "in.attention_mask": mask})
    # Qwen2.5-VL's language model as Qwen-Image ships it: text_config, mrope, model.* keys beside
    # visual.*; 6 heads of 6 without grouping. Prompts: full, left- and right-padded. RoPE is
    # relative, so the mask-derived positions change only the right-padded prompt's padding
    # queries (position 1 instead of their index): those are what shows them.
    text = {"vocab_size": 70, "hidden_size": 36, "intermediate_size": 48, "num_hidden_layers": 2,
            "num_attention_heads": 6, "num_key_value_heads": 6, "rms_norm_eps": 1e-6,
            "rope_theta": 1000000.0, "max_position_embeddings": 64, "hidden_act": "silu",
            "rope_scaling": {"type": "mrope", "mrope_section": [1, 1, 1]}}
    cfg = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
           "text_config": text, "vision_config": {"depth": 1}}
    w = random_weights(cfg, "model.", 12)
    w["visual.patch_embed.proj.weight"] = torch.zeros(4, 3)
    w["lm_head.weight"] = torch.zeros(70, 36)
    ids = torch.randint(0, 70, (3, 9), generator=g)
    mask = torch.ones(3, 9, dtype=torch.int64)
    mask[1, :4] = 0
    mask[2, 6:] = 0
    write_case(os.path.join(root, "qwen25vl_text"), cfg, w,
               {"in.input_ids": ids, "in.attention_mask": mask})


def make(d):
    cfg = {"architectures": ["Qwen3Model"], "model_type": "qwen3", "vocab_size": 4096,
           "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 4,
           "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
           "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "max_position_embeddings": 40960,
           "hidden_act": "silu", "attention_bias": False}
    w = random_weights(cfg, "", 3)
    for k in w:
        if "proj" in k:
            w[k] = w[k] * 0.1  # 0.02-ish, as trained weights of this width
    port_commands.write_component(d, cfg, w, "model.safetensors", indent=1)
    g = torch.Generator().manual_seed(4)
    mask = torch.ones(1, 512, dtype=torch.int64)
    mask[0, 412:] = 0
    ids = torch.randint(0, 4096, (1, 512), generator=g) * mask
    safetensors_io.save(os.path.join(d, "inputs.safetensors"),
                        {"in.input_ids": ids, "in.attention_mask": mask})


def check(argv):
    cfg, w = load_folder(argv[2])
    io = safetensors_io.load(argv[3])
    err = worst(forward(w, cfg, io), io)
    print(f"worst relative error over every output against transformers' output: {err:.2e}")
    sys.exit(0 if err < 1e-4 else 1)


def compare(argv):
    cfg, w = load_folder(argv[2])
    out = forward(w, cfg, safetensors_io.load(argv[3]))
    err = worst(safetensors_io.load(argv[4]), out)
    print(f"C++ against the port: worst relative error {err:.2e}")
    sys.exit(0 if err < 1e-4 else 1)


def main():
    port_commands.main({
        **port_commands.standard_commands(load_folder, forward, [], "transformers'"),
        "check": check, "compare": compare,
        "cases": lambda argv: cases(argv[2]), "make": lambda argv: make(argv[2])})


if __name__ == "__main__":
    main()
