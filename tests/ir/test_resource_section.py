"""MLIR's `{-# dialect_resources #-}` section (ir/resource_section.py): printed as
MLIR prints it, read back into `ir/resources.py`, checked against the type."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from xdsl.dialects.builtin import ArrayAttr, DenseResourceAttr, TensorType, f32

from mindjit.dialects.parsing import parse_module
from mindjit.ir import resources
from mindjit.ir.resource_section import encode_blob, module_text, resource_uses, section
from mindjit.support.errors import MindjitError

F16_BITS = np.array([0x3C00, 0xC000, 0x7BFF], np.uint16)  # 1, -2, max as bf16 bit patterns

CASES = {
    "f32": (np.array([[1.5, -2.0], [3.25, 1e-3]], np.float32), "tensor<2x2xf32>"),
    "f16": (np.array([0.5, -1.0, 65504.0], np.float16), "tensor<3xf16>"),
    "f64": (np.array([np.pi, -0.0], np.float64), "tensor<2xf64>"),
    "i32": (np.array([1, -2, 2**31 - 1], np.int32), "tensor<3xi32>"),
    "i64": (np.array([[2**40], [-1]], np.int64), "tensor<2x1xi64>"),
    "i8": (np.array([-128, 127], np.int8), "tensor<2xi8>"),
    "ui8": (np.array([0, 255], np.uint8), "tensor<2xui8>"),
    "i1": (np.array([True, False, True, True], np.bool_), "tensor<4xi1>"),
    "bf16": (F16_BITS, "tensor<3xbf16>"),  # numpy has no bf16: kept as its bits
}


def program(handle: str, type_text: str, blob: str | None) -> str:
    text = (
        f"func.func @f() -> {type_text} {{\n"
        f"  %0 = arith.constant dense_resource<{handle}> : {type_text}\n"
        f"  func.return %0 : {type_text}\n"
        "}\n"
    )
    if blob is not None:
        text += (
            "{-#\n  dialect_resources: {\n    builtin: {\n"
            f'      {handle}: "{blob}"\n    }}\n  }}\n#-}}\n'
        )
    return text


def handle_of(module) -> str:
    (handle,) = resource_uses(module)
    return handle


@pytest.mark.parametrize("kind", sorted(CASES))
def test_print_parse_round_trip(kind):
    value, type_text = CASES[kind]
    module = parse_module(program(f"rt_{kind}", type_text, encode_blob(value)))
    handle = handle_of(module)
    got = resources.blob(handle)
    assert got.dtype == value.dtype and got.shape == value.shape
    assert got.tobytes() == value.tobytes()
    again = parse_module(module_text(module))  # printed again, read again: the same
    assert handle_of(again) == handle
    np.testing.assert_array_equal(resources.blob(handle_of(again)), value)


def test_blob_text_is_mlirs_alignment_then_little_endian_bytes():
    assert encode_blob(np.array([1.0, 2.0], np.float32)) == "0x040000000000803F00000040"
    assert encode_blob(np.array([1, -1], np.int64)) == (
        "0x080000000100000000000000FFFFFFFFFFFFFFFF"
    )
    assert encode_blob(np.array([True, False, True])) == "0x01000000010001"
    assert encode_blob(np.array([1.0], ">f4")) == "0x040000000000803F"  # big-endian input


class Owner:
    def __init__(self, value: np.ndarray):
        self.value = value


def live_module(owner: Owner, name: str = "sec_w") -> tuple:
    handle = resources.hold(name, owner, lambda o: o.value)
    return parse_module(program(handle, "tensor<2xf32>", None)), handle


def test_section_is_printed_once_after_the_module_as_mlir_prints_it():
    owner = Owner(np.array([1.0, 2.0], np.float32))
    module, handle = live_module(owner)
    text = module_text(module)
    assert text == str(module) + "\n\n" + (
        "{-#\n"
        "  dialect_resources: {\n"
        "    builtin: {\n"
        f'      {handle}: "0x040000000000803F00000040"\n'
        "    }\n"
        "  }\n"
        "#-}\n"
    )
    assert text.count("{-#") == 1


def test_handles_are_listed_in_first_use_order_and_found_when_nested():
    a, b = Owner(np.zeros(2, np.float32)), Owner(np.ones(2, np.float32))
    ha = resources.hold("nest_a", a, lambda o: o.value)
    hb = resources.hold("nest_b", b, lambda o: o.value)
    module = parse_module(
        "func.func @f() -> tensor<2xf32> {\n"
        f"  %0 = arith.constant dense_resource<{hb}> : tensor<2xf32>\n"
        f"  %1 = arith.constant dense_resource<{ha}> : tensor<2xf32>\n"
        "  func.return %1 : tensor<2xf32>\n}\n"
    )
    assert list(resource_uses(module)) == [hb, ha]
    # one held inside an ArrayAttr of a discardable attribute is found too
    ret = list(module.walk())[-1]
    t = TensorType(f32, [2])
    ret.attributes["extra"] = ArrayAttr([DenseResourceAttr.from_params("nest_c", t)])
    assert list(resource_uses(module)) == [hb, ha, "nest_c"]
    text = section(module)
    assert text.index(hb) < text.index(ha) and "nest_c" not in text  # nest_c has no blob


def test_a_handle_whose_owner_is_gone_is_left_out_and_the_module_still_prints():
    owner = Owner(np.array([1.0, 2.0], np.float32))
    module, handle = live_module(owner, "gone")
    del owner
    gc.collect()
    assert section(module) == ""
    assert module_text(module) == str(module) + "\n"
    assert f"dense_resource<{handle}>" in module_text(module)


def test_a_parsed_blob_never_replaces_a_live_value():
    owner = Owner(np.array([1.0, 2.0], np.float32))
    module, handle = live_module(owner, "clash")
    other = encode_blob(np.array([7.0, 8.0], np.float32))
    parsed = parse_module(program(handle, "tensor<2xf32>", other))
    renamed = handle_of(parsed)
    assert renamed != handle  # as MLIR's blob manager renames on a clash
    assert resources.blob(handle) is owner.value
    np.testing.assert_array_equal(resources.blob(renamed), [7.0, 8.0])
    # the same file parsed again reads the same module (no new name)
    assert handle_of(parse_module(program(handle, "tensor<2xf32>", other))) == renamed


def test_a_parsed_blob_is_read_only():
    module = parse_module(program("ro_blob", "tensor<2xf32>", "0x040000000000803F00000040"))
    with pytest.raises(ValueError):
        resources.blob(handle_of(module))[0] = 3.0


BAD = {
    "odd number of hex digits": "0x040000000000803F0000004",
    "not a hex digit": "0x040000000000803F000000ZZ",
    "must start with its 4-byte alignment": "0x0400",
    "alignment must be a power of two": "0x030000000000803F00000040",
    "of 4 bytes cannot hold tensor<2xf32> (8 bytes)": "0x040000000000803F",
    "hex string starting with 0x": "040000000000803F00000040",
}


@pytest.mark.parametrize("message", sorted(BAD))
def test_a_malformed_blob_is_a_located_error(message):
    text = program("bad_blob", "tensor<2xf32>", BAD[message])
    with pytest.raises(MindjitError) as err:
        parse_module(text, "bad.mlir")
    assert str(err.value).startswith("bad.mlir:8:17: error: dense_resource<bad_blob>: ")
    assert message in str(err.value)


def test_a_resource_defined_twice_is_an_error():
    text = program("twice", "tensor<2xf32>", "0x040000000000803F00000040")
    text = text.replace(
        '      twice: "', '      twice: "0x040000000000803F00000040",\n      twice: "'
    )
    with pytest.raises(MindjitError, match=r"x.mlir:9:14: error: resource 'twice' is defined"):
        parse_module(text, "x.mlir")


def test_ms_opt_reports_a_bad_blob_without_a_traceback(tool, tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(program("bad_blob", "tensor<2xf32>", BAD["odd number of hex digits"]))
    done = tool("ms-opt", str(path))
    assert done.returncode == 1
    assert done.stderr.startswith(f"{path}:8:17: error: dense_resource<bad_blob>: ")
    assert "Traceback" not in done.stderr


def test_ms_opt_output_reads_back_and_iree_opt_prints_it_the_same(tool, tmp_path):
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    src = tmp_path / "in.mlir"
    src.write_text(program("w_ms", "tensor<2x3xf32>", encode_blob(value)))
    first = tool("ms-opt", str(src))
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("{-#") == 1
    assert first.stdout.rstrip().endswith("#-}")
    (tmp_path / "out.mlir").write_text(first.stdout)
    second = tool("ms-opt", str(tmp_path / "out.mlir"))
    assert second.stdout == first.stdout
    theirs = tool("iree-opt", str(tmp_path / "out.mlir"))
    assert theirs.returncode == 0, theirs.stderr
    section_of = lambda text: text[text.index("{-#") :].strip()  # noqa: E731
    assert section_of(theirs.stdout) == section_of(first.stdout)
