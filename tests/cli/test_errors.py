"""Mistakes get one line on stderr and exit status 2, never a traceback; bugs get status 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spark_assign.cli import commands

from .conftest import Run, run_cli

SCENARIO_FILES = {
    "bad.yaml": ("groups: 2\nmembers: [1\n", "is not valid YAML at line 3"),
    "bad.json": ('{"groups": 2,}', "is not valid JSON: Expecting property name"),
    "unknown.yaml": ("groups: 2\nconsumers: 3\n", "unknown setting 'consumers'; valid settings are: groups,"),
    "list.json": ("[1, 2]", "must hold a mapping of settings, got list"),
    "empty.yaml": ("", "is empty"),
    "negative.yaml": ("groups: 2\njoins: -1\n", "bad scenario: joins must be a non-negative integer, got -1"),
    "topics.yaml": ("topics: [orders, payments]\n", "bad scenario: topics must be a number of topics or a mapping"),
    "strategy.yaml": ("strategies: [sticky, fastest]\n", "unknown strategy 'fastest'; valid strategies are:"),
    "scenario.toml": ("groups = 2\n", "expected a .json, .yaml or .yml file"),
}


def assert_one_line_error(run: Run, *fragments: str) -> None:
    assert run.status == 2, (run.status, run.err)
    assert run.out == ""
    assert len(run.err_lines) == 1, run.err
    assert run.err.startswith("spark-assign: error: ") and "Traceback" not in run.err
    for fragment in fragments:
        assert fragment in run.err, run.err


@pytest.mark.parametrize("name", sorted(SCENARIO_FILES))
def test_a_bad_scenario_file_is_one_line_and_status_2(tmp_path, name):
    text, message = SCENARIO_FILES[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    run = run_cli("simulate", "--scenario", tmp_path / name, "--table", tmp_path / "t")
    assert_one_line_error(run, message)
    assert not (tmp_path / "t").exists()  # nothing written


@pytest.mark.parametrize("argv,message", [
    (["simulate", "--scenario", "{tmp}/missing.yaml", "--table", "{tmp}/t"], "--scenario: no such file: "),
    (["simulate", "--scenario", "{tmp}", "--table", "{tmp}/t"], "is a folder"),
    (["history", "--table", "{tmp}/missing"], "no such table: "),
    (["diff", "--table", "{tmp}/missing", "--from", "1", "--to", "2"], "no such table: "),
    (["report", "--table", "{tmp}/missing", "--out", "{tmp}/r.html"], "no such table: "),
    (["report", "--table", "{tmp}", "--out", "{tmp}/r.html"], "is not a Delta table (it has no _delta_log)"),
    (["report", "--table", "{tmp}/missing", "--out", "{tmp}/no/such/folder/r.html"], "--out: no such folder"),
    (["rebalance", "--subscriptions", "{tmp}/members.csv", "--topics", "a=1", "--table", "{tmp}/t", "--strategy",
      "range"], "--subscriptions: no such file or directory: "),
    (["rebalance", "--subscriptions", "{tmp}/subs.parquet", "--topics", "a=1", "--table", "{tmp}/t",
      "--strategy", "range"], "--subscriptions: no such file or directory: "),
    (["rebalance", "--subscriptions", "{tmp}/empty", "--topics", "a=1", "--table", "{tmp}/t", "--strategy", "range"],
     "--subscriptions: {tmp}/empty: a folder without a _delta_log nor .parquet, .csv or .json files"),
    (["rebalance", "--subscriptions", "{tmp}/subs.csv", "--topics", "{tmp}/topics.parquet", "--table", "{tmp}/t",
      "--strategy", "range"], "--topics: no such file or directory: "),
    (["rebalance", "--subscriptions", "{tmp}/x.csv", "--topics", "a=1", "--table", "{tmp}/t",
      "--strategy", "fastest"], "unknown strategy 'fastest'"),
])
def test_a_missing_path_is_one_line_and_status_2(tmp_path, argv, message):
    (tmp_path / "subs.csv").write_text("group_id,member_id,topic\ng,m,a\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    run = run_cli(*[a.format(tmp=tmp_path) for a in argv])
    assert_one_line_error(run, message.format(tmp=tmp_path))


@pytest.mark.parametrize("argv,message", [
    ([], "choose a command: demo, simulate, rebalance, history, diff, report or replicas"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["simulate"], "the following arguments are required: --table (see 'spark-assign simulate --help')"),
    (["simulate", "--table", "t", "--groups", "0"], "argument --groups: must be at least 1, got '0'"),
    (["simulate", "--table", "t", "--static-share", "2"], "argument --static-share: must be a number from 0 to 1"),
    (["simulate", "--table", "t", "--topics", "orders=x"], "expected a number or NAME=PARTITIONS"),
    (["diff", "--table", "t", "--from", "one", "--to", "2"], "argument --from: must be a non-negative integer"),
    (["demo", "--conf", "novalue"], "expected KEY=VALUE"),
])
def test_a_bad_command_line_is_one_line_and_status_2(argv, message):
    assert_one_line_error(run_cli(*argv), message)


def test_bad_rows_found_by_spark_are_one_line_and_status_2(cli, tmp_path):
    (tmp_path / "subs.csv").write_text("group_id,member_id,topic\npayments,,orders\n", encoding="utf-8")
    run = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=3",
              "--table", tmp_path / "t", "--strategy", "range")
    assert_one_line_error(run, "null or empty member_id", "group 'payments'")
    (tmp_path / "cols.csv").write_text("group,member\npayments,c1\n", encoding="utf-8")
    run = cli("rebalance", "--subscriptions", tmp_path / "cols.csv", "--topics", "orders=3",
              "--table", tmp_path / "t", "--strategy", "range")
    assert_one_line_error(run, "has a column 'group' where 'group_id' is expected, a column 'member' where "
                               "'member_id' is expected")
    (tmp_path / "cols.csv").write_text("group_id,consumer_name,topic\npayments,c1,orders\n", encoding="utf-8")
    run = cli("rebalance", "--subscriptions", tmp_path / "cols.csv", "--topics", "orders=3",
              "--table", tmp_path / "t", "--strategy", "range")
    assert_one_line_error(run, "lacks the required column 'member_id'")


def test_an_unexpected_failure_is_status_1_with_a_hint_and_verbose_shows_the_traceback(monkeypatch):
    def broken(args, ctx):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setitem(commands.COMMANDS, "history", broken)
    run = run_cli("history", "--table", "t")
    assert run.status == 1 and run.err_lines == [
        "spark-assign: error: unexpected RuntimeError: something broke (run with --verbose for the traceback)"]
    verbose = run_cli("history", "--table", "t", "--verbose")
    assert verbose.status == 1 and "Traceback (most recent call last)" in verbose.err
    assert verbose.err_lines[-1] == "spark-assign: error: unexpected RuntimeError: something broke"


def _console(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("spark-assign")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "spark_assign.cli"]
    return subprocess.run(command + list(argv), cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


def test_the_console_script_exits_2_with_one_line_and_no_traceback(tmp_path):
    """A real process (that never starts Spark: the mistakes are found first)."""
    (tmp_path / "bad.yaml").write_text("groups: [\n", encoding="utf-8")
    done = _console("simulate", "--scenario", "bad.yaml", "--table", "t", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("spark-assign: error: --scenario: bad.yaml is not valid YAML")
    assert len(done.stderr.splitlines()) == 1
    done = _console("history", "--table", "./missing", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "spark-assign: error: no such table: ./missing does not exist\n")
    done = _console("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("spark-assign ")
