"""The compat package: every touchpoint is written for the pinned xDSL, patches are
installed only by `install()`, each patch is still needed, and no private xDSL
API is read outside the package."""

from __future__ import annotations

import ast
import dataclasses
import math
import warnings
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region
from xdsl.parser.attribute_parser import AttrParser

from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import parse_module
from mindjit.ir import compat
from mindjit.ir.compat import generic_results, hex_float_literals, string_literals
from mindjit.ir.compat.touchpoint import Touchpoint

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("touchpoint", compat.TOUCHPOINTS, ids=lambda t: t.name)
def test_touchpoint_matches_the_pinned_xdsl(touchpoint: Touchpoint) -> None:
    changed = touchpoint.changed()
    assert not changed, (
        f"xDSL changed {changed}: re-check the compat touchpoint '{touchpoint.name}' "
        f"({touchpoint.reason}); delete it if {touchpoint.delete_when}, else update "
        "its fingerprints (ir/compat/touchpoint.py: fingerprint)"
    )


@pytest.mark.parametrize("touchpoint", compat.TOUCHPOINTS, ids=lambda t: t.name)
def test_touchpoint_is_documented(touchpoint: Touchpoint) -> None:
    assert touchpoint.kind in ("patch", "private", "mirror")
    assert touchpoint.xdsl_sources and all(touchpoint.xdsl_sources.values())
    table = (ROOT / "docs" / "xdsl-compat.md").read_text()
    assert f"`{touchpoint.name}`" in table


def test_install_applies_every_patch_once() -> None:
    make_context()  # installs
    assert compat.installed() == {m.TOUCHPOINT.name for m in compat.PATCHES}
    element = AttrParser._TensorLiteralElement  # noqa: SLF001
    patched = element.to_type
    assert patched is not hex_float_literals.ORIGINAL
    compat.install()  # idempotent
    assert element.to_type is patched


def test_a_patch_is_not_applied_to_code_it_was_not_written_for() -> None:
    class FakeModule:
        TOUCHPOINT = dataclasses.replace(
            hex_float_literals.TOUCHPOINT,
            name="fake",
            xdsl_sources={"xdsl.traits.IsolatedFromAbove.verify": "000000000000"},
        )
        applied = False

        @classmethod
        def install(cls) -> None:
            cls.applied = True

    saved = compat.PATCHES
    compat.PATCHES = (*saved, FakeModule)  # type: ignore[assignment]
    try:
        with pytest.warns(RuntimeWarning, match="'fake'.*not applied"):
            compat.install()
    finally:
        compat.PATCHES = saved
        compat._installed.discard("fake")  # noqa: SLF001
    assert not FakeModule.applied


# --- each patch is still needed: these fail once upstream fixes what they patch ----


def test_hex_float_patch_still_needed() -> None:
    element = AttrParser._TensorLiteralElement  # noqa: SLF001
    text = "func.func @f() -> tensor<f32> {\n  %c = arith.constant dense<0xFF800000> : tensor<f32>\n  func.return %c : tensor<f32>\n}\n"

    def value() -> float:
        module = parse_module(text)
        const = next(op for op in module.walk() if op.name == "arith.constant")
        return const.value.get_values()[0]

    assert value() == -math.inf
    element.to_type = hex_float_literals.ORIGINAL
    try:
        upstream = value()
    finally:
        hex_float_literals.install()
    assert upstream == float(0xFF800000), "xDSL reads hex floats as bits now: drop the patch"


def test_string_literal_patch_still_needed() -> None:
    """xDSL's regex repeats a '+' group under a '*' (exponential backtracking)."""
    original = string_literals.ORIGINAL.pattern
    assert "]+|" in original and ")*" in original and "++" not in original
    unterminated = '"' + "a" * 200
    assert string_literals.PATCHED.match(unterminated) is None
    for text in ['"abc"', '"a\\"b"', '"\\0A"', '""']:
        assert (
            string_literals.PATCHED.match(text).group()
            == string_literals.ORIGINAL.match(text).group()
        )  # type: ignore[union-attr]


def test_generic_results_patch_still_needed() -> None:
    """xDSL prints a two-result linalg.generic as `-> (t1, t2)` and cannot read it back."""
    from xdsl.dialects.linalg.ops import GenericOp

    text = """
func.func @f(%x: tensor<3xf32>, %a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>,
      affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<3xf32>) outs(%a, %b : tensor<f32>, tensor<f32>) {
  ^bb0(%v: f32, %s: f32, %m: f32):
    %s1 = arith.addf %s, %v : f32
    %m1 = arith.maximumf %m, %v : f32
    linalg.yield %s1, %m1 : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  func.return %r#0, %r#1 : tensor<f32>, tensor<f32>
}
"""
    module = parse_module(text)
    assert str(parse_module(str(module))) == str(module)  # our output reads back
    GenericOp.parse = classmethod(generic_results.ORIGINAL.__func__)  # type: ignore[method-assign,assignment]
    try:
        with pytest.raises(Exception, match="->"):
            parse_module(text)
    finally:
        generic_results.install()


def test_empty_function_body_is_refused_as_xdsl_refuses_it() -> None:
    """Verifying op by op keeps xDSL's region checks (compat/structure_checks.py)."""
    from mindjit.dialects.verify import verify_located
    from mindjit.support.errors import MindjitError

    fn = func.FuncOp("f", ((), ()), Region(Block()))
    module = ModuleOp([fn])
    with pytest.raises(Exception, match="empty block in single-block region"):
        module.verify()
    with pytest.raises(MindjitError, match="empty block in single-block region"):
        verify_located(module)
    assert TensorType(f32, []) is not None


def test_dialect_resources_parser_still_needed() -> None:
    """xDSL's own parser, reading one file twice in a process, renames the handle and
    files the section's blob under yet another name: the module's handle has no blob."""
    from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
    from xdsl.dialects.builtin import Builtin, DenseResourceAttr
    from xdsl.parser import Parser

    text = (
        "%0 = arith.constant dense_resource<compat_res> : tensor<1xf32>\n"
        '{-#\n  dialect_resources: {\n    builtin: {\n      compat_res: "0x040000000000803F"\n'
        "    }\n  }\n#-}\n"
    )
    store = Builtin.get_interface(OpAsmDialectInterface)
    assert store is not None
    handles = []
    for _ in range(2):
        module = Parser(make_context(), text).parse_module()
        (attr,) = [
            op.properties.get("value") for op in module.walk() if op.name == "arith.constant"
        ]
        assert isinstance(attr, DenseResourceAttr)
        handles.append(attr.resource_handle.data)
    assert handles[1] != handles[0]
    assert not store.lookup(handles[1])  # the second module's handle has no blob
    # mindjit's parser keeps the name and the blob
    for _ in range(2):
        module = parse_module(text)
        (op,) = [op for op in module.walk() if op.name == "arith.constant"]
        assert op.properties["value"].resource_handle.data == "compat_res"


# --- private API stays in the package ----------------------------------------------

_PRIVATE = ("_current_token", "_first_op", "_next_op", "_operands", "_successors", "_args")
_LAYERS = ("support", "ir", "dialects", "passes", "backend", "driver", "frontend", "tools")


def test_no_private_xdsl_api_outside_the_compat_package() -> None:
    found = []
    for layer in _LAYERS:
        for path in (ROOT / layer).rglob("*.py"):
            if path.parent.name == "compat":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr in _PRIVATE:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    assert not found, "private xDSL API outside ir/compat:\n" + "\n".join(found)


def test_no_patch_outside_the_compat_package() -> None:
    """Assigning to an attribute of an xDSL class or module is a patch: it lives here."""
    found = []
    for layer in _LAYERS:
        for path in (ROOT / layer).rglob("*.py"):
            if path.parent.name == "compat":
                continue
            tree = ast.parse(path.read_text())
            xdsl_names = {
                alias.asname or alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xdsl")
                for alias in node.names
            }
            for node in ast.walk(tree):
                targets = node.targets if isinstance(node, ast.Assign) else []
                for t in targets:
                    if (
                        isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name)
                        and t.value.id in xdsl_names
                    ):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "xDSL patched outside ir/compat: " + ", ".join(found)


def test_warnings_of_install_are_none_for_the_pinned_xdsl() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compat.install()


def _overlap_in_two_threads(implicit_builder) -> tuple[object, list[int]]:  # type: ignore[no-untyped-def]
    """Thread A opens an implicit block, B opens one, A closes, B builds an op and
    closes; what `Operation.__post_init__` is afterwards, and the ops in B's block."""
    import threading

    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr
    from xdsl.ir import Operation

    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    block_b = Block()

    def a() -> None:
        with implicit_builder(Block()):
            a_in.set()
            b_in.wait()
        a_out.set()

    def b() -> None:
        a_in.wait()
        with implicit_builder(block_b):
            b_in.set()
            a_out.wait()
            arith.ConstantOp(IntegerAttr(5, 32))

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Operation.__post_init__, [len(block_b.ops)]


def test_implicit_builder_blocks_in_two_threads_leave_xdsl_as_found() -> None:
    from xdsl.builder import ImplicitBuilder
    from xdsl.ir import Operation

    make_context()
    before = Operation.__post_init__
    after, built = _overlap_in_two_threads(ImplicitBuilder)
    assert after is before and built == [1]


def test_implicit_builder_patch_still_needed() -> None:
    """xDSL's own ImplicitBuilder, in the same interleaving, leaves its hook installed
    for good."""
    from xdsl.ir import Operation

    from mindjit.ir.compat import implicit_builder

    before = Operation.__post_init__
    try:
        after, _ = _overlap_in_two_threads(implicit_builder.ORIGINAL)
        assert after is not before, "xDSL's implicit builder is thread-safe now: drop the patch"
    finally:
        Operation.__post_init__ = before  # type: ignore[method-assign]


# -- cse-scopes --------------------------------------------------------------------


_CSE_INPUT = """
func.func @f(%a: tensor<4xf32>, %c: i1) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e0 = tensor.empty() : tensor<4xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %k = arith.constant 2.0 : f32
    %m = arith.mulf %i, %k : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %r = scf.if %c -> (tensor<4xf32>) {
    %e1 = tensor.empty() : tensor<4xf32>
    %k1 = arith.constant 2.0 : f32
    %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
    ^bb0(%i2: f32, %o2: f32):
      %k2 = arith.constant 2.0 : f32
      %m2 = arith.mulf %i2, %k2 : f32
      linalg.yield %m2 : f32
    } -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    %e2 = tensor.empty() : tensor<4xf32>
    scf.yield %e2 : tensor<4xf32>
  }
  %e3 = tensor.empty() : tensor<4xf32>
  func.return %x, %r, %e3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
"""


def _cse_text(known_ops_class) -> str:  # type: ignore[no-untyped-def]
    import xdsl.transforms.common_subexpression_elimination as cse_module
    from xdsl.parser import Parser
    from xdsl.transforms.common_subexpression_elimination import cse

    from mindjit.dialects.context import make_context
    from mindjit.ir.compat import cse_scopes

    module = Parser(make_context(), _CSE_INPUT).parse_module()
    saved = cse_module.KnownOps
    cse_module.KnownOps = known_ops_class
    try:
        cse(module)
    finally:
        cse_module.KnownOps = saved
    del cse_scopes
    return str(module)


def test_cse_scopes_make_the_same_rewrites_as_xdsl() -> None:
    from mindjit.ir.compat import cse_scopes

    ours, theirs = _cse_text(cse_scopes.ScopedKnownOps), _cse_text(cse_scopes.ORIGINAL)
    assert ours == theirs
    assert ours.count("tensor.empty") == 1  # the ones in the if's regions found the outer one


def _constant():  # type: ignore[no-untyped-def]
    from xdsl.dialects.arith import ConstantOp
    from xdsl.dialects.builtin import IntegerAttr, i32

    return ConstantOp(IntegerAttr(1, i32))


def test_cse_scopes_do_not_copy_the_enclosing_table() -> None:
    from mindjit.ir.compat import cse_scopes

    outer = cse_scopes.ORIGINAL()
    op = _constant()
    outer[op] = op
    inner = cse_scopes.ScopedKnownOps(outer)
    assert not inner._known_ops  # noqa: SLF001 - the point: nothing copied
    assert op in inner and inner.get(op) is op and inner[op] is op
    innermost = cse_scopes.ScopedKnownOps(inner)
    assert innermost.pop(op) is op and op not in outer


def test_cse_scopes_patch_still_needed() -> None:
    """xDSL's KnownOps copies the enclosing table into each nested scope."""
    from mindjit.ir.compat import cse_scopes

    outer = cse_scopes.ORIGINAL()
    op = _constant()
    outer[op] = op
    nested = cse_scopes.ORIGINAL(outer)
    assert nested._known_ops and nested._known_ops is not outer._known_ops, (  # noqa: SLF001
        "xDSL's cse scopes no longer copy: drop the cse-scopes patch"
    )


# -- identity-hash -------------------------------------------------------------------


def test_identity_hash_keeps_identity_equality() -> None:
    """After the patch, ops, blocks and values are equal only to themselves and hash
    the same for their life: sets and dicts of them behave as before."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import f32
    from xdsl.ir import Block

    from mindjit.ir.compat import identity_hash

    make_context()  # installs
    for cls in identity_hash.CLASSES:
        assert cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__
    block = Block(arg_types=[f32])
    a, b = (arith.AddfOp(block.args[0], block.args[0]) for _ in range(2))
    assert a == a and a != b and not (a == b) and a != 3
    assert len({a, b, a}) == 2 and {a: 1}[a] == 1 and b not in {a: 1}
    value = a.results[0]
    assert value == value and value != b.results[0] and hash(value) == hash(value)
    assert len({*a.operands, *a.operands}) == 1  # the same block argument twice
    use = next(iter(block.args[0].uses))
    assert use == use and {use: 1}[use] == 1


def test_identity_hash_patch_still_needed() -> None:
    """xDSL defines the identity methods in Python on each of the four classes."""
    import types

    from mindjit.ir.compat import identity_hash

    for (cls, name), method in identity_hash.ORIGINALS.items():
        assert isinstance(method, types.FunctionType), (cls, name)


# -- verify-memo -------------------------------------------------------------------


def test_verify_memo_remembers_only_reviewed_signature_only_classes() -> None:
    from xdsl.dialects import arith, func, scf
    from xdsl.dialects.linalg import ops as linalg
    from xdsl.dialects.ml_program import GlobalOp

    from mindjit.ir.compat.verify_memo import _is_memoizable

    for cls in (arith.AddfOp, arith.CmpfOp, linalg.GenericOp, linalg.YieldOp, linalg.MatmulOp):
        assert _is_memoizable(cls), cls
    for cls in (arith.ConstantOp, scf.YieldOp, func.ReturnOp, func.FuncOp, GlobalOp):
        assert not _is_memoizable(cls), cls


_GENERIC = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %e = tensor.empty() : tensor<4xf32>
  %x = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {{
  ^bb0(%i: {arg}, %o: f32):
    %m = arith.addf %o, %o : f32
    linalg.yield %m : f32
  }} -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}}
"""


def test_verify_memo_keeps_every_verdict() -> None:
    """A signature that passed is not checked again, but another signature is: a
    wrong body argument type is still found after the right one passed."""
    import pytest
    from xdsl.parser import Parser

    from mindjit.dialects.context import make_context
    from mindjit.dialects.verify import verify_located
    from mindjit.ir.compat import verify_memo
    from mindjit.support.errors import MindjitError

    ctx = make_context()
    good = Parser(ctx, _GENERIC.format(arg="f32")).parse_module()
    verify_located(good)
    generic = next(op for op in good.walk() if op.name == "linalg.generic")
    assert verify_memo.passed(verify_memo.signature(generic), generic)
    verify_located(good)  # again, from the memo
    bad = Parser(ctx, _GENERIC.format(arg="f16")).parse_module()
    with pytest.raises(MindjitError, match="bb argument #0"):
        verify_located(bad)


def test_verify_memo_finds_equal_attributes_by_value() -> None:
    """The memo's key takes attributes by identity; an op whose attributes are equal
    to a verified op's but other objects (a second parse) finds the verdict by value,
    and from then on by its own identity key."""
    from xdsl.parser import Parser

    from mindjit.dialects.context import make_context
    from mindjit.dialects.verify import verify_located
    from mindjit.ir.compat import verify_memo

    ctx = make_context()
    verify_memo.forget()
    first, second = (Parser(ctx, _GENERIC.format(arg="f32")).parse_module() for _ in range(2))
    verify_located(first)
    a, b = (next(op for op in m.walk() if op.name == "linalg.generic") for m in (first, second))
    assert a.properties["indexing_maps"] is not b.properties["indexing_maps"]
    key = verify_memo.signature(b)
    assert key != verify_memo.signature(a)
    assert key not in verify_memo._by_identity  # noqa: SLF001 - the point: found by value
    assert verify_memo.passed(key, b)
    assert key in verify_memo._by_identity  # noqa: SLF001


# -- dense-literal-types -------------------------------------------------------------


def test_dense_literal_types_give_xdsls_verdicts() -> None:
    import pytest

    from mindjit.dialects.parsing import parse_module
    from mindjit.support.errors import MindjitError

    ok = parse_module(
        '%c = "arith.constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi32>'
    )
    assert "dense<1> : tensor<2xi32>" in str(ok)
    for text, message in (
        ("dense<1> : i32", "Expected memref, vector or tensor type"),
        ("dense<1> : tensor<?xi32>", "should have a static shape"),
    ):
        with pytest.raises(MindjitError, match=message):
            parse_module(f'%c = "arith.constant"() <{{value = {text}}}> : () -> tensor<2xi32>')


def test_dense_literal_types_still_needed() -> None:
    """xDSL's method converts the type hint into a constraint on each call."""
    from xdsl.dialects.builtin import AnyFloat, ComplexType, IndexType, IntegerType
    from xdsl.dialects.builtin import RankedStructure as RS
    from xdsl.irdl import base

    hint = RS[IntegerType | IndexType | AnyFloat | ComplexType]
    assert base(hint) is not base(hint), "xDSL caches the constraint now: drop the mixin"
