"""The package's dependency rules, read from the source with ``ast``: every import statement at any
depth (inside functions too) and every ``importlib.import_module("...")`` with a literal name.

* The engine (``spark_assign/core``) and the Spark layer (``spark_assign/spark``) never import the
  state layer (``spark_assign.state``): each layer uses only those below it.
* The engine never imports PySpark (``docs/engine.md``: no Spark needed).
* No module imports another module's private (``_underscored``) name, ours or a library's: what
  modules share is public. A module's own names, and private *modules* of the package imported by
  name (``from . import _pyspark_hook``), are fine.

A failure lists every offender as ``file:line``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple

import spark_assign

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "spark_assign"

Import = Tuple[int, str, Optional[str]]        # (line, module, imported name or None for ``import module``)


def module_name(path: Path) -> str:
    """``spark_assign/spark/inputs.py`` -> ``spark_assign.spark.inputs`` (a package's ``__init__``: the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _from_module(path: Path, node: ast.ImportFrom) -> str:
    """The module an ``import from`` reads, relative levels resolved against ``path``."""
    if node.level == 0:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    base = package[:len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path, source: Optional[str] = None) -> List[Import]:
    """Every import of the module at ``path`` (its text: ``source``, else the file's), by line."""
    return sorted(_imports(path, source), key=lambda found: found[0])


def _imports(path: Path, source: Optional[str]) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source, filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                yield node.lineno, _from_module(path, node), alias.name
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value, None


def _reaches(module: str, name: Optional[str], package: str) -> bool:
    """Whether the import reaches ``package``: ``from m import name`` may import the module ``m.name``,
    and ``from spark_assign import AssignmentTable`` imports the module defining that lazy name."""
    if module == "spark_assign" and name in spark_assign.SPARK_NAMES:
        module, name = spark_assign.SPARK_NAMES[name], None
    return _under(module, package) or (name is not None and _under(f"{module}.{name}", package))


def _statement(module: str, name: Optional[str]) -> str:
    return f"from {module} import {name}" if name is not None else f"import {module}"


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _is_package_module(module: str) -> bool:
    parts = module.split(".")
    return ROOT.joinpath(*parts).with_suffix(".py").exists() or ROOT.joinpath(*parts, "__init__.py").exists()


def state_imports(path: Path, found: List[Import]) -> List[str]:
    """Rule (a), for a module under ``core/`` or ``spark/``: its imports of the state layer."""
    return [f"{line}: {_statement(m, n)}" for line, m, n in found if _reaches(m, n, "spark_assign.state")]


def pyspark_imports(path: Path, found: List[Import]) -> List[str]:
    """Rule (c), for a module under ``core/``: its imports of PySpark."""
    return [f"{line}: {_statement(m, n)}" for line, m, n in found if _reaches(m, n, "pyspark")]


def private_imports(path: Path, found: List[Import]) -> List[str]:
    """Rule (b): ``from other import _name`` where ``_name`` is not a module of the package."""
    me = module_name(path)
    return [f"{line}: {_statement(module, name)}" for line, module, name in found
            if name is not None and name.startswith("_") and not name.endswith("__")
            and module not in (me, "__future__") and not _is_package_module(f"{module}.{name}")]


def offenders(rule: Callable[[Path, List[Import]], List[str]], under: str = "") -> List[str]:
    """``file:line: what`` for every breach of ``rule`` by the modules under ``spark_assign/<under>``."""
    out = []
    for path in sorted((PACKAGE / under).rglob("*.py")):
        out += [f"{path.relative_to(ROOT)}:{what}" for what in rule(path, imports(path))]
    return out


def test_the_engine_and_the_spark_layer_never_import_the_state_layer():
    found = offenders(state_imports, "core") + offenders(state_imports, "spark")
    assert not found, "spark_assign.state imported below it:\n" + "\n".join(found)


def test_no_module_imports_another_modules_private_names():
    found = offenders(private_imports)
    assert not found, "another module's private names imported:\n" + "\n".join(found)


def test_the_engine_never_imports_pyspark():
    found = offenders(pyspark_imports, "core")
    assert not found, "PySpark imported by the engine:\n" + "\n".join(found)


def test_the_rules_catch_what_they_forbid():
    # The same rules on sources that break them: relative imports, imports inside functions,
    # import_module calls; and sources that keep them.
    spark_module = PACKAGE / "spark" / "example.py"
    breaking = ("def f():\n"
                "    from ..state.table import AssignmentTable\n"
                "    from ..state import plan\n"
                "    importlib.import_module('spark_assign.state')\n"
                "    from .inputs import _type_ok\n"
                "    import pyspark.sql\n"
                "    from spark_assign import AssignmentTable\n")
    found = imports(spark_module, breaking)
    assert state_imports(spark_module, found) == [
        "2: from spark_assign.state.table import AssignmentTable", "3: from spark_assign.state import plan",
        "4: import spark_assign.state", "7: from spark_assign import AssignmentTable"]
    assert private_imports(spark_module, found) == ["5: from spark_assign.spark.inputs import _type_ok"]
    assert pyspark_imports(spark_module, found) == ["6: import pyspark.sql"]
    keeping = ("from __future__ import annotations\n"
               "from .example import _mine\n"
               "from .. import _pyspark_hook\n"
               "from ..core import Member\n"
               "from .. import statements\n"
               "import spark_assign.statements\n")
    found = imports(spark_module, keeping)
    assert state_imports(spark_module, found) == private_imports(spark_module, found) == []
