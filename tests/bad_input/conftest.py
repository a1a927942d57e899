"""Helpers shared by the bad-input suite (see ``tests/bad_input/__init__.py``), and the one
Spark session of tests/spark."""

from __future__ import annotations

from typing import Optional

import pytest

from ..spark.conftest import spark  # noqa: F401  (the shared session-scoped session)

#: Text that means a stack reached the user.
STACK_MARKS = ("Traceback", "at org.apache", "Py4JJavaError")
#: ... and what a child process's stderr must not hold either.
STDERR_MARKS = STACK_MARKS + ("ERROR Executor",)


def assert_clean(error: BaseException, name: Optional[str]) -> str:
    """``error``'s message names ``name`` (the column or argument) and carries no stack;
    returns the message. An error with a ``column`` attribute must name ``name`` there too."""
    text = str(error)
    for mark in STACK_MARKS:
        assert mark not in text, f"{mark!r} in the message: {text[:2000]}"
    if name is not None:
        assert name in text, f"{name!r} not named in: {text[:2000]}"
        column = getattr(error, "column", None)
        if column is not None:
            assert column == name, (column, name)
    return text


def xfail(reason: str) -> pytest.MarkDecorator:
    """A case the product still gets wrong; ``reason`` says where the fix belongs."""
    return pytest.mark.xfail(strict=True, reason=reason)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Tell the children which cases this run selected (``-k``, node ids): a case is the
    parameter ``case`` of a test in a module with a ``SURFACE`` (see stderr.py). Cases that
    a ``skipif`` skips are left out."""
    from .stderr import SELECTED

    SELECTED.clear()
    for item in session.items:
        surface = getattr(getattr(item, "module", None), "SURFACE", None)
        key = getattr(getattr(item, "callspec", None), "params", {}).get("case")
        skipped = any(m.name == "skipif" and m.args and m.args[0] for m in item.iter_markers())
        if surface and isinstance(key, str) and not skipped:
            SELECTED.setdefault(surface, []).append(key)
