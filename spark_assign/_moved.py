"""Module paths from before the domain folders, kept working as aliases of the modules' new homes.

Until 0.1 the engine was one flat folder (``spark_assign.core.replica_sticky``,
``spark_assign.core.checks``, ...). Those paths name the same module objects as the new ones
(``import spark_assign.core.checks`` gives ``spark_assign.core.consumer.checks`` itself), through
a meta path finder installed by ``spark_assign/__init__.py``. Nothing in the package uses them;
``docs/`` names only the new paths. What is public is what ``spark_assign`` and
``spark_assign.core`` export, and the module paths ``docs/`` names (``docs/engine.md``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Dict, Optional, Sequence

#: old module path -> its new home. The old paths that are now packages (``spark_assign.core.replicas``,
#: ``spark_assign.core.producer``, ``spark_assign.spark.replicas``, ``spark_assign.spark.producer``,
#: ``spark_assign.report.replicas``, ``spark_assign.core.sticky``) need no alias: each package
#: re-exports the public names of the module it replaces.
MOVED: Dict[str, str] = {
    "spark_assign.core.javautil": "spark_assign.core.java.util",
    "spark_assign.core.javarandom": "spark_assign.core.java.random",
    "spark_assign.core.limits": "spark_assign.core.java.limits",
    "spark_assign.core.api": "spark_assign.core.consumer.api",
    "spark_assign.core.model": "spark_assign.core.consumer.model",
    "spark_assign.core.encode": "spark_assign.core.consumer.encode",
    "spark_assign.core.keys": "spark_assign.core.consumer.keys",
    "spark_assign.core.context": "spark_assign.core.consumer.context",
    "spark_assign.core.checks": "spark_assign.core.consumer.checks",
    "spark_assign.core.result": "spark_assign.core.consumer.result",
    "spark_assign.core.partition_list": "spark_assign.core.consumer.partition_list",
    "spark_assign.core.registry": "spark_assign.core.consumer.registry",
    "spark_assign.core.weights": "spark_assign.core.consumer.weights",
    "spark_assign.core.racks": "spark_assign.core.consumer.racks",
    "spark_assign.core.range": "spark_assign.core.consumer.strategies.range",
    "spark_assign.core.roundrobin": "spark_assign.core.consumer.strategies.roundrobin",
    "spark_assign.core.server_range": "spark_assign.core.consumer.strategies.server_range",
    "spark_assign.core.uniform": "spark_assign.core.consumer.strategies.uniform",
    "spark_assign.core.load_aware": "spark_assign.core.consumer.strategies.load_aware",
    "spark_assign.core.sticky_constrained": "spark_assign.core.consumer.strategies.sticky.constrained",
    "spark_assign.core.sticky_general": "spark_assign.core.consumer.strategies.sticky.general",
    "spark_assign.core.partition_movements": "spark_assign.core.consumer.strategies.sticky.movements",
    "spark_assign.core.batch": "spark_assign.core.consumer.batch.api",
    "spark_assign.core.batch_layout": "spark_assign.core.consumer.batch.layout",
    "spark_assign.core.batch_load": "spark_assign.core.consumer.batch.load",
    "spark_assign.core.batch_load_moves": "spark_assign.core.consumer.batch.load_moves",
    "spark_assign.core.batch_rules": "spark_assign.core.consumer.batch.rules",
    "spark_assign.core.replica_admin": "spark_assign.core.replicas.admin",
    "spark_assign.core.replica_fill": "spark_assign.core.replicas.fill",
    "spark_assign.core.replica_fleet": "spark_assign.core.replicas.fleet",
    "spark_assign.core.replica_leaders": "spark_assign.core.replicas.leaders",
    "spark_assign.core.replica_model": "spark_assign.core.replicas.model",
    "spark_assign.core.replica_sticky": "spark_assign.core.replicas.sticky",
    "spark_assign.core.replica_striped": "spark_assign.core.replicas.striped",
    "spark_assign.core.replica_striped_block": "spark_assign.core.replicas.striped_block",
    "spark_assign.core.replica_targets": "spark_assign.core.replicas.targets",
    "spark_assign.core.murmur2": "spark_assign.core.producer.murmur2",
    "spark_assign.spark.dataframe": "spark_assign.spark.consumer.dataframe",
    "spark_assign.spark.group_rows": "spark_assign.spark.consumer.group_rows",
    "spark_assign.spark.wire": "spark_assign.spark.consumer.wire",
    "spark_assign.spark.worker": "spark_assign.spark.consumer.worker",
    "spark_assign.spark.sql_table": "spark_assign.spark.consumer.sql_functions",
    "spark_assign.spark.replica_worker": "spark_assign.spark.replicas.worker",
    "spark_assign.spark.sql_replicas": "spark_assign.spark.replicas.sql_functions",
    "spark_assign.spark.sql_kafka": "spark_assign.spark.producer.sql_functions",
    "spark_assign.state.generations": "spark_assign.state.generation_table",
    "spark_assign.state.embedded": "spark_assign.state.backends.embedded",
    "spark_assign.state.deltaspark": "spark_assign.state.backends.deltaspark",
    "spark_assign.state.deltajvm": "spark_assign.state.backends.deltajvm",
    "spark_assign.state.files": "spark_assign.state.backends.files",
    "spark_assign.state.damage": "spark_assign.state.backends.damage",
    "spark_assign.state.table": "spark_assign.state.consumer.table",
    "spark_assign.state.generation": "spark_assign.state.consumer.compute",
    "spark_assign.state.request": "spark_assign.state.consumer.request",
    "spark_assign.state.load": "spark_assign.state.consumer.load",
    "spark_assign.state.sql": "spark_assign.state.consumer.sql",
    "spark_assign.state.replica_table": "spark_assign.state.replicas.table",
    "spark_assign.state.replica_generation": "spark_assign.state.replicas.compute",
    "spark_assign.report.data": "spark_assign.report.consumer.data",
    "spark_assign.report.metrics": "spark_assign.report.consumer.metrics",
    "spark_assign.report.steps": "spark_assign.report.consumer.steps",
    "spark_assign.report.load": "spark_assign.report.consumer.load",
    "spark_assign.report.load_charts": "spark_assign.report.consumer.load_charts",
    "spark_assign.report.replica_html": "spark_assign.report.replicas.html",
}


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path in :data:`MOVED` and hands out the module at its new home."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new home has run already."""


def alias_loaded(package: str) -> None:
    """Register the old paths under ``package`` whose new modules are loaded, straight in ``sys.modules``.

    A package whose public names share an old module's name (``spark_assign.report.metrics`` is a
    function and was a module) calls this at its end: importing the old path then finds the
    module in ``sys.modules``, and the import system does not bind it over the package's name
    (it binds a module found by a finder as an attribute of its parent).
    """
    for old, new in MOVED.items():
        if old.rpartition(".")[0] == package and new in sys.modules:
            sys.modules.setdefault(old, sys.modules[new])


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
