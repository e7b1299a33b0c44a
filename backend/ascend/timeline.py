"""A simulator report drawn as one standalone SVG: kernels per stream, memory over time.

A trace viewer is overkill for checking what the scheduler and the memory planner
did; a single SVG opens in any browser, diffs poorly but reviews well, and needs
nothing beyond the stdlib.  Top panel: one lane per stream, one rect per kernel
(coloured by unit, hover for details).  Bottom panel: bytes in use as a step area,
with the peak and the planner's lower bound as dashed lines.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from mindjit.support.files import write_atomic

WIDTH = 1000
LEFT, RIGHT, TOP = 90, 30, 44
LANE, LANE_GAP = 22, 6
MEM_HEIGHT = 150
PANEL_GAP = 50
UNIT_COLOURS = {"cube": "#4e79a7", "vector": "#f28e2b", "aicpu": "#59a14f", "comm": "#b07aa1"}
OTHER_COLOUR = "#9d9d9d"
EVENT_COLOUR = "#c0392b"
FONT = 'font-family="sans-serif" font-size="11"'
#: Width of a character of FONT, about: a kernel's name is written in its bar when it fits.
LABEL_PX_PER_CHAR = 6.5
#: What the gaps between kernels on a stream are (said under the title).
GAPS_NOTE = (
    "gaps on a stream: the host issues each kernel (launch_us) and a stream waits for "
    "events recorded on the others (dashed red: the wait, at the event's time)"
)


def _nice_step(span: float, target: int) -> float:
    """A 1/2/2.5/5 x 10^k step giving about `target` ticks over `span` (> 0)."""
    exp = math.floor(math.log10(span / target))
    candidates = [m * 10.0**e for e in (exp - 1, exp, exp + 1) for m in (1, 2, 2.5, 5)]
    return min(candidates, key=lambda s: abs(math.floor(span / s) + 1 - target))


def _ticks(span: float, target: int) -> list[float]:
    step = _nice_step(span, target)
    return [i * step for i in range(int(math.floor(span / step + 1e-9)) + 1)]


def _num(v: float) -> str:
    """A coordinate, short: two decimals at most."""
    return f"{round(v, 2):g}"


def _label(v: float, digits: int = 9) -> str:
    """A value for people: no float noise, no exponent."""
    return f"{round(v, digits):.12g}"


def fits(label: str, width: float) -> bool:
    """Whether `label` can be written inside a bar `width` pixels wide."""
    return width >= LABEL_PX_PER_CHAR * len(label) + 4


def legend(out: list[str], items: list[tuple[str, str]], step: int) -> None:
    """(name, colour) swatches at the top right, `step` pixels apart."""
    for i, (name, colour) in enumerate(items):
        x = WIDTH - RIGHT - step * len(items) + i * step - 10
        out.append(
            f'<rect class="legend" x="{x}" y="8" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 16}" y="18" {FONT}>{name}</text>'
        )


def time_grid(out: list[str], sx, t_end: float, top: float, bottom: float) -> None:
    """Vertical grid lines with their times under `bottom`, and the axis title."""
    for t in _ticks(t_end, 6):
        x = _num(sx(t))
        out.append(
            f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#e4e4e4"/>'
            f'<text x="{x}" y="{bottom + 16}" text-anchor="middle" {FONT}>{_label(t)}</text>'
        )
    mid = LEFT + (WIDTH - LEFT - RIGHT) / 2
    out.append(f'<text x="{mid}" y="{bottom + 36}" text-anchor="middle" {FONT}>time (µs)</text>')


def timeline_svg(report: dict, title: str = "") -> str:
    """The report as an SVG document (a str starting with the XML declaration)."""
    kernels = list(report.get("kernels") or [])
    memory = [(float(t), float(b)) for t, b in report.get("memory_timeline") or []]
    streams = {int(s["stream"]) for s in report.get("streams") or []}
    streams |= {int(k.get("stream", 0)) for k in kernels}
    lanes = {s: i for i, s in enumerate(sorted(streams))}

    t_end = float(report.get("total_time_us") or 0.0)
    for k in kernels:
        t_end = max(t_end, float(k["start_us"]) + float(k["duration_us"]))
    if memory:
        t_end = max(t_end, memory[-1][0])
    t_end = t_end if t_end > 0 else 1.0
    plot_w = WIDTH - LEFT - RIGHT

    def sx(t: float) -> float:
        return LEFT + plot_w * t / t_end

    lanes_h = max(len(lanes), 1) * (LANE + LANE_GAP)
    mem_top = TOP + lanes_h + PANEL_GAP
    mem_bottom = mem_top + MEM_HEIGHT
    height = mem_bottom + 46
    out: list[str] = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
    ]
    if title:
        out.append(
            f'<text x="{LEFT}" y="18" font-family="sans-serif" font-size="14" '
            f'font-weight="bold">{escape(title)}</text>'
        )
    out.append(f'<text class="gaps" x="{LEFT}" y="34" {FONT}>{escape(GAPS_NOTE)}</text>')
    legend(out, list(UNIT_COLOURS.items()), 80)
    time_grid(out, sx, t_end, TOP - 4, mem_bottom)  # shared by both panels

    # Stream panel.
    for stream, i in lanes.items():
        y = TOP + i * (LANE + LANE_GAP)
        out.append(
            f'<rect x="{LEFT}" y="{y}" width="{plot_w}" height="{LANE}" fill="#f6f6f6"/>'
            f'<text x="{LEFT - 8}" y="{y + LANE / 2 + 4}" text-anchor="end" {FONT}>'
            f"stream {stream}</text>"
        )
    for k in kernels:
        start, dur = float(k["start_us"]), float(k["duration_us"])
        unit = str(k.get("unit", ""))
        y = TOP + lanes[int(k.get("stream", 0))] * (LANE + LANE_GAP)
        x0, x1 = sx(start), sx(start + dur)
        tip = f"{k.get('name', '?')} {unit} start {start:g} µs duration {dur:g} µs"
        out.append(
            f'<rect class="kernel" x="{_num(x0)}" y="{y}" width="{_num(max(x1 - x0, 0.5))}"'
            f' height="{LANE}" fill="{UNIT_COLOURS.get(unit, OTHER_COLOUR)}">'
            f"<title>{escape(tip)}</title></rect>"
        )
        name = str(k.get("name", ""))
        if name and fits(name, x1 - x0):
            out.append(
                f'<text class="kernel-name" x="{_num((x0 + x1) / 2)}" y="{y + LANE / 2 + 4}" '
                f'text-anchor="middle" fill="white" {FONT}>{escape(name)}</text>'
            )

    # Events: a stream waiting for a kernel of another one, an arrow between the lanes.
    for w in report.get("event_waits") or []:
        src, dst = int(w.get("from_stream", -1)), int(w.get("to_stream", -1))
        if src not in lanes or dst not in lanes or src == dst:
            continue
        x = _num(sx(float(w["time_us"])))
        y0 = TOP + lanes[src] * (LANE + LANE_GAP) + LANE / 2
        y1 = TOP + lanes[dst] * (LANE + LANE_GAP) + (LANE / 2 if dst > src else LANE / 2)
        tip = (
            f"stream {dst} waits for event {w.get('event')} of stream {src} at {w['time_us']:g} µs"
        )
        out.append(
            f'<line class="event" x1="{x}" y1="{_num(y0)}" x2="{x}" y2="{_num(y1)}" '
            f'stroke="{EVENT_COLOUR}" stroke-width="1.5" stroke-dasharray="3 2">'
            f"<title>{escape(tip)}</title></line>"
            f'<circle class="event" cx="{x}" cy="{_num(y1)}" r="2.5" fill="{EVENT_COLOUR}"/>'
        )

    # Memory panel.
    peak = float(report.get("peak_memory_bytes") or 0)
    lower = report.get("lower_bound_bytes")
    top_bytes = max([peak, float(lower or 0)] + [b for _, b in memory]) or 1.0
    scale, unit_name = (2.0**20, "MiB") if top_bytes >= 2**20 else (2.0**10, "KiB")
    y_ticks = _ticks(top_bytes / scale * 1.05, 5)
    y_max = max(y_ticks[-1] * scale, top_bytes * 1.05)

    def sy(b: float) -> float:
        return mem_bottom - MEM_HEIGHT * b / y_max

    for v in y_ticks:
        y = _num(sy(v * scale))
        out.append(
            f'<line x1="{LEFT - 4}" y1="{y}" x2="{LEFT}" y2="{y}" stroke="black"/>'
            f'<text x="{LEFT - 8}" y="{float(y) + 4}" text-anchor="end" {FONT}>{_label(v)}</text>'
        )
    out.append(
        f'<text transform="translate(14 {mem_top + MEM_HEIGHT / 2}) rotate(-90)" '
        f'text-anchor="middle" {FONT}>memory ({unit_name})</text>'
    )
    if memory:
        steps = [f"M{_num(sx(memory[0][0]))},{_num(sy(memory[0][1]))}"]
        for t, b in memory[1:]:
            steps.append(f"H{_num(sx(t))}V{_num(sy(b))}")
        steps.append(f"H{_num(sx(t_end))}")
        line = "".join(steps)
        area = f"{line}V{mem_bottom}H{_num(sx(memory[0][0]))}Z"
        out.append(
            f'<path class="memory-area" d="{area}" fill="#4e79a7" fill-opacity="0.2"/>'
            f'<path class="memory" d="{line}" fill="none" stroke="#4e79a7"/>'
        )
    marks = [(peak, "peak", -4)] + (
        [(float(lower), "lower bound", 12)] if lower is not None else []
    )
    for value, label, dy in marks:
        y = _num(sy(value))
        out.append(
            f'<line class="{label.replace(" ", "-")}" x1="{LEFT}" y1="{y}" '
            f'x2="{LEFT + plot_w}" y2="{y}" stroke="#c0392b" stroke-dasharray="6 4"/>'
            f'<text x="{LEFT + plot_w - 4}" y="{float(y) + dy}" text-anchor="end" '
            f'fill="#c0392b" {FONT}>{label} {_label(value / scale, 2)} {unit_name}</text>'
        )
    out.append(
        f'<rect x="{LEFT}" y="{mem_top}" width="{plot_w}" height="{MEM_HEIGHT}" '
        'fill="none" stroke="black"/>'
    )
    out.append("</svg>\n")
    return "\n".join(out)


def write_timeline(report: dict, path: str, title: str = "") -> None:
    """Write `timeline_svg(report, title)` to `path` atomically."""
    write_atomic(path, timeline_svg(report, title))
