"""Colours, stylesheet and the little script of the HTML report.

Strategy colours come from the Okabe-Ito palette, which stays distinguishable
for the common forms of colour blindness. Each known strategy has a fixed
colour, so the same strategy looks the same in every report; other names take
the remaining colours in name order.
"""

from __future__ import annotations

from typing import Dict, Iterable

__all__ = ["strategy_colours", "CSS", "SCRIPT"]

KNOWN_COLOURS = {
    "sticky": "#0072B2",              # blue
    "cooperative-sticky": "#D55E00",  # vermillion
    "range": "#009E73",               # bluish green
    "roundrobin": "#CC79A7",          # reddish purple
    "uniform": "#E69F00",             # orange
    "server-range": "#56B4E9",        # sky blue
}
EXTRA_COLOURS = ("#882255", "#117733", "#332288", "#999933", "#44AA99", "#AA4499", "#6b6b6b")


def strategy_colours(strategies: Iterable[str]) -> Dict[str, str]:
    """``{strategy: "#rrggbb"}`` for every strategy, stable across reports."""
    names = sorted(set(strategies))
    used = {KNOWN_COLOURS[n] for n in names if n in KNOWN_COLOURS}
    spare = [c for c in list(EXTRA_COLOURS) + list(KNOWN_COLOURS.values()) if c not in used]
    out: Dict[str, str] = {}
    for name in names:
        if name in KNOWN_COLOURS:
            out[name] = KNOWN_COLOURS[name]
        else:
            out[name] = spare.pop(0) if spare else "#6b6b6b"
    return out


CSS = """
:root {
  --bg: #f6f7f9; --card: #ffffff; --text: #1d2330; --muted: #5b6474; --line: #e3e6eb;
  --grid: #e9ecf0; --axis: #8a93a3; --accent: #0072B2; --hover: #f0f4fa;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --card: #1d2128; --text: #e7eaf0; --muted: #a2abba; --line: #2e343e;
          --grid: #2a3039; --axis: #7d8696; --accent: #56B4E9; --hover: #252b35; }
}
* { box-sizing: border-box; }
html { font-size: 15px; }
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.45;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 28px clamp(12px, 3vw, 36px) 48px; }
h1 { font-size: 1.9rem; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 1.3rem; margin: 36px 0 12px; }
h3 { font-size: 1.02rem; margin: 0 0 2px; }
p.sub, .note { color: var(--muted); margin: 0; }
.note { font-size: 0.88rem; }
.strategies { display: flex; flex-wrap: wrap; gap: 8px; margin: 14px 0 0; padding: 0; list-style: none; }
.chip { display: inline-flex; align-items: center; gap: 6px; padding: 3px 10px 3px 8px; border-radius: 999px;
  background: var(--card); border: 1px solid var(--line); font-size: 0.88rem; white-space: nowrap; }
td .chip, th .chip { border: none; padding: 0; background: none; font-size: inherit; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; flex: none; }
.swatch.hatch { background-size: 6px 6px !important; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(128px, 1fr)); gap: 12px; margin-top: 18px; }
.kpi { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.kpi .value { font-size: 1.55rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.kpi .label { color: var(--muted); font-size: 0.82rem; text-transform: uppercase; letter-spacing: 0.04em; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); gap: 16px; }
figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px 8px; }
figure .note { margin-bottom: 6px; }
svg.chart { display: block; width: 100%; height: auto; font-size: 13px; font-family: inherit; }
svg.chart .grid line { stroke: var(--grid); stroke-width: 1; }
svg.chart .axis text { fill: var(--muted); font-variant-numeric: tabular-nums; }
svg.chart .axis line { stroke: var(--axis); }
svg.chart .axis-title { fill: var(--muted); font-size: 13px; font-weight: 600; }
svg.chart .point.open { fill: var(--card); }
svg.chart .follow-up-band { fill: var(--grid); opacity: 0.55; }
svg.chart .follow-up-label { fill: var(--muted); font-size: 10.5px; font-style: italic; }
svg.chart .empty-note { fill: var(--muted); font-size: 15px; font-style: italic; }
svg.chart .bar:hover, svg.chart .point:hover { opacity: 0.75; }
svg.chart .compare-label { fill: var(--text); font-size: 13.5px; }
svg.chart .compare-value { font-size: 13px; }
svg.chart .compare-value { fill: var(--muted); font-variant-numeric: tabular-nums; }
svg.spark { display: block; width: 110px; height: 24px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 6px 0 4px; padding: 0; list-style: none;
  font-size: 0.85rem; color: var(--muted); }
.legend li { display: inline-flex; align-items: center; gap: 6px; }
.legend .line-key { width: 22px; height: 0; border-top: 3px solid; }
.legend .line-key.dashed { border-top-style: dashed; }
.legend li[title] { cursor: help; }
.status-legend { margin-top: 12px; background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 10px 14px; }
.status-legend ul { margin: 6px 0 0; padding-left: 18px; }
.status-legend li { margin: 2px 0; }
th[title] { text-decoration: underline dotted; text-underline-offset: 3px; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 10px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { padding: 7px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: middle; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.mono, a.mono { white-space: nowrap; }
thead th { position: sticky; top: 0; background: var(--card); font-weight: 600; color: var(--muted);
  font-size: 0.8rem; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: "\\00a0\\2195"; opacity: 0.35; }
table.sortable th[aria-sort="ascending"]::after { content: "\\00a0\\2191"; opacity: 1; }
table.sortable th[aria-sort="descending"]::after { content: "\\00a0\\2193"; opacity: 1; }
tbody tr:hover { background: var(--hover); }
tbody tr:last-child td { border-bottom: none; }
td.best { font-weight: 700; }
td.best::before { content: "\\2605 "; color: var(--accent); }
/* The groups table has 14 columns: tighter cells, a sort arrow that may go under its heading, and a long
   group id wrapped over lines (whole, as ids sharing a long prefix must stay apart), so it fits a
   1,400 px window whole, its History column included. */
.compact th, .compact td { padding: 6px 5px; }
.compact table.sortable th::after { content: " \\2195"; }
.compact table.sortable th[aria-sort="ascending"]::after { content: " \\2191"; }
.compact table.sortable th[aria-sort="descending"]::after { content: " \\2193"; }
a.group-id { display: inline-block; width: max-content; max-width: 12rem; white-space: normal; overflow-wrap: anywhere; }
td.assignment { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.82rem; max-width: 520px; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.86rem; }
a { color: var(--accent); }
details.group { background: var(--card); border: 1px solid var(--line); border-radius: 10px; margin: 10px 0; }
details.group > summary { cursor: pointer; padding: 10px 14px; font-weight: 600; }
details.group > .table-wrap { border: none; border-top: 1px solid var(--line); border-radius: 0 0 10px 10px; }
details.all { margin-top: 12px; }
details.all > summary { cursor: pointer; color: var(--accent); margin-bottom: 8px; }
.toolbar { display: flex; gap: 10px; align-items: center; margin: 0 0 10px; flex-wrap: wrap; }
.toolbar input { padding: 6px 10px; border: 1px solid var(--line); border-radius: 8px; background: var(--card);
  color: var(--text); font: inherit; min-width: 240px; }
.empty { background: var(--card); border: 1px dashed var(--axis); border-radius: 12px; padding: 48px 24px;
  text-align: center; margin-top: 28px; }
.empty h2 { margin: 0 0 6px; }
footer { margin-top: 40px; color: var(--muted); font-size: 0.82rem; }
@media (max-width: 640px) {
  svg.chart { font-size: 17px; }
  svg.chart .axis-title { font-size: 16px; }
  .kpi { padding: 10px 12px; }
  .kpi .value { font-size: 1.3rem; }
}
@media print { .toolbar { display: none; } details.group { break-inside: avoid; } }
"""

# Sortable tables and the group filter. Errors are recorded on <body> so that a
# headless browser test can read them back from the DOM as well as the console.
SCRIPT = r"""
(function () {
  "use strict";
  window.addEventListener("error", function (e) {
    document.body.setAttribute("data-js-error", String(e.message));
  });
  function cellValue(row, index) {
    var cell = row.cells[index];
    var raw = cell.getAttribute("data-sort");
    var text = raw !== null ? raw : cell.textContent.trim().replace(/,/g, "");
    var num = Number(text);
    return text === "" || isNaN(num) ? text.toLowerCase() : num;
  }
  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      var order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
      return ascending ? order : -order;
    });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  });
  var filter = document.getElementById("group-filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var needle = filter.value.toLowerCase();
      document.querySelectorAll("#groups-table tbody tr").forEach(function (row) {
        row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) === -1;
      });
    });
  }
  document.body.setAttribute("data-ready", "1");
})();
"""
