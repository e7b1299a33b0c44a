"""dialects/fast_verify.py: the fast checks of parameter / get_parameter / ml_program.global /
global_load / func.call give the same verdict as xDSL's full verifier, and the same located message as
`verify_located` without them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects.builtin import IntegerAttr, StringAttr, SymbolRefAttr, UnitAttr, i64
from xdsl.dialects.func import CallOp
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects import fast_verify
from mindjit.dialects.mindir.effects import GetParameterOp, ParameterOp
from mindjit.dialects.ml_program_ext import GlobalLoadOp
from mindjit.dialects.parsing import parse_module
from mindjit.dialects.verify import verify_located
from mindjit.support.errors import MindjitError

VALID = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @big = dense_resource<fast_verify_blob> : tensor<4xf32>
mindir.parameter @tagged = dense<0> : tensor<i32> attributes {note = "kept"}
ml_program.global private mutable @g(dense<0> : tensor<i32>) : tensor<i32>
ml_program.global private mutable @e : tensor<2xf32>
ml_program.global private @k(dense<3> : tensor<i32>) : tensor<i32>
func.func @f(%u: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %q = mindir.get_parameter @big : !mindir.ref<tensor<4xf32>>
  %t = mindir.get_parameter @tagged : !mindir.ref<tensor<i32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  %g = ml_program.global_load @g : tensor<i32>
  %e = ml_program.global_load @e : tensor<2xf32>
  %k = ml_program.global_load_const @k : tensor<i32>
  %c = func.call @callee(%l, %g) : (tensor<2xf32>, tensor<i32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
func.func @callee(%a: tensor<2xf32>, %b: tensor<i32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
"""

_PARAM = "mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>\n"
_GLOBAL = "ml_program.global private mutable @g(dense<0> : tensor<i32>) : tensor<i32>\n"


_CALLEE = "func.func @h(%x: i32) {\n  func.return\n}\n"


def _in_func(body: str, decls: str = _PARAM + _GLOBAL, ret: bool = True) -> str:
    end = "  func.return\n" if ret else ""
    return f"{decls}func.func @f() {{\n  {body}\n{end}}}\n"


# Invalid modules written as text (parsed without verification).
INVALID_TEXT = {
    "get_parameter of a missing symbol": _in_func(
        "%p = mindir.get_parameter @missing : !mindir.ref<tensor<2xf32>>"
    ),
    "get_parameter of another type": _in_func(
        "%p = mindir.get_parameter @w : !mindir.ref<tensor<3xf32>>"
    ),
    "get_parameter of another element type": _in_func(
        "%p = mindir.get_parameter @w : !mindir.ref<tensor<2xf16>>"
    ),
    "get_parameter of a function": _in_func(
        "%p = mindir.get_parameter @f : !mindir.ref<tensor<2xf32>>"
    ),
    "get_parameter of a global": _in_func(
        "%p = mindir.get_parameter @g : !mindir.ref<tensor<i32>>"
    ),
    "get_parameter with a tensor result": _in_func(
        '%p = "mindir.get_parameter"() <{parameter = @w}> : () -> tensor<2xf32>'
    ),
    "get_parameter with two results": _in_func(
        '%p:2 = "mindir.get_parameter"() <{parameter = @w}> : () -> '
        "(!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>)"
    ),
    "get_parameter with an extra property": _in_func(
        '%p = "mindir.get_parameter"() <{parameter = @w, extra = 1 : i64}> : () -> '
        "!mindir.ref<tensor<2xf32>>"
    ),
    "get_parameter without its property": _in_func(
        '%p = "mindir.get_parameter"() : () -> !mindir.ref<tensor<2xf32>>'
    ),
    "get_parameter with a string property": _in_func(
        '%p = "mindir.get_parameter"() <{parameter = "w"}> : () -> !mindir.ref<tensor<2xf32>>'
    ),
    "get_parameter ending a block": _in_func(
        "%p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>", ret=False
    ),
    "parameter whose value type differs": '"mindir.parameter"() <{sym_name = "w", '
    "type = tensor<2xf32>, initial_value = dense<0.0> : tensor<3xf32>}> : () -> ()\n",
    "parameter whose resource type differs": '"mindir.parameter"() <{sym_name = "w", '
    "type = tensor<2xf32>, initial_value = dense_resource<fv_other> : tensor<2xf16>}> : () -> ()\n",
    "parameter with a non-dense value": '"mindir.parameter"() <{sym_name = "w", '
    "type = tensor<2xf32>, initial_value = 1.0 : f32}> : () -> ()\n",
    "parameter with an extra property": '"mindir.parameter"() <{sym_name = "w", '
    "type = tensor<2xf32>, initial_value = dense<0.0> : tensor<2xf32>, extra}> : () -> ()\n",
    "parameter without a type": '"mindir.parameter"() <{sym_name = "w", '
    "initial_value = dense<0.0> : tensor<2xf32>}> : () -> ()\n",
    "parameter with a result": '%0 = "mindir.parameter"() <{sym_name = "w", '
    "type = tensor<2xf32>, initial_value = dense<0.0> : tensor<2xf32>}> : () -> i32\n",
    "global_load of another type": _in_func("%g = ml_program.global_load @g : tensor<2xi32>"),
    "global_load of a missing global": _in_func("%g = ml_program.global_load @nope : tensor<i32>"),
    "global_load of a parameter": _in_func("%g = ml_program.global_load @w : tensor<2xf32>"),
    "global_load with an extra property": _in_func(
        '%g = "ml_program.global_load"() <{global = @g, extra = 1 : i64}> : () -> tensor<i32>'
    ),
    "global_load ending a block": _in_func(
        "%g = ml_program.global_load @g : tensor<i32>", ret=False
    ),
    "global with an extra property": '"ml_program.global"() <{sym_name = "g", '
    'type = tensor<i32>, is_mutable, sym_visibility = "private", extra = 1 : i64}> : () -> ()\n',
    "global with a string is_mutable": '"ml_program.global"() <{sym_name = "g", '
    'type = tensor<i32>, is_mutable = "yes", sym_visibility = "private"}> : () -> ()\n',
    "global without visibility": '"ml_program.global"() <{sym_name = "g", '
    "type = tensor<i32>, is_mutable}> : () -> ()\n",
    "call of a missing function": _in_func("func.call @nowhere() : () -> ()"),
    "call of a parameter": _in_func("func.call @w() : () -> ()"),
    "call with a wrong operand type": _CALLEE
    + _in_func(
        '%c = "arith.constant"() <{value = 1.0 : f32}> : () -> f32\n'
        "  func.call @h(%c) : (f32) -> ()"
    ),
    "call with too many results": _CALLEE
    + _in_func(
        '%c = "arith.constant"() <{value = 1 : i32}> : () -> i32\n'
        "  %r = func.call @h(%c) : (i32) -> i32"
    ),
    "call with a nested callee": _CALLEE + _in_func('"func.call"() <{callee = @h::@x}> : () -> ()'),
    "call with an extra property": _CALLEE
    + _in_func(
        '%c = "arith.constant"() <{value = 1 : i32}> : () -> i32\n'
        '  "func.call"(%c) <{callee = @h, extra = 1 : i64}> : (i32) -> ()'
    ),
    "call ending a block": _CALLEE
    + _in_func(
        '%c = "arith.constant"() <{value = 1 : i32}> : () -> i32\n  func.call @h(%c) : (i32) -> ()',
        ret=False,
    ),
}


def _first(module: Operation, cls: type) -> Operation:
    return next(op for op in module.walk() if isinstance(op, cls))


def _point_at(name: str) -> Callable[[Operation], None]:
    def mutate(module: Operation) -> None:
        _first(module, GetParameterOp).properties["parameter"] = SymbolRefAttr(name)

    return mutate


def _load_at(name: str) -> Callable[[Operation], None]:
    def mutate(module: Operation) -> None:
        _first(module, GlobalLoadOp).properties["global"] = SymbolRefAttr(name)

    return mutate


def _extra_property(cls: type) -> Callable[[Operation], None]:
    def mutate(module: Operation) -> None:
        _first(module, cls).properties["extra"] = IntegerAttr(1, i64)

    return mutate


def _drop_property(cls: type, name: str) -> Callable[[Operation], None]:
    def mutate(module: Operation) -> None:
        del _first(module, cls).properties[name]

    return mutate


def _move_to_block_end(cls: type) -> Callable[[Operation], None]:
    """Drop the block's terminator and move the first `cls` op to the end of the block."""

    def mutate(module: Operation) -> None:
        op = _first(module, cls)
        block = op.parent
        terminator = block.last_op
        terminator.detach()
        terminator.erase()
        op.detach()
        block.add_op(op)
        assert block.last_op is op

    return mutate


def _second_parameter_of_the_same_type(module: Operation) -> None:
    params = {op.sym_name.data: op for op in module.walk() if isinstance(op, ParameterOp)}
    twin = ParameterOp.get("w2", params["w"].initial_value)
    params["w"].parent.insert_op_before(twin, params["w"])
    _first(module, GetParameterOp).properties["parameter"] = SymbolRefAttr("w2")


def _parameter_value_of(symbol: str) -> Callable[[Operation], None]:
    def mutate(module: Operation) -> None:
        params = {op.sym_name.data: op for op in module.walk() if isinstance(op, ParameterOp)}
        params["w"].properties["initial_value"] = params[symbol].initial_value

    return mutate


def _immutable(module: Operation) -> None:
    glob = next(op for op in module.walk() if isinstance(op, GlobalOp) and op.sym_name.data == "e")
    del glob.properties["is_mutable"]


# Invalid modules made by mutating a parsed valid one (names: what is wrong).
MUTATIONS: dict[str, Callable[[Operation], None]] = {
    "get_parameter re-pointed at a missing symbol": _point_at("gone"),
    "get_parameter re-pointed at a function": _point_at("f"),
    "get_parameter re-pointed at a global": _point_at("g"),
    "get_parameter re-pointed at a parameter of another type": _point_at("big"),
    "get_parameter given an extra property": _extra_property(GetParameterOp),
    "get_parameter without its property": _drop_property(GetParameterOp, "parameter"),
    "parameter given another parameter's value": _parameter_value_of("big"),
    "parameter given an extra property": _extra_property(ParameterOp),
    "parameter without sym_name": _drop_property(ParameterOp, "sym_name"),
    "global_load re-pointed at a missing global": _load_at("gone"),
    "global_load re-pointed at a global of another type": _load_at("e"),
    "global_load re-pointed at a parameter": _load_at("w"),
    "global_load given an extra property": _extra_property(GlobalLoadOp),
    "global given an extra property": _extra_property(GlobalOp),
    "global without sym_visibility": _drop_property(GlobalOp, "sym_visibility"),
    "global_load left ending its block": _move_to_block_end(GlobalLoadOp),
    "get_parameter left ending its block": _move_to_block_end(GetParameterOp),
    "call given an extra property": _extra_property(CallOp),
    "call re-pointed at a missing function": lambda m: _first(m, CallOp).properties.__setitem__(
        "callee", SymbolRefAttr("gone")
    ),
    "call left ending its block": _move_to_block_end(CallOp),
}

# Mutations that leave the module valid (the fast path must accept them too).
VALID_MUTATIONS: dict[str, Callable[[Operation], None]] = {
    "get_parameter re-pointed at another parameter of its type": (
        _second_parameter_of_the_same_type
    ),
    "an immutable global without value (xDSL does not check it)": _immutable,
    "a discardable attribute on get_parameter": lambda m: _first(
        m, GetParameterOp
    ).attributes.__setitem__("note", StringAttr("x")),
    "a discardable attribute on global_load": lambda m: _first(
        m, GlobalLoadOp
    ).attributes.__setitem__("note", UnitAttr()),
    "a discardable attribute on a call": lambda m: _first(m, CallOp).attributes.__setitem__(
        "note", UnitAttr()
    ),
}


def full_verdict(module: Operation) -> str | None:
    """xDSL's own verifier: None if valid, else the exception's text."""
    try:
        module.verify()
    except VerifyException as exc:
        return str(exc)
    return None


def located_verdict(module: Operation) -> MindjitError | None:
    try:
        verify_located(module)
    except MindjitError as err:
        return err
    return None


def slow_located_verdict(module: Operation, monkeypatch: pytest.MonkeyPatch) -> str | None:
    with monkeypatch.context() as m:
        m.setattr(fast_verify, "FAST_VERIFIERS", {})
        err = located_verdict(module)
    return None if err is None else str(err)


def assert_same_verdict(
    module: Operation, monkeypatch: pytest.MonkeyPatch, same_detail: bool = True
) -> MindjitError | None:
    full = full_verdict(module)
    fast = located_verdict(module)
    assert (fast is None) == (full is None), (full, fast)
    # with and without the fast checks: the very same located message
    assert slow_located_verdict(module, monkeypatch) == (None if fast is None else str(fast))
    if fast is not None and same_detail:
        assert fast.message.startswith("'")
        detail = fast.message.split(" op ", 1)[1]
        assert detail in full, (detail, full)
    return fast


def parse(text: str) -> Operation:
    return parse_module(text, "t.mlir", verify=False)


# -- valid modules ------------------------------------------------------------------------------


def test_valid_module_passes_both_verifiers(monkeypatch):
    module = parse(VALID)
    assert assert_same_verdict(module, monkeypatch) is None
    parse_module(VALID, "t.mlir")  # the default parse verifies too


def test_fast_checks_handle_the_common_ops_themselves():
    module = parse(VALID)
    verdicts = {}
    for op in module.walk():
        check = fast_verify.FAST_VERIFIERS.get(type(op))
        if check is not None:
            name = getattr(op, "sym_name", None) or op.properties.get("parameter")
            key = f"{op.name} {name or op.properties.get('global')}"
            verdicts[key] = check(op)
    assert verdicts == {
        'mindir.parameter "w"': True,
        'mindir.parameter "big"': True,
        'mindir.parameter "tagged"': True,
        'ml_program.global "g"': True,
        'ml_program.global "e"': True,
        'ml_program.global "k"': False,  # immutable: the full path
        "mindir.get_parameter @w": True,
        "mindir.get_parameter @big": True,
        "mindir.get_parameter @tagged": True,
        "ml_program.global_load @g": True,
        "ml_program.global_load @e": True,
        "func.call None": True,
    }


def test_fast_checks_defer_unusual_ops_to_the_full_verifier():
    module = parse(INVALID_TEXT["get_parameter with an extra property"])
    assert fast_verify.FAST_VERIFIERS[GetParameterOp](_first(module, GetParameterOp)) is False
    module = parse(INVALID_TEXT["get_parameter ending a block"])
    assert fast_verify.FAST_VERIFIERS[GetParameterOp](_first(module, GetParameterOp)) is False
    module = parse(INVALID_TEXT["global_load with an extra property"])
    assert fast_verify.FAST_VERIFIERS[GlobalLoadOp](_first(module, GlobalLoadOp)) is False


def test_fast_checks_raise_the_ops_own_errors():
    module = parse(INVALID_TEXT["get_parameter of another type"])
    with pytest.raises(VerifyException, match="@w has type tensor<2xf32>, the result is"):
        fast_verify.FAST_VERIFIERS[GetParameterOp](_first(module, GetParameterOp))
    module = parse(INVALID_TEXT["global_load of another type"])
    with pytest.raises(VerifyException, match="cannot load from global typed tensor<i32>"):
        fast_verify.FAST_VERIFIERS[GlobalLoadOp](_first(module, GlobalLoadOp))


@pytest.mark.parametrize("name", sorted(VALID_MUTATIONS))
def test_valid_mutations(name, monkeypatch):
    module = parse(VALID)
    VALID_MUTATIONS[name](module)
    assert assert_same_verdict(module, monkeypatch) is None


# -- invalid modules ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(INVALID_TEXT))
def test_invalid_text(name, monkeypatch):
    module = parse(INVALID_TEXT[name])
    err = assert_same_verdict(module, monkeypatch)
    assert err is not None, f"{name}: accepted"
    assert str(err).startswith("t.mlir:")  # located at the op


# verify_located visits a block's ops last to first, xDSL first to last: when a later op's
# check trips over the broken earlier one, both reject but with different messages.
OTHER_OP_REPORTS = {"parameter without sym_name"}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_invalid_mutations(name, monkeypatch):
    module = parse(VALID)
    assert full_verdict(module) is None
    MUTATIONS[name](module)
    err = assert_same_verdict(module, monkeypatch, same_detail=name not in OTHER_OP_REPORTS)
    assert err is not None, f"{name}: accepted"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "get_parameter of a missing symbol",
            "t.mlir:4:3: error: 'mindir.get_parameter' op no mindir.parameter named @missing",
        ),
        (
            "get_parameter of another type",
            "t.mlir:4:3: error: 'mindir.get_parameter' op @w has type tensor<2xf32>, "
            "the result is !mindir.ref<tensor<3xf32>>",
        ),
        (
            "get_parameter of a function",
            "t.mlir:4:3: error: 'mindir.get_parameter' op @f is not a mindir.parameter",
        ),
        (
            "get_parameter of a global",
            "t.mlir:4:3: error: 'mindir.get_parameter' op @g is not a mindir.parameter",
        ),
        (
            "parameter whose value type differs",
            "t.mlir:1:1: error: 'mindir.parameter' op initial value has type tensor<3xf32>, "
            "the Parameter has tensor<2xf32>",
        ),
        (
            "global_load of another type",
            "t.mlir:4:3: error: 'ml_program.global_load' op cannot load from global typed "
            "tensor<i32> as tensor<2xi32>",
        ),
        (
            "global_load of a missing global",
            "t.mlir:4:3: error: 'ml_program.global_load' op undefined global: @nope",
        ),
        (
            "get_parameter with an extra property",
            "t.mlir:4:3: error: 'mindir.get_parameter' op property 'extra' is not defined by "
            "the operation 'mindir.get_parameter'. Use the dictionary attribute to add "
            "arbitrary information to the operation.",
        ),
        (
            "get_parameter ending a block",
            "t.mlir:4:3: error: 'mindir.get_parameter' op Operation mindir.get_parameter "
            "terminates block in single-block region but is not a terminator",
        ),
    ],
)
def test_messages(name, message):
    module = parse(INVALID_TEXT[name])
    with pytest.raises(MindjitError) as info:
        verify_located(module)
    assert str(info.value) == message
    with pytest.raises(MindjitError) as info:  # parse_module verifies by default
        parse_module(INVALID_TEXT[name], "t.mlir")
    assert str(info.value) == message


def test_two_bad_ops_are_rejected_and_the_last_one_reported(monkeypatch):
    """Both verifiers reject; verify_located reports the later op (it walks in reverse),
    with or without the fast checks."""
    text = _in_func(
        "%p = mindir.get_parameter @missing : !mindir.ref<tensor<2xf32>>\n"
        "  %g = ml_program.global_load @g : tensor<2xi32>"
    )
    module = parse(text)
    assert full_verdict(module) == "no mindir.parameter named @missing"
    err = assert_same_verdict(module, monkeypatch, same_detail=False)
    assert err is not None and str(err) == (
        "t.mlir:5:3: error: 'ml_program.global_load' op cannot load from global typed "
        "tensor<i32> as tensor<2xi32>"
    )
