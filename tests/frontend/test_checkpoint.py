"""`ms.save_checkpoint`, `ms.load_checkpoint`, `ms.load_param_into_net`: MindSpore's
.ckpt format (pinned by hand-made golden bytes), its arguments and errors, and
loading into a compiled network."""

from __future__ import annotations

import binascii
import logging
import os

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn
from mindjit.frontend.checkpoint_proto import CheckpointError, decode, encode
from mindjit.frontend.graph import api
from mindjit.support.errors import MindjitError

F32 = np.float32


@pytest.fixture(autouse=True)
def _fresh_programs():
    api.clear_cache()
    yield
    api.clear_cache()


class Net(nn.Cell):
    def __init__(self, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.fc1 = nn.Dense(4, 3, weight_init=ms.Tensor(rng.standard_normal((3, 4)).astype(F32)))
        self.fc2 = nn.Dense(3, 2, weight_init=ms.Tensor(rng.standard_normal((2, 3)).astype(F32)))
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class Wrapped(nn.Cell):
    """Net under a prefix: its Parameters are `backbone.fc1.weight` ..."""

    def __init__(self, seed: int = 0):
        super().__init__()
        self.backbone = Net(seed)

    def construct(self, x):
        return self.backbone(x)


def params_of(net) -> dict[str, np.ndarray]:
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


# -- the format, pinned ----------------------------------------------------------------------

# Derived from checkpoint.proto by hand: per entry one Checkpoint{value=1: Value{tag=1,
# tensor=2: TensorProto{dims=1 (a varint per dim), tensor_type=2, tensor_content=3}}}.
GOLDEN = (
    # "w": float32 [1, 2], shape (2,)
    b"\x0a\x1a"  # Checkpoint.value, 26 bytes
    b"\x0a\x01w"  # Value.tag "w"
    b"\x12\x15"  # Value.tensor, 21 bytes
    b"\x08\x02"  # dims: 2
    b"\x12\x07Float32"  # tensor_type
    b"\x1a\x08\x00\x00\x80\x3f\x00\x00\x00\x40"  # tensor_content: 1.0f, 2.0f
    # "n": int32 7, 0-d: no dims
    b"\x0a\x12"
    b"\x0a\x01n"
    b"\x12\x0d"
    b"\x12\x05Int32"
    b"\x1a\x04\x07\x00\x00\x00"
    # "epoch": the str "ab" (append_dict): dims [0], type "str", UTF-32-LE
    b"\x0a\x1a"
    b"\x0a\x05epoch"
    b"\x12\x11"
    b"\x08\x00"
    b"\x12\x03str"
    b"\x1a\x08a\x00\x00\x00b\x00\x00\x00"
)


def golden_objects():
    return [
        {"name": "w", "data": ms.Tensor(np.array([1.0, 2.0], F32))},
        {"name": "n", "data": ms.Tensor(np.array(7, np.int32))},
    ]


def test_save_writes_mindspores_bytes(tmp_path):
    path = tmp_path / "tiny.ckpt"
    ms.save_checkpoint(golden_objects(), str(path), append_dict={"epoch": "ab"})
    assert path.read_bytes() == GOLDEN


def test_crc_check_appends_mindspores_trailer(tmp_path):
    path = tmp_path / "tiny.ckpt"
    ms.save_checkpoint(golden_objects(), str(path), append_dict={"epoch": "ab"}, crc_check=True)
    crc = binascii.crc32(GOLDEN).to_bytes(10, "big")
    assert path.read_bytes() == GOLDEN + b"crc_num" + crc
    assert ms.load_checkpoint(str(path), crc_check=True)["epoch"] == "ab"


def test_load_reads_the_golden_file(tmp_path):
    path = tmp_path / "tiny.ckpt"
    path.write_bytes(GOLDEN)
    loaded = ms.load_checkpoint(str(path))
    assert list(loaded) == ["w", "n", "epoch"]
    w, n = loaded["w"], loaded["n"]
    assert isinstance(w, ms.Parameter) and w.name == "w" and w.dtype == ms.float32
    np.testing.assert_array_equal(w.asnumpy(), [1.0, 2.0])
    assert n.shape == () and n.dtype == ms.int32 and n.asnumpy() == 7
    assert loaded["epoch"] == "ab"
    assert str(w) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"


def entry_bytes(tag: bytes, dims: bytes, tensor_type: bytes, content: bytes) -> bytes:
    """One Checkpoint{Value{tag, TensorProto{dims (given encoded), type, content}}}
    (every part shorter than 128 bytes: one-byte lengths)."""
    tensor = dims + b"\x12" + bytes([len(tensor_type)]) + tensor_type
    tensor += b"\x1a" + bytes([len(content)]) + content
    value = b"\x0a" + bytes([len(tag)]) + tag + b"\x12" + bytes([len(tensor)]) + tensor
    return b"\x0a" + bytes([len(value)]) + value


def test_entry_bytes_builds_the_golden_form():
    assert entry_bytes(b"n", b"", b"Int32", b"\x07\x00\x00\x00") == GOLDEN[28:48]


def test_reader_takes_what_other_writers_write(tmp_path):
    """MindSpore 1.x's [0] dims of a 0-d tensor, packed dims, a tensor split over
    two Values with one tag, and an unknown field (skipped, as protobuf does)."""
    legacy_scalar = entry_bytes(b"s", b"\x08\x00", b"Float32", b"\x00\x00\x80\x3f")
    packed = entry_bytes(b"p", b"\x0a\x02\x01\x02", b"Int32", b"\x01\0\0\0\x02\0\0\0")
    chunk1 = entry_bytes(b"c", b"\x08\x02", b"Int8", b"\x05")
    chunk2 = entry_bytes(b"c", b"\x08\x02", b"Int8", b"\x06")
    unknown = b"\x10\x07"  # field 2, varint 7: not in the schema
    path = tmp_path / "other.ckpt"
    path.write_bytes(legacy_scalar + packed + chunk1 + chunk2 + unknown)
    loaded = ms.load_checkpoint(str(path))
    assert loaded["s"].shape == () and float(loaded["s"].asnumpy()) == 1.0
    np.testing.assert_array_equal(loaded["p"].asnumpy(), [[1, 2]])
    np.testing.assert_array_equal(loaded["c"].asnumpy(), np.array([5, 6], np.int8))


def test_large_content_is_split_in_chunks_and_joined():
    content = bytes(range(10))
    data = encode([("big", [10], "Int8", content)], chunk=4)
    assert data.count(b"\x0a\x03big") == 3  # three Values, one tag
    (entry,) = decode(data, "x.ckpt")
    assert entry.tag == "big" and entry.content == content and entry.dims == [10]


DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=[np.dtype(d).name for d in DTYPES])
@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (3,), (2, 3, 4)])
def test_round_trip_every_dtype_and_shape(tmp_path, dtype, shape):
    rng = np.random.default_rng(1)
    value = (rng.standard_normal(shape) * 50).astype(dtype)
    path = str(tmp_path / "t.ckpt")
    ms.save_checkpoint({"x": ms.Parameter(ms.Tensor(value), name="x")}, path)
    x = ms.load_checkpoint(path)["x"]
    assert x.shape == shape and x.asnumpy().dtype == np.dtype(dtype)
    np.testing.assert_array_equal(x.asnumpy(), value)


def test_a_non_contiguous_value_is_saved_in_c_order(tmp_path):
    value = np.arange(12, dtype=F32).reshape(3, 4).T
    path = str(tmp_path / "t.ckpt")
    ms.save_checkpoint([{"name": "t", "data": ms.Tensor(value)}], path)
    np.testing.assert_array_equal(ms.load_checkpoint(path)["t"].asnumpy(), value)


# -- the tutorial's flow -----------------------------------------------------------------------


def test_save_a_cell_and_load_it_into_another(tmp_path):
    trained, fresh = Net(seed=1), Net(seed=2)
    path = str(tmp_path / "model.ckpt")
    assert ms.save_checkpoint(trained, path) is None
    param_dict = ms.load_checkpoint(path)
    assert list(param_dict) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    param_not_load, ckpt_not_load = ms.load_param_into_net(fresh, param_dict)
    assert (param_not_load, ckpt_not_load) == ([], [])
    after = params_of(fresh)
    for name, value in params_of(trained).items():
        np.testing.assert_array_equal(after[name], value)
    assert fresh.fc1.weight.asnumpy() is not param_dict["fc1.weight"].asnumpy()  # a copy


def test_the_suffix_is_added_when_missing(tmp_path):
    ms.save_checkpoint(Net(), str(tmp_path / "model"))
    assert os.listdir(tmp_path) == ["model.ckpt"]
    assert "fc1.weight" in ms.load_checkpoint(str(tmp_path / "model.ckpt"))


def test_save_list_of_parameters_and_a_loaded_dict(tmp_path):
    net = Net()
    ms.save_checkpoint(net.trainable_params(), str(tmp_path / "list.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "list.ckpt"))
    ms.save_checkpoint(loaded, str(tmp_path / "dict.ckpt"))
    again = ms.load_checkpoint(str(tmp_path / "dict.ckpt"))
    assert list(again) == [p.name for p in net.trainable_params()]
    for name, value in params_of(net).items():
        np.testing.assert_array_equal(again[name].asnumpy(), value)


def test_append_dict_values(tmp_path):
    path = str(tmp_path / "a.ckpt")
    extra = {"epoch": 3, "lr": 0.5, "flag": True, "note": "hi", "t": ms.Tensor([1, 2])}
    ms.save_checkpoint(Net(), path, append_dict=extra)
    loaded = ms.load_checkpoint(path)
    assert loaded["epoch"].dtype == ms.int64 and int(loaded["epoch"].asnumpy()) == 3
    assert loaded["lr"].dtype == ms.float32 and float(loaded["lr"].asnumpy()) == 0.5
    assert loaded["flag"].dtype == ms.bool_ and bool(loaded["flag"].asnumpy())
    assert loaded["note"] == "hi"
    np.testing.assert_array_equal(loaded["t"].asnumpy(), [1, 2])
    # str entries and names the net lacks are reported as not loaded, not as errors
    param_not_load, ckpt_not_load = ms.load_param_into_net(Net(), loaded)
    assert param_not_load == [] and ckpt_not_load == ["epoch", "lr", "flag", "note", "t"]


def test_choice_func_on_save_and_on_load(tmp_path):
    path = str(tmp_path / "c.ckpt")
    ms.save_checkpoint(Net(), path, choice_func=lambda name: name.startswith("fc1"))
    assert list(ms.load_checkpoint(path)) == ["fc1.weight", "fc1.bias"]
    picked = ms.load_checkpoint(path, choice_func=lambda name: name.endswith("bias"))
    assert list(picked) == ["fc1.bias"]


def test_filter_and_specify_prefix_override_choice_func(tmp_path):
    path = str(tmp_path / "p.ckpt")
    ms.save_checkpoint(Net(), path)
    assert list(ms.load_checkpoint(path, filter_prefix="fc1")) == ["fc2.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, specify_prefix=["fc2.b"])) == ["fc2.bias"]
    both = ms.load_checkpoint(path, specify_prefix="fc", filter_prefix=("fc2",))
    assert list(both) == ["fc1.weight", "fc1.bias"]
    never = ms.load_checkpoint(path, specify_prefix="fc1", choice_func=lambda name: False)
    assert list(never) == ["fc1.weight", "fc1.bias"]  # choice_func ignored
    with pytest.raises(ValueError, match="empty after filter or specify"):
        ms.load_checkpoint(path, filter_prefix="fc")
    with pytest.raises(TypeError, match="must be string, list"):
        ms.load_checkpoint(path, filter_prefix=3)
    with pytest.raises(ValueError, match="can't be empty"):
        ms.load_checkpoint(path, specify_prefix=[])
    with pytest.raises(ValueError, match="can't include ''"):
        ms.load_checkpoint(path, specify_prefix=["fc", ""])
    with pytest.raises(TypeError, match="at index 1"):
        ms.load_checkpoint(path, specify_prefix=["fc", 1])


def test_load_checkpoint_with_net_loads_it(tmp_path):
    path = str(tmp_path / "n.ckpt")
    trained = Net(seed=3)
    ms.save_checkpoint(trained, path)
    fresh = Net(seed=4)
    ms.load_checkpoint(path, net=fresh)
    np.testing.assert_array_equal(fresh.fc2.weight.asnumpy(), trained.fc2.weight.asnumpy())


# -- loading into a compiled network -----------------------------------------------------------


def test_a_compiled_net_uses_the_loaded_values_on_its_next_call(tmp_path):
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(F32))
    source, target = Net(seed=5), Net(seed=6)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        before = target(x).asnumpy()
        expected = source(x).asnumpy()
        assert not np.allclose(before, expected)
        path = str(tmp_path / "g.ckpt")
        ms.save_checkpoint(source, path)
        ms.load_param_into_net(target, ms.load_checkpoint(path))
        np.testing.assert_allclose(target(x).asnumpy(), expected, rtol=1e-6)
        assert len(api.cached_programs()) == 2  # one per net: the same program, new values
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_jit_train_step_continues_from_the_loaded_values(tmp_path):
    """Training, saving, loading into a fresh net and training on: the same losses
    as training on without the detour (optimizer state aside: SGD has none)."""
    rng = np.random.default_rng(7)
    x = ms.Tensor(rng.standard_normal((8, 4)).astype(F32))
    y = ms.Tensor(rng.standard_normal((8, 2)).astype(F32))

    def trainer(net):
        opt = nn.SGD(net.trainable_params(), 0.1)
        loss_fn = nn.MSELoss()

        def forward(a, b):
            return loss_fn(net(a), b)

        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        @ms.jit
        def step(a, b):
            loss, grads = grad_fn(a, b)
            opt(grads)
            return loss

        return step

    first = Net(seed=8)
    step = trainer(first)
    for _ in range(3):
        step(x, y)
    path = str(tmp_path / "t.ckpt")
    ms.save_checkpoint(first, path)
    reference = [float(step(x, y).asnumpy()) for _ in range(2)]

    second = Net(seed=9)
    step2 = trainer(second)
    step2(x, y)  # compiled with its own values first
    ms.load_param_into_net(second, ms.load_checkpoint(path))
    resumed = [float(step2(x, y).asnumpy()) for _ in range(2)]
    np.testing.assert_allclose(resumed, reference, rtol=1e-6)


# -- load_param_into_net's rules -------------------------------------------------------------


def test_names_missing_from_the_checkpoint_are_reported(tmp_path, caplog):
    params = {"fc1.weight": Net().fc1.weight.clone(), "other": ms.Parameter(ms.Tensor([1.0]))}
    with caplog.at_level(logging.WARNING):
        param_not_load, ckpt_not_load = ms.load_param_into_net(Net(), params)
    assert param_not_load == ["fc1.bias", "fc2.weight", "fc2.bias"]
    assert ckpt_not_load == ["other"]
    assert "3 parameters in the 'net' are not loaded" in caplog.text


def test_a_missing_prefix_is_found_unless_strict(tmp_path):
    wrapped = Wrapped(seed=10)
    path = str(tmp_path / "w.ckpt")
    ms.save_checkpoint(wrapped, path)
    loaded = ms.load_checkpoint(path)
    assert "backbone.fc1.weight" in loaded
    plain = Net(seed=11)
    assert ms.load_param_into_net(plain, loaded, strict_load=True)[0] == [
        "fc1.weight",
        "fc1.bias",
        "fc2.weight",
        "fc2.bias",
    ]
    param_not_load, ckpt_not_load = ms.load_param_into_net(plain, loaded)
    assert (param_not_load, ckpt_not_load) == ([], [])
    np.testing.assert_array_equal(plain.fc1.weight.asnumpy(), wrapped.backbone.fc1.weight.asnumpy())


def test_a_shape_mismatch_is_an_error_and_changes_nothing():
    net = Net()
    before = params_of(net)
    bad = {p.name: p.clone() for p in Net(seed=1).get_parameters()}
    bad["fc2.bias"] = ms.Parameter(ms.Tensor(np.zeros(5, F32)), name="fc2.bias")
    with pytest.raises(
        RuntimeError, match=r"fc2.bias in the argument 'net' should have the same shape"
    ):
        ms.load_param_into_net(net, bad)
    for name, value in params_of(net).items():  # fc1, checked first, was not loaded either
        np.testing.assert_array_equal(value, before[name])


def test_trailing_unit_dims_are_dropped():
    net = Net()
    weight = np.arange(12, dtype=F32).reshape(3, 4, 1, 1)
    ms.load_param_into_net(net, {"fc1.weight": ms.Parameter(ms.Tensor(weight))})
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), weight.reshape(3, 4))


def test_dtype_conversion_unless_strict(caplog):
    net = Net()
    half = {"fc1.bias": ms.Parameter(ms.Tensor(np.array([1, 2, 3], np.float16)), name="fc1.bias")}
    with pytest.raises(RuntimeError, match="should have the same type"):
        ms.load_param_into_net(net, half, strict_load=True)
    with caplog.at_level(logging.WARNING):
        ms.load_param_into_net(net, half)
    assert net.fc1.bias.dtype == ms.float32
    np.testing.assert_array_equal(net.fc1.bias.asnumpy(), [1, 2, 3])
    assert "the type convert from Float16 to Float32" in caplog.text
    ints = {"fc1.bias": ms.Parameter(ms.Tensor(np.array([1, 2, 3], np.int32)), name="fc1.bias")}
    with pytest.raises(RuntimeError, match="type Int32 in the argument 'parameter_dict'"):
        ms.load_param_into_net(net, ints)


def test_load_param_into_net_argument_errors():
    with pytest.raises(TypeError, match="'net' should be a Cell"):
        ms.load_param_into_net({}, {})
    with pytest.raises(TypeError, match="'parameter_dict' should be a dict"):
        ms.load_param_into_net(Net(), [("fc1.weight", 1)])
    with pytest.raises(TypeError, match="should be a 'str' and 'Parameter'"):
        ms.load_param_into_net(Net(), {"fc1.bias": ms.Tensor([1.0, 2.0, 3.0])})
    with pytest.raises(TypeError, match="'strict_load' must be bool"):
        ms.load_param_into_net(Net(), {}, strict_load=1)
    with pytest.raises(TypeError, match="only be used in parallel scenarios"):
        ms.load_param_into_net(Net(), {}, remove_redundancy=True)


# -- save_checkpoint's errors ---------------------------------------------------------------------


def test_save_argument_errors(tmp_path):
    path = str(tmp_path / "e.ckpt")
    with pytest.raises(TypeError, match="'save_obj' must be nn.Cell, list or dict"):
        ms.save_checkpoint(ms.Tensor([1.0]), path)
    with pytest.raises(TypeError, match="'ckpt_file_name' must be string"):
        ms.save_checkpoint(Net(), tmp_path / "e.ckpt")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        ms.save_checkpoint(Net(), str(tmp_path))
    with pytest.raises(ValueError, match="format must be 'safetensors' or 'ckpt'"):
        ms.save_checkpoint(Net(), path, format="pt")
    with pytest.raises(TypeError, match="'integrated_save' must be bool"):
        ms.save_checkpoint(Net(), path, integrated_save="yes")
    with pytest.raises(TypeError, match="'async_save' must be bool or str"):
        ms.save_checkpoint(Net(), path, async_save=1)
    with pytest.raises(ValueError, match="'async_save' can only be 'process' or 'thread'"):
        ms.save_checkpoint(Net(), path, async_save="later")
    with pytest.raises(TypeError, match="'append_dict' must be dict"):
        ms.save_checkpoint(Net(), path, append_dict=[1])
    with pytest.raises(TypeError, match="'append_info' must be key: string"):
        ms.save_checkpoint(Net(), path, append_dict={"a": [1]})
    with pytest.raises(TypeError, match="list of Parameter"):
        ms.save_checkpoint([ms.Tensor([1.0])], path)
    with pytest.raises(TypeError, match="the name in dict should be string"):
        ms.save_checkpoint([{"name": 1, "data": ms.Tensor([1.0])}], path)
    with pytest.raises(TypeError, match="the data in dict should be parameter"):
        ms.save_checkpoint([{"name": "a", "data": [1.0]}], path)
    with pytest.raises(TypeError, match="key should be str"):
        ms.save_checkpoint({"a": 1.0}, path)
    with pytest.raises(TypeError, match="'choice_func' must be a function"):
        ms.save_checkpoint(Net(), path, choice_func="fc1")
    with pytest.raises(TypeError, match="unexpected keyword argument 'incremantal'"):
        ms.save_checkpoint(Net(), path, incremantal=True)
    assert not os.path.exists(path)


@pytest.mark.parametrize(
    "kwargs,named",
    [
        ({"enc_key": b"0123456789abcdef"}, "enc_key"),
        ({"async_save": True}, "async_save=True"),
        ({"async_save": "thread"}, "async_save='thread'"),
    ],
)
def test_unsupported_save_options_are_named(tmp_path, kwargs, named):
    with pytest.raises(NotImplementedError, match=named):
        ms.save_checkpoint(Net(), str(tmp_path / "u.ckpt"), **kwargs)
    assert os.listdir(tmp_path) == []


def test_an_unwritable_path_is_a_located_error(tmp_path):
    path = str(tmp_path / "no" / "such" / "dir" / "m.ckpt")
    with pytest.raises(MindjitError, match="cannot write file") as info:
        ms.save_checkpoint(Net(), path)
    assert str(info.value).startswith(path + ": error:")


def test_a_save_replaces_the_file_whole(tmp_path):
    path = tmp_path / "r.ckpt"
    path.write_bytes(b"x" * 100_000)  # an older, larger file
    ms.save_checkpoint(golden_objects(), str(path), append_dict={"epoch": "ab"})
    assert path.read_bytes() == GOLDEN
    assert os.listdir(tmp_path) == ["r.ckpt"]  # no temp file left


# -- load_checkpoint's errors --------------------------------------------------------------------


def test_load_argument_errors(tmp_path):
    good = tmp_path / "g.ckpt"
    good.write_bytes(GOLDEN)
    with pytest.raises(TypeError, match="'ckpt_file_name' must be string"):
        ms.load_checkpoint(good)
    with pytest.raises(ValueError, match="format must same with 'format'"):
        ms.load_checkpoint(str(tmp_path / "g.bin"))
    with pytest.raises(TypeError, match="'dec_key' must be None or bytes"):
        ms.load_checkpoint(str(good), dec_key="key")
    with pytest.raises(NotImplementedError, match="dec_key"):
        ms.load_checkpoint(str(good), dec_key=b"0123456789abcdef")
    with pytest.raises(TypeError, match="'crc_check' must be bool"):
        ms.load_checkpoint(str(good), crc_check=None)


def test_a_missing_file_is_a_value_error_naming_it(tmp_path):
    path = str(tmp_path / "missing.ckpt")
    with pytest.raises(ValueError, match="does not exist") as info:
        ms.load_checkpoint(path)
    assert isinstance(info.value, CheckpointError) and str(info.value).startswith(path)


@pytest.mark.parametrize(
    "data,why",
    [
        (GOLDEN[:-3], r"byte 48: field 1 announces 26 bytes, 23 left"),
        (GOLDEN[:1], r"byte 1: truncated varint"),
        (b"\x0a\x04\x0a\x03ab", r"byte 2: field 1 announces 3 bytes, 2 left"),
        (b"\x0b\x00", r"wire type 3: a group"),
        (b"\x0e", r"wire type 6: invalid"),
        (b"\x0a" + b"\xff" * 11, r"varint longer than 10 bytes"),
        (b"\x0a\x02\x12\x00", r"a Value has no tag"),
        (b"\x0a\x03\x0a\x01w", r"the Value 'w' has no tensor"),
        (b"\x0a\x07\x0a\x01w\x12\x02\x08\x01", r"the tensor of 'w' has no tensor_type"),
        (b"\x0a\x05\x0a\x01\xff\x12\x00", r"a Value's tag is not UTF-8"),
        (b"\x00\x01", r"field number 0"),
        (b"PK\x03\x04 a zip file", r"not a valid MindSpore checkpoint"),
    ],
)
def test_a_malformed_file_is_a_value_error_naming_file_and_byte(tmp_path, data, why):
    path = tmp_path / "bad.ckpt"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=why) as info:
        ms.load_checkpoint(str(path))
    assert isinstance(info.value, CheckpointError)
    assert str(info.value).startswith(f"{path}: error: not a valid MindSpore checkpoint")


@pytest.mark.parametrize(
    "data,why",
    [
        (entry_bytes(b"u", b"\x08\x01", b"BFloat16", b"\x01\x02"), "'BFloat16', a MindSpore type"),
        (entry_bytes(b"u", b"\x08\x01", b"Complex", b"\x01"), "'Complex', an unknown type"),
        (
            entry_bytes(b"w", b"\x08\x03", b"Float32", b"\x00" * 8),
            r"8 bytes .* shape \(3,\) needs 12",
        ),
        (entry_bytes(b"s", b"\x08\x00", b"str", b"abc"), "the str 's' is not UTF-32"),
        (b"\x0a\x07\x0a\x01m\x1a\x02\x0a\x00", "'m' is a MapParameter"),
    ],
)
def test_content_mindjit_cannot_load_is_named(tmp_path, data, why):
    path = tmp_path / "odd.ckpt"
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match=why):
        ms.load_checkpoint(str(path))


def test_crc_mismatch_and_missing_crc(tmp_path, caplog):
    path = tmp_path / "c.ckpt"
    good = GOLDEN + b"crc_num" + binascii.crc32(GOLDEN).to_bytes(10, "big")
    damaged = bytearray(good)
    damaged[21] ^= 0x01  # a bit of w's content
    path.write_bytes(bytes(damaged))
    assert "w" in ms.load_checkpoint(str(path))  # not checked: the trailer is only stripped
    with pytest.raises(CheckpointError, match="the crc check is failed"):
        ms.load_checkpoint(str(path), crc_check=True)
    path.write_bytes(GOLDEN)
    with caplog.at_level(logging.WARNING):
        assert "w" in ms.load_checkpoint(str(path), crc_check=True)
    assert "does not contain the crc code" in caplog.text


def test_the_tutorial_script_runs(tmp_path):
    """/tmp/tut/q1.py's ending: save a trained model, load it into a fresh one."""
    model = Net(seed=12)
    ms.save_checkpoint(model, str(tmp_path / "model.ckpt"))
    model2 = Net(seed=13)
    param_dict = ms.load_checkpoint(str(tmp_path / "model.ckpt"))
    param_not_load, _ = ms.load_param_into_net(model2, param_dict)
    assert param_not_load == []
    x = ms.Tensor(np.ones((2, 4), F32))
    np.testing.assert_array_equal(model2(x).asnumpy(), model(x).asnumpy())


# -- format="safetensors" ----------------------------------------------------------------------

ST_HEADER = b'{"__metadata__":{"format":"ms"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
ST_GOLDEN = (
    b"\x58\0\0\0\0\0\0\0"  # the header's length, 88 (u64 little-endian)
    + ST_HEADER
    + b"   "  # padded with spaces to 8 bytes
    + b"\x00\x00\x80\x3f\x00\x00\x00\x40"  # 1.0f, 2.0f
)


def test_safetensors_bytes_and_back(tmp_path):
    path = tmp_path / "tiny"
    ms.save_checkpoint(golden_objects()[:1], str(path), format="safetensors")
    written = tmp_path / "tiny.safetensors"
    assert written.read_bytes() == ST_GOLDEN
    loaded = ms.load_checkpoint(str(written), format="safetensors")
    assert list(loaded) == ["w"] and loaded["w"].name == "w"
    np.testing.assert_array_equal(loaded["w"].asnumpy(), [1.0, 2.0])


@pytest.mark.parametrize("dtype", DTYPES, ids=[np.dtype(d).name for d in DTYPES])
def test_safetensors_round_trip_every_dtype(tmp_path, dtype):
    value = (np.random.default_rng(2).standard_normal((2, 3)) * 50).astype(dtype)
    path = str(tmp_path / "t.safetensors")
    extra = {"step": 4}
    ms.save_checkpoint(
        {"x": ms.Parameter(ms.Tensor(value))}, path, append_dict=extra, format="safetensors"
    )
    loaded = ms.load_checkpoint(path, format="safetensors")
    assert list(loaded) == ["step", "x"]  # MindSpore writes and reads in name order
    np.testing.assert_array_equal(loaded["x"].asnumpy(), value)
    assert loaded["x"].asnumpy().dtype == np.dtype(dtype)


def test_safetensors_into_a_net_with_crc(tmp_path, caplog):
    path = str(tmp_path / "n.safetensors")
    trained, fresh = Net(seed=20), Net(seed=21)
    ms.save_checkpoint(trained, path, format="safetensors", crc_check=True, remove_redundancy=False)
    header = open(path, "rb").read(300)
    assert b'"crc_num":"' in header and b'"remove_redundancy":"False"' in header
    ms.load_checkpoint(path, net=fresh, format="safetensors", crc_check=True)
    np.testing.assert_array_equal(fresh.fc1.weight.asnumpy(), trained.fc1.weight.asnumpy())
    damaged = bytearray(open(path, "rb").read())
    damaged[-1] ^= 0x01
    open(path, "wb").write(bytes(damaged))
    assert ms.load_checkpoint(path, format="safetensors")  # not checked
    with pytest.raises(CheckpointError, match="the crc check has failed"):
        ms.load_checkpoint(path, format="safetensors", crc_check=True)
    ms.save_checkpoint(trained, path, format="safetensors")
    with caplog.at_level(logging.WARNING):
        ms.load_checkpoint(path, format="safetensors", crc_check=True)
    assert "does not contain the crc code" in caplog.text


def test_safetensors_options_and_errors(tmp_path):
    path = str(tmp_path / "s.safetensors")
    with pytest.raises(ValueError, match="a safetensors file holds tensors only, but 'note'"):
        ms.save_checkpoint(Net(), path, append_dict={"note": "hi"}, format="safetensors")
    with pytest.raises(ValueError, match="the parameter 'enc_key' must be set to default value"):
        ms.save_checkpoint(Net(), path, enc_key=b"0123456789abcdef", format="safetensors")
    with pytest.raises(ValueError, match="the parameter 'incremental' must be set"):
        ms.save_checkpoint(Net(), path, incremental=True, format="safetensors")
    assert not os.path.exists(path)
    ms.save_checkpoint(Net(), path, format="safetensors")
    with pytest.raises(ValueError, match="the parameter 'dec_mode' must be set"):
        ms.load_checkpoint(path, dec_mode="AES-CBC", format="safetensors")
    with pytest.raises(ValueError, match="format must same with 'format'"):
        ms.load_checkpoint(path)  # a .safetensors file read as ckpt
    assert list(ms.load_checkpoint(path, filter_prefix="fc1", format="safetensors")) == [
        "fc2.bias",
        "fc2.weight",
    ]


def st_file(header: bytes, data: bytes = b"", size: int | None = None) -> bytes:
    return (len(header) if size is None else size).to_bytes(8, "little") + header + data


@pytest.mark.parametrize(
    "data,why",
    [
        (b"\x08\0\0", "3 bytes, shorter than the 8-byte header length"),
        (st_file(b"{}", size=100), "the header announces 100 bytes, 2 follow"),
        (st_file(b"{not json"), "the header is not JSON"),
        (st_file(b"[1]"), "the header is not a JSON object"),
        (st_file(b'{"w":{"dtype":"F32"}}'), "'w' is not a dtype, shape and data_offsets"),
        (st_file(b'{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', b"\0" * 8), "needs 12"),
        (
            st_file(b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', b"\0" * 4),
            r"\[0, 8\)",
        ),
        (
            st_file(b'{"w":{"dtype":"I8","shape":[2],"data_offsets":[0,2]}}', b"\0" * 3),
            "hold 2 bytes",
        ),
        (
            st_file(b'{"a":{"dtype":"I8","shape":[1],"data_offsets":[1,2]}}', b"\0\0"),
            "do not tile the data",
        ),
        (
            st_file(b'{"b":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}}', b"\0\0"),
            "'BF16', a dtype",
        ),
        (
            st_file(b'{"c":{"dtype":"Q9","shape":[1],"data_offsets":[0,2]}}', b"\0\0"),
            "'Q9', an unknown",
        ),
    ],
)
def test_a_malformed_safetensors_file_is_named(tmp_path, data, why):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match=why) as info:
        ms.load_checkpoint(str(path), format="safetensors")
    assert str(info.value).startswith(f"{path}: error:")


def test_the_safetensors_library_reads_ours_and_we_read_its(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    ours = str(tmp_path / "ours.safetensors")
    ms.save_checkpoint(Net(seed=22), ours, format="safetensors")
    theirs = st.load_file(ours)
    np.testing.assert_array_equal(theirs["fc1.weight"], Net(seed=22).fc1.weight.asnumpy())
    arrays = {"b": np.array([True, False]), "h": np.arange(6, dtype=np.float16).reshape(2, 3)}
    st.save_file(arrays, str(tmp_path / "theirs.safetensors"), metadata={"format": "ms"})
    loaded = ms.load_checkpoint(str(tmp_path / "theirs.safetensors"), format="safetensors")
    for name, value in arrays.items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), value)


def checkpoint_classes():
    """checkpoint.proto's messages, built by the protobuf library from the schema
    (no protoc): (Checkpoint, TensorProto)."""
    descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
    from google.protobuf import descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="checkpoint.proto", syntax="proto2")
    tensor = proto.message_type.add(name="TensorProto")
    tensor.field.add(name="dims", number=1, type=F.TYPE_INT64, label=F.LABEL_REPEATED)
    tensor.field.add(name="tensor_type", number=2, type=F.TYPE_STRING, label=F.LABEL_REQUIRED)
    tensor.field.add(name="tensor_content", number=3, type=F.TYPE_BYTES, label=F.LABEL_REQUIRED)
    checkpoint = proto.message_type.add(name="Checkpoint")
    value = checkpoint.nested_type.add(name="Value")
    value.field.add(name="tag", number=1, type=F.TYPE_STRING, label=F.LABEL_REQUIRED)
    value.field.add(
        name="tensor",
        number=2,
        type=F.TYPE_MESSAGE,
        type_name=".TensorProto",
        label=F.LABEL_OPTIONAL,
    )
    checkpoint.field.add(
        name="value",
        number=1,
        type=F.TYPE_MESSAGE,
        type_name=".Checkpoint.Value",
        label=F.LABEL_REPEATED,
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("Checkpoint"))


def test_the_protobuf_library_agrees_with_the_golden_bytes():
    """What MindSpore's writer does (one Checkpoint with one Value per entry,
    serialized and appended) gives GOLDEN, and protobuf parses GOLDEN back."""
    Checkpoint = checkpoint_classes()
    out = b""
    for tag, dims, tensor_type, content in [
        ("w", [2], "Float32", np.array([1.0, 2.0], F32).tobytes()),
        ("n", [], "Int32", np.array(7, np.int32).tobytes()),
        ("epoch", [0], "str", np.array("ab").tobytes()),
    ]:
        one = Checkpoint()
        entry = one.value.add()
        entry.tag = tag
        entry.tensor.dims.extend(dims)
        entry.tensor.tensor_type = tensor_type
        entry.tensor.tensor_content = content
        out += one.SerializeToString()
    assert out == GOLDEN
    parsed = Checkpoint()
    parsed.ParseFromString(GOLDEN)
    assert [v.tag for v in parsed.value] == ["w", "n", "epoch"]
    assert list(parsed.value[0].tensor.dims) == [2] and parsed.value[1].tensor.dims == []


# -- MindSpore itself, when installed --------------------------------------------------------------


def test_mindspore_reads_ours_and_we_read_mindspores(tmp_path):
    mindspore = pytest.importorskip("mindspore")
    ours = tmp_path / "ours.ckpt"
    ms.save_checkpoint(golden_objects(), str(ours), append_dict={"epoch": "ab"})
    theirs_view = mindspore.load_checkpoint(str(ours))
    np.testing.assert_array_equal(theirs_view["w"].asnumpy(), [1.0, 2.0])
    assert theirs_view["n"].asnumpy() == 7 and theirs_view["epoch"] == "ab"
    theirs = tmp_path / "theirs.ckpt"
    mindspore.save_checkpoint(
        [
            {"name": "w", "data": mindspore.Tensor(np.array([1.0, 2.0], F32))},
            {"name": "n", "data": mindspore.Tensor(np.array(7, np.int32))},
        ],
        str(theirs),
        append_dict={"epoch": "ab"},
    )
    assert theirs.read_bytes() == GOLDEN
