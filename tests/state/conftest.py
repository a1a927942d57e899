"""State-table tests share the Spark session of tests/spark; ``engine`` runs a test on each backend.

The contract suite (every test taking ``engine``) holds both backends to the
same assertions. The delta-spark runs need its jars (see ``tests/delta.py``)
and skip with one line without them.
"""

import pytest

from ..delta import MISSING, jars
from ..spark.conftest import spark  # noqa: F401

ENGINES = ["embedded", "delta-spark"]


@pytest.fixture(params=ENGINES)
def engine(request):
    if request.param == "delta-spark" and not jars():
        pytest.skip(MISSING)
    return request.param
