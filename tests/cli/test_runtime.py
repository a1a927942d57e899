"""The CLI's plumbing: quiet Spark start, session reuse, progress lines, text tables, the parser."""

from __future__ import annotations

import io
import os
from pathlib import Path

from spark_assign.cli.parser import build_parser, parse_conf
from spark_assign.cli.runtime import Progress, SparkRuntime
from spark_assign.cli.tables import cell, format_seconds, format_table

from .conftest import run_cli


def test_spark_console_output_goes_to_a_log_file_unless_verbose(capfd):
    def noisy_start(master, quiet, **conf):
        os.write(2, b"JVM banner and WARN lines\n")
        return ("session", master, quiet, conf)

    progress = io.StringIO()
    runtime = SparkRuntime(master="local[1]", conf={"spark.x": "1"}, progress=Progress(True, progress))
    assert runtime._quiet_start(noisy_start) == ("session", "local[1]", True, {"spark.x": "1"})
    os.write(2, b"after the start\n")
    captured = capfd.readouterr()
    assert "JVM banner" not in captured.err and "after the start" in captured.err  # fd 2 is restored
    log = Path(runtime.log_path)
    assert "JVM banner and WARN lines" in log.read_text()
    runtime.close(failed=True)
    assert log.exists()  # kept for a failed command: the error line names it
    runtime.log_path = str(log)
    runtime.close()
    assert not log.exists()


def test_the_shared_session_is_reused_and_never_stopped(spark):
    runtime = SparkRuntime(progress=Progress(True, io.StringIO()))
    assert runtime.session() is spark
    runtime.close()
    assert spark.sparkContext._jsc is not None and spark.range(3).count() == 3


def test_progress_lines_are_silenced_by_quiet():
    stream = io.StringIO()
    Progress(True, stream).say("one")
    Progress(False, stream).say("two")
    assert stream.getvalue() == "one\n"


def test_text_tables_align_numbers_right_and_show_missing_values():
    text = format_table(["gen", "strategy", "moved", "spread"], [[1, "sticky", 0, 0.5], [12, "range", None, None]],
                        title="Summary:")
    assert text.splitlines() == ["Summary:",
                                 "gen  strategy  moved  spread",
                                 "---  --------  -----  ------",
                                 "  1  sticky        0    0.50",
                                 " 12  range         -       -"]
    assert format_table(["a"], []).splitlines()[-1] == "(none)"
    assert (cell(True), cell(float("nan")), format_seconds(0.44), format_seconds(125)) == ("yes", "-", "0.4s", "2m05s")


def test_help_and_version_go_to_the_given_stdout():
    run = run_cli("--help")
    assert run.status == 0 and run.err == ""
    for command in ("demo", "simulate", "rebalance", "history", "diff", "report"):
        assert f"    {command}" in run.out
    assert run_cli("--version").out.startswith("spark-assign ")
    assert "--scenario FILE" in run_cli("simulate", "--help").out


def test_parser_reads_topics_and_conf():
    args = build_parser().parse_args(["simulate", "--table", "t", "--topics", "orders=12, payments=6",
                                      "--strategy", "sticky,range", "--strategy", "uniform", "--conf", "a.b=c=d"])
    assert args.topics == {"orders": 12, "payments": 6} and args.strategy == ["sticky,range", "uniform"]
    assert parse_conf(args.conf) == {"a.b": "c=d"}
    assert build_parser().parse_args(["simulate", "--table", "t", "--topics", "3"]).topics == 3
