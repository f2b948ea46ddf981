"""Small server-side SVG charts for the HTML report: no script, no external references.

Every label is escaped (and passed through :func:`abw.text.clean`); numbers are
formatted with a fixed precision so the same report draws byte-identical pictures.
"""

from __future__ import annotations

import math
from html import escape

from abw.hashing import sha256_hex
from abw.render.common import fmt_num, shorten
from abw.text import clean

# Colour-blind-friendly qualitative palette (Okabe-Ito plus Tol's muted extras).
PALETTE = (
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00",
    "#332288", "#117733", "#882255", "#44aa99", "#999933", "#aa4499",
)  # fmt: skip
BASELINE_COLOR = "#0969da"
CANDIDATE_COLOR = "#bf3989"
WARN_COLOR = "#bf8700"
FAIL_COLOR = "#cf222e"
FONT = "font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,sans-serif\""


def _t(value: object) -> str:
    """Escaped text for an SVG text node or attribute."""
    return escape(clean(value), quote=True)


def _n(value: float) -> str:
    """A coordinate with at most two decimals."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def tool_color(name: str) -> str:
    """A stable palette colour for a tool name."""
    return PALETTE[int(sha256_hex(name)[:8], 16) % len(PALETTE)]


def text_on(color: str) -> str:
    """Black or white, whichever reads better on ``color`` (#rrggbb)."""
    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "#0b0d0f" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "#ffffff"


def _fit(label: str, room: float, size: float) -> str:
    """A ``textLength`` squeezing ``label`` into ``room`` pixels when it would likely not fit."""
    if len(label) * size * 0.62 <= room:
        return ""
    return f' textLength="{_n(room)}" lengthAdjust="spacingAndGlyphs"'


def _svg(width: float, height: float, label: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(width)} {_n(height)}" '
        f'width="{_n(width)}" height="{_n(height)}" role="img" aria-label="{_t(label)}" {FONT} '
        'class="chart">'
        f"<title>{_t(label)}</title>" + "".join(body) + "</svg>"
    )


def sequence_chart(
    baseline: list[str],
    candidate: list[str],
    divergence_step: int | None,
    *,
    max_steps: int = 7,
) -> str:
    """Baseline and candidate tool sequences as two aligned rows of labelled boxes.

    At most ``max_steps`` steps are drawn: a window that starts two steps before the divergence,
    which is outlined in red on both rows. Step numbers are the real path indices.
    """
    total = max(len(baseline), len(candidate)) + 1  # room for an "end" box
    steps = min(total, max_steps)
    start = 0
    if divergence_step is not None and divergence_step >= steps - 1:
        start = max(min(divergence_step - 2, total - steps), 0)
    box_w, box_h, gap, left, top = 118.0, 34.0, 8.0, 92.0, 22.0
    width = left + steps * (box_w + gap) + 10
    height = top + 2 * (box_h + 16) + 8
    body = []
    for k in range(steps):
        x = left + k * (box_w + gap) + box_w / 2
        body.append(
            f'<text x="{_n(x)}" y="14" font-size="12" text-anchor="middle" '
            f'fill="#57606a">{start + k}</text>'
        )
    for row, (label, path) in enumerate((("baseline", baseline), ("candidate", candidate))):
        y = top + row * (box_h + 16)
        body.append(
            f'<text x="0" y="{_n(y + box_h / 2 + 4)}" font-size="12" font-weight="600" '
            f'fill="{BASELINE_COLOR if row == 0 else CANDIDATE_COLOR}">{label}</text>'
        )
        for k in range(steps):
            i = start + k
            x = left + k * (box_w + gap)
            diverged = divergence_step is not None and i == divergence_step
            if i >= len(path):
                if i == len(path):
                    body.append(
                        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(box_w)}" height="{_n(box_h)}" '
                        f'rx="6" fill="none" stroke="{FAIL_COLOR if diverged else "#d0d7de"}" '
                        f'stroke-dasharray="4 3" stroke-width="{2.5 if diverged else 1}"/>'
                        f'<text x="{_n(x + box_w / 2)}" y="{_n(y + box_h / 2 + 4)}" '
                        'font-size="12" text-anchor="middle" fill="#57606a">end</text>'
                    )
                continue
            name = path[i]
            label = clean(shorten(name, 16))
            same = i < len(baseline) and i < len(candidate) and baseline[i] == candidate[i]
            color = tool_color(name)
            faded = same and not diverged
            opacity = "0.35" if faded else "0.9"
            ink = "#0b0d0f" if faded else text_on(color)
            body.append(
                f'<g><title>{_t(name)}</title><rect x="{_n(x)}" y="{_n(y)}" width="{_n(box_w)}" '
                f'height="{_n(box_h)}" rx="6" fill="{color}" fill-opacity="{opacity}" '
                f'stroke="{FAIL_COLOR if diverged else color}" '
                f'stroke-width="{3 if diverged else 1}"/>'
                f'<text x="{_n(x + box_w / 2)}" y="{_n(y + box_h / 2 + 4)}" font-size="11" '
                f'text-anchor="middle" fill="{ink}"{_fit(label, box_w - 12, 11)}>{_t(label)}'
                "</text></g>"
            )
    if start:
        body.append(
            f'<text x="{_n(left - 6)}" y="14" font-size="12" text-anchor="end" '
            f'fill="#57606a">{start} earlier \u2190</text>'
        )
    hidden = total - 1 - (start + steps)
    if hidden > 0:
        body.append(
            f'<text x="{_n(width - 4)}" y="{_n(height - 2)}" font-size="12" text-anchor="end" '
            f'fill="#57606a">+{hidden} more steps \u2192</text>'
        )
    return _svg(width, height, "Baseline and candidate tool sequences", body)


def histogram(
    values: list[float],
    *,
    warn: float | None = None,
    fail: float | None = None,
    bins: int = 20,
    label: str = "Distribution of per-run path edit distance",
) -> str:
    """Counts of ``values`` in [0, 1] (wider when values exceed 1) with threshold lines."""
    top_value = max([1.0, *values, warn or 0.0, fail or 0.0])
    width, height, left, bottom, top = 480.0, 200.0, 40.0, 34.0, 16.0
    plot_w, plot_h = width - left - 12, height - top - bottom
    counts = [0] * bins
    for v in values:
        counts[min(int(v / top_value * bins), bins - 1)] += 1
    peak = max(counts) or 1
    body = [
        f'<line x1="{_n(left)}" y1="{_n(top + plot_h)}" x2="{_n(left + plot_w)}" '
        f'y2="{_n(top + plot_h)}" stroke="#8c959f"/>'
    ]
    for i, c in enumerate(counts):
        if not c:
            continue
        bar_h = c / peak * plot_h
        x = left + i * plot_w / bins
        lo, hi = i * top_value / bins, (i + 1) * top_value / bins
        body.append(
            f'<rect x="{_n(x + 1)}" y="{_n(top + plot_h - bar_h)}" width="{_n(plot_w / bins - 2)}" '
            f'height="{_n(bar_h)}" fill="{CANDIDATE_COLOR}" fill-opacity="0.75">'
            f"<title>{c} run{'s' if c != 1 else ''} in [{fmt_num(lo)}, {fmt_num(hi)})</title>"
            "</rect>"
        )
    for tick in range(6):
        v = top_value * tick / 5
        x = left + plot_w * tick / 5
        body.append(
            f'<text x="{_n(x)}" y="{_n(height - 16)}" font-size="12" text-anchor="middle" '
            f'fill="#57606a">{fmt_num(v, 2)}</text>'
        )
    body.append(
        f'<text x="{_n(left - 6)}" y="{_n(top + 10)}" font-size="12" text-anchor="end" '
        f'fill="#57606a">{peak}</text>'
        f'<text x="{_n(left - 6)}" y="{_n(top + plot_h)}" font-size="12" text-anchor="end" '
        f'fill="#57606a">0</text>'
        f'<text x="{_n(left + plot_w / 2)}" y="{_n(height - 2)}" font-size="12" '
        f'text-anchor="middle" fill="#57606a">distance to the nearest baseline run</text>'
    )
    for row, (name, value, color) in enumerate(
        (("warn", warn, WARN_COLOR), ("fail", fail, FAIL_COLOR))
    ):
        if value is None:
            continue
        x = left + plot_w * value / top_value
        body.append(
            f'<line x1="{_n(x)}" y1="{_n(top - 4)}" x2="{_n(x)}" y2="{_n(top + plot_h)}" '
            f'stroke="{color}" stroke-width="2" stroke-dasharray="5 3"/>'
            f'<text x="{_n(x + 4)}" y="{_n(top + 6 + 14 * row)}" font-size="12" fill="{color}">'
            f"{name} {fmt_num(value)}</text>"
        )
    return _svg(width, height, label, body)


def gauge(value: float, warn: float | None, fail: float | None, *, label: str) -> str:
    """A horizontal bar with pass / warn / fail zones and a marker at ``value``."""
    top_value = max([value, warn or 0.0, fail or 0.0]) * 1.25 or 1.0
    width, height, left, right = 320.0, 34.0, 4.0, 4.0
    bar_w = width - left - right

    def x_of(v: float) -> float:
        return left + bar_w * min(max(v, 0.0), top_value) / top_value

    zones = [(0.0, warn if warn is not None else fail, "#dafbe1")]
    if warn is not None:
        zones.append((warn, fail if fail is not None else top_value, "#fff8c5"))
    if fail is not None:
        zones.append((fail, top_value, "#ffebe9"))
    body = []
    for lo, hi, color in zones:
        if hi is None:
            hi = top_value
        body.append(
            f'<rect x="{_n(x_of(lo))}" y="6" width="{_n(max(x_of(hi) - x_of(lo), 0))}" '
            f'height="12" fill="{color}"/>'
        )
    for v, color in ((warn, WARN_COLOR), (fail, FAIL_COLOR)):
        if v is not None:
            body.append(
                f'<line x1="{_n(x_of(v))}" y1="3" x2="{_n(x_of(v))}" y2="21" stroke="{color}" '
                f'stroke-width="1.5"/>'
            )
    mx = x_of(value)
    body.append(
        f'<path d="M{_n(mx - 6)} 30 L{_n(mx + 6)} 30 L{_n(mx)} 19 Z" fill="#24292f"/>'
        f'<line x1="{_n(mx)}" y1="4" x2="{_n(mx)}" y2="20" stroke="#24292f" stroke-width="2.5"/>'
    )
    return _svg(width, height, label, body)


def interval_chart(
    lower: float | None,
    upper: float | None,
    point: float | None,
    threshold: float,
    *,
    label: str,
    decision: str | None = None,
) -> str:
    """A [0, 1] axis with the bounds on the pass rate as a bar (coloured by ``decision``, else
    by where the bounds lie against tau), the pass rate as a dot, tau as a line."""
    width, height, left, right = 420.0, 46.0, 10.0, 10.0
    axis_w = width - left - right

    def x_of(v: float) -> float:
        return left + axis_w * min(max(v, 0.0), 1.0)

    body = [
        f'<line x1="{_n(left)}" y1="20" x2="{_n(left + axis_w)}" y2="20" stroke="#d0d7de" '
        f'stroke-width="6" stroke-linecap="round"/>'
    ]
    if lower is not None and upper is not None:
        if decision is None:
            decision = "pass" if lower >= threshold else "fail" if upper < threshold else ""
        color = {"pass": "#1a7f37", "fail": FAIL_COLOR}.get(decision, "#8250df")
        body.append(
            f'<line x1="{_n(x_of(lower))}" y1="20" x2="{_n(x_of(upper))}" y2="20" '
            f'stroke="{color}" stroke-width="10" stroke-linecap="round"/>'
        )
    if point is not None:
        body.append(
            f'<circle cx="{_n(x_of(point))}" cy="20" r="6" fill="#fff" stroke="#24292f" '
            f'stroke-width="2.5"/>'
        )
    tx = x_of(threshold)
    body.append(
        f'<line x1="{_n(tx)}" y1="6" x2="{_n(tx)}" y2="34" stroke="#24292f" stroke-width="2" '
        f'stroke-dasharray="3 2"/>'
        f'<text x="{_n(min(max(tx, 24), width - 24))}" y="44" font-size="12" '
        f'text-anchor="middle" fill="#24292f">\u03c4 {fmt_num(threshold)}</text>'
        f'<text x="{_n(left)}" y="44" font-size="12" fill="#57606a">0</text>'
        f'<text x="{_n(left + axis_w)}" y="44" font-size="12" text-anchor="end" '
        f'fill="#57606a">1</text>'
    )
    return _svg(width, height, label, body)


def tool_bars(
    baseline: dict[str, float], candidate: dict[str, float], *, max_tools: int = 16
) -> str:
    """Mean calls per run of each tool, baseline and candidate side by side."""
    names = sorted(set(baseline) | set(candidate))
    names.sort(key=lambda t: -max(baseline.get(t, 0.0), candidate.get(t, 0.0)))
    names = names[:max_tools]
    peak = max([*baseline.values(), *candidate.values(), 1e-9])
    row_h, left, width = 34.0, 150.0, 500.0
    plot_w = width - left - 60
    height = 28 + row_h * max(len(names), 1)
    body = [
        f'<rect x="{_n(left)}" y="4" width="10" height="10" fill="{BASELINE_COLOR}"/>'
        f'<text x="{_n(left + 14)}" y="13" font-size="12" fill="#24292f">baseline</text>'
        f'<rect x="{_n(left + 84)}" y="4" width="10" height="10" fill="{CANDIDATE_COLOR}"/>'
        f'<text x="{_n(left + 98)}" y="13" font-size="12" fill="#24292f">candidate</text>'
        f'<text x="{_n(width - 4)}" y="13" font-size="12" text-anchor="end" fill="#57606a">'
        f"mean calls per run</text>"
    ]
    for i, name in enumerate(names):
        y = 24 + i * row_h
        label = clean(shorten(name, 22))
        body.append(
            f'<text x="{_n(left - 8)}" y="{_n(y + 17)}" font-size="12" text-anchor="end" '
            f'fill="#24292f"{_fit(label, left - 14, 12)}><title>{_t(name)}</title>'
            f"{_t(label)}</text>"
        )
        for j, (values, color) in enumerate(
            ((baseline, BASELINE_COLOR), (candidate, CANDIDATE_COLOR))
        ):
            v = values.get(name, 0.0)
            w = plot_w * v / peak
            by = y + 4 + j * 13
            body.append(
                f'<rect x="{_n(left)}" y="{_n(by)}" width="{_n(max(w, 0.5))}" height="11" '
                f'rx="2" fill="{color}"/><text x="{_n(left + w + 4)}" y="{_n(by + 10)}" '
                f'font-size="10" fill="#57606a">{fmt_num(v, 2)}</text>'
            )
    return _svg(width, height, "Mean tool calls per run, baseline and candidate", body)


def projection_plot(projections: dict[str, list[list[list[float]]]]) -> str:
    """2-D projections of representation trajectories, one polyline per run, coloured by role."""
    points = [
        p
        for runs in projections.values()
        for run in runs
        for p in run
        if len(p) >= 2 and all(math.isfinite(c) for c in p[:2])
    ]
    width, height, pad = 520.0, 320.0, 28.0
    if not points:
        return _svg(width, 40, "No projections", ['<text x="4" y="24">no projections</text>'])
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    sx = (width - 2 * pad) / ((x1 - x0) or 1.0)
    sy = (height - 2 * pad) / ((y1 - y0) or 1.0)

    def pt(p: list[float]) -> str:
        return f"{_n(pad + (p[0] - x0) * sx)},{_n(height - pad - (p[1] - y0) * sy)}"

    body = [
        f'<rect x="{_n(pad)}" y="{_n(pad)}" width="{_n(width - 2 * pad)}" '
        f'height="{_n(height - 2 * pad)}" fill="none" stroke="#d0d7de"/>'
    ]
    legend_x = pad
    for role in sorted(projections):
        color = {"baseline": BASELINE_COLOR, "candidate": CANDIDATE_COLOR}.get(role, "#57606a")
        body.append(
            f'<rect x="{_n(legend_x)}" y="8" width="10" height="10" fill="{color}"/>'
            f'<text x="{_n(legend_x + 14)}" y="17" font-size="12">{_t(role)}</text>'
        )
        legend_x += 90
        for run in projections[role]:
            good = [p for p in run if len(p) >= 2 and all(math.isfinite(c) for c in p[:2])]
            if not good:
                continue
            body.append(
                f'<polyline points="{" ".join(pt(p) for p in good)}" fill="none" '
                f'stroke="{color}" stroke-opacity="0.55" stroke-width="1.5"/>'
            )
            sx0, sy0 = pt(good[0]).split(",")
            ex, ey = pt(good[-1]).split(",")
            body.append(
                f'<circle cx="{sx0}" cy="{sy0}" r="3" fill="{color}"/>'
                f'<circle cx="{ex}" cy="{ey}" r="4" fill="#fff" stroke="{color}" stroke-width="2"/>'
            )
    body.append(
        f'<text x="{_n(width - pad)}" y="{_n(height - 8)}" font-size="12" text-anchor="end" '
        f'fill="#57606a">PC1 \u2192 \u00b7 filled dot = first step, ring = last step</text>'
    )
    return _svg(width, height, "Representation trajectories projected to 2-D", body)
