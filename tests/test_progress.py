"""spark_assign.progress: bars on a terminal only, unless $SPARK_ASSIGN_PROGRESS says otherwise."""

import pytest

from spark_assign.progress import PROGRESS_ENV, Stages, progress, show_progress


@pytest.mark.parametrize("env, enabled, expected", [
    ("", None, None), ("", True, True), ("", False, False),
    ("0", True, False), ("1", False, True), ("1", None, True), ("yes", False, False),
])
def test_the_environment_wins_over_the_call(monkeypatch, env, enabled, expected):
    monkeypatch.setenv(PROGRESS_ENV, env)
    assert show_progress(enabled) is expected


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    with progress(3, "generations") as bar:          # pytest's captured stderr is not a terminal
        bar.update(3)
    assert capsys.readouterr().err == ""


def test_stages_name_the_current_one_and_finish_full(monkeypatch, capsys):
    monkeypatch.setenv(PROGRESS_ENV, "1")
    with Stages("rebalance", ["plan", "compute", "write", "commit"]) as stages:
        stages.next("plan")
        stages.next("write")                          # compute skipped: counted as done
        assert stages.bar.n == 2
        stages.next("plan")                           # a retry starts over: the bar does not go back
        assert stages.bar.n == 2
    assert stages.bar.n == 4
    shown = capsys.readouterr().err
    assert "rebalance" in shown and "write" in shown
