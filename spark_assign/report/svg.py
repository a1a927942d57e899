"""Small, dependency-free SVG charts: grouped (stacked) bars and lines over the fleet's steps.

The x axis holds *slots*: ``(step, follow_up)`` pairs (see
:mod:`spark_assign.report.consumer.steps`). A step's own slot is labelled with its
number; a follow-up slot sits right after its step, on a shaded band,
labelled ``f/u``, so that strategies are compared at the same step and
cooperative follow-ups are never read as steps.

Every chart is an ``<svg class="chart" id="...">`` with a ``viewBox`` (it scales
to its container), a ``<title>``/``<desc>`` for screen readers, axis titles,
gridlines and one ``<title>`` tooltip per mark. Marks carry ``data-strategy``,
``data-series``, ``data-step``, ``data-follow-up`` and ``data-value``
attributes so tests and scripts can read the figures back. Output is
well-formed XML.

A line joins a strategy's steps; its follow-ups are points off the line (they
hold only the groups that had a follow-up, not the fleet). Lines of several
strategies may coincide (two strategies equally balanced):
each strategy's line is drawn a little narrower than the one before it, on
top of it, and its points are shifted sideways, so a line under another one
still shows as an outline and its points as their own circles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Dict, List, Sequence, Tuple

from .legend import step_label

__all__ = ["Series", "Stack", "Slot", "bar_chart", "line_chart", "nice_ticks", "fmt", "tint", "slot_label"]

#: A place on the x axis: (step, follow-up round); follow-up round 0 is the step itself.
Slot = Tuple[int, int]

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 14, 46


@dataclass
class Series:
    """One strategy's values of one figure, by slot."""

    key: str                      # figure, e.g. "moved"
    label: str                    # tooltip and legend text, e.g. "moved"
    strategy: str
    colour: str
    values: Dict[Slot, float] = field(default_factory=dict)
    style: str = "solid"          # lines: solid | dashed; bars: solid | hatch | tint


@dataclass
class Stack:
    """The bars of one strategy: segments stacked bottom-up in this order."""

    strategy: str
    colour: str
    segments: List[Series]


def fmt(value: float, digits: int = 2) -> str:
    """``1234`` -> ``"1,234"``, ``2.5`` -> ``"2.5"``, ``2.0`` -> ``"2"``; NaN -> ``"–"``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}".rstrip("0").rstrip(".")


def _axis_labels(ticks: Sequence[float]) -> List[str]:
    """Tick labels in one unit for the whole axis: 0, 2k, 4k, ... once the top reaches 10,000."""
    top = max(ticks, default=0)
    for size, threshold, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e3, 1e4, "k")):
        if top >= threshold:
            return [fmt(t / size, 1) + suffix if t else "0" for t in ticks]
    return [fmt(t) for t in ticks]


def tint(colour: str, amount: float = 0.55) -> str:
    """Mix a ``#rrggbb`` colour with white (``amount`` of white)."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


def nice_ticks(top: float, count: int = 5, integer: bool = True) -> List[float]:
    """Round tick values from 0 to at least ``top`` (steps of 1, 2, 2.5 or 5 x 10^k)."""
    if not top or top <= 0 or math.isnan(top):
        return [0, 1]
    raw = top / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    if integer:
        step = max(1, math.ceil(step))
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def _r(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def slot_label(slot: Slot) -> str:
    """``(3, 0)`` -> ``"step 3"``, ``(3, 1)`` -> ``"step 3 follow-up"``: the slot in a tooltip."""
    return "step " + step_label(*slot)


class _Frame:
    """Scales and axes shared by both chart kinds."""

    def __init__(self, slots: Sequence[Slot], top: float, integer: bool) -> None:
        self.gens = list(slots)
        self.ticks = nice_ticks(top, integer=integer)
        self.ymax = self.ticks[-1] or 1
        self.pw, self.ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
        self.band = self.pw / max(1, len(self.gens))

    def x(self, i: int) -> float:
        return LEFT + self.band * (i + 0.5)

    def y(self, v: float) -> float:
        return TOP + self.ph * (1 - v / self.ymax)

    def axes(self, x_label: str, y_label: str) -> List[str]:
        out = ['<g class="follow-up-bands">']
        for i, (_, follow_up) in enumerate(self.gens):
            if follow_up:
                out.append(f'<rect class="follow-up-band" x="{_r(LEFT + self.band * i)}" y="{TOP}" '
                           f'width="{_r(self.band)}" height="{_r(self.ph)}"/>')
        out.append('</g><g class="grid">')
        for t in self.ticks:
            y = _r(self.y(t))
            out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}"/>')
        out.append('</g><g class="axis y-axis">')
        for t, label in zip(self.ticks, _axis_labels(self.ticks)):
            out.append(f'<text x="{LEFT - 8}" y="{_r(self.y(t) + 4)}" text-anchor="end">{label}</text>')
        out.append('</g><g class="axis x-axis">')
        base = TOP + self.ph
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{base}" y2="{base}"/>')
        out += self._x_labels(base)
        out.append("</g>")
        out.append(f'<text class="axis-title" x="{LEFT + self.pw / 2:.0f}" y="{HEIGHT - 6}" '
                   f'text-anchor="middle">{escape(x_label)}</text>')
        out.append(f'<text class="axis-title" transform="translate(15 {TOP + self.ph / 2:.0f}) rotate(-90)" '
                   f'text-anchor="middle">{escape(y_label)}</text>')
        return out

    def _x_labels(self, base: float) -> List[str]:
        """Step numbers under their slots (every k-th when crowded), ``f/u`` under follow-up slots that fit."""
        steps = sum(1 for _, f in self.gens if not f)
        every = max(1, math.ceil(steps / 12))
        room = self.band >= 22
        out, seen = [], 0
        for i, (step, follow_up) in enumerate(self.gens):
            if follow_up:
                if room:
                    out.append(f'<text class="follow-up-label" x="{_r(self.x(i))}" y="{base + 16}" '
                               f'text-anchor="middle">f/u</text>')
                continue
            if seen % every == 0:
                out.append(f'<text x="{_r(self.x(i))}" y="{base + 17}" text-anchor="middle">{step}</text>')
            seen += 1
        return out


def _open(chart_id: str, title: str, desc: str) -> List[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(chart_id)}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" preserveAspectRatio="xMidYMid meet" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc">',
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        f'<desc id="{chart_id}-desc">{escape(desc)}</desc>',
    ]


def _mark(s: Series, slot: Slot, value: float) -> str:
    return (f'data-strategy="{escape(s.strategy)}" data-series="{escape(s.key)}" '
            f'data-step="{slot[0]}" data-follow-up="{slot[1]}" data-value="{fmt(value, 4)}"')


def bar_chart(chart_id: str, title: str, desc: str, slots: Sequence[Slot], stacks: Sequence[Stack],
              y_label: str, x_label: str = "Step") -> str:
    """Bars per slot of ``slots`` (the x axis), one per strategy side by side, each a stack of segments."""
    totals = [sum(seg.values.get(g, 0) for seg in st.segments) for st in stacks for g in slots]
    frame = _Frame(slots, max(totals, default=0), integer=True)
    out = _open(chart_id, title, desc)
    out.append("<defs>")
    for k, st in enumerate(stacks):
        out.append(f'<pattern id="{chart_id}-hatch-{k}" patternUnits="userSpaceOnUse" width="6" height="6" '
                   f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{tint(st.colour, 0.7)}"/>'
                   f'<rect width="3" height="6" fill="{st.colour}"/></pattern>')
    out.append("</defs>")
    out += frame.axes(x_label, y_label)
    group_w = min(frame.band * (0.84 if len(stacks) > 1 else 0.7), 56 * max(1, len(stacks)))
    bar_w = group_w / max(1, len(stacks))
    gap = min(1.5, bar_w * 0.12) if len(stacks) > 1 else 0
    out.append('<g class="marks">')
    for k, st in enumerate(stacks):
        fills = {"solid": st.colour, "tint": tint(st.colour), "hatch": f"url(#{chart_id}-hatch-{k})"}
        for i, g in enumerate(slots):
            x0 = frame.x(i) - group_w / 2 + k * bar_w + gap / 2
            level = 0.0
            for seg in st.segments:
                v = float(seg.values.get(g, 0) or 0)
                if v <= 0:
                    continue
                y_top, y_bot = frame.y(level + v), frame.y(level)
                level += v
                out.append(
                    f'<rect class="bar bar-{escape(seg.style)}" x="{_r(x0)}" y="{_r(y_top)}" '
                    f'width="{_r(max(bar_w - gap, 0.6))}" height="{_r(max(y_bot - y_top, 0.6))}" '
                    f'fill="{fills.get(seg.style, st.colour)}" stroke="{st.colour}" stroke-width="0.6" '
                    f'{_mark(seg, g, v)}><title>{escape(st.strategy)}, {slot_label(g)}: '
                    f'{escape(seg.label)} {fmt(v)}</title></rect>')
    out.append("</g>")
    if max(totals, default=0) <= 0:
        out.append(_empty_note(frame))
    out.append("</svg>")
    return "\n".join(out)


def _empty_note(frame: _Frame) -> str:
    return (f'<text class="empty-note" x="{LEFT + frame.pw / 2:.0f}" y="{TOP + frame.ph / 2:.0f}" '
            'text-anchor="middle">All zero at every step shown</text>')


def line_chart(chart_id: str, title: str, desc: str, slots: Sequence[Slot], series: Sequence[Series],
               y_label: str, x_label: str = "Step", integer: bool = False) -> str:
    """One line per series through its steps' slots (a step missing from a series is stepped over);
    follow-up slots get points off the line, since they hold only the groups with follow-ups.

    Strategies are drawn in order, each line narrower than the one before and
    its points shifted sideways (see the module's docstring): coinciding
    lines stay visible.
    """
    top = max((v for s in series for v in s.values.values() if v == v), default=0)
    frame = _Frame(slots, top, integer=integer)
    out = _open(chart_id, title, desc)
    out += frame.axes(x_label, y_label)
    n = len(slots)
    radius = 3.6 if n <= 16 else 2.4 if n <= 60 else 1.2
    order = list(dict.fromkeys(s.strategy for s in series))
    nudge = min(frame.band * 0.12, 5.0)
    out.append('<g class="marks">')
    for s in series:
        k = order.index(s.strategy)
        dx = (k - (len(order) - 1) / 2) * nudge
        width = 2.4 + 2.0 * (len(order) - 1 - k)
        points = [(i, g, float(v)) for i, g in enumerate(slots)
                  for v in [s.values.get(g)] if v is not None and v == v]
        steps = [(i, v) for i, g, v in points if not g[1]]    # follow-ups: points of their own, off the line
        path = " ".join(f'{"L" if j else "M"}{_r(frame.x(i) + dx)} {_r(frame.y(v))}'
                        for j, (i, v) in enumerate(steps))
        dash = ' stroke-dasharray="6 4"' if s.style == "dashed" else ""
        out.append(f'<path class="line line-{escape(s.style)}" d="{path}" fill="none" '
                   f'stroke="{s.colour}" stroke-width="{_r(width)}" stroke-linejoin="round" '
                   f'stroke-linecap="round"{dash} data-strategy="{escape(s.strategy)}" data-series="{escape(s.key)}"/>')
        for i, g, v in points:
            fill = s.colour if s.style == "solid" else "#ffffff"
            kind = "point" if s.style == "solid" else "point open"
            out.append(f'<circle class="{kind}" cx="{_r(frame.x(i) + dx)}" cy="{_r(frame.y(v))}" r="{radius}" '
                       f'fill="{fill}" stroke="{s.colour}" stroke-width="1.6" {_mark(s, g, v)}>'
                       f'<title>{escape(s.strategy)}, {slot_label(g)}: {escape(s.label)} {fmt(v)}</title></circle>')
    out.append("</g></svg>")
    return "\n".join(out)
