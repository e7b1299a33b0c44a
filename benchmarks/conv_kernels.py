"""The CPU executor's convolution kernel on LeNet5's and ResNet-18's shapes:
before (the kernel as it was until issue 41), numpy's way now
(backend/cpu/kernels_conv.py), oneDNN's fastest formulation (backend/cpu/dnnl.py)
and what the executor runs (`auto`: kernels_conv's per-shape trial).

Every convolution a train step runs, forward, input gradient (a stride-1
convolution of the spread output gradient, padded by the kernel's reach: oneDNN
gets the gradient before that padding) and weight gradient (the input
convolved with the output gradient as the filter), as examples/models/zoo.py's
lenet5 (batch 32) and resnet18 (batch 8) call it. All run interleaved in one
process, one thread (`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1`:
with two, OpenBLAS's threads and oneDNN's in turn oversubscribe the cores,
backend/cpu/blas_threads.py, and every column is slower); prints the median ms
of each and auto / before, and checks every way agrees within 1e-5 relative.

    .venv/bin/python benchmarks/conv_kernels.py [--rounds 41] [--models lenet5,resnet18]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from mindjit.backend.cpu import dnnl
from mindjit.backend.cpu.kernels_conv import (
    candidates,
    conv_nchw,
    conv_way,
    fast_conv,
    padded,
    windows,
)

# (input N, C, H, W), (weight F, C, KH, KW), stride, dilation, role; the output
# size is the largest the input allows (as the models' convolutions use it)
SHAPES = {
    "lenet5": [
        ((32, 1, 32, 32), (6, 1, 5, 5), (1, 1), (1, 1), "conv1 forward"),
        ((32, 6, 14, 14), (16, 6, 5, 5), (1, 1), (1, 1), "conv2 forward"),
        ((32, 16, 18, 18), (6, 16, 5, 5), (1, 1), (1, 1), "conv2 d input"),
        ((6, 32, 14, 14), (16, 32, 10, 10), (1, 1), (1, 1), "conv2 d weight"),
        ((1, 32, 32, 32), (6, 32, 28, 28), (1, 1), (1, 1), "conv1 d weight"),
    ],
    "resnet18": [
        ((8, 3, 34, 34), (16, 3, 3, 3), (1, 1), (1, 1), "stem forward"),
        ((3, 8, 34, 34), (16, 8, 32, 32), (1, 1), (1, 1), "stem d weight"),
        ((8, 16, 34, 34), (16, 16, 3, 3), (1, 1), (1, 1), "3x3 16ch forward"),
        ((8, 16, 36, 36), (16, 16, 3, 3), (1, 1), (1, 1), "3x3 16ch d input"),
        ((16, 8, 34, 34), (16, 8, 32, 32), (1, 1), (1, 1), "3x3 16ch d weight"),
        ((8, 16, 34, 34), (32, 16, 3, 3), (2, 2), (1, 1), "3x3 stride 2 forward"),
        ((8, 16, 32, 32), (32, 16, 1, 1), (2, 2), (1, 1), "1x1 stride 2 forward"),
        ((8, 32, 32, 32), (16, 32, 1, 1), (1, 1), (1, 1), "1x1 d input"),
        ((16, 8, 34, 34), (32, 8, 16, 16), (1, 1), (2, 2), "stride 2 d weight"),
        ((8, 64, 10, 10), (64, 64, 3, 3), (1, 1), (1, 1), "3x3 64ch forward"),
        ((8, 64, 12, 12), (64, 64, 3, 3), (1, 1), (1, 1), "3x3 64ch d input"),
        ((8, 128, 6, 6), (128, 128, 3, 3), (1, 1), (1, 1), "3x3 128ch forward"),
        ((128, 8, 6, 6), (128, 8, 4, 4), (1, 1), (1, 1), "3x3 128ch d weight"),
    ],
}


def previous_conv(x, w, stride, dilation, out_hw) -> np.ndarray:
    """The kernel before issue 41: the windows copied as (C, KH, KW, N, OH, OW)
    (tensordot's (N, OH, OW, C, KH, KW) for a weight gradient), one BLAS call."""
    f, c, kh, kw = w.shape
    cols = windows(x, (kh, kw), stride, dilation, out_hw)
    if out_hw[0] * out_hw[1] < kh * kw:
        out = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3]))
        return np.ascontiguousarray(out.transpose(0, 3, 1, 2))
    n = x.shape[0]
    matrix = cols.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * out_hw[0] * out_hw[1])
    out = (w.reshape(f, c * kh * kw) @ matrix).reshape(f, n, *out_hw)
    return np.ascontiguousarray(out.transpose(1, 0, 2, 3))


def out_hw(x_shape, w_shape, stride, dilation) -> tuple[int, int]:
    return tuple(  # type: ignore[return-value]
        (x_shape[2 + a] - (w_shape[2 + a] - 1) * dilation[a] - 1) // stride[a] + 1 for a in (0, 1)
    )


def interleaved(calls, rounds: int) -> list[float]:
    """Median ms of each (fn, args) of `calls`, run alternately `rounds` times."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(rounds):
        for i, (fn, fn_args) in enumerate(calls):
            start = time.perf_counter()
            fn(*fn_args)
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) * 1e3 for t in times]


def _operand(rng: np.random.Generator, x_shape, w_shape, role: str):
    """(x, x before the padding the graph gives it, pads): an input gradient's
    output gradient is padded with zeros by the kernel's reach on every side."""
    if "d input" not in role:
        x = rng.standard_normal(x_shape).astype(np.float32)
        return x, x, (0, 0, 0, 0)
    p, q = w_shape[2] - 1, w_shape[3] - 1
    g = rng.standard_normal((*x_shape[:2], x_shape[2] - 2 * p, x_shape[3] - 2 * q))
    g = g.astype(np.float32)
    return padded(g, (p, p, q, q), (1, 1)), g, (p, p, q, q)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--models", default="lenet5,resnet18")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    lib = dnnl.library()
    print(f"oneDNN: {lib.version if lib else dnnl.why()}; numpy {np.__version__}")
    print("| model | convolution | input | weight | stride | before ms | numpy ms | oneDNN ms "
          "(formulation) | auto ms | auto / before |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for model in args.models.split(","):
        totals = [0.0, 0.0, 0.0]
        for xs, ws, stride, dilation, role in SHAPES[model]:
            x, g, pads = _operand(rng, xs, ws, role)
            w = rng.standard_normal(ws).astype(np.float32)
            hw = out_hw(xs, ws, stride, dilation)
            way = conv_way(xs, ws, stride, hw)
            key = (g.shape, ws, stride, dilation, hw, way, pads, (1, 1))
            old = previous_conv(x, w, stride, dilation, hw)
            tol = {"rtol": 1e-5, "atol": 1e-5 * float(np.abs(old).max())}
            calls = [
                (previous_conv, (x, w, stride, dilation, hw)),
                (conv_nchw, (x, w, stride, dilation, hw, np.float32)),
            ]
            chosen, _ = fast_conv(key, g, w)
            calls.append((chosen, (g, w)) if chosen is not None else calls[1])
            ways = candidates(lib, key) if lib is not None else []
            calls += [(conv, (g, w)) for conv in ways]
            for fn, fn_args in calls[1:]:
                np.testing.assert_allclose(fn(*fn_args), old, **tol)
            before, numpy_ms, auto, *each = interleaved(calls, args.rounds)
            best = min(range(len(each)), key=each.__getitem__) if each else None
            onednn = f"{each[best]:.3f} ({ways[best].how})" if best is not None else "n/a"
            for i, v in enumerate((before, numpy_ms, auto)):
                totals[i] += v
            shape = "x".join(map(str, xs)), "x".join(map(str, ws)), f"{stride[0]},{stride[1]}"
            print(f"| {model} | {role} | {' | '.join(shape)} | {before:.3f} | {numpy_ms:.3f} | "
                  f"{onednn} | {auto:.3f} | {auto / before:.2f} |")  # fmt: skip
        before, numpy_ms, auto = totals
        print(f"| {model} | all of the above | | | | {before:.3f} | {numpy_ms:.3f} | | "
              f"{auto:.3f} | {auto / before:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
