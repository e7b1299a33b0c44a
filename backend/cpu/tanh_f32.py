"""mindjit's float32 tanh: one recipe of IEEE operations that numpy and the
generated loop nests both run, so every path gives the same bits.

Why not np.tanh: numpy's float32 tanh has no SIMD loop on an AVX2 machine
(166 us for 64k elements, 2.6 ns each), and a loop nest cannot call it without
cutting its body into stages around a whole-array numpy call (codegen_llvm.py).
It was the largest cost after the matmuls in the transformer workloads of
benchmarks/vs_pytorch.py (the GELU of the 8-Block forward: 1.36 of 16.2 ms).
Computing tanh in the loop nest instead gives other bits than np.tanh
(numpy's float32 tanh is not correctly rounded: 1.37 ulp at most, a third of
its results differ from the correctly rounded ones), and PyNative, which runs
tanh alone, must give graph mode's bits. So mindjit's float32 tanh is this
recipe everywhere: PyNative's, graph mode's, constant folds; float16 and
float64 keep np.tanh.

The recipe (`_RECIPE`), |x| = a:
- a < 0.8: a + a^3 P(a^2), P a degree-5 polynomial fitted to (tanh(a) - a) / a^3
  on [0, 0.64] (Lawson-reweighted least squares on Chebyshev nodes in mpmath,
  coefficients rounded to float32; 7e-8 relative; degree 6 was no more accurate
  overall, degree 4 reached 3.7 ulp);
- a >= 0.8: 1 - 2 / (e + 1), e = exp(2a) in float32: k = rint(2a log2(e)),
  r = 2a - k ln2 (Cody-Waite: ln2's high part has 16 bits, so k ln2_hi is
  exact), e = 2^k (1 + r + ... + r^7/7!); 2a is clamped to 18.2 first, where
  tanh is 1 in float32;
- the sign of x put back (tanh(-0) is -0), NaN kept.
Every step is an IEEE-exact float32 operation (no fused multiply-add: LLVM
contracts only with a fast-math flag, which the loop nests never set; 2^k is
exact either way: numpy's ldexp, the loop nest's exponent bits), so numpy and
the loop nest agree bit for bit (tests/backend/test_tanh_f32.py checks both on
every input class).

Accuracy against float64's tanh, every 61st float32 in [0, 9.2]: at most
1.06 ulp (np.tanh: 1.37), above 1 ulp for 1e-6 of the inputs.

Speed (64k elements, one thread, `benchmarks/fused_codegen.py --only tanh`): the
recipe's whole-array kernel 90-94 us, np.tanh 168-175 us; fused into a loop
nest it costs about as much (the 8-Block forward's GELU bodies 1.80 -> 1.05 ms).
numpy running the recipe costs about 5x np.tanh (~850 us: 48 whole-array
calls), paid only while the kernel compiles in the background (~45 ms from the
planning of the first op that uses it) or if LLVM refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_F = np.float32

#: P's coefficients, constant term first (see the module doc)
_POLY = (
    _F(-0.3333333),
    _F(0.13333063),
    _F(-0.053918038),
    _F(0.02152155),
    _F(-0.007734807),
    _F(0.0017630907),
)
#: 1/k! for exp's Taylor polynomial on |r| <= ln2/2, constant term first
_EXP = (
    _F(1.0),
    _F(1.0),
    _F(0.5),
    _F(0.16666667),
    _F(0.041666668),
    _F(0.008333334),
    _F(0.0013888889),
    _F(0.0001984127),
)
SMALL = _F(0.8)  # below: the polynomial; at or above: exp
CLAMP = _F(9.1)  # tanh(9.1) rounds to 1 in float32
LOG2E = _F(1.442695)
LN2_HI = _F(0.69314575)  # 0x3f317200: 16 significant bits
LN2_LO = _F(1.4286068e-06)


def _horner(out: str, var: str, coefficients: tuple, tag: str) -> list[tuple]:
    """Steps computing out = sum c[k] var^k by Horner's rule."""
    steps: list[tuple] = []
    acc: Any = coefficients[-1]
    for k in range(len(coefficients) - 2, -1, -1):
        steps.append((f"{tag}m{k}", "mul", acc, var))
        name = out if k == 0 else f"{tag}a{k}"
        steps.append((name, "add", f"{tag}m{k}", coefficients[k]))
        acc = name
    return steps


#: (result, operation, *operands): an operand is a step's result name, "x", or a
#: float32 constant; the last step's result is tanh(x)
_RECIPE: tuple[tuple, ...] = (
    ("a", "abs", "x"),
    ("s", "mul", "a", "a"),
    *_horner("p", "s", _POLY, "p"),
    ("a3", "mul", "a", "s"),
    ("a3p", "mul", "a3", "p"),
    ("near", "add", "a", "a3p"),
    ("in_range", "lt", "a", CLAMP),
    ("ac", "select", "in_range", "a", CLAMP),
    ("y", "add", "ac", "ac"),
    ("ky", "mul", "y", LOG2E),
    ("k", "rint", "ky"),
    ("khi", "mul", "k", LN2_HI),
    ("r0", "sub", "y", "khi"),
    ("klo", "mul", "k", LN2_LO),
    ("r", "sub", "r0", "klo"),
    *_horner("m", "r", _EXP, "e"),
    ("scale", "pow2", "k"),
    ("e", "mul", "m", "scale"),
    ("e1", "add", "e", _F(1.0)),
    ("q", "div", _F(2.0), "e1"),
    ("far", "sub", _F(1.0), "q"),
    ("is_near", "lt", "a", SMALL),
    ("t", "select", "is_near", "near", "far"),
    ("signed", "copysign", "t", "x"),
    ("nan", "isnan", "x"),
    ("tanh", "select", "nan", "x", "signed"),
)


def _pow2(k: Any) -> Any:
    """2^k for an integral float32 k in [0, 27]: its exponent bits, as the loop nest."""
    return ((np.asarray(k).astype(np.int32) + np.int32(127)) << np.int32(23)).view(np.float32)


def _select(c: Any, a: Any, b: Any) -> Any:
    """c ? a : b by bits (np.where on an unpredictable mask costs 27x a multiply)."""
    mask = np.negative(np.asarray(c).astype(np.int32))
    bits = np.asarray(a, np.float32).view(np.int32) & mask
    bits |= np.asarray(b, np.float32).view(np.int32) & ~mask
    return bits.view(np.float32)


_NUMPY: dict[str, Callable[..., Any]] = {
    "abs": np.abs,
    "mul": np.multiply,
    "add": np.add,
    "sub": np.subtract,
    "div": np.divide,
    "lt": np.less,
    "select": _select,
    "rint": np.rint,
    "pow2": _pow2,
    "copysign": np.copysign,
    "isnan": np.isnan,
}


def _last_uses() -> tuple[tuple[str, ...], ...]:
    """For each step, the values no later step reads (freed after it: 48 whole-array
    temporaries kept alive to the end cost fresh pages, 8.2 -> 1.7 ms for 64k elements)."""
    last: dict[str, int] = {}
    for i, (_, _, *args) in enumerate(_RECIPE):
        for a in args:
            if isinstance(a, str):
                last[a] = i
    return tuple(
        tuple(a for a, at in last.items() if at == i and a not in ("x", "tanh"))
        for i in range(len(_RECIPE))
    )


_DEAD = _last_uses()


def tanh(x: Any) -> Any:
    """tanh of a float32 array or scalar by the recipe, in numpy (the module doc)."""
    values: dict[str, Any] = {"x": x}
    # the branch not taken overflows or divides inf by inf on some elements
    with np.errstate(all="ignore"):
        for (name, op, *args), dead in zip(_RECIPE, _DEAD):
            values[name] = _NUMPY[op](*[values[a] if isinstance(a, str) else a for a in args])
            for a in dead:
                del values[a]
    result = values["tanh"]
    if isinstance(x, np.ndarray):
        return result
    return _F(result)


def emit(
    put: Callable[[str], None], tmp: Callable[[], str], declare: Callable[[str], None], x: str
) -> str:
    """LLVM IR computing tanh of the float `x` by the recipe (`put` writes a line,
    `tmp` names a value, `declare` adds an intrinsic's declaration); the result's name."""
    names: dict[str, str] = {"x": x}

    def val(a: Any) -> str:
        if isinstance(a, str):
            return names[a]
        return f"0x{np.float64(a).view(np.uint64):016X}"  # a float constant, exact

    def call(fn: str, *args: str) -> str:
        r = tmp()
        sig = ", ".join("float" for _ in args)
        declare(f"declare float @llvm.{fn}.f32({sig})")
        put(f"{r} = call float @llvm.{fn}.f32({', '.join(f'float {a}' for a in args)})")
        return r

    binary = {"mul": "fmul", "add": "fadd", "sub": "fsub", "div": "fdiv"}
    for name, op, *args in _RECIPE:
        ops = [val(a) for a in args]
        if op in binary:
            r = tmp()
            put(f"{r} = {binary[op]} float {ops[0]}, {ops[1]}")
        elif op == "abs":
            r = call("fabs", ops[0])
        elif op == "rint":
            r = call("roundeven", ops[0])
        elif op == "copysign":
            r = call("copysign", ops[0], ops[1])
        elif op == "lt":
            r = tmp()
            put(f"{r} = fcmp olt float {ops[0]}, {ops[1]}")
        elif op == "isnan":
            r = tmp()
            put(f"{r} = fcmp uno float {ops[0]}, 0.0")
        elif op == "select":
            r = tmp()
            put(f"{r} = select i1 {ops[0]}, float {ops[1]}, float {ops[2]}")
        elif op == "pow2":  # 2^k by its exponent bits: k is in [0, 27] (the module doc)
            ki, kb, ks, r = tmp(), tmp(), tmp(), tmp()
            put(f"{ki} = fptosi float {ops[0]} to i32")
            put(f"{kb} = add i32 {ki}, 127")
            put(f"{ks} = shl i32 {kb}, 23")
            put(f"{r} = bitcast i32 {ks} to float")
        else:  # pragma: no cover - _RECIPE and this chain list the same operations
            raise AssertionError(op)
        names[name] = r
    return names["tanh"]
