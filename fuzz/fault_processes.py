"""Fault scenarios between processes and threads: processes sharing one compile
cache, writers killed (`kill -9`) at random moments and right before their
rename, a compile-cache writer killed there, and threads making the first
calls of one Cell."""

from __future__ import annotations

import json
import time

import numpy as np
from fault_child import affine_expected, is_whole
from fault_kit import Ctx, Row, child, kill9, run, start, temps, wait_for_line

MB = 1 << 20


def shared_cache(ctx: Ctx) -> list[Row]:
    """N processes at once on one cache directory, a few rounds (the first cold,
    the next warm); the inputs' shapes differ by seed (two keys), the Parameters by
    seed too (inputs of an entry): a wrong hit shows as a wrong result."""
    procs, rounds = ctx.size(4, 8), ctx.size(1, 3)
    directory = ctx.fresh("shared_cache")
    cache = directory / "cache"
    rows = []
    for r in range(rounds):
        seeds = [ctx.rng.randrange(1000) for _ in range(procs)]
        running = [start(child("cache", cache, s), cwd=directory) for s in seeds]
        wrong = []
        for seed, proc in zip(seeds, running):
            try:
                out, err = proc.communicate(timeout=300)
            except Exception:  # noqa: BLE001 - a hang
                proc.kill()
                wrong.append(f"seed {seed}: no answer in 300 s")
                continue
            if proc.returncode != 0:
                wrong.append(f"seed {seed}: exit {proc.returncode}: {err.strip()[-200:]}")
            elif not np.allclose(json.loads(out), affine_expected(seed), rtol=1e-5, atol=1e-5):
                wrong.append(f"seed {seed}: wrong result")
            elif "unusable" in err:
                wrong.append(f"seed {seed}: {err.strip()[-200:]}")
        left = temps(cache) if cache.exists() else []
        if left:
            wrong.append(f"temp files left: {left}")
        case = f"round {r + 1}: {procs} processes" + (" (cold)" if r == 0 else " (warm)")
        rows.append(Row("shared-cache", case, not wrong, "; ".join(wrong)))
    return rows


def kills(ctx: Ctx) -> list[Row]:
    """A writer rewriting one 2 MB file in a loop, `kill -9` at random moments: the
    visible file is always whole; one stopped right before its rename: its temp is
    dead and the next write removes it, while a live writer's temp is kept."""
    directory = ctx.fresh("kills")
    target = directory / "out.bin"
    size = 2 * MB
    torn, failed = [], []
    n = ctx.size(4, 48)
    for i in range(n):
        proc = start(child("writer", target, size))
        said = wait_for_line(proc, "ready")
        if said != "ready":
            failed.append(f"kill {i}: the writer said {said or 'nothing'}")
            kill9(proc)
            continue
        time.sleep(ctx.rng.uniform(0.0, 0.25))
        kill9(proc)
        if target.exists() and not is_whole(target.read_bytes()):
            torn.append(i)
    if torn:
        failed.append(f"torn visible file after kills {torn}")
    rows = [Row("kill -9", f"{n} writers at random moments", not failed, "; ".join(failed))]

    failed = []
    for i in range(ctx.size(1, 10)):
        proc = start(child("writer-stop", target, size))
        said = wait_for_line(proc, "renaming")
        kill9(proc)
        if said != "renaming":
            failed.append(f"stop {i}: the writer said {said or 'nothing'}")
        elif not temps(directory):
            failed.append(f"stop {i}: no temp file before the rename (nothing tested)")
        if target.exists() and not is_whole(target.read_bytes()):
            failed.append(f"stop {i}: torn visible file")
    done = run(child("writer-once", target, size))
    if done is None or done.returncode != 0:
        failed.append(f"the next write failed: {done.stderr[-200:] if done else 'hang'}")
    elif temps(directory):
        failed.append(f"dead temps left after the next write: {temps(directory)}")
    case = "killed right before the rename; the next write cleans"
    rows.append(Row("kill -9", case, not failed, "; ".join(failed)))

    failed = []
    live = start(child("writer-stop", target, MB))
    if wait_for_line(live, "renaming") != "renaming":
        failed.append("the live writer did not start")
    mine = temps(directory)
    done = run(child("writer-once", target, MB))
    if done is None or done.returncode != 0:
        failed.append("the other write failed")
    elif not mine or temps(directory) != mine:
        failed.append(f"a live writer's temp was touched: {mine} -> {temps(directory)}")
    kill9(live)
    rows.append(Row("kill -9", "a live writer's temp is kept", not failed, "; ".join(failed)))
    return rows


def cache_kill(ctx: Ctx) -> list[Row]:
    """A process killed right before renaming its compile-cache entry: no entry
    (nor a torn one) is visible; the next process gets the right result and its
    store removes the dead temp."""
    directory = ctx.fresh("cache_kill")
    failed = []
    for i in range(ctx.size(1, 3)):
        cache = directory / f"cache{i}"  # its own: a hit would store nothing
        seed = ctx.rng.randrange(1000)
        proc = start(child("cache-stop", cache, seed), cwd=directory)
        said = wait_for_line(proc, "renaming")
        kill9(proc)
        if said != "renaming":
            failed.append(f"kill {i}: the process said {said or 'nothing'}")
            continue
        if not temps(cache):
            failed.append(f"kill {i}: no temp file before the rename (nothing tested)")
        again = run(child("cache", cache, seed), cwd=directory)
        if again is None or again.returncode != 0:
            failed.append(f"kill {i}: the next run failed: {again.stderr[-200:] if again else ''}")
        elif not np.allclose(json.loads(again.stdout), affine_expected(seed), rtol=1e-5):
            failed.append(f"kill {i}: the next run's result is wrong")
        elif temps(cache):
            failed.append(f"kill {i}: dead temps left: {temps(cache)}")
    case = "a cache writer killed before its rename"
    return [Row("kill -9", case, not failed, "; ".join(failed))]


def threads(ctx: Ctx) -> list[Row]:
    """8 threads making the first calls of one compiled Cell that updates a
    Parameter per call, in fresh processes: no error, no lost update, the GC's
    thresholds as they were."""
    procs, calls = ctx.size(1, 20), ctx.size(20, 50)
    failed = []
    for p in range(procs):
        done = run(child("threads", calls))
        if done is None:
            failed.append(f"process {p}: hang")
            continue
        if done.returncode != 0:
            failed.append(f"process {p}: exit {done.returncode}: {done.stderr.strip()[-200:]}")
            continue
        got = json.loads(done.stdout)
        if got["errors"]:
            failed.append(f"process {p}: {got['errors'][0]}")
        if got["count"] != got["expected"]:
            failed.append(f"process {p}: {got['count']:g} of {got['expected']:g} updates")
        if not got["gc_restored"]:
            failed.append(f"process {p}: the GC thresholds were left changed")
    case = f"8 threads x {calls} first calls, {procs} processes"
    return [Row("threads", case, not failed, "; ".join(failed[:3]))]
