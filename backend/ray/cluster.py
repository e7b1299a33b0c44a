"""Joining a Ray cluster, and starting actors on it within a bounded time.

Where the cluster comes from (the order Ray itself uses): `set_distributed(
address=)`, else `RAY_ADDRESS`, else a cluster already running on this machine
(`ray start --head`), else a new local one on this machine's cores. So the same
script runs on a laptop and on a cluster.

What Ray does not bound, this module does (measured with Ray 2.60 here):
- an address nobody answers makes `ray.init` retry for about 14 minutes: the
  address is probed first (a TCP connect, 3 s) and refused with a clear error;
- an actor the cluster cannot place stays pending forever: `start_actors` waits
  `start_timeout` seconds for every actor's `ready`, then kills them all and
  names the CPUs asked for and the CPUs the cluster has.
A local cluster costs 3.7 s to start and about 620 MiB; each actor ~78 MiB.

Actors are a cache: a program's actors live while the program does, holding
their CPU request. When new actors do not fit, `make_room` stops the actors of
the programs used least recently (they hold nothing the driver lacks: after
each step the user's Parameters have the stages' values, so a stopped group
starts again on its next call from those). A script that compiles several
pipelined programs (or a test suite) thus never waits on its own idle actors.
"""

from __future__ import annotations

import socket
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from mindjit.backend.ray.errors import DistributedError, ray_missing
from mindjit.support.config import DistributedSettings

PROBE_SECONDS = 3.0


def import_ray() -> Any:
    try:
        import ray  # the optional extra (mindjit[ray]): imported when chosen
    except ImportError:
        raise ray_missing() from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """host and port of a GCS or client address; None for Ray's 'auto'/'local'."""
    text = address.removeprefix("ray://")
    if text in ("auto", "local") or ":" not in text:
        return None
    host, _, port = text.rpartition(":")
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        raise DistributedError(
            f"the Ray cluster address {address!r} is not host:port (or ray://host:port)"
        ) from None


def probe(address: str) -> None:
    """Refuse an address nothing answers at, in seconds instead of Ray's minutes."""
    where = _host_port(address)
    if where is None:
        return
    try:
        with socket.create_connection(where, timeout=PROBE_SECONDS):
            pass
    except OSError as exc:
        raise DistributedError(
            f"the Ray cluster at {address!r} does not answer ({exc.strerror or exc}); start it "
            "with `ray start --head` there, or unset RAY_ADDRESS to run on a local cluster"
        ) from None


def connect(settings: DistributedSettings) -> Any:
    """`ray`, connected to the settings' cluster (see the module doc)."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if settings.address is not None:
        probe(settings.address)
        kwargs["address"] = settings.address
    try:
        ray.init(**kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = settings.address or "this machine"
        raise DistributedError(f"cannot join the Ray cluster at {where}: {exc}") from None
    return ray


class _Groups:
    """The live actor groups of this process, least recently used first."""

    def __init__(self) -> None:
        self._order: list[weakref.ref] = []

    def touch(self, group: Any) -> None:
        self._order = [r for r in self._order if r() is not None and r() is not group]
        self._order.append(weakref.ref(group))

    def forget(self, group: Any) -> None:
        self._order = [r for r in self._order if r() is not None and r() is not group]

    def make_room(self, ray: Any, need: float, keep: Any) -> None:
        """Stop idle groups (least recently used first) until `need` CPUs are free."""
        for ref in list(self._order):
            if ray.available_resources().get("CPU", 0.0) >= need - 1e-9:
                return
            group = ref()
            if group is None or group is keep:
                continue
            group.close()
            deadline = time.monotonic() + 5.0  # Ray frees a killed actor's CPUs shortly
            while time.monotonic() < deadline:
                if ray.available_resources().get("CPU", 0.0) >= need - 1e-9:
                    return
                time.sleep(0.05)


GROUPS = _Groups()


def start_actors(
    ray: Any, make: Callable[[], Sequence[Any]], timeout: float, cpus_each: float, what: str
) -> list[Any]:
    """The actors `make` creates, each answering `ready()`, or a DistributedError
    after `timeout` seconds with every one of them killed."""
    actors = list(make())
    try:
        ray.get([a.ready.remote() for a in actors], timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        kill_all(ray, actors)
        free = ray.available_resources().get("CPU", 0.0)
        total = ray.cluster_resources().get("CPU", 0.0)
        raise DistributedError(
            f"the Ray cluster did not start the {len(actors)} {what} actors within "
            f"{timeout:g} s: they ask for {cpus_each:g} CPU each "
            f"({len(actors) * cpus_each:g} in all), the cluster has {total:g} CPUs "
            f"({free:g} free). Lower set_distributed(cpus_per_actor=), add nodes, or wait "
            "longer with set_distributed(start_timeout=)."
        ) from None
    except ray.exceptions.RayError as exc:
        kill_all(ray, actors)
        raise DistributedError(f"a {what} actor failed to start: {cause_of(exc)}") from None
    return actors


def kill_all(ray: Any, actors: Sequence[Any]) -> None:
    for actor in actors:
        try:
            ray.kill(actor, no_restart=True)
        except Exception:  # noqa: BLE001 - already dead, or the cluster is gone
            pass


def cause_of(exc: BaseException) -> str:
    """The first line of what failed inside an actor (Ray wraps it with a traceback)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException) and cause is not exc:
        return cause_of(cause)
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__
