"""Every Python example in docs/*.md runs. A page with any example that uses a
variable called ``spark`` is a Spark page: its examples build on each other and
run in order in tests/spark/test_docs_spark.py instead."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def examples():
    out = []
    for path in sorted(DOCS.glob("*.md")):
        blocks = FENCE.findall(path.read_text(encoding="utf-8"))
        if "```sql" in path.read_text(encoding="utf-8") or any(re.search(r"\bspark\b", c) for c in blocks):
            continue                                  # a Spark page
        out += [pytest.param(code, id=f"{path.name}#{i}") for i, code in enumerate(blocks)]
    return out


@pytest.mark.parametrize("code", examples())
def test_doc_example(code):
    exec(compile(code, "<doc>", "exec"), {})
