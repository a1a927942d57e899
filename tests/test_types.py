"""The package type-checks: ``mypy spark_assign`` reports no error (the package ships ``py.typed``).

mypy is in the test extras; the version range is pinned there, since each
release judges NumPy's and PySpark's stubs a little differently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error():
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extras: pip install -e '.[test]'")
    # Incremental, with the cache beside the checkout: a developer's re-run checks only what changed
    # (a few seconds); a clean clone (CI) checks everything once (about 30 s on 2 cores).
    out, err, status = api.run(["--ignore-missing-imports", "--cache-dir", str(ROOT / ".mypy_cache"),
                                str(ROOT / "spark_assign")])
    assert status == 0, out + err
    assert out.strip().splitlines()[-1].startswith("Success: no issues found"), out
