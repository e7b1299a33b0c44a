"""The PyTorch rows of benchmarks/vs_pytorch.py: each workload's model written in
torch with exactly mindjit's math, started from mindjit's Parameters and inputs.

Imports numpy, torch and benchmarks/fresh_workers.py only (never mindjit), so it runs
under any Python with torch (vs_pytorch.py's --torch-python). One worker process times
one row (eager, or torch.compile of the whole step) of one workload:

    python benchmarks/torch_peers.py --worker lenet5 --row eager --threads 1 \\
        --calls 20 --warmup 2 --recorded 3 --weights W.npz --out OUT.npz

W.npz (written by vs_pytorch.py --export) holds "param:NAME" (MindSpore's names and
layouts: Dense weight (out, in), used as x @ W.T + b; Conv2d (out, in, kh, kw)) and
"input:I". The replicas follow mindjit's definitions:

- LeNet5: valid 5x5 convolutions without bias, ReLU, 2x2 max pooling, Dense layers,
  sparse softmax cross entropy (mean), Momentum(0.01, 0.9) = torch SGD with
  momentum 0.9 (MindSpore's accum starts at 0, so its first step is the gradient, as
  torch's buffer);
- GPT-like (examples/gpt.py): x reshaped to (batch * seq, hidden), so attention runs
  over all batch*seq rows; LayerNorm eps 1e-5; single-head attention without biases,
  scores scaled by 1/sqrt(hidden); tanh-GELU; MSELoss (mean) and SGD(0.01);
- ResNet-18-shaped (examples/models/resnet.py): 3x3 convolutions with padding 1, the
  1x1 downsample (pad_mode "same" = padding 0 for 1x1), BatchNorm eps 1e-4 on batch
  statistics, running statistics updated with torch momentum 0.1 (MindSpore's 0.9
  means 0.9 * moving + 0.1 * batch), mean over H and W, Dense, Momentum as LeNet5's;
- BERT-style (examples/models/bert.py): the three embeddings as plain lookups (the
  padding row gets gradients, as MindSpore's Gather), LayerNorm eps 1e-12, 4 heads,
  the padding mask as masked_fill(-10000), exact (erf) GELU, tanh pooler on token 0,
  cross entropy (mean), Dropout off (see vs_pytorch.py), and MindSpore's Adam written
  out (lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps), which places eps
  differently from torch.optim.Adam), with torch's _foreach ops.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh_workers import save_npz, time_steps, worker_main  # noqa: E402

Weights = dict[str, torch.Tensor]


def dense(w: Weights, name: str, x: torch.Tensor, bias: bool = True) -> torch.Tensor:
    return F.linear(x, w[f"{name}.weight"], w[f"{name}.bias"] if bias else None)


# --- the models ------------------------------------------------------------------------


def lenet5(w: Weights, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = F.max_pool2d(F.relu(F.conv2d(x, w["conv1.weight"])), 2, 2)
    x = F.max_pool2d(F.relu(F.conv2d(x, w["conv2.weight"])), 2, 2)
    x = x.flatten(1)
    x = F.relu(dense(w, "fc1", x))
    x = F.relu(dense(w, "fc2", x))
    return F.cross_entropy(dense(w, "fc3", x), y)


def gpt(w: Weights, x: torch.Tensor, layers: int) -> torch.Tensor:
    batch, seq, hidden = x.shape
    x = x.reshape(batch * seq, hidden)
    scale = 1.0 / math.sqrt(hidden)
    for i in range(layers):
        p = f"blocks.{i}."
        h = F.layer_norm(x, (hidden,), w[p + "ln1.gamma"], w[p + "ln1.beta"], 1e-5)
        q, k, v = (dense(w, p + n, h, bias=False) for n in "qkv")
        attn = torch.softmax((q @ k.T) * scale, -1) @ v
        x = x + dense(w, p + "o", attn, bias=False)
        h = F.layer_norm(x, (hidden,), w[p + "ln2.gamma"], w[p + "ln2.beta"], 1e-5)
        x = x + dense(w, p + "fc2", F.gelu(dense(w, p + "fc1", h), approximate="tanh"))
    return x.reshape(batch, seq, hidden)


def _bn(w: Weights, name: str, x: torch.Tensor) -> torch.Tensor:
    return F.batch_norm(
        x, w[f"{name}.moving_mean"], w[f"{name}.moving_variance"], w[f"{name}.gamma"],
        w[f"{name}.beta"], training=True, momentum=0.1, eps=1e-4,
    )  # fmt: skip


def resnet18(w: Weights, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = F.relu(_bn(w, "bn1", F.conv2d(x, w["conv1.weight"], padding=1)))
    for stage, stride in enumerate((1, 2, 2, 2)):
        for block in range(2):
            p = f"layer{stage + 1}.{block}."
            s = stride if block == 0 else 1
            out = F.relu(_bn(w, p + "bn1d", F.conv2d(x, w[p + "conv1.weight"], stride=s, padding=1)))  # fmt: skip
            out = _bn(w, p + "bn2d", F.conv2d(out, w[p + "conv2.weight"], padding=1))
            if p + "down_sample_layer.0.weight" in w:
                x = F.conv2d(x, w[p + "down_sample_layer.0.weight"], stride=s)
                x = _bn(w, p + "down_sample_layer.1", x)
            x = F.relu(out + x)
    x = x.mean((2, 3), keepdim=True).flatten(1)
    return F.cross_entropy(dense(w, "end_point", x), y)


def bert(
    w: Weights, ids: torch.Tensor, mask: torch.Tensor, segments: torch.Tensor, y: torch.Tensor
) -> torch.Tensor:
    batch, seq = ids.shape
    hidden = w["embeddings.word_embeddings.embedding_table"].shape[1]
    heads, layers = 4, 1 + max(int(n.split(".")[1]) for n in w if n.startswith("layers."))
    size = hidden // heads
    e = "embeddings."
    h = F.embedding(ids, w[e + "word_embeddings.embedding_table"])
    h = h + F.embedding(torch.arange(seq), w[e + "position_embeddings.embedding_table"])[None]
    h = h + F.embedding(segments, w[e + "token_type_embeddings.embedding_table"])
    h = F.layer_norm(h, (hidden,), w[e + "layernorm.gamma"], w[e + "layernorm.beta"], 1e-12)
    masked = (mask == 0).reshape(batch, 1, 1, seq)
    for i in range(layers):
        p = f"layers.{i}."

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.reshape(batch, seq, heads, size).transpose(1, 2)

        q, k, v = (split(dense(w, p + "attention." + n, h)) for n in ("query", "key", "value"))
        scores = (q @ k.transpose(2, 3)) * (1.0 / math.sqrt(size))
        probs = torch.softmax(scores.masked_fill(masked, -10000.0), -1)
        context = (probs @ v).transpose(1, 2).reshape(batch, seq, hidden)
        attn = dense(w, p + "attention_output", context)
        n = p + "attention_norm."
        h = F.layer_norm(attn + h, (hidden,), w[n + "gamma"], w[n + "beta"], 1e-12)
        mlp = dense(w, p + "output", F.gelu(dense(w, p + "intermediate", h)))
        n = p + "output_norm."
        h = F.layer_norm(mlp + h, (hidden,), w[n + "gamma"], w[n + "beta"], 1e-12)
    pooled = torch.tanh(dense(w, "pooler", h[:, 0]))
    return F.cross_entropy(dense(w, "classifier", pooled), y)


# --- optimizers --------------------------------------------------------------------------


class MindSporeAdam:
    """nn.Adam(params, lr) of mindjit (frontend/nn/optim/adam.py), float32 like it."""

    def __init__(self, params: list[torch.Tensor], lr: float, b1=0.9, b2=0.999, eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]
        self.b1_power = self.b2_power = np.float32(1.0)

    @torch.no_grad()
    def step(self) -> None:
        self.b1_power = np.float32(self.b1_power * np.float32(self.b1))
        self.b2_power = np.float32(self.b2_power * np.float32(self.b2))
        one = np.float32(1.0)
        lr_t = float(np.sqrt(one - self.b2_power) * np.float32(self.lr) / (one - self.b1_power))
        grads = [p.grad for p in self.params]
        torch._foreach_mul_(self.m, self.b1)
        torch._foreach_add_(self.m, torch._foreach_mul(grads, 1.0 - self.b1))
        torch._foreach_mul_(self.v, self.b2)
        torch._foreach_add_(self.v, torch._foreach_mul(torch._foreach_mul(grads, grads), 1.0 - self.b2))  # fmt: skip
        denom = torch._foreach_add(torch._foreach_sqrt(self.v), self.eps)
        torch._foreach_sub_(self.params, torch._foreach_mul(torch._foreach_div(self.m, denom), lr_t))  # fmt: skip

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None


# --- a workload: its loss function, trainable names, optimizer ---------------------------


def load(path: str) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    with np.load(path) as data:
        params = {k[len("param:") :]: data[k] for k in data.files if k.startswith("param:")}
        count = sum(k.startswith("input:") for k in data.files)
        inputs = [data[f"input:{i}"] for i in range(count)]
    return params, inputs


def _tensor(a: np.ndarray) -> torch.Tensor:
    t = torch.from_numpy(np.ascontiguousarray(a))
    return t.long() if a.dtype.kind in "iu" else t  # torch indexes with int64


def make_step(name: str, row: str, weights: str) -> Callable[[], np.ndarray]:
    """One step of `name` (its loss, or gpt_fwd's output, as numpy)."""
    arrays, inputs = load(weights)
    w = {k: _tensor(a) for k, a in arrays.items()}
    xs = [_tensor(a) for a in inputs]
    if name == "gpt_fwd":

        def forward() -> torch.Tensor:
            with torch.no_grad():
                return gpt(w, xs[0], 8)

        run = torch.compile(forward) if row == "compile" else forward
        return lambda: run().numpy()
    losses: dict[str, Callable[[], torch.Tensor]] = {
        "lenet5": lambda: lenet5(w, *xs),
        "gpt_train": lambda: F.mse_loss(gpt(w, xs[0], 4), xs[1]),
        "gpt_train_lazy": lambda: F.mse_loss(gpt(w, xs[0], 4), xs[1]),
        "resnet18": lambda: resnet18(w, *xs),
        "bert": lambda: bert(w, *xs),
    }
    if name not in losses:
        raise ValueError(f"unknown workload {name!r}; choose from gpt_fwd, {', '.join(losses)}")
    buffers = ("moving_mean", "moving_variance")
    trainable = [t for k, t in w.items() if not k.endswith(buffers)]
    for t in trainable:
        t.requires_grad_(True)
    if name == "bert":
        opt: torch.optim.Optimizer | MindSporeAdam = MindSporeAdam(trainable, 1e-3)
    elif name in ("gpt_train", "gpt_train_lazy"):
        opt = torch.optim.SGD(trainable, lr=0.01)
    else:  # nn.Momentum(lr 0.01, momentum 0.9)
        opt = torch.optim.SGD(trainable, lr=0.01, momentum=0.9)
    loss_fn = losses[name]

    def step() -> torch.Tensor:
        loss = loss_fn()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.detach()

    run = torch.compile(step) if row == "compile" else step
    return lambda: run().numpy().copy()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", required=True)
    parser.add_argument("--row", choices=("eager", "compile"), required=True)
    parser.add_argument("--threads", required=True, help='"1" or "default"')
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--recorded", type=int, default=3)
    parser.add_argument("--weights", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    def run() -> dict:
        if args.threads == "1":
            torch.set_num_threads(1)
        call = make_step(args.worker, args.row, args.weights)
        outputs, result = time_steps(call, args.recorded, args.warmup, args.calls)
        save_npz(args.out, outputs)
        result["torch"] = torch.__version__
        result["threads"] = torch.get_num_threads()
        return result

    return worker_main(run)


if __name__ == "__main__":
    sys.exit(main())
