"""``local_session(remote=True)`` as users start it: two processes at once (two notebooks),
each on a free port of its own, quiet like the classic session."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from ..delta import ROOT

pytestmark = [pytest.mark.spark, pytest.mark.connect]


def test_two_local_connect_sessions_side_by_side_each_on_its_own_port():
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    env.pop("SPARK_REMOTE", None)
    children = [subprocess.Popen([sys.executable, "-m", "tests.spark.connect_child"], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    ports = []
    for child in children:
        out, err = child.communicate(timeout=900)
        assert child.returncode == 0, err[-3000:]
        result = json.loads(out.strip().splitlines()[-1])
        assert result == {"session": "pyspark.sql.connect.session", "error": "InvalidInputError",
                          "rows": [["m1", 0], ["m1", 1], ["m2", 2], ["m2", 3]], "shuffle_partitions": "4"}
        lines = [line for line in err.splitlines() if "incubator modules" not in line]
        # One line names the server's address; no JVM lines, no stacks of the failed task.
        assert len(lines) == 1, lines
        ports.append(int(re.fullmatch(r"spark-assign: Spark Connect server of this process at "
                                      r"sc://localhost:(\d+)", lines[0]).group(1)))
    assert len(set(ports)) == 2 and 15002 not in ports
