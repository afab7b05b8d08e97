"""A plain-PyTorch port of transformers' T5EncoderModel forward, for timing Halfscope's C++
module against the same computation in Python on the same weights, dtype and thread count.

transformers itself cannot be installed on this machine (no PyPI); this port follows
T5EncoderModel.forward -> T5Stack.forward (shared embedding, an additive key mask from the
optional attention_mask, block 0's relative position bias shared by every block, pre-norm
T5Block = T5LayerSelfAttention + T5LayerFF, final_layer_norm) op by op, with T5Attention's eager
path (q @ k^T without scaling, softmax in fp32, cast back), T5LayerNorm (RMS, no mean, no bias,
variance in fp32) and T5DenseGatedActDense / T5DenseActDense. It is checked against the golden
output that transformers produced (tests/data/golden/t5), so it computes what the reference
class computes.

  /usr/bin/python3 bench/reference/t5_reference.py check tests/data/golden/t5 tests/data/golden/t5_io.safetensors
  /usr/bin/python3 bench/reference/t5_reference.py make DIR          # realistic-size folder + inputs
  /usr/bin/python3 bench/reference/t5_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/t5_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
  /usr/bin/python3 bench/reference/t5_reference.py serve DIR INPUTS [fp32|bf16]

`serve` is for bench/bench_t5.cpp, which alternates its own forwards with the port's so that
other programs on a shared machine slow both alike (port_commands.py has it and the other
commands but `make`).

`make` writes T5 v1.1 XXL's width (FLUX.1's and SD3's text_encoder_2/3: d_model 4096, d_ff
10240, 64 heads of 64, 32 relative buckets up to 128, vocabulary 32128) with 2 of its 24 blocks
(block 0 with the position bias and one plain block), so every matrix product, attention and
norm has the real model's shape while an fp32 forward takes 1-2 s on two cores and the
folder is 2.1 GB instead of 19 GB. Inputs: one prompt padded to 256 tokens (FLUX.1 schnell's and
SD3's max_sequence_length) without a mask, as FluxPipeline encodes it (inputs.safetensors), and
the same with its attention_mask (inputs_masked.safetensors).
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from common_ops import rms_norm  # noqa: E402
from weight_init import RandomWeights  # noqa: E402

P = "encoder."


def layer_norm(w, p, x, eps):
    # T5LayerNorm: RMS without mean or bias; the variance in fp32, back to a half weight's dtype
    return rms_norm(x, w[p + ".weight"], eps)


def act(name, x):
    if name == "gelu_new":  # NewGELUActivation, written out as transformers writes it
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    if name == "relu":
        return F.relu(x)
    if name == "gelu":
        return F.gelu(x)
    if name == "silu":
        return F.silu(x)
    raise ValueError(f"activation {name!r} not supported")


def activation_of(cfg):
    # T5Config: "gated-ACT" or "ACT"; "gated-gelu" means gelu_new (backwards compatibility)
    proj = cfg.get("feed_forward_proj", "relu")
    gated = proj.startswith("gated-")
    name = proj.split("-")[-1]
    return gated, "gelu_new" if proj == "gated-gelu" else name


def dense(w, p, x, cfg):
    gated, name = activation_of(cfg)
    if gated:  # T5DenseGatedActDense
        h = act(name, F.linear(x, w[p + ".wi_0.weight"])) * F.linear(x, w[p + ".wi_1.weight"])
    else:  # T5DenseActDense
        h = act(name, F.linear(x, w[p + ".wi.weight"]))
    wo = w[p + ".wo.weight"]
    if h.dtype != wo.dtype:  # wo kept in fp32 (_keep_in_fp32_modules)
        h = h.to(wo.dtype)
    return F.linear(h, wo)


def relative_position_bucket(rel, num_buckets, max_distance):
    # T5Attention._relative_position_bucket, bidirectional (the encoder)
    num_buckets //= 2
    buckets = (rel > 0).to(torch.long) * num_buckets
    rel = torch.abs(rel)
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    large = max_exact + (torch.log(rel.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, rel, large)


def compute_bias(w, p, cfg, length):
    # T5Attention.compute_bias: [1, H, L, L]
    context = torch.arange(length, dtype=torch.long)[:, None]
    memory = torch.arange(length, dtype=torch.long)[None, :]
    buckets = relative_position_bucket(memory - context, cfg.get("relative_attention_num_buckets", 32),
                                       cfg.get("relative_attention_max_distance", 128))
    values = F.embedding(buckets, w[p + ".relative_attention_bias.weight"])  # [L, L, H]
    return values.permute([2, 0, 1]).unsqueeze(0)


def self_attention(w, p, x, cfg, position_bias):
    b, l, _ = x.shape
    heads, d_kv = cfg["num_heads"], cfg["d_kv"]
    q, k, v = (F.linear(x, w[p + n]).view(b, -1, heads, d_kv).transpose(1, 2)
               for n in (".q.weight", ".k.weight", ".v.weight"))
    scores = torch.matmul(q, k.transpose(3, 2))  # no 1/sqrt(d) scaling in T5
    scores += position_bias
    weights = F.softmax(scores.float(), dim=-1).type_as(scores)
    o = torch.matmul(weights, v).transpose(1, 2).contiguous().view(b, -1, heads * d_kv)
    return F.linear(o, w[p + ".o.weight"])


def clamp_fp16(x):
    # T5Block: only while the stream is fp16
    if x.dtype == torch.float16:
        big = torch.finfo(x.dtype).max
        value = torch.where(torch.isinf(x).any(), big - 1000, big)
        x = torch.clamp(x, min=-value, max=value)
    return x


def forward(w, cfg, inp):
    ids = inp["in.input_ids"].long()
    b, l = ids.shape
    eps = cfg.get("layer_norm_epsilon", 1e-6)
    x = F.embedding(ids, w["shared.weight"])  # [B, L, D]
    dtype = x.dtype
    position_bias = compute_bias(w, P + "block.0.layer.0.SelfAttention", cfg, l)  # block 0's, shared
    mask = inp.get("in.attention_mask")
    if mask is not None:
        # (1 - mask) * finfo(dtype).min on the keys, added to the position bias
        mask = (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        position_bias = position_bias + mask
    for i in range(cfg["num_layers"]):
        p = f"{P}block.{i}.layer"
        x = x + self_attention(w, p + ".0.SelfAttention", layer_norm(w, p + ".0.layer_norm", x, eps), cfg,
                               position_bias)
        x = clamp_fp16(x)
        x = x + dense(w, p + ".1.DenseReluDense", layer_norm(w, p + ".1.layer_norm", x, eps), cfg)
        x = clamp_fp16(x)
    return layer_norm(w, P + "final_layer_norm", x, eps)


def load_folder(d, dtype=torch.float32):
    return port_commands.load_component(d, dtype, "model.safetensors", floating_only=True)


def make(d):
    # google/t5-v1_1-xxl's encoder config (as FLUX.1's text_encoder_2 ships it), 2 of 24 blocks
    dim, ff, heads, d_kv, vocab, layers = 4096, 10240, 64, 64, 32128, 2
    cfg = {"architectures": ["T5EncoderModel"], "classifier_dropout": 0.0, "d_ff": ff, "d_kv": d_kv,
           "d_model": dim, "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "dropout_rate": 0.1,
           "eos_token_id": 1, "feed_forward_proj": "gated-gelu", "initializer_factor": 1.0,
           "is_encoder_decoder": True, "is_gated_act": True, "layer_norm_epsilon": 1e-06, "model_type": "t5",
           "num_decoder_layers": layers, "num_heads": heads, "num_layers": layers, "output_past": True,
           "pad_token_id": 0, "relative_attention_max_distance": 128, "relative_attention_num_buckets": 32,
           "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True, "vocab_size": vocab}
    torch.manual_seed(0)
    inner = heads * d_kv
    w = RandomWeights()
    w["shared.weight"] = torch.randn(vocab, dim)  # T5's embeddings are O(1) (no scaling in front)
    for i in range(layers):
        p = f"{P}block.{i}.layer"
        w.norm(p + ".0.layer_norm", dim)
        # q's scale folds in T5's missing 1/sqrt(d_kv), as T5's initialisation does
        w[p + ".0.SelfAttention.q.weight"] = torch.randn(inner, dim) / math.sqrt(dim * d_kv)
        for n in ("k", "v"):
            w.linear(f"{p}.0.SelfAttention.{n}", dim, inner)
        w.linear(p + ".0.SelfAttention.o", inner, dim)
        if i == 0:
            w[p + ".0.SelfAttention.relative_attention_bias.weight"] = torch.randn(32, heads)
        w.norm(p + ".1.layer_norm", dim)
        w.linear(p + ".1.DenseReluDense.wi_0", dim, ff)
        w.linear(p + ".1.DenseReluDense.wi_1", dim, ff)
        w.linear(p + ".1.DenseReluDense.wo", ff, dim)
    w.norm(P + "final_layer_norm", dim)
    port_commands.write_component(d, cfg, w, "model.safetensors")
    length, n = 256, 77  # a 77-token prompt: 76 pieces and </s> (1), padded with <pad> (0)
    ids = torch.zeros((1, length), dtype=torch.int64)
    ids[0, :n - 1] = torch.randint(3, vocab - 100, (n - 1,))
    ids[0, n - 1] = 1
    mask = (ids != 0).to(torch.int64)
    safetensors_io.save(os.path.join(d, "inputs.safetensors"), {"in.input_ids": ids})
    safetensors_io.save(os.path.join(d, "inputs_masked.safetensors"),
                        {"in.input_ids": ids, "in.attention_mask": mask})
    print(f"wrote {d}: {w.count()} parameters")


def main():
    port_commands.main({
        **port_commands.standard_commands(load_folder, forward, ["out.last_hidden_state"],
                                          "transformers'"),
        "make": lambda argv: make(argv[2])})


if __name__ == "__main__":
    main()
