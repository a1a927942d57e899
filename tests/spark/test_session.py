"""Which engine a session gets: delta-spark wherever its classes are loaded (``spark.jars``,
``spark.driver.extraClassPath``, ``spark.jars.packages``, ``$SPARK_ASSIGN_DELTA_JARS``
through ``local_session``), the embedded engine otherwise.

Each case starts its own Spark in a child process, configured as a user would; nothing is
mocked. The packages case resolves from a Maven repository laid out in a temporary folder
(these machines do not reach Maven Central), as an offline mirror would serve it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deltalake import DeltaTable

from ..delta import DELTA_SQL, MISSING, ROOT, jars

pytestmark = pytest.mark.spark

#: The published coordinates of the jars in ../shared/delta-jars (groupId, artifactId, version).
ARTIFACTS = {"delta-spark_4.1_2.13-4.4.0.jar": ("io.delta", "delta-spark_4.1_2.13", "4.4.0"),
             "delta-storage-4.4.0.jar": ("io.delta", "delta-storage", "4.4.0"),
             "delta-kernel-api-4.4.0.jar": ("io.delta", "delta-kernel-api", "4.4.0"),
             "delta-kernel-defaults-4.4.0.jar": ("io.delta", "delta-kernel-defaults", "4.4.0"),
             "delta-kernel-unitycatalog-4.4.0.jar": ("io.delta", "delta-kernel-unitycatalog", "4.4.0"),
             "jackson-datatype-jdk8-2.18.3.jar": ("com.fasterxml.jackson.datatype", "jackson-datatype-jdk8", "2.18.3")}


def run_child(tmp_path: Path, conf: dict, local_session: bool = False, env: dict = None,
              stderr: list = None) -> dict:
    table = tmp_path / "state"
    child_env = {k: v for k, v in os.environ.items() if k != "SPARK_ASSIGN_DELTA_JARS"}
    child_env.update(env or {})
    done = subprocess.run([sys.executable, "-m", "tests.spark.session_child",
                           json.dumps({"local_session": local_session, "conf": conf}), str(table)],
                          cwd=ROOT, env=child_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if stderr is not None:
        stderr.extend(done.stderr.splitlines())
    commit = DeltaTable(str(table)).history(1)[0]
    # delta-spark stores spark-assign's metadata in the commit's userMetadata; the embedded engine
    # in a commitInfo entry of its own.
    result["written_by"] = "delta-spark" if "spark_assign" in (commit.get("userMetadata") or "") else "embedded"
    return result


def needs_jars() -> list:
    found = jars()
    if not found:
        pytest.skip(MISSING)
    return found


def test_the_delta_extension_without_its_jars_is_not_taken_for_delta_spark(tmp_path):
    """Spark starts with a missing extension class (it logs a warning); the catalog is left out,
    as Spark could not build it."""
    extension = {"spark.sql.extensions": DELTA_SQL["spark.sql.extensions"]}
    assert run_child(tmp_path, extension) == {"has_delta_spark": False, "engine": "embedded", "version": 1,
                                              "written_by": "embedded"}


# spark.jars: local_session puts the jars named by the environment there (the next test).
def test_jars_on_the_driver_classpath_give_the_delta_spark_engine(tmp_path):
    found = needs_jars()
    assert run_child(tmp_path, {"spark.driver.extraClassPath": os.pathsep.join(found), **DELTA_SQL}) == {
        "has_delta_spark": True, "engine": "delta-spark", "version": 1, "written_by": "delta-spark"}


def test_local_session_loads_the_jars_named_by_the_environment(tmp_path):
    """Through ``spark.jars``, which local_session sets from the folder."""
    found = needs_jars()
    result = run_child(tmp_path, {}, local_session=True,
                       env={"SPARK_ASSIGN_DELTA_JARS": str(Path(found[0]).parent)})
    assert (result["engine"], result["written_by"]) == ("delta-spark", "delta-spark")


def test_a_session_without_delta_spark_starts_quietly_on_the_embedded_engine(tmp_path):
    """Without delta-spark's jars: the embedded engine writes the table. Spark's start-up lines
    (host name, native libraries, log profile, log level) stay off the terminal; only the JVM's
    own note on the incubator module Spark's launcher adds remains."""
    lines = []
    assert run_child(tmp_path, {}, local_session=True, env={"SPARK_ASSIGN_DELTA_JARS": ""}, stderr=lines) == {
        "has_delta_spark": False, "engine": "embedded", "version": 1, "written_by": "embedded"}
    assert [line for line in lines if "incubator modules" not in line] == []


def maven_repository(root: Path, found: list) -> Path:
    """The jars as a Maven repository: a pom per artifact, delta-spark's naming the others."""
    def pom(group: str, artifact: str, version: str, deps=()) -> str:
        listed = "".join(f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
                         f"<version>{v}</version></dependency>" for g, a, v in deps)
        return (f'<?xml version="1.0"?><project xmlns="http://maven.apache.org/POM/4.0.0">'
                f"<modelVersion>4.0.0</modelVersion><groupId>{group}</groupId><artifactId>{artifact}"
                f"</artifactId><version>{version}</version><dependencies>{listed}</dependencies></project>")

    by_name = {Path(j).name: j for j in found}
    deps = [c for name, c in ARTIFACTS.items() if not name.startswith("delta-spark")]
    for name, (group, artifact, version) in ARTIFACTS.items():
        if name not in by_name:
            pytest.skip(f"{name} is not among the delta-spark jars; the packages case needs the 4.4.0 set")
        folder = root.joinpath(*group.split("."), artifact, version)
        folder.mkdir(parents=True)
        shutil.copy(by_name[name], folder / f"{artifact}-{version}.jar")
        (folder / f"{artifact}-{version}.pom").write_text(
            pom(group, artifact, version, deps if artifact.startswith("delta-spark") else ()))
    settings = root / "ivysettings.xml"
    settings.write_text(f'<ivysettings><settings defaultResolver="mirror"/><resolvers><ibiblio name="mirror" '
                        f'm2compatible="true" root="{root.as_uri()}"/></resolvers></ivysettings>')
    return settings


def test_packages_resolved_from_a_maven_mirror_give_the_delta_spark_engine(tmp_path):
    settings = maven_repository(tmp_path / "m2", needs_jars())
    group, artifact, version = ARTIFACTS["delta-spark_4.1_2.13-4.4.0.jar"]
    conf = {"spark.jars.packages": f"{group}:{artifact}:{version}", "spark.jars.ivySettings": str(settings),
            "spark.jars.ivy": str(tmp_path / "ivy"), **DELTA_SQL}
    assert run_child(tmp_path, conf)["engine"] == "delta-spark"
