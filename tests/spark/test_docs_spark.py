"""The Spark examples of docs/*.md and README.md run, in order per page, on the shared session.

A Spark page is one with a ```sql block or a ```python block that uses a
variable called ``spark``. All its ```python and ```sql blocks form one script,
run in the order of the page (later blocks build on earlier ones): Python with
``spark`` bound to the test session, SQL statement by statement through
:func:`spark_assign.state.consumer.sql.run_script` (every statement's rows collected, so
a query that fails fails the test). It runs in a temporary working directory:
relative paths in the examples land there.
"""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"```(python|sql)\n(.*?)```", re.S)

pytestmark = pytest.mark.spark

#: Pages a dedicated test runs instead (with what they need beyond this runner).
OWN_TEST = {"sql.md": "tests/spark/test_sql_scripts.py::test_guide_examples_run",
            "kafka-records.md": "tests/cli/test_kafka_walkthrough.py::test_the_walkthrough_runs"}


def pages():
    out = []
    for path in sorted(DOCS.glob("*.md")) + [DOCS.parent / "README.md"]:
        if path.name in OWN_TEST:
            continue
        blocks = FENCE.findall(path.read_text(encoding="utf-8"))
        if any(lang == "sql" or re.search(r"\bspark\b", code) for lang, code in blocks):
            out.append(pytest.param(path.name, blocks, id=path.name))
    return out


@pytest.mark.parametrize("page,blocks", pages())
def test_spark_examples_of_a_page(spark, tmp_path, monkeypatch, page, blocks):
    from spark_assign.state.consumer.sql import run_script

    monkeypatch.chdir(tmp_path)
    namespace = {"spark": spark}
    # An example's local_session() returns this session with its own runtime settings applied.
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        for i, (lang, code) in enumerate(blocks):
            if lang == "sql":
                run_script(spark, code, collect=True)
            else:
                exec(compile(code, f"<{page} block {i}>", "exec"), namespace)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)
