"""Progress bars for long work, with tqdm: on a terminal only, unless asked.

The one home of the rule for when spark-assign shows progress (used by
``AssignmentTable.rebalance``, ``run_script``, the CLI's simulations and the
report writer):

* ``enabled=None`` (the default everywhere): shown when stderr is a terminal
  (tqdm's own test), so logs, notebooks' captured output, CI and tests stay
  clean;
* ``$SPARK_ASSIGN_PROGRESS``: ``0`` never shows a bar, ``1`` always does
  (also when stderr is not a terminal), whatever the call says;
* bars go to stderr and are cleared when their work ends (``leave=False``):
  progress is about now, the results say what happened;
* every update is drawn (``mininterval=0``): the units are coarse (stages,
  statements, generations, each a Spark job or more), so a bar never skips
  the step it is on, however fast the steps come.

Example::

    from spark_assign.progress import progress

    with progress(3, "generations") as bar:
        for step in range(3):
            bar.set_postfix_str(f"step {step + 1}")
            bar.update()
"""

from __future__ import annotations

import os
from typing import Iterable, Optional, TextIO

from tqdm import tqdm

__all__ = ["PROGRESS_ENV", "progress", "show_progress", "Stages"]

#: ``0``: no progress bars; ``1``: progress bars even when stderr is not a terminal.
PROGRESS_ENV = "SPARK_ASSIGN_PROGRESS"


def show_progress(enabled: Optional[bool] = None) -> Optional[bool]:
    """Whether to show a bar, as tqdm's ``disable`` wants it inverted: True (show), False
    (never) or None (on a terminal). ``$SPARK_ASSIGN_PROGRESS`` wins over ``enabled``.

    Example::

        show_progress()        # None: tqdm shows the bar when stderr is a terminal
        show_progress(False)   # False: no bar
    """
    forced = os.environ.get(PROGRESS_ENV, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    return enabled


def progress(total: Optional[int], description: str, enabled: Optional[bool] = None,
             unit: str = "step", file: Optional[TextIO] = None) -> tqdm:
    """A tqdm bar of ``total`` units (None: unknown), shown as :func:`show_progress` says.

    Example::

        with progress(10, "statements", unit="statement") as bar:
            bar.update()

    Parameters
    ----------
    total:
        The units of work, or None when unknown.
    description:
        What the bar counts, shown before it.
    enabled:
        True: always; False: never; None: when stderr is a terminal.
    unit:
        The name of one unit.
    file:
        Where the bar goes (default: stderr). With ``enabled=None`` it is shown when this
        stream is a terminal.
    """
    show = show_progress(enabled)
    return tqdm(total=total, desc=description, unit=unit, leave=False, dynamic_ncols=True, mininterval=0, file=file,
                disable=None if show is None else not show)


class Stages:
    """A bar over named stages (a rebalance's plan, compute, write, commit): the current
    stage's name beside it; :meth:`next` moves on.

    Example::

        with Stages("rebalance", ["plan", "compute", "write", "commit"]) as stages:
            stages.next("plan")
            stages.next("compute")

    Parameters
    ----------
    description:
        What the stages make up, shown before the bar.
    names:
        The stages in order (their count is the bar's total).
    enabled:
        As for :func:`progress`.
    """

    def __init__(self, description: str, names: Iterable[str], enabled: Optional[bool] = None) -> None:
        self.names = list(names)
        self.bar = progress(len(self.names), description, enabled, unit="stage")
        self.done = 0

    def next(self, name: str) -> None:
        """Start stage ``name`` (the stages before it count as done)."""
        position = self.names.index(name) if name in self.names else self.done
        self.bar.update(max(position - self.done, 0))
        self.done = max(position, self.done)
        self.bar.set_postfix_str(name)

    def close(self) -> None:
        """End the bar (it is cleared from the terminal)."""
        self.bar.update(len(self.names) - self.done)
        self.done = len(self.names)
        self.bar.close()

    def __enter__(self) -> "Stages":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
