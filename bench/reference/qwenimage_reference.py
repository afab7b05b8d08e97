"""A plain-PyTorch port of diffusers' QwenImageTransformer2DModel forward (Qwen-Image's MMDiT:
txt_norm RMSNorm + txt_in / img_in, the sinusoidal timestep embedding scaled by 1000, the 3-axis
RoPE of QwenEmbedRope with scale_rope (image rows and columns centred, text positions after the
image's largest half side), double-stream blocks with img_mod / txt_mod (SiLU + Linear 6*dim),
joint [text | image] attention with RMS q/k norms on both streams and the text mask, tanh-GELU
feed-forwards, gated residuals clipped to +-65504 in fp16, AdaLayerNormContinuous and proj_out),
for reference numbers and timing. diffusers cannot be installed here; the port is checked against
the golden output diffusers produced (tests/data/golden/qwenimage).

  /usr/bin/python3 bench/reference/qwenimage_reference.py check DIR IO.safetensors
  /usr/bin/python3 bench/reference/qwenimage_reference.py case OUT_DIR   # tests/data/qwenimage
  /usr/bin/python3 bench/reference/qwenimage_reference.py comfy OUT_DIR  # a ComfyUI-style file
  /usr/bin/python3 bench/reference/qwenimage_reference.py make DIR       # bench_qwenimage's folder
  /usr/bin/python3 bench/reference/qwenimage_reference.py serve DIR INPUTS [fp32|bf16]
  /usr/bin/python3 bench/reference/qwenimage_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
  /usr/bin/python3 bench/reference/qwenimage_reference.py time DIR INPUTS [fp32|bf16] [repeat]

`case` writes configurations the golden file does not cover (other head counts and head widths,
axes_dims_rope, depth, out_channels, odd packed heights and widths, two frames, a batch of 2 with
per-sample timesteps and masks, a mask with a hole in the middle): for each a config, seeded
weights and io (in.* / out.sample) for tests/core/test_qwenimage.cpp.

`comfy` writes a one-block model at Qwen-Image's head width (1 head of 128, rope (16, 56, 56),
which a single file does not store) as ComfyUI saves Qwen-Image: diffusers' keys under
"model.diffusion_model.", bf16 (comfy_qwen_image.safetensors), with io computed in fp32 from the
bf16 weights (comfy_qwen_image_io.safetensors), for tests/core/test_single_file_qwenimage.cpp.

`make` writes Qwen-Image's width (24 heads of 128, axes_dims_rope (16, 56, 56), text width 3584,
64 packed input channels) with 1 of its 60 blocks (340 M parameters per block), and inputs for a
512 x 512 image (a 32 x 32 packed latent: 1024 tokens) with 256 text tokens, the last 56 masked
out. `serve` answers bench/bench_qwenimage.cpp; it, `check`, `compare` and `time` are
port_commands.py's (serve and time cast the inputs to the dtype too).
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from common_ops import (feed_forward, layer_norm, linear, norm_out, rms_norm,  # noqa: E402
                        softmax_attention, timestep_embedding, timestep_mlp)
from weight_init import RandomWeights  # noqa: E402


def rope_angles(positions, dim, theta=10000):
    # QwenEmbedRope.rope_params without the complex polar form: angles [n, dim / 2] float32
    inv = 1.0 / torch.pow(theta, torch.arange(0, dim, 2).to(torch.float32).div(dim))
    return torch.outer(positions.to(torch.float32), inv)


def qwen_rope(axes, frames, h, w, text_len):
    # QwenEmbedRope.forward with scale_rope=True for one image: frame index 0..F-1, rows
    # -(h - h//2)..h//2-1, columns likewise; text at max(h//2, w//2) + j on all three axes.
    f_pos = torch.arange(frames)
    h_pos = torch.cat([torch.arange(-(h - h // 2), 0), torch.arange(h // 2)])
    w_pos = torch.cat([torch.arange(-(w - w // 2), 0), torch.arange(w // 2)])
    fa = rope_angles(f_pos, axes[0])[:, None, None, :].expand(frames, h, w, -1)
    ha = rope_angles(h_pos, axes[1])[None, :, None, :].expand(frames, h, w, -1)
    wa = rope_angles(w_pos, axes[2])[None, None, :, :].expand(frames, h, w, -1)
    img = torch.cat([fa, ha, wa], dim=-1).reshape(frames * h * w, -1)
    t_pos = torch.arange(text_len) + max(h // 2, w // 2)
    txt = torch.cat([rope_angles(t_pos, a) for a in axes], dim=-1)
    return img, txt


def apply_rope(x, angles):
    # apply_rotary_emb_qwen(use_real=False): pairs (2k, 2k+1) as complex numbers times e^(i a)
    # x [B, S, H, D], angles [S, D / 2]
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    f = torch.polar(torch.ones_like(angles), angles)[None, :, None, :]
    return torch.view_as_real(xc * f).flatten(3).type_as(x)


def modulate(x, params):
    shift, scale, gate = params.chunk(3, dim=-1)
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1), gate.unsqueeze(1)


def attention(w, p, img, txt, mask, heads, img_angles, txt_angles):
    # QwenDoubleStreamAttnProcessor2_0: joint [text | image] attention
    def qkv(x, q, k, v, nq, nk, angles):
        qs = linear(w, p + q, x).unflatten(-1, (heads, -1))
        ks = linear(w, p + k, x).unflatten(-1, (heads, -1))
        vs = linear(w, p + v, x).unflatten(-1, (heads, -1))
        qs = apply_rope(rms_norm(qs, w[p + nq + ".weight"]), angles)
        ks = apply_rope(rms_norm(ks, w[p + nk + ".weight"]), angles)
        return qs, ks, vs
    iq, ik, iv = qkv(img, ".to_q", ".to_k", ".to_v", ".norm_q", ".norm_k", img_angles)
    tq, tk, tv = qkv(txt, ".add_q_proj", ".add_k_proj", ".add_v_proj", ".norm_added_q",
                     ".norm_added_k", txt_angles)
    q = torch.cat([tq, iq], 1).transpose(1, 2)  # [B, H, S, D]
    k = torch.cat([tk, ik], 1).transpose(1, 2)
    v = torch.cat([tv, iv], 1).transpose(1, 2)
    keys = None if mask is None else torch.cat(
        [mask, torch.ones(img.shape[0], img.shape[1], dtype=torch.bool)], 1)
    o = softmax_attention(q, k, v, keys).transpose(1, 2).flatten(2, 3).to(q.dtype)
    lt = txt.shape[1]
    return linear(w, p + ".to_out.0", o[:, lt:]), linear(w, p + ".to_add_out", o[:, :lt])


def block(w, p, img, txt, temb, mask, heads, img_angles, txt_angles):
    img_mod = linear(w, p + ".img_mod.1", F.silu(temb))  # [B, 6D]
    txt_mod = linear(w, p + ".txt_mod.1", F.silu(temb))
    img_mod1, img_mod2 = img_mod.chunk(2, dim=-1)
    txt_mod1, txt_mod2 = txt_mod.chunk(2, dim=-1)
    im, ig1 = modulate(layer_norm(img), img_mod1)
    tm, tg1 = modulate(layer_norm(txt), txt_mod1)
    ia, ta = attention(w, p + ".attn", im, tm, mask, heads, img_angles, txt_angles)
    img = img + ig1 * ia
    txt = txt + tg1 * ta
    im, ig2 = modulate(layer_norm(img), img_mod2)
    img = img + ig2 * feed_forward(w, p + ".img_mlp", im)
    tm, tg2 = modulate(layer_norm(txt), txt_mod2)
    txt = txt + tg2 * feed_forward(w, p + ".txt_mlp", tm)
    if txt.dtype == torch.float16:
        txt = txt.clip(-65504, 65504)
    if img.dtype == torch.float16:
        img = img.clip(-65504, 65504)
    return img, txt


def forward(w, cfg, inp):
    x = inp["in.hidden_states"]
    txt = inp["in.encoder_hidden_states"]
    mask = inp.get("in.encoder_hidden_states_mask")
    frames, h, wd = (int(v) for v in inp["in.img_shapes"][0])
    heads = cfg["num_attention_heads"]
    axes = cfg.get("axes_dims_rope", [16, 56, 56])
    x = linear(w, "img_in", x)
    t = inp["in.timestep"].to(x.dtype)
    txt = linear(w, "txt_in", rms_norm(txt, w["txt_norm.weight"]))
    if mask is not None:
        mask = mask.to(torch.bool)
    # Timesteps(256, flip_sin_to_cos=True, downscale_freq_shift=0, scale=1000)
    tp = timestep_embedding(t, 256, scale=1000).to(x.dtype)
    temb = timestep_mlp(w, "time_text_embed.timestep_embedder", tp)
    img_angles, txt_angles = qwen_rope(axes, frames, h, wd, txt.shape[1])
    for i in range(cfg["num_layers"]):
        x, txt = block(w, f"transformer_blocks.{i}", x, txt, temb, mask, heads, img_angles,
                       txt_angles)
    return norm_out(w, x, temb)


load_folder = port_commands.load_component


def base_config(**kw):
    return {"_class_name": "QwenImageTransformer2DModel", "patch_size": 2, "in_channels": 16,
            "out_channels": 4, "num_layers": 2, "attention_head_dim": 16,
            "num_attention_heads": 2, "joint_attention_dim": 24, "guidance_embeds": False,
            "axes_dims_rope": [4, 6, 6], "zero_cond_t": False, "use_additional_t_cond": False,
            "use_layer3d_rope": False, **kw}


def random_weights(cfg, seed):
    w = RandomWeights(torch.Generator().manual_seed(seed))
    hd, nh = cfg["attention_head_dim"], cfg["num_attention_heads"]
    d = hd * nh

    def lin(p, i, o):
        w.linear(p, i, o, bias=0.1)
    lin("img_in", cfg["in_channels"], d)
    lin("txt_in", cfg["joint_attention_dim"], d)
    w.norm("txt_norm", cfg["joint_attention_dim"])
    lin("time_text_embed.timestep_embedder.linear_1", 256, d)
    lin("time_text_embed.timestep_embedder.linear_2", d, d)
    for i in range(cfg["num_layers"]):
        p = f"transformer_blocks.{i}"
        lin(p + ".img_mod.1", d, 6 * d)
        lin(p + ".txt_mod.1", d, 6 * d)
        for n in ("to_q", "to_k", "to_v", "add_q_proj", "add_k_proj", "add_v_proj",
                  "to_out.0", "to_add_out"):
            lin(f"{p}.attn.{n}", d, d)
        for n in ("norm_q", "norm_k", "norm_added_q", "norm_added_k"):
            w.norm(f"{p}.attn.{n}", hd)
        for m in ("img_mlp", "txt_mlp"):
            lin(f"{p}.{m}.net.0.proj", d, 4 * d)
            lin(f"{p}.{m}.net.2", 4 * d, d)
    lin("norm_out.linear", d, 2 * d)
    out = cfg.get("out_channels") or cfg["in_channels"]
    lin("proj_out", d, cfg["patch_size"] ** 2 * out)
    return w


def make_inputs(cfg, seed, batch, shape, text_len, mask, timestep):
    g = torch.Generator().manual_seed(seed)
    frames, h, w = shape
    return {"in.hidden_states": torch.randn(batch, frames * h * w, cfg["in_channels"], generator=g),
            "in.encoder_hidden_states": torch.randn(batch, text_len, cfg["joint_attention_dim"],
                                                    generator=g),
            "in.encoder_hidden_states_mask": torch.tensor(mask, dtype=torch.int64),
            "in.timestep": torch.tensor(timestep, dtype=torch.float32),
            "in.img_shapes": torch.tensor([shape] * batch, dtype=torch.int64)}


def make_case(out, name, cfg, seed, batch, shape, text_len, mask, timestep):
    w = random_weights(cfg, seed)
    port_commands.write_component(os.path.join(out, name), cfg, w)
    inp = make_inputs(cfg, seed + 1, batch, shape, text_len, mask, timestep)
    inp["out.sample"] = forward(w, cfg, inp)
    safetensors_io.save(os.path.join(out, name + "_io.safetensors"), inp)
    print(f"wrote {os.path.join(out, name)}: |out| max {inp['out.sample'].abs().max():.3f}")


def cases(out):
    # 3 heads of 12 (rope 4, 4, 4), 3 layers, out_channels 5 (20 outputs), odd packed
    # height and width (5 x 3), a batch of 2 at two timesteps with two masks (one with a hole).
    make_case(out, "heads3_odd", base_config(
        num_attention_heads=3, attention_head_dim=12, axes_dims_rope=[4, 4, 4], num_layers=3,
        out_channels=5, in_channels=12, joint_attention_dim=20),
        8100, 2, [1, 5, 3], 7, [[1, 1, 1, 1, 1, 0, 0], [1, 1, 0, 1, 1, 1, 0]], [0.3, 0.85])
    # 1 head of 32 (rope 8, 12, 12), 1 layer, out_channels null (= in_channels), two frames
    # of 3 x 4, every text token valid.
    make_case(out, "head1_frames2", base_config(
        num_attention_heads=1, attention_head_dim=32, axes_dims_rope=[8, 12, 12],
        num_layers=1, out_channels=None, in_channels=8, joint_attention_dim=16, patch_size=1),
        8200, 1, [2, 3, 4], 5, [[1] * 5], [0.5])


def comfy(out):
    cfg = base_config(num_attention_heads=1, attention_head_dim=128,
                      axes_dims_rope=[16, 56, 56], num_layers=1, joint_attention_dim=32)
    w = {k: v.to(torch.bfloat16) for k, v in random_weights(cfg, 8300).items()}
    safetensors_io.save(os.path.join(out, "comfy_qwen_image.safetensors"),
                        {"model.diffusion_model." + k: v for k, v in w.items()})
    inp = make_inputs(cfg, 8301, 1, [1, 3, 5], 6, [[1, 1, 1, 1, 0, 0]], [0.625])
    inp["out.sample"] = forward({k: v.float() for k, v in w.items()}, cfg, inp)
    safetensors_io.save(os.path.join(out, "comfy_qwen_image_io.safetensors"), inp)
    print(f"wrote {out}: |out| max {inp['out.sample'].abs().max():.3f}")


def make(d):
    cfg = base_config(in_channels=64, out_channels=16, num_layers=1, attention_head_dim=128,
                      num_attention_heads=24, joint_attention_dim=3584,
                      axes_dims_rope=[16, 56, 56])
    w = random_weights(cfg, 0)
    inp = make_inputs(cfg, 1, 1, [1, 32, 32], 256, [[1] * 200 + [0] * 56], [0.6])
    port_commands.write_bench_folder(d, cfg, w, inp)


def main():
    port_commands.main({
        **port_commands.standard_commands(load_folder, forward, ["out.sample"], "diffusers'",
                                          cast_inputs=True),
        "case": lambda argv: cases(argv[2]), "comfy": lambda argv: comfy(argv[2]),
        "make": lambda argv: make(argv[2])}, usage=__doc__)


if __name__ == "__main__":
    main()
