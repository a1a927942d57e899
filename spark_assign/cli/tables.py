"""Plain-text tables for the terminal: aligned columns, numbers on the right.

::

    print(format_table(["gen", "strategy", "moved"], [[1, "sticky", 0], [2, "sticky", 12]]))

gives::

    gen  strategy  moved
    ---  --------  -----
      1  sticky        0
      2  sticky       12
"""

from __future__ import annotations

import math
from numbers import Number
from typing import Any, List, Optional, Sequence, cast

__all__ = ["format_table", "cell", "format_seconds", "format_amount"]


def cell(value: Any, digits: int = 2) -> str:
    """The text of one value: integers plainly, floats with ``digits`` decimals, None as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Number):
        if _is_float(value):
            return "-" if math.isnan(float(cast(float, value))) else f"{float(cast(float, value)):.{digits}f}"
        return str(int(cast(int, value)))
    return str(value)


def _is_float(value: Any) -> bool:
    """True for float types (Python or numpy), whose values show with decimals."""
    return type(value).__name__.startswith("float")


def _numeric(value: Any) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: Optional[str] = None,
                 digits: int = 2) -> str:
    """``rows`` under ``headers``, columns aligned; numeric columns right-aligned.

    A column is numeric when every non-null value in it is a number. ``title``
    is printed above the table. An empty ``rows`` gives the header and ``(none)``.
    """
    texts: List[List[str]] = [[cell(v, digits) for v in row] for row in rows]
    numeric = [all(_numeric(row[i]) for row in rows if row[i] is not None) and any(row[i] is not None
                                                                                  for row in rows)
               for i in range(len(headers))]
    widths = [max([len(h)] + [len(t[i]) for t in texts]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    out = [title] if title else []
    out += [line(list(headers)), line(["-" * w for w in widths])]
    out += [line(t) for t in texts] if texts else ["(none)"]
    return "\n".join(out)


def format_seconds(seconds: float) -> str:
    """``0.4s``, ``12.3s`` or ``2m05s``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m{rest:02d}s"


def format_amount(value: float) -> str:
    """A load's total: whole numbers with thousands separators (``1,250,000``), small ones to three
    significant digits (``0.125``)."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
