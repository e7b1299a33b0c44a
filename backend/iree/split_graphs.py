"""Lazy inline on IREE: each reused graph is its own IREE module, compiled once.

IREE inlines every call, so a model of N lazy-inline Blocks reached IREE as N
copies of the Block and its compile time grew with N (GPT-like, hidden 256:
1.6 s at N=16, 4.3 s at N=64), which is what `@lazy_inline` exists to stop. A
graph that carries `mindir.lazy_inline` and is called from two or more sites
therefore becomes a module of its own, `module @mj_<hash>` exporting the graph,
and every caller calls it as an import (`@mj_<hash>.<graph>`); the runtime
links the modules when it loads them. The Block is compiled once whatever N is
(and once per process for equal text: `toolchain.compile_vmfb` keeps the last
compiles), and the entry module holds only the calls. On the local-sync driver
the calls cost no measurable run time (GPT N=16: 29.1 ms split, 30.1 ms inlined,
on a loaded machine).

The functions are pure by then (prepare.py made Parameters arguments), so a
module boundary changes nothing but where the code lives. Print imports
(`@mindjit.print_<n>`) a graph uses are declared in its module too.
"""

from __future__ import annotations

import hashlib

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr

from mindjit.ir.walk import walk_ops

LAZY_INLINE_ATTR = "mindir.lazy_inline"


def split_shared_graphs(module: ModuleOp, entries: set[str]) -> list[tuple[str, str]]:
    """Move every reused lazy-inline graph of `module` into a module of its own;
    `module` keeps imports in their place. Returns (module name, text), callees
    first (the order the runtime must load them in)."""
    body = module.body.block
    functions = {
        op.sym_name.data: op
        for op in body.ops
        if isinstance(op, func.FuncOp) and not op.is_declaration
    }
    sites: dict[str, int] = {}
    for op in walk_ops(module):
        if isinstance(op, func.CallOp):
            callee = op.callee.root_reference.data
            sites[callee] = sites.get(callee, 0) + 1
    shared = [
        name
        for name, fn in functions.items()
        if LAZY_INLINE_ATTR in fn.attributes and sites.get(name, 0) >= 2 and name not in entries
    ]
    if not shared:
        return []
    declarations = {
        op.sym_name.data: op for op in body.ops if isinstance(op, func.FuncOp) and op.is_declaration
    }
    imported: dict[str, str] = {}  # graph -> its import symbol
    parts: list[tuple[str, str]] = []
    for name in _callees_first(shared, functions):
        text = _module_text(functions[name], imported, declarations, functions)
        vm_name = "mj_" + hashlib.sha256(text.encode()).hexdigest()[:16]
        parts.append(
            (vm_name, text.replace("builtin.module {", f"builtin.module @{vm_name} {{", 1))
        )
        imported[name] = f"{vm_name}.{name}"
    for name in shared:
        fn = functions[name]
        decl = func.FuncOp.external(
            imported[name], list(fn.function_type.inputs.data), list(fn.function_type.outputs.data)
        )
        body.insert_op_before(decl, fn)
        body.erase_op(fn)
    _call_imports(module, imported)
    return parts


def _callees_first(shared: list[str], functions: dict[str, func.FuncOp]) -> list[str]:
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for op in walk_ops(functions[name]):
            if isinstance(op, func.CallOp) and op.callee.root_reference.data in shared:
                visit(op.callee.root_reference.data)
        order.append(name)

    for name in shared:
        visit(name)
    return order


def _module_text(
    fn: func.FuncOp,
    imported: dict[str, str],
    declarations: dict[str, func.FuncOp],
    functions: dict[str, func.FuncOp],
) -> str:
    """The graph alone in a module, public, with the imports it calls declared and
    the (not shared) functions it calls copied in, private."""
    graph = fn.clone()
    graph.sym_visibility = None
    graph.attributes.pop(LAZY_INLINE_ATTR, None)  # its text is the key: no Python reprs
    needed: dict[str, func.FuncOp] = {}
    pending = [graph]
    while pending:
        current = pending.pop()
        for op in walk_ops(current):
            if not isinstance(op, func.CallOp):
                continue
            callee = op.callee.root_reference.data
            if callee in needed:
                continue
            if callee in imported:
                needed[callee] = func.FuncOp.external(
                    imported[callee], [v.type for v in op.operands], [r.type for r in op.results]
                )
            elif callee in declarations:
                needed[callee] = declarations[callee].clone()
            elif callee in functions:
                helper = functions[callee].clone()
                helper.sym_visibility = StringAttr("private")
                helper.attributes.pop(LAZY_INLINE_ATTR, None)
                needed[callee] = helper
                pending.append(helper)
    sub = ModuleOp([])
    for op in [*needed.values(), graph]:
        _call_imports(op, imported)
        sub.body.block.add_op(op)
    return str(sub)


def _call_imports(root: ModuleOp | func.FuncOp, imported: dict[str, str]) -> None:
    for op in walk_ops(root):
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in imported:
            op.properties["callee"] = SymbolRefAttr(imported[op.callee.root_reference.data])
