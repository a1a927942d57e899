"""Every module path the docs name imports, and every path from before the domain folders still
names the same module (``spark_assign/_moved.py``).

What is public: the names ``spark_assign`` and ``spark_assign.core`` export, and the module
paths ``docs/`` and the README name (``docs/architecture.md``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import spark_assign
from spark_assign._moved import MOVED

ROOT = Path(__file__).resolve().parent.parent
DOTTED = re.compile(r"\bspark_assign(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: SQL names under the ``spark_assign`` catalog prefix (``CALL spark_assign.rebalance(...)``), not Python paths.
SQL_NAMES = {"spark_assign.views", "spark_assign.rebalance", "spark_assign.statements", "spark_assign.format"}


def documented_paths():
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))]
    texts.append((ROOT / "README.md").read_text(encoding="utf-8"))
    return sorted({m.group(0) for text in texts for m in DOTTED.finditer(text)} - SQL_NAMES)


def resolve(path: str):
    """The module or attribute a dotted path names: the longest importable prefix, then attributes."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for name in parts[i:]:
            value = getattr(value, name)
        return value
    raise ModuleNotFoundError(path)


def test_the_docs_name_paths():
    assert len(documented_paths()) > 30


@pytest.mark.parametrize("path", documented_paths())
def test_every_documented_path_resolves(path):
    resolve(path)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_are_the_new_modules(old):
    assert importlib.import_module(old) is importlib.import_module(MOVED[old])


def test_an_old_module_path_never_hides_a_public_name_of_its_package():
    # report.metrics and report.steps are functions and were modules: importing the old module
    # paths must not rebind them.
    import spark_assign.report as report
    for old in MOVED:
        importlib.import_module(old)
    assert callable(report.metrics) and callable(report.steps)


def test_the_old_paths_are_unused_inside_the_package():
    # Aliases are for users' code; the package, its tests and docs use the new homes.
    used = []
    for path in list((ROOT / "spark_assign").rglob("*.py")) + list((ROOT / "docs").glob("*.md")):
        if path.name == "_moved.py":
            continue
        text = path.read_text(encoding="utf-8")
        used += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in DOTTED.finditer(text)
                 if any(m.group(0) == old or m.group(0).startswith(old + ".") for old in MOVED)]
    assert not used, "\n".join(used)


def test_the_public_names_are_there():
    import spark_assign.core as core
    for name in core.__all__:
        assert getattr(core, name) is not None, name
    assert set(spark_assign.__all__) <= set(dir(spark_assign))
