"""What importing the package loads: the engine never loads PySpark, and ``import spark_assign``
still gives every DataFrame its method, whichever of the two is imported first.

Each check runs in a fresh interpreter (``sys.modules`` of this one already holds PySpark).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python(code: str) -> str:
    """Run ``code`` in a new interpreter that imports this checkout's ``spark_assign``; its stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=False,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("modules", ["spark_assign.core", "spark_assign.errors", "spark_assign.testing",
                                     "spark_assign", "spark_assign.core, spark_assign.errors, spark_assign.testing"])
def test_the_engine_imports_without_pyspark(modules):
    python(f"import {modules}, sys; loaded = [m for m in sys.modules if m.split('.')[0] == 'pyspark']; "
           "assert not loaded, loaded")


@pytest.mark.parametrize("first", ["import spark_assign; import pyspark",
                                   "import spark_assign; from pyspark.sql import SparkSession",
                                   "import pyspark.sql; import spark_assign",
                                   "import spark_assign.core; import pyspark.sql; import spark_assign",
                                   "from spark_assign import local_session",       # pyspark.sql loads mid-way
                                   "import spark_assign.spark.consumer.dataframe"])
def test_import_spark_assign_adds_the_dataframe_method_in_any_order(first):
    out = python(f"{first}\n"
                 "from pyspark.sql import DataFrame\n"
                 "from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame\n"
                 "from spark_assign.spark.consumer.dataframe import assign_partitions\n"
                 "assert DataFrame.assign_partitions is assign_partitions\n"
                 "assert ConnectDataFrame.assign_partitions is assign_partitions\n"
                 "print('ok')")
    assert out.strip() == "ok"


def test_spark_names_and_subpackages_are_there_on_first_use():
    out = python("import spark_assign, sys\n"
                 "assert 'spark_assign.state' not in sys.modules\n"
                 "from spark_assign import AssignmentTable, assign_partitions, local_session, register\n"
                 "from spark_assign.state import AssignmentTable as Table\n"
                 "assert AssignmentTable is Table and spark_assign.state.AssignmentTable is Table\n"
                 "assert callable(local_session) and callable(register) and callable(assign_partitions)\n"
                 "assert set(spark_assign.__all__) <= set(dir(spark_assign))\n"
                 "try:\n"
                 "    spark_assign.no_such_name\n"
                 "except AttributeError as e:\n"
                 "    print(e)\n")
    assert out.strip() == "module 'spark_assign' has no attribute 'no_such_name'"
