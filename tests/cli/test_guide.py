"""docs/cli.md and docs/replicas.md run: their ```bash and ```console blocks, in order, each guide in
one temporary directory.

* ```bash blocks hold ``spark-assign ...`` commands (``\\`` continues a line)
  and ``cat > FILE <<'EOF'`` here-documents; every command must exit 0.
* ```console blocks hold ``$ spark-assign ...`` lines, each followed by its
  exact output (stderr, then stdout); used for the error messages.
* ```text blocks are sample output: not run.

Anything else in a bash or console block fails the test, so the guide only
shows what the tests run. Commands run in-process on the shared session.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import List, Tuple

import pytest

from .conftest import run_cli

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDE = DOCS / "cli.md"
#: The pages whose command lines run here, in order.
GUIDES = [GUIDE, DOCS / "replicas.md"]
BLOCK = re.compile(r"^```(bash|console)\n(.*?)^```", re.S | re.M)


def steps(text: str) -> List[Tuple[str, object]]:
    """("file", (name, content)), ("run", argv) and ("expect", (argv, output)) in document order."""
    out: List[Tuple[str, object]] = []
    for kind, body in BLOCK.findall(text):
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if kind == "console":
                assert line.startswith("$ spark-assign "), f"console lines start with '$ spark-assign': {line!r}"
                expected = []
                while i < len(lines) and not lines[i].startswith("$ "):
                    expected.append(lines[i])
                    i += 1
                out.append(("expect", (shlex.split(line[2:])[1:], "\n".join(expected))))
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            heredoc = re.fullmatch(r"cat > (\S+) <<'EOF'", line)
            if heredoc:
                end = lines.index("EOF", i)
                out.append(("file", (heredoc.group(1), "\n".join(lines[i:end]) + "\n")))
                i = end + 1
                continue
            while line.endswith("\\"):
                line = line[:-1] + lines[i]
                i += 1
            assert line.startswith("spark-assign "), f"bash blocks only run spark-assign: {line!r}"
            out.append(("run", shlex.split(line)[1:]))
    return out


def test_the_guide_covers_every_command():
    commands = {step[1][0] for step in steps(GUIDE.read_text(encoding="utf-8")) if step[0] == "run"}
    assert commands >= {"simulate", "rebalance", "history", "diff", "report", "replicas"}


@pytest.mark.parametrize("guide", GUIDES, ids=[g.name for g in GUIDES])
def test_the_guide_runs(cli, tmp_path, monkeypatch, guide):
    monkeypatch.chdir(tmp_path)
    for kind, value in steps(guide.read_text(encoding="utf-8")):
        if kind == "file":
            name, content = value
            (tmp_path / name).write_text(content, encoding="utf-8")
        elif kind == "run":
            run = cli(*value)
            assert run.status == 0, (value, run.err)
        else:
            argv, expected = value
            run = cli(*argv)
            assert (run.err + run.out).rstrip("\n") == expected, (argv, run.err, run.out)
            assert run.status == 2 if run.err.startswith("spark-assign: error:") else run.status == 0
