"""The simulated device's figures and its cost model (see DEVICE.md for the sources).

Every figure is a field of `DeviceConfig`; `ms-sim --device name=value` and
`--device-config file.json` override them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from typing import Any

from mindjit.support.errors import MindjitError

FLOAT16 = ("float16", "bfloat16")


@dataclass(frozen=True)
class DeviceConfig:
    cube_tflops_f16: float = 262.144
    cube_tflops_bf16: float = 262.144
    cube_tflops_f32: float = 65.536
    cube_tops_int8: float = 512.0
    vector_tflops_f16: float = 8.192
    vector_tflops_f32: float = 4.096
    vector_tops_int: float = 4.096
    aicpu_tflops: float = 0.05
    aicpu_bandwidth_gbs: float = 20.0
    hbm_bandwidth_gbs: float = 1200.0
    memory_bytes: int = 32 * 2**30
    launch_us: float = 5.0
    kernel_start_us: float = 1.0
    #: the link between two devices (HCCS), for Send / Receive on the comm unit
    link_latency_us: float = 2.0
    link_bytes_per_us: float = 30000.0  # 240 Gbit/s = 30 GB/s

    def peak_tflops(self, unit: str, dtype: str) -> float:
        if unit == "cube":
            if dtype == "float16":
                return self.cube_tflops_f16
            if dtype == "bfloat16":
                return self.cube_tflops_bf16
            if dtype in ("int8", "uint8"):
                return self.cube_tops_int8
            return self.cube_tflops_f32
        if unit == "vector":
            if dtype in FLOAT16:
                return self.vector_tflops_f16
            if dtype.startswith("float"):
                return self.vector_tflops_f32
            return self.vector_tops_int
        return self.aicpu_tflops

    def kernel_us(self, unit: str, dtype: str, flops: float, nbytes: float) -> float:
        """Device time of one kernel: start cost + the slower of compute and memory;
        a Send / Receive (unit comm) takes the link's time for its bytes."""
        if unit == "comm":
            return self.link_us(nbytes)
        compute = flops / (self.peak_tflops(unit, dtype) * 1e6)  # TFLOPS -> flop per us
        bandwidth = self.aicpu_bandwidth_gbs if unit == "aicpu" else self.hbm_bandwidth_gbs
        memory = nbytes / (bandwidth * 1e3)  # GB/s -> bytes per us
        return self.kernel_start_us + max(compute, memory)

    def link_us(self, nbytes: float) -> float:
        """Time to move `nbytes` between two devices: latency + bytes / bandwidth."""
        return self.link_latency_us + nbytes / self.link_bytes_per_us

    def copy_us(self, nbytes: float) -> float:
        return self.kernel_start_us + nbytes / (self.hbm_bandwidth_gbs * 1e3)


def _coerce(name: str, value: Any, current: Any) -> Any:
    try:
        out = type(current)(value)
    except (TypeError, ValueError):
        raise MindjitError(f"device setting '{name}' must be a number, got '{value}'") from None
    if out <= 0:
        raise MindjitError(f"device setting '{name}' must be positive, got '{value}'")
    return out


def configured(
    base: DeviceConfig | None = None,
    settings: dict[str, Any] | None = None,
) -> DeviceConfig:
    """`base` with `settings` (name -> value) applied; unknown names are errors."""
    cfg = base or DeviceConfig()
    known = {f.name for f in fields(DeviceConfig)}
    changes = {}
    for name, value in (settings or {}).items():
        if name not in known:
            raise MindjitError(
                f"unknown device setting '{name}' (known: {', '.join(sorted(known))})"
            )
        changes[name] = _coerce(name, value, getattr(cfg, name))
    return replace(cfg, **changes)


def load_config(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise MindjitError(f"cannot read device config: {exc.strerror}", path) from None
    except json.JSONDecodeError as exc:
        raise MindjitError(f"device config is not valid JSON: {exc.msg}", path) from None
    if not isinstance(data, dict):
        raise MindjitError("device config must be a JSON object of settings", path)
    return data
