"""The programs the fault suite runs in child processes (faults.py starts them;
they print one JSON line, or a "ready"/"renaming" line the parent acts on).

    python fault_child.py cache DIR SEED       a small Cell on a shared compile cache
    python fault_child.py cache-stop DIR SEED  ... stopping before its entry's rename
    python fault_child.py threads CALLS        8 threads making a Cell's first calls
    python fault_child.py writer FILE SIZE     write_atomic in a loop (killed at random)
    python fault_child.py writer-stop FILE SIZE  one write, stopping before its rename
    python fault_child.py writer-once FILE SIZE  one write

The writers need only support/files.py: they import it without running
`mindjit/__init__.py` (the frontend, ~0.8 s), so a hundred kills take seconds.
Graph mode reads the source of what it compiles, so the programs live in this
file rather than in strings.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import time
import types

import numpy as np

THREADS = 8


def payload(version: int, size: int) -> bytes:
    """A file the parent can tell whole from torn: a header with the body's digest."""
    body = (f"{version:08d}" * (size // 8 + 1)).encode()[:size]
    return f"v{version} {hashlib.sha256(body).hexdigest()}\n".encode() + body


def is_whole(data: bytes) -> bool:
    header, _, body = data.partition(b"\n")
    parts = header.split()
    return len(parts) == 2 and hashlib.sha256(body).hexdigest().encode() == parts[1]


def files_module() -> types.ModuleType:
    """mindjit.support.files, without importing the mindjit package's __init__."""
    if "mindjit" not in sys.modules:
        spec = importlib.util.find_spec("mindjit")
        assert spec is not None and spec.submodule_search_locations is not None
        stub = types.ModuleType("mindjit")
        stub.__path__ = list(spec.submodule_search_locations)
        sys.modules["mindjit"] = stub
    import mindjit.support.files as files

    return files


def stop_before_rename(suffix: str = "") -> None:
    """os.replace of a file ending in `suffix` says "renaming" and waits to be killed."""
    real = os.replace

    def stopping(src, dst):  # noqa: ANN001
        if str(dst).endswith(suffix):
            print("renaming", flush=True)
            time.sleep(600)
        real(src, dst)

    os.replace = stopping


# -- programs on mindjit ---------------------------------------------------------------------


def affine_net(seed: int):
    import mindjit as ms
    from mindjit import Parameter, Tensor, nn, ops

    class Affine(nn.Cell):
        def __init__(self, w, b):
            super().__init__()
            self.w = Parameter(Tensor(w), name="w")
            self.b = Parameter(Tensor(b), name="b")

        def construct(self, x):
            y = ops.matmul(x, self.w) + self.b
            return ops.relu(y) + ops.reduce_sum(y, 1, keep_dims=True)

    w, b, x = affine_data(seed)
    return Affine(w, b), Tensor(x), ms


def affine_data(seed: int):
    """Parameter values vary by seed (inputs of an entry, not its key); the input's
    shape by seed % 2 (another key)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((2 + seed % 2, 4)).astype(np.float32)
    return w, b, x


def affine_expected(seed: int) -> np.ndarray:
    w, b, x = affine_data(seed)
    y = x @ w + b
    return np.maximum(y, 0) + y.sum(axis=1, keepdims=True)


def cache(directory: str, seed: int) -> None:
    net, x, ms = affine_net(seed)
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=directory)
    print(json.dumps(net(x).asnumpy().tolist()), flush=True)


def threads(calls: int) -> None:
    import gc
    import threading

    import mindjit as ms
    from mindjit import Parameter, Tensor, nn, ops

    class Counter(nn.Cell):
        """Adds 1 to `count` per call, with matmuls between its read and its write."""

        def __init__(self):
            super().__init__()
            self.count = Parameter(Tensor(np.zeros(4, np.float32)), name="count")
            self.w = Parameter(Tensor(np.eye(64, dtype=np.float32)), name="w")

        def construct(self, x):
            read = self.count + 1.0
            y = ops.reduce_sum(ops.matmul(ops.matmul(x * read[0], self.w), self.w))
            ops.assign(self.count, read + y * 0.0)
            return y

    ms.set_context(mode=ms.GRAPH_MODE)
    sys.setswitchinterval(1e-5)  # threads switch often: races show in a short run
    saved = gc.get_threshold()
    net = Counter()
    x = Tensor(np.ones((32, 64), np.float32))
    errors: list[str] = []
    start = threading.Barrier(THREADS)

    def body() -> None:
        start.wait()
        try:
            for _ in range(calls):
                net(x)
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            errors.append(f"{type(exc).__name__}: {exc}"[:300])

    workers = [threading.Thread(target=body) for _ in range(THREADS)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    result = {
        "count": float(net.count.asnumpy()[0]),
        "expected": float(THREADS * calls),
        "errors": errors,
        "gc_restored": gc.get_threshold() == saved,
    }
    print(json.dumps(result), flush=True)


def main(argv: list[str]) -> None:
    what, *args = argv
    if what in ("cache", "cache-stop"):
        if what == "cache-stop":
            stop_before_rename(".mjc")
        cache(args[0], int(args[1]))
    elif what == "threads":
        threads(int(args[0]))
    elif what.startswith("writer"):
        write_atomic = files_module().write_atomic
        target, size = args[0], int(args[1])
        if what == "writer-stop":
            stop_before_rename()
        if what == "writer":
            print("ready", flush=True)
            version = 0
            while True:
                version += 1
                write_atomic(target, payload(version, size))
        write_atomic(target, payload(0, size))
    else:
        raise SystemExit(f"fault_child.py: unknown program {what!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
