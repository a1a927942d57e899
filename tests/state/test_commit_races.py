"""The commit protocol under real races: writers that read the same version, one wins.

Spawned processes (delta-rs is not fork-safe) snapshot the table, meet at a
barrier, and all commit "version + 1" through EmbeddedBackend.commit. Exactly
one may land per round; the others must see a CommitConflict. No Spark here:
this isolates the compare-and-set itself, over many rounds.
"""

import multiprocessing as mp
import os

import pytest
from deltalake import DeltaTable

from spark_assign.errors import CommitConflict
from spark_assign.state.backend import Staged
from spark_assign.state.backends.embedded import EmbeddedBackend
from spark_assign.state.plan import Outcome
from spark_assign.state.layout import APP_ID

ROUNDS, WRITERS = 40, 3


def _writer(path, barrier, results, who):
    backend = EmbeddedBackend(None, path)
    for round_ in range(ROUNDS):
        snap = backend.snapshot()
        barrier.wait()
        try:
            backend.commit(snap, Staged(snap.version + 1, [], Outcome()), APP_ID,
                           {"spark_assign": {"writer": who, "round": round_}})
            results.put((round_, who, snap.version + 1, "won"))
        except CommitConflict:
            results.put((round_, who, snap.version + 1, "lost"))
        barrier.wait()


@pytest.mark.slow
def test_one_writer_wins_each_race(tmp_path):
    path = str(tmp_path / "races")
    EmbeddedBackend(None, path).create("race test")
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(WRITERS), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, barrier, results, w)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=600) for _ in range(ROUNDS * WRITERS)]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    for round_ in range(ROUNDS):
        this = [o for o in outcomes if o[0] == round_]
        assert sum(o[3] == "won" for o in this) == 1, this
        assert {o[2] for o in this} == {round_ + 1}            # all raced for the same version
    assert DeltaTable(path).version() == ROUNDS                 # no lost and no extra commit
    writers = [h.get("spark_assign") for h in DeltaTable(path).history() if h.get("spark_assign")]
    assert len(writers) == ROUNDS


def test_a_taken_version_is_refused_even_without_a_race(tmp_path):
    path = str(tmp_path / "taken")
    backend = EmbeddedBackend(None, path)
    backend.create("test")
    stale = backend.snapshot()
    app = APP_ID
    backend.commit(backend.snapshot(), Staged(1, [], Outcome()), app, {"spark_assign": "first"})
    with pytest.raises(CommitConflict):
        backend.commit(stale, Staged(1, [], Outcome()), app, {"spark_assign": "second"})
    assert DeltaTable(path).version() == 1 and os.path.isdir(path)
