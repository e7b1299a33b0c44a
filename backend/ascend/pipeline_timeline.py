"""A pipeline's step as one SVG: one lane per device, forward, backward and the link.

Each device's lane shows its forwards (F) and backwards (B) with the micro-batch
number written in the bar (a PNG conversion keeps text, not tooltips); under it
a thin lane shows the transfers arriving on that device over the link (an
activation from the previous device, a gradient from the next). Idle stretches
of a lane are the bubble; the title states the step time and the bubble
fraction against the theory (X - 1)/(Y + X - 1).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from mindjit.backend.ascend.pipeline_schedule import Link, StageCost, Timeline
from mindjit.backend.ascend.timeline import (
    FONT,
    LEFT,
    RIGHT,
    WIDTH,
    _label,
    _num,
    fits,
    legend,
    time_grid,
)
from mindjit.support.files import write_atomic

LANE, LINK_LANE, GAP, TOP = 26, 8, 12, 52
COLOURS = {"F": "#4e79a7", "B": "#f28e2b", "link": "#59a14f"}


def transfers(
    timeline: Timeline, costs: list[StageCost], link: Link
) -> list[tuple[int, float, float, str]]:
    """(arriving device, start, end, what) for every transfer of the step."""
    ends = {(s.kind, s.device, s.micro): s.end_us for s in timeline.slots}
    found = []
    for (kind, device, micro), end in ends.items():
        if kind == "F" and device + 1 < timeline.stages:
            took = link.transfer_us(costs[device].activation_bytes)
            found.append((device + 1, end, end + took, f"activation {micro}"))
        if kind == "B" and device > 0:
            took = link.transfer_us(costs[device].gradient_bytes)
            found.append((device - 1, end, end + took, f"gradient {micro}"))
    return found


def pipeline_svg(timeline: Timeline, costs: list[StageCost], link: Link, title: str = "") -> str:
    moves = transfers(timeline, costs, link)
    t_end = max([timeline.step_us, *(e for _, _, e, _ in moves)]) or 1.0
    plot_w = WIDTH - LEFT - RIGHT
    row = LANE + LINK_LANE + GAP

    def sx(t: float) -> float:
        return LEFT + plot_w * t / t_end

    bottom = TOP + timeline.stages * row
    height = bottom + 46
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
    ]
    heading = title or f"{timeline.schedule} pipeline"
    out.append(
        f'<text x="{LEFT}" y="18" font-family="sans-serif" font-size="14" font-weight="bold">'
        f"{escape(heading)}</text>"
    )
    out.append(
        f'<text x="{LEFT}" y="36" {FONT}>step {_label(timeline.step_us, 2)} µs; bubble '
        f"{timeline.bubble_fraction():.3f} (theory (X-1)/(Y+X-1) = "
        f"{timeline.theoretical_bubble():.3f}); X={timeline.stages}, Y={timeline.micro_batches}"
        "</text>"
    )
    items = [("forward", COLOURS["F"]), ("backward", COLOURS["B"]), ("link", COLOURS["link"])]
    legend(out, items, 90)
    time_grid(out, sx, t_end, TOP - 4, bottom)
    for d in range(timeline.stages):
        y = TOP + d * row
        out.append(
            f'<rect x="{LEFT}" y="{y}" width="{plot_w}" height="{LANE}" fill="#f6f6f6"/>'
            f'<text x="{LEFT - 8}" y="{y + LANE / 2 + 4}" text-anchor="end" {FONT}>'
            f"device {d}</text>"
        )
    for s in timeline.slots:
        y = TOP + s.device * row
        x0, x1 = sx(s.start_us), sx(s.end_us)
        label = f"{s.kind}{s.micro}"
        tip = f"device {s.device} {label}: {s.start_us:g}-{s.end_us:g} µs"
        out.append(
            f'<rect class="slot" x="{_num(x0)}" y="{y}" width="{_num(max(x1 - x0, 0.5))}" '
            f'height="{LANE}" fill="{COLOURS[s.kind]}" stroke="white">'
            f"<title>{escape(tip)}</title></rect>"
        )
        if fits(label, x1 - x0):
            out.append(
                f'<text x="{_num((x0 + x1) / 2)}" y="{y + LANE / 2 + 4}" text-anchor="middle" '
                f'fill="white" {FONT}>{label}</text>'
            )
    for device, start, end, what in moves:
        y = TOP + device * row + LANE + 2
        out.append(
            f'<rect class="transfer" x="{_num(sx(start))}" y="{y}" '
            f'width="{_num(max(sx(end) - sx(start), 0.5))}" height="{LINK_LANE - 2}" '
            f'fill="{COLOURS["link"]}"><title>{escape(what)} arrives on device {device}: '
            f"{start:g}-{end:g} µs</title></rect>"
        )
    out.append("</svg>\n")
    return "\n".join(out)


def write_pipeline_timeline(
    timeline: Timeline, costs: list[StageCost], link: Link, path: str, title: str = ""
) -> None:
    write_atomic(path, pipeline_svg(timeline, costs, link, title))
