"""mindjit/__init__.py loads the user API (user_api.py) on first use: the tools import
no frontend, and every way a user reaches the API still finds it. Each case runs in
a fresh interpreter: this process loaded the API long ago."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_tools_import_no_frontend():
    out = _run(
        """
        import sys
        import mindjit.tools.ms_opt, mindjit.tools.ms_run, mindjit.tools.ms_translate
        print(sorted(m for m in sys.modules if m.startswith(("mindjit.frontend", "mindjit.user_api"))))
        """
    )
    assert out == "[]"


def test_an_api_name_loads_the_api_and_keeps_mindsporess_paths():
    out = _run(
        """
        import sys
        import mindjit as ms
        assert "mindjit.frontend" not in sys.modules
        t = ms.Tensor([1.0, 2.0])
        import mindjit.nn.wrap.cell_wrapper as cw
        from mindjit.ops import operations as P
        import mindjit.common.dtype as mstype
        assert mstype is ms.dtype is ms.mstype and cw.WithLossCell is ms.nn.WithLossCell
        assert P.Add is ms.ops.Add and "Tensor" in dir(ms)
        print(float(P.Add()(t, t).asnumpy().sum()))
        """
    )
    assert out == "6.0"


def test_a_mindspore_path_imported_first_loads_the_api():
    out = _run(
        """
        import mindjit.nn as nn
        from mindjit.train.callback import LossMonitor
        import mindjit
        # the registered module keeps its own spec, not the alias's
        print(nn.__spec__.name, nn is mindjit.nn, LossMonitor.__name__)
        """
    )
    assert out == "mindjit.frontend.nn True LossMonitor"
    assert _run("import mindjit.common.dtype as t; print(t.float32)") == "Float32"
    assert _run("import mindjit.common as c; print(c.dtype.float32, c.tensor.Tensor.__name__)") == (
        "Float32 Tensor"
    )
    assert "Add" in _run("from mindjit.ops.operations import Add; print(Add.__name__)")


def test_star_import_and_a_missing_name():
    out = _run(
        """
        from mindjit import *
        import mindjit
        try:
            mindjit.no_such_name
        except AttributeError as e:
            print(Tensor.__name__, jit.__name__, e)
        """
    )
    assert out == "Tensor jit module 'mindjit' has no attribute 'no_such_name'"
    missing = subprocess.run(
        [sys.executable, "-c", "import mindjit.nn.no_such_module"], capture_output=True, text=True
    )
    assert "ModuleNotFoundError: No module named 'mindjit.nn.no_such_module'" in missing.stderr


def test_threads_reading_the_api_at_once_all_find_it():
    out = _run(
        """
        import threading
        import mindjit as ms
        found = []
        def read():
            found.append(ms.Tensor is not None and ms.nn.Dense is not None)
        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(found.count(True))
        """
    )
    assert out == "8"


def test_the_finder_knows_every_path_the_api_registers():
    """`_API_PATHS` repeats the first parts of user_api.py's and mindspore_paths.py's
    registrations (reading them would load the API): every registered path, a module
    held under a name that is not its own, is one the finder answers."""
    out = _run(
        """
        import sys
        import mindjit
        mindjit.Tensor
        aliases = [k for k, m in list(sys.modules.items())
                   if k.startswith("mindjit.") and getattr(m, "__name__", k) != k]
        print(len(aliases), [k for k in aliases if not mindjit._is_api_path(k)])
        """
    )
    count, missed = out.split(" ", 1)
    assert int(count) > 20 and missed == "[]"


def test_a_failed_load_raises_and_the_next_use_loads_again():
    out = _run(
        """
        import sys
        import mindjit
        sys.modules["mindjit.user_api"] = None  # its import raises ImportError
        try:
            mindjit.Tensor
        except ImportError:
            print("refused", end=" ")
        del sys.modules["mindjit.user_api"]
        print(mindjit.Tensor.__name__)
        """
    )
    assert out == "refused Tensor"
