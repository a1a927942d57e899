"""The Spark examples of docs/*.md run, in order per page, on the shared session.

A page's ```python blocks that use a variable called ``spark`` form one
script (later blocks build on earlier ones); it runs with ``spark`` bound to
the test session, in a temporary working directory (relative paths in the
examples land there).
"""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"```python\n(.*?)```", re.S)

pytestmark = pytest.mark.spark


def pages():
    out = []
    for path in sorted(DOCS.glob("*.md")):
        blocks = [b for b in FENCE.findall(path.read_text(encoding="utf-8")) if re.search(r"\bspark\b", b)]
        if blocks:
            out.append(pytest.param(path.name, blocks, id=path.name))
    return out


@pytest.mark.parametrize("page,blocks", pages())
def test_spark_examples_of_a_page(spark, tmp_path, monkeypatch, page, blocks):
    monkeypatch.chdir(tmp_path)
    namespace = {"spark": spark}
    for i, code in enumerate(blocks):
        exec(compile(code, f"<{page} block {i}>", "exec"), namespace)
