"""A plain-PyTorch port of diffusers' UNet2DConditionModel forward (SD 1.x, SD 2.x, SDXL), for
checking Halfscope's C++ module on configurations the golden file does not cover and for timing
it against the same computation in Python on the same weights, dtype and thread count.

diffusers itself cannot be installed on this machine (no PyPI); this port follows
UNet2DConditionModel.forward op by op as diffusers runs it on torch 1.13 (the golden file's
torch): Timesteps (get_timestep_embedding) -> TimestepEmbedding, for addition_embed_type
"text_time" add_time_proj of the flattened time_ids concatenated with text_embeds ->
add_embedding; conv_in; DownBlock2D / CrossAttnDownBlock2D (ResnetBlock2D with the time
embedding added after conv1, Transformer2DModel with GroupNorm eps 1e-6, conv 1x1 or linear
proj_in/proj_out, BasicTransformerBlock = LayerNorm -> self-attention -> LayerNorm ->
cross-attention -> LayerNorm -> GEGLU feed-forward, each with a residual), Downsample2D;
UNetMidBlock2DCrossAttn; UpBlock2D / CrossAttnUpBlock2D with the skip connections concatenated
and Upsample2D (nearest 2x, conv); conv_norm_out, SiLU, conv_out. Attention is the classic
AttnProcessor (diffusers' choice without F.scaled_dot_product_attention): baddbmm scores scaled
by head_dim^-0.5, softmax, probabilities cast to the query dtype, bmm with V; upcast_attention
computes q.k and the softmax in float32. It is checked against the golden output that diffusers
produced (tests/data/unet/golden), so it computes what the reference class computes.

  /usr/bin/python3 bench/reference/unet_reference.py check tests/data/unet/golden tests/data/unet/golden_io.safetensors
  /usr/bin/python3 bench/reference/unet_reference.py make-tests tests/data/unet   # sd2_tiny, sdxl_tiny
  /usr/bin/python3 bench/reference/unet_reference.py make DIR [--layers N] [--size S]   # SD 1.5 width
  /usr/bin/python3 bench/reference/unet_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/unet_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
  /usr/bin/python3 bench/reference/unet_reference.py serve DIR INPUTS [fp32|bf16]

`serve` is for bench/bench_unet.cpp; it, `check`, `compare` and `time` are port_commands.py's.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from common_ops import (affine_layer_norm, conv, group_norm, linear,  # noqa: E402
                        timestep_embedding, timestep_mlp, upsample)


# ---- config, normalised as UNet2DConditionModel.__init__ does ----

def per_block(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def normalise(cfg):
    n = len(cfg["block_out_channels"])
    c = dict(cfg)
    heads = cfg.get("num_attention_heads") or cfg.get("attention_head_dim", 8)  # legacy naming
    c["heads"] = per_block(heads, n)
    c["cross"] = per_block(cfg.get("cross_attention_dim", 1280), n)
    c["layers"] = per_block(cfg.get("layers_per_block", 2), n)
    tl = per_block(cfg.get("transformer_layers_per_block", 1), n)
    c["down_tl"] = [per_block(t, c["layers"][i]) for i, t in enumerate(tl)]
    rev = cfg.get("reverse_transformer_layers_per_block")
    rev = rev if rev is not None else list(reversed(tl))
    c["up_tl"] = [per_block(t, c["layers"][n - 1 - i] + 1) for i, t in enumerate(rev)]
    c["mid_tl"] = per_block(tl[-1], 1)
    c["groups"] = cfg.get("norm_num_groups", 32)
    c["eps"] = cfg.get("norm_eps", 1e-5)
    return c


# ---- layers ----

def resnet(w, p, x, temb, c, scale=1.0):
    h = F.silu(group_norm(w, p + ".norm1", x, c["groups"], c["eps"]))
    h = conv(w, p + ".conv1", h)
    h = h + linear(w, p + ".time_emb_proj", F.silu(temb))[:, :, None, None]
    h = F.silu(group_norm(w, p + ".norm2", h, c["groups"], c["eps"]))
    h = conv(w, p + ".conv2", h)
    if p + ".conv_shortcut.weight" in w:
        x = conv(w, p + ".conv_shortcut", x, padding=0)
    return (x + h) / scale


def attention(w, p, x, ctx, heads, upcast):
    # Attention + AttnProcessor (head_to_batch_dim, get_attention_scores, bmm, batch_to_head_dim)
    b, lq, _ = x.shape
    ctx = x if ctx is None else ctx
    q, k, v = linear(w, p + ".to_q", x), linear(w, p + ".to_k", ctx), linear(w, p + ".to_v", ctx)
    d = q.shape[-1] // heads

    def split(t):
        return t.reshape(b, -1, heads, d).permute(0, 2, 1, 3).reshape(b * heads, -1, d)
    q, k, v = split(q), split(k), split(v)
    dtype = q.dtype
    if upcast:
        q, k = q.float(), k.float()
    if q.shape[1] * k.shape[1] * d >= 400:
        scores = torch.baddbmm(torch.empty(q.shape[0], q.shape[1], k.shape[1], dtype=q.dtype), q,
                               k.transpose(-1, -2), beta=0, alpha=d ** -0.5)
    else:
        # torch 1.13's CPU baddbmm below 400 multiply-adds per matrix computes beta * out on the
        # uninitialised output even for beta=0 (NaN whenever the reused memory held a NaN): the
        # tiny test models take the product and scale it, within an ulp of the same values.
        scores = torch.bmm(q, k.transpose(-1, -2)) * d ** -0.5
    probs = scores.softmax(dim=-1).to(dtype)
    o = torch.bmm(probs, v)
    o = o.reshape(b, heads, lq, d).permute(0, 2, 1, 3).reshape(b, lq, heads * d)
    return linear(w, p + ".to_out.0", o)


def geglu_ff(w, p, x):
    h, gate = linear(w, p + ".net.0.proj", x).chunk(2, dim=-1)
    return linear(w, p + ".net.2", h * F.gelu(gate))


def transformer_block(w, p, x, ctx, heads, upcast):
    x = attention(w, p + ".attn1", affine_layer_norm(w, p + ".norm1", x), None, heads, upcast) + x
    x = attention(w, p + ".attn2", affine_layer_norm(w, p + ".norm2", x), ctx, heads, upcast) + x
    return geglu_ff(w, p + ".ff", affine_layer_norm(w, p + ".norm3", x)) + x


def transformer_2d(w, p, x, ctx, heads, layers, c):
    b, ch, hh, ww = x.shape
    residual = x
    h = group_norm(w, p + ".norm", x, c["groups"], 1e-6)
    linear_proj = c.get("use_linear_projection", False)
    if not linear_proj:
        h = conv(w, p + ".proj_in", h, padding=0)
        inner = h.shape[1]
        h = h.permute(0, 2, 3, 1).reshape(b, hh * ww, inner)
    else:
        inner = h.shape[1]
        h = linear(w, p + ".proj_in", h.permute(0, 2, 3, 1).reshape(b, hh * ww, inner))
    for i in range(layers):
        h = transformer_block(w, f"{p}.transformer_blocks.{i}", h, ctx, heads,
                              c.get("upcast_attention", False))
    if not linear_proj:
        h = h.reshape(b, hh, ww, inner).permute(0, 3, 1, 2).contiguous()
        h = conv(w, p + ".proj_out", h, padding=0)
    else:
        h = linear(w, p + ".proj_out", h)
        h = h.reshape(b, hh, ww, inner).permute(0, 3, 1, 2).contiguous()
    return h + residual


def downsample(w, p, x, padding):
    if padding == 0:
        x = F.pad(x, (0, 1, 0, 1), mode="constant", value=0)
    return conv(w, p + ".conv", x, stride=2, padding=padding)


# ---- the model ----

def forward(w, cfg, inp):
    c = normalise(cfg)
    ch = cfg["block_out_channels"]
    n = len(ch)
    dtype = w["conv_in.weight"].dtype
    sample = inp["in.sample"].to(dtype)
    ctx = inp["in.encoder_hidden_states"].to(dtype)
    bsz = sample.shape[0]
    t = inp["in.timestep"]
    t = t.reshape(1) if t.dim() == 0 else t
    t = t.expand(bsz)
    if cfg.get("center_input_sample", False):
        sample = 2 * sample - 1.0
    flip, shift = cfg.get("flip_sin_to_cos", True), cfg.get("freq_shift", 0)
    t_emb = timestep_embedding(t, ch[0], flip, shift).to(dtype)
    emb = timestep_mlp(w, "time_embedding", t_emb)
    if cfg.get("addition_embed_type") == "text_time":
        text = inp.get("in.text_embeds", inp.get("in.added_cond_kwargs.text_embeds"))
        ids = inp.get("in.time_ids", inp.get("in.added_cond_kwargs.time_ids"))
        te = timestep_embedding(ids.flatten(), cfg["addition_time_embed_dim"], flip, shift)
        te = te.reshape((text.shape[0], -1))
        add = torch.concat([text, te], dim=-1).to(emb.dtype)
        emb = emb + timestep_mlp(w, "add_embedding", add)

    x = conv(w, "conv_in", sample)
    skips = [x]
    for i, kind in enumerate(cfg["down_block_types"]):
        p = f"down_blocks.{i}"
        for j in range(c["layers"][i]):
            x = resnet(w, f"{p}.resnets.{j}", x, emb, c)
            if kind == "CrossAttnDownBlock2D":
                x = transformer_2d(w, f"{p}.attentions.{j}", x, ctx, c["heads"][i], c["down_tl"][i][j], c)
            skips.append(x)
        if i < n - 1:
            x = downsample(w, f"{p}.downsamplers.0", x, cfg.get("downsample_padding", 1))
            skips.append(x)
    if cfg.get("mid_block_type", "UNetMidBlock2DCrossAttn") == "UNetMidBlock2DCrossAttn":
        scale = cfg.get("mid_block_scale_factor", 1.0)
        x = resnet(w, "mid_block.resnets.0", x, emb, c, scale)
        x = transformer_2d(w, "mid_block.attentions.0", x, ctx, c["heads"][-1], c["mid_tl"][0], c)
        x = resnet(w, "mid_block.resnets.1", x, emb, c, scale)
    rheads = list(reversed(c["heads"]))
    for i, kind in enumerate(cfg["up_block_types"]):
        p = f"up_blocks.{i}"
        for j in range(c["layers"][n - 1 - i] + 1):
            x = torch.cat([x, skips.pop()], dim=1)
            x = resnet(w, f"{p}.resnets.{j}", x, emb, c)
            if kind == "CrossAttnUpBlock2D":
                x = transformer_2d(w, f"{p}.attentions.{j}", x, ctx, rheads[i], c["up_tl"][i][j], c)
        if i < n - 1:
            uneven = any(d % 2 ** (n - 1) for d in sample.shape[-2:])
            # forward_upsample_size: a latent size the down path halved unevenly upsamples to
            # the skip's size
            x = upsample(w, f"{p}.upsamplers.0", x, tuple(skips[-1].shape[2:]) if uneven else None)
    x = F.silu(group_norm(w, "conv_norm_out", x, c["groups"], c["eps"]))
    return conv(w, "conv_out", x)


# ---- checkpoint layout, for random weights ----

def param_shapes(cfg):
    """Every checkpoint key of the model `cfg` describes, with its shape."""
    c = normalise(cfg)
    ch = cfg["block_out_channels"]
    n = len(ch)
    s = {}
    tdim = cfg.get("time_embedding_dim") or 4 * ch[0]

    def lin(p, i, o, bias=True):
        s[p + ".weight"] = (o, i)
        if bias:
            s[p + ".bias"] = (o,)

    def cv(p, i, o, k=3):
        s[p + ".weight"] = (o, i, k, k)
        s[p + ".bias"] = (o,)

    def norm(p, ch_):
        s[p + ".weight"] = (ch_,)
        s[p + ".bias"] = (ch_,)

    def res(p, i, o):
        norm(p + ".norm1", i)
        cv(p + ".conv1", i, o)
        lin(p + ".time_emb_proj", tdim, o)
        norm(p + ".norm2", o)
        cv(p + ".conv2", o, o)
        if i != o:
            cv(p + ".conv_shortcut", i, o, 1)

    def t2d(p, ch_, cross, layers):
        norm(p + ".norm", ch_)
        if cfg.get("use_linear_projection", False):
            lin(p + ".proj_in", ch_, ch_)
            lin(p + ".proj_out", ch_, ch_)
        else:
            cv(p + ".proj_in", ch_, ch_, 1)
            cv(p + ".proj_out", ch_, ch_, 1)
        for k in range(layers):
            b = f"{p}.transformer_blocks.{k}"
            for a, kv in (("attn1", ch_), ("attn2", cross)):
                lin(f"{b}.{a}.to_q", ch_, ch_, False)
                lin(f"{b}.{a}.to_k", kv, ch_, False)
                lin(f"{b}.{a}.to_v", kv, ch_, False)
                lin(f"{b}.{a}.to_out.0", ch_, ch_)
            for m in ("norm1", "norm2", "norm3"):
                norm(f"{b}.{m}", ch_)
            lin(f"{b}.ff.net.0.proj", ch_, 8 * ch_)
            lin(f"{b}.ff.net.2", 4 * ch_, ch_)

    cv("conv_in", cfg.get("in_channels", 4), ch[0])
    lin("time_embedding.linear_1", ch[0], tdim)
    lin("time_embedding.linear_2", tdim, tdim)
    if cfg.get("addition_embed_type") == "text_time":
        lin("add_embedding.linear_1", cfg["projection_class_embeddings_input_dim"], tdim)
        lin("add_embedding.linear_2", tdim, tdim)
    out = ch[0]
    for i, kind in enumerate(cfg["down_block_types"]):
        inp, out = out, ch[i]
        for j in range(c["layers"][i]):
            res(f"down_blocks.{i}.resnets.{j}", inp if j == 0 else out, out)
            if kind == "CrossAttnDownBlock2D":
                t2d(f"down_blocks.{i}.attentions.{j}", out, c["cross"][i], c["down_tl"][i][j])
        if i < n - 1:
            cv(f"down_blocks.{i}.downsamplers.0.conv", out, out)
    if cfg.get("mid_block_type", "UNetMidBlock2DCrossAttn") == "UNetMidBlock2DCrossAttn":
        res("mid_block.resnets.0", ch[-1], ch[-1])
        t2d("mid_block.attentions.0", ch[-1], c["cross"][-1], c["mid_tl"][0])
        res("mid_block.resnets.1", ch[-1], ch[-1])
    rch = list(reversed(ch))
    rcross = list(reversed(c["cross"]))
    out = rch[0]
    for i, kind in enumerate(cfg["up_block_types"]):
        prev, out = out, rch[i]
        inp = rch[min(i + 1, n - 1)]
        layers = c["layers"][n - 1 - i] + 1
        for j in range(layers):
            skip = inp if j == layers - 1 else out
            res(f"up_blocks.{i}.resnets.{j}", (prev if j == 0 else out) + skip, out)
            if kind == "CrossAttnUpBlock2D":
                t2d(f"up_blocks.{i}.attentions.{j}", out, rcross[i], c["up_tl"][i][j])
        if i < n - 1:
            cv(f"up_blocks.{i}.upsamplers.0.conv", out, out)
    norm("conv_norm_out", ch[0])
    cv("conv_out", ch[0], cfg.get("out_channels", 4))
    return s


def random_weights(cfg, seed):
    """Linear and conv weights N(0, 1/fan_in), biases N(0, 0.05^2), norms 1 + N(0, 0.1^2)."""
    g = torch.Generator().manual_seed(seed)
    w = {}
    for k, shape in param_shapes(cfg).items():
        if len(shape) == 1:
            is_norm_w = k.endswith(".weight")
            t = torch.randn(shape, generator=g) * (0.1 if is_norm_w else 0.05) + (1.0 if is_norm_w else 0.0)
        else:
            fan_in = math.prod(shape[1:])
            t = torch.randn(shape, generator=g) / math.sqrt(fan_in)
        w[k] = t
    return w


load_folder = port_commands.load_component


def write_case(d, cfg, seed, inputs):
    w = random_weights(cfg, seed)
    port_commands.write_component(d, cfg, w)
    out = forward(w, cfg, inputs)
    io = dict(inputs)
    io["out.sample"] = out
    safetensors_io.save(d + "_io.safetensors", io)
    n = sum(t.numel() for t in w.values())
    print(f"wrote {d}: {n} parameters, out.sample {tuple(out.shape)} max |{out.abs().max():.3f}|")


BASE = {"_class_name": "UNet2DConditionModel", "act_fn": "silu", "center_input_sample": False,
        "downsample_padding": 1, "flip_sin_to_cos": True, "freq_shift": 0, "in_channels": 4,
        "out_channels": 4, "mid_block_scale_factor": 1, "mid_block_type": "UNetMidBlock2DCrossAttn",
        "norm_eps": 1e-05, "class_embed_type": None, "dual_cross_attention": False,
        "only_cross_attention": False, "resnet_time_scale_shift": "default", "num_attention_heads": None}


def make_tests(root):
    """Two tiny configurations that the golden file does not cover, with random weights."""
    g = torch.Generator().manual_seed(1234)
    # SD 2.x: linear projections, attention_head_dim a per-block list (heads), upcast_attention,
    # 4 groups, 24-wide context, a cross-attention block first as in SD 2.1.
    sd2 = dict(BASE, **{
        "sample_size": 8, "block_out_channels": [8, 16], "layers_per_block": 1,
        "down_block_types": ["CrossAttnDownBlock2D", "DownBlock2D"],
        "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D"],
        "attention_head_dim": [2, 4], "cross_attention_dim": 24, "norm_num_groups": 4,
        "use_linear_projection": True, "upcast_attention": True, "transformer_layers_per_block": 1,
        "addition_embed_type": None})
    inputs = {"in.sample": torch.randn(2, 4, 8, 8, generator=g),
              "in.timestep": torch.tensor([981.0, 1.5]),
              "in.encoder_hidden_states": torch.randn(2, 5, 24, generator=g)}
    write_case(os.path.join(root, "sd2_tiny"), sd2, 21, inputs)
    # SDXL: three levels (DownBlock2D first), transformer_layers_per_block [1, 1, 2] (2 in the mid
    # block), text_time with a 8-wide add_time_proj of 6 time ids and 16-wide pooled text embeds
    # (projection_class_embeddings_input_dim 16 + 6 * 8 = 64), time_embedding_dim given, the
    # timestep given once for the batch.
    sdxl = dict(BASE, **{
        "sample_size": 8, "block_out_channels": [8, 16, 16], "layers_per_block": 1,
        "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
        "up_block_types": ["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
        "attention_head_dim": [1, 2, 2], "cross_attention_dim": 24, "norm_num_groups": 4,
        "use_linear_projection": True, "upcast_attention": False,
        "transformer_layers_per_block": [1, 1, 2], "addition_embed_type": "text_time",
        "addition_time_embed_dim": 8, "projection_class_embeddings_input_dim": 64,
        "time_embedding_dim": 40})
    inputs = {"in.sample": torch.randn(2, 4, 8, 8, generator=g),
              "in.timestep": torch.tensor([999.0]),
              "in.encoder_hidden_states": torch.randn(2, 7, 24, generator=g),
              "in.text_embeds": torch.randn(2, 16, generator=g),
              "in.time_ids": torch.tensor([[64.0, 64.0, 0.0, 0.0, 64.0, 64.0],
                                           [96.0, 64.0, 8.0, 0.0, 64.0, 64.0]])}
    write_case(os.path.join(root, "sdxl_tiny"), sdxl, 22, inputs)


def make(d, argv):
    """SD 1.5's widths (block_out_channels [320, 640, 1280, 1280], 8 heads, 768-wide context,
    77 tokens), `--layers` resnets per block (default 1; SD 1.5 has 2), a `--size` latent
    (default 32: a 256x256 image), batch 2 (a guided step), random weights."""
    layers = int(argv[argv.index("--layers") + 1]) if "--layers" in argv else 1
    size = int(argv[argv.index("--size") + 1]) if "--size" in argv else 32
    cfg = dict(BASE, **{
        "sample_size": 64, "block_out_channels": [320, 640, 1280, 1280], "layers_per_block": layers,
        "down_block_types": ["CrossAttnDownBlock2D"] * 3 + ["DownBlock2D"],
        "up_block_types": ["UpBlock2D"] + ["CrossAttnUpBlock2D"] * 3,
        "attention_head_dim": 8, "cross_attention_dim": 768, "norm_num_groups": 32,
        "use_linear_projection": False, "upcast_attention": False, "transformer_layers_per_block": 1,
        "addition_embed_type": None})
    w = random_weights(cfg, 0)
    port_commands.write_component(d, cfg, w)
    g = torch.Generator().manual_seed(1)
    inputs = {"in.sample": torch.randn(2, 4, size, size, generator=g),
              "in.timestep": torch.tensor([500.0]),
              "in.encoder_hidden_states": torch.randn(2, 77, 768, generator=g)}
    safetensors_io.save(os.path.join(d, "inputs.safetensors"), inputs)
    print(f"wrote {d}: {sum(t.numel() for t in w.values())} parameters, latent {size}x{size}")


def main():
    port_commands.main({
        **port_commands.standard_commands(load_folder, forward, ["out.sample"], "diffusers'"),
        "make-tests": lambda argv: make_tests(argv[2]), "make": lambda argv: make(argv[2], argv[3:])})


if __name__ == "__main__":
    main()
