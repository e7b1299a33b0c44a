"""The SVG timeline of a simulator report: well-formed, one rect per kernel, escaped
names, empty and degenerate reports, atomic write."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mindjit.backend.ascend.timeline import timeline_svg, write_timeline

NS = "{http://www.w3.org/2000/svg}"

REPORT = {
    "total_time_us": 30.0,
    "streams": [{"stream": 0, "busy_us": 20.0}, {"stream": 1, "busy_us": 6.0}],
    "kernels": [
        {"name": "MatMul", "unit": "cube", "stream": 0, "start_us": 5.0, "duration_us": 3.2},
        {"name": "Add", "unit": "vector", "stream": 1, "start_us": 9.0, "duration_us": 6.0},
        {"name": "Print", "unit": "aicpu", "stream": 0, "start_us": 15.0, "duration_us": 15.0},
    ],
    "memory_timeline": [[0.0, 4096], [5.0, 8192], [8.2, 6144], [30.0, 0]],
    "peak_memory_bytes": 8192,
    "lower_bound_bytes": 7680,
}


def kernel_rects(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter(f"{NS}rect") if r.get("class") == "kernel"]


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def test_parses_with_one_rect_per_kernel_and_lanes_per_stream() -> None:
    root = ET.fromstring(timeline_svg(REPORT, title="demo"))
    assert root.tag == f"{NS}svg"
    rects = kernel_rects(root)
    assert len(rects) == 3
    assert len({r.get("fill") for r in rects}) == 3  # one colour per unit
    tips = [r.find(f"{NS}title").text for r in rects]
    assert tips[0].startswith("MatMul cube")
    labels = texts(root)
    assert "stream 0" in labels and "stream 1" in labels and "demo" in labels
    assert any(t.startswith("peak") for t in labels)
    assert any(t.startswith("lower bound") for t in labels)
    assert root.find(f".//{NS}path[@class='memory']") is not None


def test_rects_span_their_time_and_sit_in_their_lane() -> None:
    root = ET.fromstring(timeline_svg(REPORT))
    matmul, add, print_ = kernel_rects(root)
    assert float(matmul.get("x")) < float(add.get("x")) < float(print_.get("x"))
    assert matmul.get("y") == print_.get("y") != add.get("y")
    assert float(print_.get("width")) > float(matmul.get("width"))


def test_names_are_escaped() -> None:
    report = dict(REPORT, kernels=[dict(REPORT["kernels"][0], name='a<b>&"c"')])
    svg = timeline_svg(report, title="x < y & z")
    assert "a<b>" not in svg
    root = ET.fromstring(svg)
    (rect,) = kernel_rects(root)
    assert rect.find(f"{NS}title").text.startswith('a<b>&"c" cube')
    assert "x < y & z" in texts(root)


def test_empty_and_degenerate_reports() -> None:
    for report in (
        {},
        {"total_time_us": 0.0, "streams": [], "kernels": [], "memory_timeline": []},
        {"total_time_us": 0.0, "kernels": [], "peak_memory_bytes": 0, "lower_bound_bytes": 0},
        {"streams": [{"stream": 0, "busy_us": 0.0}], "memory_timeline": [[0.0, 0]]},
    ):
        root = ET.fromstring(timeline_svg(report))
        assert kernel_rects(root) == []


def test_zero_duration_kernel_stays_visible() -> None:
    report = {
        "total_time_us": 0.0,
        "kernels": [{"name": "N", "unit": "aicpu", "stream": 3, "start_us": 0, "duration_us": 0}],
    }
    root = ET.fromstring(timeline_svg(report))
    (rect,) = kernel_rects(root)
    assert float(rect.get("width")) > 0
    assert "stream 3" in texts(root)


def test_thousands_of_kernels_stay_small() -> None:
    kernels = [
        {
            "name": f"k{i}",
            "unit": ("cube", "vector", "aicpu")[i % 3],
            "stream": i % 4,
            "start_us": i * 1.5,
            "duration_us": 1.25,
        }
        for i in range(5000)
    ]
    memory = [[i * 1.5, (i % 17) * 3 * 2**20] for i in range(5000)]
    report = {
        "total_time_us": 7500.0,
        "kernels": kernels,
        "memory_timeline": memory,
        "peak_memory_bytes": 48 * 2**20,
        "lower_bound_bytes": 40 * 2**20,
    }
    svg = timeline_svg(report)
    assert len(svg) < 250 * len(kernels) + 100_000
    root = ET.fromstring(svg)
    assert len(kernel_rects(root)) == 5000
    assert any("MiB" in t for t in texts(root))


def test_axis_has_a_handful_of_ticks() -> None:
    for total in (1.0, 7.0, 30.0, 123.4, 99999.0):
        root = ET.fromstring(timeline_svg({"total_time_us": total}))
        ticks = [
            t
            for t in root.iter(f"{NS}text")
            if t.get("text-anchor") == "middle"
            and (t.text or "").replace(".", "").replace("e+", "").isdigit()
        ]
        assert 5 <= len(ticks) <= 8, (total, [t.text for t in ticks])


def test_write_timeline_writes_the_svg(tmp_path) -> None:
    path = tmp_path / "timeline.svg"
    write_timeline(REPORT, str(path), title="run")
    text = path.read_text(encoding="utf-8")
    assert text == timeline_svg(REPORT, title="run")
    assert len(kernel_rects(ET.fromstring(text))) == 3


def test_kernel_names_are_written_where_they_fit_and_gaps_are_explained() -> None:
    """A PNG of the picture keeps text, not tooltips (issue 27): a bar wide enough
    carries its kernel's name; the gaps between bars are said under the title."""
    narrow = {
        "name": "TensorMove",
        "unit": "vector",
        "stream": 1,
        "start_us": 20.0,
        "duration_us": 0.3,
    }
    report = {**REPORT, "kernels": [*REPORT["kernels"], narrow]}
    root = ET.fromstring(timeline_svg(report))
    names = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "kernel-name"]
    # about 880 px for 30 us: 3.2 us and more fit their names, 0.3 us (9 px) does not
    assert names == ["MatMul", "Add", "Print"]
    (gaps,) = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "gaps"]
    assert "launch_us" in gaps and "events" in gaps


def test_event_waits_are_drawn_between_the_lanes() -> None:
    """A stream waiting for another's event (issue 27: on the demo stream 1 starts
    when stream 0's events happen) is a dashed line at the event's time."""
    waits = [{"event": 0, "from_stream": 0, "to_stream": 1, "time_us": 9.0}]
    root = ET.fromstring(timeline_svg({**REPORT, "event_waits": waits}))
    (line,) = [e for e in root.iter(f"{NS}line") if e.get("class") == "event"]
    assert line.get("x1") == line.get("x2") and float(line.get("y1")) < float(line.get("y2"))
    assert "stream 1 waits for event 0 of stream 0" in (line.find(f"{NS}title").text or "")
