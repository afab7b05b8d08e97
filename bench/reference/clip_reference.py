"""A plain-PyTorch port of transformers' CLIPTextModel forward, for timing Halfscope's C++
module against the same computation in Python on the same weights, dtype and thread count.

transformers itself cannot be installed on this machine (no PyPI); this port follows
CLIPTextTransformer.forward (token + position embeddings, pre-LN causal encoder layers,
final_layer_norm, pooling at the end-of-text token) op by op and is checked against the golden
outputs that transformers produced (tests/data/golden), so it computes what the reference class
computes.

  /usr/bin/python3 bench/reference/clip_reference.py check tests/data/golden/clip tests/data/golden/clip_io.safetensors
  /usr/bin/python3 bench/reference/clip_reference.py make DIR          # CLIP-L-size folder + inputs
  /usr/bin/python3 bench/reference/clip_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/clip_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import safetensors_io  # noqa: E402
import timing  # noqa: E402

P = "text_model."


def linear(w, p, x):
    return F.linear(x, w[p + ".weight"], w[p + ".bias"])


def layer_norm(w, p, x, eps):
    return F.layer_norm(x, (x.shape[-1],), w[p + ".weight"], w[p + ".bias"], eps=eps)


def act(name, x):
    if name == "quick_gelu":
        return x * torch.sigmoid(1.702 * x)
    if name == "gelu":
        return F.gelu(x)
    raise ValueError(f"hidden_act {name!r} not supported")


def self_attention(w, p, x, heads, mask):
    b, l, d = x.shape
    hd = d // heads
    q, k, v = (linear(w, p + n, x).view(b, l, heads, hd).transpose(1, 2)
               for n in (".q_proj", ".k_proj", ".v_proj"))
    s = (q @ k.transpose(-2, -1)) * (hd ** -0.5) + mask
    o = torch.softmax(s.float(), -1).to(v.dtype) @ v
    return linear(w, p + ".out_proj", o.transpose(1, 2).reshape(b, l, d))


def forward(w, cfg, inp):
    ids = inp["in.input_ids"].long()
    b, l = ids.shape
    eps = cfg.get("layer_norm_eps", 1e-5)
    x = w[P + "embeddings.token_embedding.weight"][ids] + w[P + "embeddings.position_embedding.weight"][:l][None]
    mask = torch.full((l, l), torch.finfo(x.dtype).min, dtype=x.dtype).triu(1)  # causal, additive
    for i in range(cfg["num_hidden_layers"]):
        p = f"{P}encoder.layers.{i}"
        x = x + self_attention(w, p + ".self_attn", layer_norm(w, p + ".layer_norm1", x, eps),
                               cfg["num_attention_heads"], mask)
        h = act(cfg.get("hidden_act", "quick_gelu"), linear(w, p + ".mlp.fc1", layer_norm(w, p + ".layer_norm2", x, eps)))
        x = x + linear(w, p + ".mlp.fc2", h)
    last = layer_norm(w, P + "final_layer_norm", x, eps)
    eos = cfg.get("eos_token_id", 2)
    # legacy configs (eos_token_id 2): the end-of-text token has the largest id; else its first position
    pos = ids.argmax(-1) if eos == 2 else (ids == eos).int().argmax(-1)
    return last, last[torch.arange(b), pos]


def load_folder(d, dtype=torch.float32):
    cfg = json.load(open(os.path.join(d, "config.json")))
    w = {k: v.to(dtype) for k, v in safetensors_io.load(os.path.join(d, "model.safetensors")).items()
         if v.is_floating_point()}
    return cfg, w


def rel_err(out, ref):
    return ((out.float() - ref.float()).abs().max() / ref.float().abs().max()).item()


def main():
    torch.set_grad_enabled(False)
    cmd = sys.argv[1]
    if cmd == "check":
        cfg, w = load_folder(sys.argv[2])
        io = safetensors_io.load(sys.argv[3])
        last, pooled = forward(w, cfg, io)
        err = rel_err(last, io["out.last_hidden_state"])
        print(f"last_hidden_state: relative error against transformers' output: {err:.2e}")
        if "out.pooler_output" in io:
            e2 = rel_err(pooled, io["out.pooler_output"])
            print(f"pooler_output: relative error against transformers' output: {e2:.2e}")
            err = max(err, e2)
        sys.exit(0 if err < 1e-4 else 1)
    if cmd == "make":
        d = sys.argv[2]
        os.makedirs(d, exist_ok=True)
        # the CLIP-L text encoder (openai/clip-vit-large-patch14) with its legacy eos_token_id 2
        # (pooling at argmax(input_ids)); the prompts end in 49407 and pad with it, as CLIP-L's do
        cfg = {"architectures": ["CLIPTextModel"], "attention_dropout": 0.0, "bos_token_id": 0,
               "eos_token_id": 2, "hidden_act": "quick_gelu", "hidden_size": 768, "initializer_factor": 1.0,
               "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
               "max_position_embeddings": 77, "model_type": "clip_text_model", "num_attention_heads": 12,
               "num_hidden_layers": 12, "pad_token_id": 1, "projection_dim": 768, "torch_dtype": "float32",
               "vocab_size": 49408}
        json.dump(cfg, open(os.path.join(d, "config.json"), "w"), indent=2)
        torch.manual_seed(0)
        dim, inter = 768, 3072
        w = {P + "embeddings.token_embedding.weight": torch.randn(49408, dim) * 0.02,
             P + "embeddings.position_embedding.weight": torch.randn(77, dim) * 0.01}

        def lin(p, i, o):
            w[p + ".weight"] = torch.randn(o, i) / math.sqrt(i)
            w[p + ".bias"] = torch.randn(o) * 0.02

        def ln(p):
            w[p + ".weight"] = 1 + 0.1 * torch.randn(dim)
            w[p + ".bias"] = 0.05 * torch.randn(dim)
        for i in range(12):
            p = f"{P}encoder.layers.{i}"
            ln(p + ".layer_norm1")
            for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
                lin(f"{p}.self_attn.{n}", dim, dim)
            ln(p + ".layer_norm2")
            lin(p + ".mlp.fc1", dim, inter)
            lin(p + ".mlp.fc2", inter, dim)
        ln(P + "final_layer_norm")
        safetensors_io.save(os.path.join(d, "model.safetensors"), w)
        ids = torch.full((2, 77), 49407, dtype=torch.int64)  # pad = end-of-text, as CLIP-L pads
        for r, n in enumerate((20, 50)):
            ids[r, 0] = 49406  # start-of-text
            ids[r, 1:n + 1] = torch.randint(256, 49406, (n,))
        safetensors_io.save(os.path.join(d, "inputs.safetensors"), {"in.input_ids": ids})
        print(f"wrote {d}: {sum(t.numel() for t in w.values())} parameters")
        return
    if cmd == "compare":
        cfg, w = load_folder(sys.argv[2])
        last, pooled = forward(w, cfg, safetensors_io.load(sys.argv[3]))
        cpp = safetensors_io.load(sys.argv[4])
        err = 0.0
        for key, out in (("out.last_hidden_state", last), ("out.pooler_output", pooled)):
            if tuple(cpp[key].shape) != tuple(out.shape):
                print(f"{key}: shape mismatch: C++ {tuple(cpp[key].shape)}, Python {tuple(out.shape)}")
                sys.exit(1)
            e = rel_err(cpp[key], out)
            print(f"{key}: relative error C++ vs Python: {e:.2e}")
            err = max(err, e)
        sys.exit(0 if err < 1e-4 else 1)
    if cmd == "time":
        timing.time_command(sys.argv, load_folder, forward)
        return
    sys.exit(f"unknown command {cmd!r}; see the module docstring")


if __name__ == "__main__":
    main()
