"""What each xDSL compat touchpoint saves: xDSL 0.74's own way against mindjit's.

The workload is the GPT-like model of examples/gpt.py with N Blocks (default 64,
hidden 64: the op counts do not depend on the width), compiled without lazy
inline (the large module the touchpoints were written for) and its lowered
module; the string-literal row lexes an unterminated literal. For each
touchpoint of `mindjit.ir.compat` (docs/xdsl-compat.md) the script times
xDSL's path and mindjit's on the same input, best of --repeats, and prints the
ratio. Fixes of wrong behaviour (not speed) are listed with what goes wrong.

    .venv/bin/python benchmarks/compat_costs.py [--blocks 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))


def best(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def lowered_module(blocks: int, lazy: bool):  # type: ignore[no-untyped-def]
    from gpt import GPT, GPTConfig

    import mindjit as ms
    from mindjit.frontend.graph.api import compile_cell

    ms.set_context(mode=ms.GRAPH_MODE)
    net = GPT(GPTConfig(blocks, hidden=64, seq=8), lazy=lazy)
    x = ms.Tensor(np.zeros((1, 8, 64), np.float32))
    return compile_cell(net, (x,)).module


def rows(blocks: int, repeats: int) -> list[tuple[str, str, float, float]]:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import StringAttr, SymbolRefAttr, TensorType, f32
    from xdsl.ir import Block
    from xdsl.parser import Parser
    from xdsl.printer import Printer
    from xdsl.traits import SymbolTable

    from mindjit.dialects.context import make_context
    from mindjit.dialects.mindir import ParameterOp
    from mindjit.ir.compat import identity_hash, string_literals
    from mindjit.ir.compat.block_args import detached_arg, set_args
    from mindjit.ir.compat.direct_printer import DirectPrinter
    from mindjit.ir.compat.leaf_ops import leaf_op
    from mindjit.ir.compat.linked_ops import block_ops, raw_operands
    from mindjit.ir.compat.parsed_types import ParsedTypeMemo
    from mindjit.ir.compat.unchecked_attrs import unchecked
    from mindjit.ir.symbols import Symbols

    found: list[tuple[str, str, float, float]] = []

    def row(name: str, what: str, xdsl_way: Callable[[], object], ours: Callable[[], object]):
        found.append((name, what, best(xdsl_way, repeats), best(ours, repeats)))

    for lazy, n in ((False, blocks), (True, 4 * blocks)):
        module = lowered_module(n, lazy)
        model = f"{'lazy' if lazy else 'no-lazy'} N={n}"
        top = module.body.block
        graphs = [op for op in block_ops(top) if isinstance(op, func.FuncOp)]
        every = [o for g in graphs for o in g.walk()]
        named = [o for o in every if "global" in o.properties or o.name == "func.call"]

        def with_symbols(named=named) -> None:  # type: ignore[no-untyped-def]
            symbols = Symbols()
            for o in named:
                symbols.lookup(o, o.properties.get("global") or o.properties["callee"])

        row(
            "(symbols: replaced the memo patch)",
            f"{model}: look up the symbols of {len(named)} loads, stores and calls",
            lambda named=named: [
                SymbolTable.lookup_symbol(o, o.properties.get("global") or o.properties["callee"])
                for o in named
            ],
            with_symbols,
        )
    module = lowered_module(blocks, False)
    top = module.body.block
    graphs = [op for op in block_ops(top) if isinstance(op, func.FuncOp)]
    every = [o for g in graphs for o in g.walk()]
    row(
        "linked-ops",
        f"list the module's {len(block_ops(top))} top-level ops, 100 times",
        lambda: [list(top.ops) for _ in range(100)],
        lambda: [block_ops(top) for _ in range(100)],
    )
    row(
        "linked-ops",
        f"read the operands of {len(every)} ops, 10 times",
        lambda: [tuple(o.operands) for _ in range(10) for o in every],
        lambda: [raw_operands(o) for _ in range(10) for o in every],
    )

    def keyed_by_ops(ops=every) -> None:  # type: ignore[no-untyped-def]
        table = {op: i for i, op in enumerate(ops)}
        for _ in range(10):
            for op in ops:
                table[op]

    def with_xdsls_identity_methods() -> None:
        for (cls, name), method in identity_hash.ORIGINALS.items():
            setattr(cls, name, method)
        try:
            keyed_by_ops()
        finally:
            identity_hash.install()

    row(
        "identity-hash",
        f"a dict of the {len(every)} ops, each looked up 10 times",
        with_xdsls_identity_methods,
        keyed_by_ops,
    )
    text = _printed(module, Printer)
    ctx = make_context()

    class MemoParser(ParsedTypeMemo, Parser):
        pass

    row(
        "parsed-types",
        f"parse the printed module ({len(every)} ops, {len(text) >> 10} KiB)",
        lambda: Parser(ctx, text).parse_module(),
        lambda: MemoParser(ctx, text).parse_module(),
    )
    row(
        "direct-printer",
        f"print the module ({len(every)} ops)",
        lambda: _printed(module, Printer),
        lambda: _printed(module, DirectPrinter),
    )
    t = TensorType(f32, [4])
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    value = DenseIntOrFPElementsAttr.from_list(t, [0.0] * 4)
    names = [StringAttr(f"w{i}") for i in range(12 * 4 * blocks)]  # the lazy model's
    row(
        "leaf-ops",
        f"build {len(names)} mindir.parameter declarations",
        lambda: [
            ParameterOp.create(properties={"sym_name": s, "type": t, "initial_value": value})
            for s in names
        ],
        lambda: [
            leaf_op(ParameterOp, {"sym_name": s, "type": t, "initial_value": value}) for s in names
        ],
    )

    def insert_one_by_one() -> None:
        b = Block()
        for _ in names:
            b.insert_arg(t, len(b.args))

    def set_at_once() -> None:
        b = Block()
        set_args(b, [detached_arg(b, t) for _ in names])

    row(
        "block-args",
        f"give an entry graph {len(names)} Parameter arguments",
        insert_one_by_one,
        set_at_once,
    )
    row(
        "unchecked-attributes",
        f"build {len(names)} symbol references",
        lambda: [SymbolRefAttr(s) for s in names],
        lambda: [
            unchecked(SymbolRefAttr, root_reference=s, nested_references=_EMPTY) for s in names
        ],
    )

    # cse-scopes, verify-memo and dense-literal-types on the no-lazy lowered graph
    module = lowered_module(blocks, False)
    text = str(module)
    ctx = make_context()
    found.extend(_pass_level_rows(module, text, ctx, blocks, repeats))

    unterminated = '"' + "a" * 22
    row(
        "string-literal-regex",
        "lex an unterminated string of 22 characters",
        lambda: string_literals.ORIGINAL.match(unterminated),
        lambda: string_literals.PATCHED.match(unterminated),
    )
    return found


def _pass_level_rows(module, text: str, ctx, blocks: int, repeats: int) -> list:  # type: ignore[no-untyped-def]
    """Rows timed on fresh copies of the lowered graph (the work changes its input)."""
    import xdsl.transforms.common_subexpression_elimination as cse_module
    from xdsl.dialects import func
    from xdsl.parser import Parser
    from xdsl.transforms.common_subexpression_elimination import cse

    from mindjit.dialects.verify import verify_located
    from mindjit.ir.compat import cse_scopes, verify_memo
    from mindjit.ir.compat.dense_literal_types import DenseLiteralTypes
    from mindjit.ir.compat.parsed_types import ParsedTypeMemo

    n_ops = sum(1 for _ in module.walk())

    def cse_with(known_ops) -> float:  # type: ignore[no-untyped-def]
        times = []
        for _ in range(repeats):
            copy = module.clone()
            saved, cse_module.KnownOps = cse_module.KnownOps, known_ops
            start = time.perf_counter()
            for f in copy.ops:
                if isinstance(f, func.FuncOp) and f.body.blocks:
                    cse(f)
            times.append(time.perf_counter() - start)
            cse_module.KnownOps = saved
        return min(times)

    def verify_with(memo: bool) -> float:
        signature = verify_memo.signature
        times = []
        for _ in range(repeats):
            verify_memo.forget()  # each run starts with no verdicts
            if not memo:
                verify_memo.signature = lambda op: None  # type: ignore[assignment]
            start = time.perf_counter()
            verify_located(module)
            times.append(time.perf_counter() - start)
            verify_memo.signature = signature  # type: ignore[assignment]
        return min(times)

    class XdslDense(ParsedTypeMemo, Parser):
        pass

    class OurDense(ParsedTypeMemo, DenseLiteralTypes, Parser):
        pass

    literals = text.count("dense<")
    return [
        (
            "cse-scopes",
            f"cse of the lowered {blocks}-Block graph ({n_ops} ops)",
            cse_with(cse_scopes.ORIGINAL),
            cse_with(cse_scopes.ScopedKnownOps),
        ),
        (
            "verify-memo",
            f"verify the lowered {blocks}-Block graph ({n_ops} ops)",
            verify_with(False),
            verify_with(True),
        ),
        (
            "dense-literal-types",
            f"parse the lowered {blocks}-Block graph ({literals} dense literals)",
            best(lambda: XdslDense(ctx, text).parse_module(), repeats),
            best(lambda: OurDense(ctx, text).parse_module(), repeats),
        ),
    ]


def _printed(module, printer_class) -> str:  # type: ignore[no-untyped-def]
    from io import StringIO

    out = StringIO()
    printer_class(stream=out).print_op(module)
    return out.getvalue()


_EMPTY = None


def main() -> int:
    global _EMPTY
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from xdsl.dialects.builtin import ArrayAttr

    _EMPTY = ArrayAttr([])
    print(f"GPT-like model, {args.blocks} Blocks, no lazy inline; best of {args.repeats}\n")
    print("| touchpoint | work | xDSL 0.74 s | mindjit s | xDSL / mindjit |")
    print("|---|---|---|---|---|")
    for name, what, slow, fast in rows(args.blocks, args.repeats):
        print(f"| {name} | {what} | {slow:.4f} | {fast:.4f} | {slow / max(fast, 1e-9):.1f} |")
    print()
    print("Fixes of wrong behaviour (not timed):")
    print(
        "- hex-float-literals: xDSL reads dense<0xFF800000> : tensor<f32> as 4286578688.0 (MLIR: -inf)"
    )
    print("- structure-checks: op-by-op verification would accept an empty func.func body")
    return 0


if __name__ == "__main__":
    sys.exit(main())
