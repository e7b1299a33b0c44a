"""The differential fuzzer: random valid programs (generator.py), each run in
PyNative and on every path of paths.py, outputs and Parameter values compared
after every call.

    python fuzz/differential.py -n 1000            # the table path x outcome
    python fuzz/differential.py --seed S --show    # one program: its source, each path
    python fuzz/differential.py --seed S --paths P --minimize   # its smallest failing form

Programs run in a pool of worker processes (worker.py; `-j`, default 2: the
machine has two cores), each importing mindjit once; a path that runs longer
than `--timeout` seconds is a hang: its worker is killed and a new one takes
the program's remaining paths. The slow paths (IREE compiles each program, the
warm cache in a new process) run on every k-th seed (`--slow-every`). Exit
status 1 on any mismatch, crash or hang; refusals (documented located errors)
and documented differences are counted apart, with their reasons.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from outcomes import FAILURES, OUTCOMES, Outcome  # noqa: E402
from paths import FAST, PATHS, SLOW  # noqa: E402

HERE = Path(__file__).resolve().parent


def paths_for(seed: int, chosen: list[str], slow_every: int) -> list[str]:
    return [p for p in chosen if p not in SLOW or (slow_every and seed % slow_every == 0)]


# -- the pool ------------------------------------------------------------------------------


@dataclass
class Job:
    seed: int
    paths: list[str]
    again: bool = False  # the rest of a program whose worker was lost: PyNative counted


@dataclass
class Worker:
    proc: subprocess.Popen
    job: Job | None = None
    path: str | None = None  # the path running, from its "start"
    deadline: float = 0.0
    reported: set[str] = field(default_factory=set)
    buffer: bytes = b""


class Pool:
    """`jobs` workers running programs; outcomes as they come."""

    def __init__(self, jobs: int, directory: str, timeout: float, command: list[str] | None = None):
        self.directory, self.timeout = directory, timeout
        self.command = command or [sys.executable, str(HERE / "differential.py"), "--worker"]
        self.selector = selectors.DefaultSelector()
        self.workers = [self.start() for _ in range(jobs)]

    def start(self) -> Worker:
        log = open(Path(self.directory) / "workers.log", "ab")  # noqa: SIM115 - the child's
        proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
        )
        log.close()
        worker = Worker(proc)
        self.selector.register(proc.stdout, selectors.EVENT_READ, worker)
        return worker

    def replace(self, worker: Worker) -> None:
        self.selector.unregister(worker.proc.stdout)
        worker.proc.kill()
        worker.proc.wait()
        self.workers[self.workers.index(worker)] = self.start()

    def send(self, worker: Worker, job: Job) -> None:
        worker.job, worker.path, worker.reported = job, None, set()
        worker.deadline = time.monotonic() + self.timeout * 10  # until its first "start"
        line = json.dumps({"seed": job.seed, "paths": job.paths, "dir": self.directory})
        worker.proc.stdin.write(line.encode() + b"\n")
        worker.proc.stdin.flush()

    def run(self, jobs: list[Job]):
        """Yield every Outcome of every job."""
        queue = collections.deque(jobs)
        while queue or any(w.job for w in self.workers):
            for worker in self.workers:
                if worker.job is None and queue:
                    self.send(worker, queue.popleft())
            now = time.monotonic()
            wait = min(w.deadline for w in self.workers if w.job) - now
            for key, _ in self.selector.select(max(wait, 0.01)):
                worker = key.data
                chunk = os.read(key.fileobj.fileno(), 1 << 16)
                if not chunk:  # the worker died
                    yield from self.lost(worker, queue, "crash", self.died(worker))
                    continue
                worker.buffer += chunk
                while b"\n" in worker.buffer:
                    line, worker.buffer = worker.buffer.split(b"\n", 1)
                    yield from self.message(worker, json.loads(line))
            for worker in list(self.workers):
                if worker.job and time.monotonic() > worker.deadline:
                    detail = f"no answer within {self.limit(worker.path):.0f} s"
                    yield from self.lost(worker, queue, "hang", detail)

    def limit(self, path: str | None) -> float:
        return self.timeout * (3 if path in SLOW else 1)

    def message(self, worker: Worker, msg: dict):
        if "start" in msg:
            worker.path = msg["start"]
            worker.deadline = time.monotonic() + self.limit(worker.path)
        elif "done" in msg:
            worker.job = None
        else:
            worker.reported.add(msg["path"])
            if not (worker.job.again and msg["path"] == "pynative" and msg["outcome"] == "match"):
                yield Outcome(**msg)

    def died(self, worker: Worker) -> str:
        code = worker.proc.wait()
        log = (Path(self.directory) / "workers.log").read_text(errors="replace")
        tail = log.strip().splitlines()[-1:] or [""]
        return f"the worker process died (exit {code}): {tail[0][:300]}"

    def lost(self, worker: Worker, queue: collections.deque, outcome: str, detail: str):
        """The running path `outcome`s; the job's other paths go to a new worker."""
        job, path = worker.job, worker.path or "pynative"
        self.replace(worker)
        yield Outcome(job.seed, path, outcome, detail)
        if path != "pynative":
            rest = [p for p in job.paths if p not in worker.reported and p != path]
            if rest:
                queue.appendleft(Job(job.seed, rest, again=True))

    def close(self) -> None:
        for worker in self.workers:
            worker.proc.stdin.close()
        for worker in self.workers:
            try:
                worker.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait()


# -- the table ----------------------------------------------------------------------------


def table(outcomes: list[Outcome], order: list[str]) -> str:
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for o in outcomes:
        counts[o.path][o.outcome] += 1
    rows = ["| path | " + " | ".join(OUTCOMES) + " |", "|---" * (len(OUTCOMES) + 1) + "|"]
    for path in ["pynative", *order]:
        if path in counts:
            cells = [str(counts[path][k]) for k in OUTCOMES]
            rows.append(f"| {path} | " + " | ".join(cells) + " |")
    total = collections.Counter(o.outcome for o in outcomes)
    rows.append("| all | " + " | ".join(str(total[k]) for k in OUTCOMES) + " |")
    return "\n".join(rows)


def reasons(outcomes: list[Outcome], kind: str) -> list[str]:
    by = collections.defaultdict(list)
    for o in outcomes:
        if o.outcome == kind:
            by[o.detail].append(o)
    lines = []
    for detail, found in sorted(by.items(), key=lambda kv: -len(kv[1])):
        where = ", ".join(f"{o.seed}/{o.path}" for o in found[:6])
        more = f" (+{len(found) - 6})" if len(found) > 6 else ""
        lines.append(f"  {len(found):4d}  {detail}  [{where}{more}]")
    return lines


def report(outcomes: list[Outcome], order: list[str], programs: int, seconds: float) -> str:
    runs = len(outcomes)
    out = [
        table(outcomes, order),
        "",
        f"{programs} programs, {runs} path runs in {seconds:.1f} s: "
        f"{programs / seconds:.2f} programs/s, {runs / seconds:.1f} path runs/s",
    ]
    for kind, title in (("refused", "refusals"), ("documented", "documented differences")):
        found = reasons(outcomes, kind)
        if found:
            out += ["", f"{title} (count, reason, [seed/path ...]):", *found]
    bad: dict[tuple[int, str, str], list[str]] = collections.defaultdict(list)
    for o in outcomes:
        if o.outcome in FAILURES:
            bad[(o.seed, o.outcome, o.detail)].append(o.path)
    if bad:
        out += ["", "failures (each: python fuzz/differential.py --seed S --show):"]
        for (seed, outcome, detail), where in sorted(bad.items()):
            paths = ", ".join(where) if len(where) < len(order) else "every path"
            out.append(f"  seed {seed} {outcome} on {paths}: {detail[:400]}")
    return "\n".join(out)


# -- one program --------------------------------------------------------------------------


def show(seed: int, chosen: list[str]) -> int:
    """Print the program of `seed` and each path's result (in this process)."""
    from generator import generate
    from worker import run_program

    print(f"# program of seed {seed}\n{generate(seed)}")
    with tempfile.TemporaryDirectory(prefix="mindjit-fuzz-") as directory:
        outcomes = run_program(seed, chosen, directory)
    for o in outcomes:
        print(f"{o.path:16s} {o.outcome}" + (f": {o.detail}" if o.detail else ""))
        if o.outcome == "crash" and o.trace:
            print("".join("    " + ln for ln in o.trace.splitlines(True)[-12:]))
    return 1 if any(o.outcome in FAILURES for o in outcomes) else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100, help="programs to run (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--show", action="store_true", help="one program: source and each path")
    ap.add_argument(
        "--minimize", action="store_true", help="shrink the program of --seed failing on --paths"
    )
    ap.add_argument(
        "--paths",
        default="all",
        help=f"comma-separated paths, 'all' or 'fast' (no {', '.join(SLOW)}); "
        f"known: {', '.join(PATHS)}",
    )
    ap.add_argument(
        "--slow-every",
        type=int,
        default=10,
        help=f"run {', '.join(SLOW)} on seeds divisible by this (0: never; default 10)",
    )
    ap.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per path (x3 slow)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warm-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        from worker import serve

        serve()
        return 0
    if args.warm_child:
        from worker import warm_child

        warm_child(int(args.warm_child[0]), Path(args.warm_child[1]))
        return 0
    chosen = {"all": list(PATHS), "fast": FAST}.get(args.paths) or args.paths.split(",")
    unknown = [p for p in chosen if p not in PATHS]
    if unknown:
        ap.error(f"unknown path(s) {', '.join(unknown)}; known: {', '.join(PATHS)}")
    if args.show:
        return show(args.seed, chosen)
    if args.minimize:
        from generator import generate
        from minimize import minimize

        if len(chosen) != 1:
            ap.error("--minimize takes one path (--paths P)")
        print(minimize(args.seed, chosen[0], generate(args.seed)))
        return 0

    seeds = range(args.seed, args.seed + args.n)
    jobs = [Job(s, paths_for(s, chosen, args.slow_every)) for s in seeds]
    start = time.monotonic()
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="mindjit-fuzz-") as directory:
        pool = Pool(args.jobs, directory, args.timeout)
        try:
            for outcome in pool.run(jobs):
                outcomes.append(outcome)
                if outcome.outcome in FAILURES:
                    print(f"seed {outcome.seed} {outcome.path}: {outcome.outcome}", flush=True)
        finally:
            pool.close()
    print(report(outcomes, chosen, len(seeds), time.monotonic() - start))
    return 1 if any(o.outcome in FAILURES for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
