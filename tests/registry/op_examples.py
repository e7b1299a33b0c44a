"""One small program per mindir op, for the completeness test (test_op_registry.py).

`example(cls)` is MLIR text with an entry graph `@f` that uses the op, in the
form the frontend emits (effects on the entry states `%u0` / `%io0`, which
mindir-auto-monad threads). Elementwise ops get theirs from their class (the
element kind they take); every other op is written out here. A new op needs an
entry in `EXAMPLES` unless it is elementwise: the completeness test says so.
"""

from __future__ import annotations

from mindjit.dialects import mindir as M

_F = "tensor<2x3xf32>"


def _elementwise(cls: type) -> str:
    element = {"bool": "i1", "float": "f32", "numeric": "f32", "any": "f32"}[cls.ALLOWED]
    t = f"tensor<2x3x{element}>"
    result = "tensor<2x3xi1>" if cls.RESULT_BOOL else t
    if issubclass(cls, M.BinaryOp):
        body = f"%r = {cls.name} %a, %b : ({t}, {t}) -> {result}"
        args = f"%a: {t}, %b: {t}"
    else:
        body = f"%r = {cls.name} %a : ({t}) -> {result}"
        args = f"%a: {t}"
    return f"""
func.func @f({args}) -> {result} {{
  {body}
  func.return %r : {result}
}}
"""


_EFFECTS = f"""
mindir.parameter @w = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : {_F}
func.func @f(%x: {_F}, %u0: !mindir.u, %io0: !mindir.io) -> {_F} {{
  %p = mindir.get_parameter @w : !mindir.ref<{_F}>
  %l = mindir.load %p, %u0 : {_F}
  %n = mindir.add %l, %x : {_F}
  %a = mindir.assign %p, %n, %u0 : {_F}
  %d = mindir.depend %n, %a : {_F}, {_F}
  %m = mindir.tensor_move %d : {_F}
  %io1 = mindir.print %m, %io0 : {_F}
  func.return %m : {_F}
}}
"""

_SEND_RECEIVE = f"""
func.func @f(%x: {_F}, %io0: !mindir.io) -> {_F} {{
  %io1 = mindir.send %x, %io0 {{sr_tag = 3 : i64, dest_rank = 1 : i64}} : {_F}
  %y, %io2 = mindir.receive %io1 {{sr_tag = 3 : i64, src_rank = 0 : i64}} : {_F}
  func.return %y : {_F}
}}
"""

_UPDATE_STATE = f"""
mindir.parameter @w = dense<1.0> : {_F}
func.func @f(%x: {_F}, %u0: !mindir.u) -> ({_F}, !mindir.u) {{
  %p = mindir.get_parameter @w : !mindir.ref<{_F}>
  %a = mindir.assign %p, %x, %u0 : {_F}
  %u1 = mindir.update_state %u0, %a : {_F}
  %l = mindir.load %p, %u1 : {_F}
  %u2 = mindir.update_state %u1, %l : {_F}
  func.return %l, %u2 : {_F}, !mindir.u
}}
"""

_IF = f"""
func.func @f(%c: tensor<i1>, %x: {_F}) -> {_F} {{
  %r = mindir.if %c -> ({_F}) {{
    %n = mindir.neg %x : {_F}
    mindir.yield %n : {_F}
  }} else {{
    mindir.yield %x : {_F}
  }}
  func.return %r : {_F}
}}
"""

_WHILE = """
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %limit = mindir.constant dense<8.0> : tensor<f32>
  %r = mindir.while (%i = %x) : (tensor<f32>) -> tensor<f32> {
    %c = mindir.less %i, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%c : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %one = mindir.constant dense<1.0> : tensor<f32>
    %n = mindir.add %j, %one : tensor<f32>
    mindir.yield %n : tensor<f32>
  }
  func.return %r : tensor<f32>
}
"""

_TUPLES = f"""
func.func @f(%a: {_F}, %b: {_F}) -> {_F} {{
  %t = mindir.make_tuple %a, %b : ({_F}, {_F}) -> tuple<{_F}, {_F}>
  %s = mindir.addn %t : (tuple<{_F}, {_F}>) -> {_F}
  %e = mindir.tuple_get_item %t {{index = 1 : i64}} : (tuple<{_F}, {_F}>) -> {_F}
  %r = mindir.add %s, %e : {_F}
  func.return %r : {_F}
}}
"""

_FLOAT_STATUS = f"""
func.func @f(%x: {_F}) -> tensor<8xf32> {{
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  %c = mindir.npu_clear_float_status %s : tensor<8xf32>
  %g = mindir.npu_get_float_status %c : tensor<8xf32>
  func.return %g : tensor<8xf32>
}}
"""


def _one(op: str, result: str = _F, extra: str = "", args: str = f"%a: {_F}") -> str:
    return f"""
func.func @f({args}) -> {result} {{
  %r = {op}
  func.return %r : {result}{extra}
}}
"""


_IMG = "tensor<2x3x6x6xf32>"

EXAMPLES: dict[str, str] = {
    "mindir.conv2d": _one(
        f"mindir.conv2d %a, %w {{stride = array<i64: 2, 1>, pad = array<i64: 1, 0, 1, 1>, "
        f"group = 3}} : ({_IMG}, tensor<6x1x3x3xf32>) -> tensor<2x6x3x6xf32>",
        "tensor<2x6x3x6xf32>",
        args=f"%a: {_IMG}, %w: tensor<6x1x3x3xf32>",
    ),
    "mindir.max_pool2d": _one(
        f"mindir.max_pool2d %a {{kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>}} "
        f": ({_IMG}) -> tensor<2x3x3x3xf32>",
        "tensor<2x3x3x3xf32>",
        args=f"%a: {_IMG}",
    ),
    "mindir.avg_pool2d": _one(
        f"mindir.avg_pool2d %a {{kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, "
        f"pad = array<i64: 1, 1, 1, 1>, count_include_pad = false}} : ({_IMG}) -> "
        "tensor<2x3x3x3xf32>",
        "tensor<2x3x3x3xf32>",
        args=f"%a: {_IMG}",
    ),
    "mindir.pad": _one(
        f"mindir.pad %a {{low = array<i64: 1, -1>, high = array<i64: 0, 2>, "
        f"interior = array<i64: 1, 0>}} : ({_F}) -> tensor<4x4xf32>",
        "tensor<4x4xf32>",
    ),
    "mindir.reverse": _one(f"mindir.reverse %a {{axis = array<i64: 1>}} : {_F}"),
    "mindir.constant": _one("mindir.constant dense<2.0> : tensor<f32>", "tensor<f32>", args=""),
    "mindir.select": _one(
        f"mindir.select %c, %a, %a : (tensor<2x3xi1>, {_F}, {_F}) -> {_F}",
        args=f"%c: tensor<2x3xi1>, %a: {_F}",
    ),
    "mindir.cast": _one(
        f"mindir.cast %a {{to = f16}} : ({_F}) -> tensor<2x3xf16>", "tensor<2x3xf16>"
    ),
    "mindir.matmul": _one(
        "mindir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>",
        "tensor<2x4xf32>",
        args=f"%a: {_F}, %b: tensor<3x4xf32>",
    ),
    "mindir.reduce_sum": _one(
        f"mindir.reduce_sum %a {{axis = array<i64: 1>}} : ({_F}) -> tensor<2xf32>", "tensor<2xf32>"
    ),
    "mindir.reduce_mean": _one(
        f"mindir.reduce_mean %a {{axis = array<i64: 0>, keep_dims = true}} : ({_F}) -> tensor<1x3xf32>",
        "tensor<1x3xf32>",
    ),
    "mindir.reduce_max": _one(f"mindir.reduce_max %a : ({_F}) -> tensor<f32>", "tensor<f32>"),
    "mindir.reshape": _one(f"mindir.reshape %a : ({_F}) -> tensor<3x2xf32>", "tensor<3x2xf32>"),
    "mindir.broadcast_to": _one(
        "mindir.broadcast_to %a : (tensor<3xf32>) -> tensor<2x3xf32>", args="%a: tensor<3xf32>"
    ),
    "mindir.transpose": _one(
        f"mindir.transpose %a {{perm = array<i64: 1, 0>}} : ({_F}) -> tensor<3x2xf32>",
        "tensor<3x2xf32>",
    ),
    "mindir.concat": _one(
        f"mindir.concat %a, %a {{axis = 1 : i64}} : ({_F}, {_F}) -> tensor<2x6xf32>",
        "tensor<2x6xf32>",
    ),
    "mindir.stack": _one(
        f"mindir.stack %a, %a : ({_F}, {_F}) -> tensor<2x2x3xf32>", "tensor<2x2x3xf32>"
    ),
    "mindir.unstack": f"""
func.func @f(%a: {_F}) -> tensor<3xf32> {{
  %r:2 = mindir.unstack %a : {_F} -> tensor<3xf32>
  %s = mindir.add %r#0, %r#1 : tensor<3xf32>
  func.return %s : tensor<3xf32>
}}
""",
    "mindir.get_item": _one(
        f"mindir.get_item %a {{starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, "
        f"strides = array<i64: 1, 2>, squeeze = array<i64: 0>}} : ({_F}) -> tensor<2xf32>",
        "tensor<2xf32>",
    ),
    "mindir.make_tuple": _TUPLES,
    "mindir.tuple_get_item": _TUPLES,
    "mindir.addn": _TUPLES,
    "mindir.parameter": _EFFECTS,
    "mindir.get_parameter": _EFFECTS,
    "mindir.load": _EFFECTS,
    "mindir.assign": _EFFECTS,
    "mindir.depend": _EFFECTS,
    "mindir.tensor_move": _EFFECTS,
    "mindir.print": _EFFECTS,
    "mindir.send": _SEND_RECEIVE,
    "mindir.receive": _SEND_RECEIVE,
    "mindir.update_state": _UPDATE_STATE,
    "mindir.if": _IF,
    "mindir.yield": _IF,
    "mindir.while": _WHILE,
    "mindir.condition": _WHILE,
    "mindir.check_range": _one(
        f'mindir.check_range %a {{min = -10.0 : f64, max = 10.0 : f64, message = "out of range"}}'
        f" : {_F}"
    ),
    "mindir.npu_alloc_float_status": _FLOAT_STATUS,
    "mindir.npu_clear_float_status": _FLOAT_STATUS,
    "mindir.npu_get_float_status": _FLOAT_STATUS,
    "mindir.vmap": _one(
        "mindir.vmap (%x = %a) in_axes [0] out_axes [0] : (tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        "    %n = mindir.neg %x : tensor<3xf32>\n"
        "    mindir.yield %n : tensor<3xf32>\n"
        "  }"
    ),
    "mindir.uniform_real": _one(
        "mindir.uniform_real %k, %o {seed = 1 : i64, seed2 = 2 : i64, shape = array<i64: 2, 3>}"
        f" : (tensor<i32>, tensor<i32>) -> {_F}",
        args="%k: tensor<i32>, %o: tensor<i32>",
    ),
    "mindir.grad": _one(
        "mindir.grad (%x = %a) wrt [0] weights [] : (tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        "    %s = mindir.reduce_sum %x : (tensor<2x3xf32>) -> tensor<f32>\n"
        "    mindir.yield %s : tensor<f32>\n"
        "  }"
    ),
}

# gather and its adjoint (ids 1..4 from the random inputs; 4 is out of range for
# num_segments 4 and for an axis of 3: the defined "zeros / adds nowhere" path)
EXAMPLES |= {
    "mindir.gather": _one(
        f"mindir.gather %a, %i {{axis = 1 : i64}} : ({_F}, tensor<2x2xi32>) -> tensor<2x2x2xf32>",
        "tensor<2x2x2xf32>",
        args=f"%a: {_F}, %i: tensor<2x2xi32>",
    ),
    "mindir.unsorted_segment_sum": _one(
        f"mindir.unsorted_segment_sum %a, %i {{num_segments = 4 : i64}} : ({_F}, "
        "tensor<2xi64>) -> tensor<4x3xf32>",
        "tensor<4x3xf32>",
        args=f"%a: {_F}, %i: tensor<2xi64>",
    ),
}


def example(cls: type) -> str | None:
    if issubclass(cls, M.ElementwiseOp) and cls.name not in EXAMPLES:
        return _elementwise(cls)
    return EXAMPLES.get(cls.name)


# index reductions, sort and scans (i23-indexreduce)
EXAMPLES.update(
    {
        "mindir.argmax": _one(
            f"mindir.argmax %a {{axis = 1 : i64}} : ({_F}) -> tensor<2xi32>", "tensor<2xi32>"
        ),
        "mindir.argmin": _one(
            f"mindir.argmin %a {{axis = 0 : i64, keep_dims = true, index_type = i64}}"
            f" : ({_F}) -> tensor<1x3xi64>",
            "tensor<1x3xi64>",
        ),
        "mindir.sort": f"""
func.func @f(%a: {_F}) -> ({_F}, tensor<2x3xi32>) {{
  %v, %i = mindir.sort %a {{axis = 0 : i64, descending = true}} : {_F} -> ({_F}, tensor<2x3xi32>)
  func.return %v, %i : {_F}, tensor<2x3xi32>
}}
""",
        "mindir.cumsum": _one(f"mindir.cumsum %a {{axis = 1 : i64, exclusive = true}} : {_F}"),
        "mindir.cumprod": _one(f"mindir.cumprod %a {{axis = 0 : i64, reverse = true}} : {_F}"),
    }
)
