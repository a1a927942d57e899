"""The goal search: a cluster's placement improved goal by goal, never worsening an earlier goal.

Stage 5 of ``sticky`` with loads (:mod:`.cluster`; the goals are
:mod:`.loads`'). The placement it starts from already meets the count goals
(every topic and every broker at its level). Three actions, each changing two
brokers:

* **swap**: replicas of two partitions *of the same topic* trade brokers
  (``p`` on ``s`` goes to ``t``, ``q`` on ``t`` goes to ``s``): every
  broker's and every topic's replica counts stay as they are, two replicas
  move;
* **reorder**: a partition's preferred leader passes to one of its followers
  (no data moves): leader counts and the leader-only loads (``bytes_out``)
  shift;
* **relocation**: one replica moves to another broker, changing the counts:
  tried only when no swap or reorder helps, and never for the leader goals.

Goals are taken in order. While a goal is violated, the broker with the
largest violation (then the next) looks for the action that reduces that
goal the most without raising any earlier goal, preferring among those that
reach at least half the best reduction the one that moves the fewest
replicas (moving a replica back to where it was counts -1); then it takes the
next best of the same candidates, judged on the state the action before
left, while one still reduces the goal by at least half as much as the first
(a candidate whose partitions an action changed is dropped). Every action
keeps racks as the rules ask (``min(RF, racks)`` racks per partition). When a
goal has no such action left, the next goal starts; the passes repeat until
one changes nothing, so a second run on the result finds nothing to do.

Limits: each action is chosen among the 200 heaviest (or lightest)
candidates of each broker and topic, vectorized with NumPy (a set of
candidates costs about a millisecond on a cluster of a few thousand
partitions, each further action from it a tenth of that); the search
stops after ``max_actions`` actions (default: ten per partition, and a thousand),
though each action lowers the goals in order, so it ends on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from .loads import BrokerState, Goal, LoadModel, broker_state

__all__ = ["GoalSearch"]

#: Candidates kept per broker (or per topic and broker for swaps) before pairing.
_TOP = 200
_PER_TOPIC = 8
#: Brokers tried as partners of the most violating one.
_PARTNERS = 4
#: Goals that may relocate single replicas (changing counts) when no swap or reorder helps: the
#: hard ones, the load distributions and the replica counts themselves; never the leader goals.
_RELOCATING = ("capacity", "limit", "spread", "replicas")


@dataclass
class _Candidates:
    """Actions between brokers ``a`` (loses ``d_*``) and ``b`` (gains them), columnar."""

    kind: np.ndarray           # 0 swap, 1 reorder, 2 relocation
    a: np.ndarray
    b: np.ndarray
    rows: np.ndarray           # (C, 2): the partitions (swap: p, q; else p, -1)
    cols: np.ndarray           # (C, 2): their slots
    d_totals: np.ndarray       # (C, loads)
    d_replicas: np.ndarray
    d_leaders: np.ndarray
    d_leader_in: np.ndarray
    cost: np.ndarray           # change in replicas moved


class GoalSearch:
    """The search over one cluster's placement ``m`` (dense brokers, ``(P, W)``, -1 padding), in place.

    Example::

        search = GoalSearch(m, prev, topic, lo, hi, rack_of, model, goals, leader_in)
        actions = search.run()

    Parameters
    ----------
    m, prev:
        The placement (changed in place) and the previous one (dense, -1 padding).
    topic:
        Each row's topic number (swaps stay within a topic).
    lo, hi:
        ``(P, racks)``: the replicas each partition must and may put on each rack.
    rack_of:
        Each dense broker's rack number.
    model, goals:
        The loads and the goals, in order (:func:`~.loads.goals_of`).
    leader_in:
        Each partition's ``bytes_in`` (the leader bytes-in goal), or None.
    max_actions:
        At most this many actions (None: ten per partition, and a thousand).
    """

    def __init__(self, m: np.ndarray, prev: np.ndarray, topic: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 rack_of: np.ndarray, model: LoadModel, goals: List[Goal], leader_in: Optional[np.ndarray],
                 max_actions: Optional[int] = None) -> None:
        self.m, self.prev, self.topic, self.lo, self.hi, self.rack_of = m, prev, topic, lo, hi, rack_of
        self.model, self.goals = model, goals
        self.n = len(rack_of)
        self.leader_in = np.zeros(len(m)) if leader_in is None else leader_in
        self.max_actions = 10 * len(m) + 1000 if max_actions is None else max_actions
        self.rackcnt = np.zeros((len(m), lo.shape[1]), dtype=np.int64)
        rows, cols = np.nonzero(m >= 0)
        np.add.at(self.rackcnt, (rows, rack_of[m[rows, cols]]), 1)
        self.totals, self.replicas, self.leaders, self.lead_in = broker_state(m, model, leader_in, self.n)
        self.actions = 0

    def state(self) -> BrokerState:
        """Per broker: load totals, replicas, leaders, bytes-in led (copies)."""
        return BrokerState(self.totals.copy(), self.replicas.copy(), self.leaders.copy(), self.lead_in.copy())

    def run(self) -> int:
        """Improve goal by goal until a whole pass changes nothing; the actions taken."""
        while self.actions < self.max_actions:
            before = self.actions
            for g in range(len(self.goals)):
                while self.actions < self.max_actions and self._step(g):
                    pass
            if self.actions == before:
                break
        return self.actions

    # ------------------------------------------------------------------ one action

    def _terms(self, g: int) -> np.ndarray:
        brokers = np.arange(self.n)
        return self.goals[g].term(self.totals, self.replicas, self.leaders, self.lead_in, brokers)

    def _step(self, g: int) -> bool:
        """One action for goal ``g`` (False when none helps)."""
        terms = self._terms(g)
        goal = self.goals[g]
        tiers = (False, True) if goal.kind in _RELOCATING else (False,)
        for relocate in tiers:                            # count-neutral actions first
            for a in np.argsort(-terms, kind="stable")[:4].tolist():
                if terms[a] <= self.goals[g].tolerance:
                    break
                cands = self._candidates(g, a, self._over(goal, a), relocate)
                pick = None if cands is None else self._choose(g, cands)
                if cands is not None and pick is not None:
                    self._take(g, cands, pick)
                    return True
        return False

    def _take(self, g: int, cands: _Candidates, pick: Tuple[int, float]) -> None:
        """Apply ``pick``, then the next best of the same candidates while one still lowers goal
        ``g`` by at least half the first one's reduction without raising an earlier goal, judged
        on the state each leaves (a candidate whose partitions an applied action changed is
        dropped: its figures are stale). Small steps are left to the next search, which picks the
        best action over again: a run of small ones, each raising earlier goals by up to their
        tolerance, could undo one another for long."""
        live = np.ones(len(cands.a), dtype=bool)
        first = pick[1]
        chosen: Optional[Tuple[int, float]] = pick
        while chosen is not None and chosen[1] <= first / 2 and self.actions < self.max_actions:
            self._apply(cands, chosen[0])
            self.actions += 1
            touched = cands.rows[chosen[0]]
            live &= ~np.isin(cands.rows, touched[touched >= 0]).any(axis=1)
            chosen = self._choose(g, cands, live) if live.any() else None

    def _value(self, goal: Goal) -> np.ndarray:
        """The quantity ``goal`` bounds, per broker (its load or utilization, counts)."""
        if goal.kind in ("replicas", "limit"):
            return self.replicas
        if goal.kind == "leaders":
            return self.leaders
        if goal.kind == "leader_in":
            return self.lead_in / goal.scale
        return self.totals[:, goal.k] / goal.scale

    def _over(self, goal: Goal, a: int) -> bool:
        return bool(self._value(goal)[a] > goal.high[a])

    def _partners(self, goal: Goal, a: int, over: bool) -> List[int]:
        """The brokers most able to take from (``over``) or give to ``a``: lightest or heaviest first."""
        value = self._value(goal) - (goal.low + goal.high) / 2
        order = np.argsort(value if over else -value, kind="stable")
        return [int(b) for b in order if b != a][:_PARTNERS]

    def _candidates(self, g: int, a: int, over: bool, relocate: bool) -> Optional[_Candidates]:
        """Swaps and reorders between ``a`` and its partners (``relocate``: relocations instead)."""
        goal = self.goals[g]
        parts = []
        for b in self._partners(goal, a, over):
            s, t = (a, b) if over else (b, a)            # s gives to t
            if relocate:
                parts.append(self._relocations(goal, s, t))
            elif goal.kind != "replicas":               # count neutral: cannot change replica counts
                parts.append(self._swaps(goal, s, t))
                parts.append(self._reorders(s, t))
        parts = [p for p in parts if p is not None and len(p.a)]
        if not parts:
            return None
        return _Candidates(*[np.concatenate([getattr(p, f) for p in parts]) for f in _Candidates.__dataclass_fields__])

    def _slots(self, broker: int, other: int) -> Tuple[np.ndarray, np.ndarray]:
        """Slots (rows, cols) of ``broker`` in partitions ``other`` is not in."""
        rows, cols = np.nonzero(self.m == broker)
        keep = ~(self.m[rows] == other).any(axis=1)
        return rows[keep], cols[keep]

    def _rack_ok(self, rows: np.ndarray, s: int, t: int) -> np.ndarray:
        """Whether each row's replica may move from broker ``s`` to ``t`` under the rack rules."""
        rs, rt = int(self.rack_of[s]), int(self.rack_of[t])
        if rs == rt:
            return np.ones(len(rows), dtype=bool)
        return (self.rackcnt[rows, rt] + 1 <= self.hi[rows, rt]) & (self.rackcnt[rows, rs] - 1 >= self.lo[rows, rs])

    def _deltas(self, rows: np.ndarray, cols: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What a replica at (row, col) carries: loads, leaderships and bytes-in led."""
        values = self.model.values[rows] * np.where(self.model.leader_only[None, :], (cols == 0)[:, None], True)
        leads = (cols == 0).astype(np.float64)
        return values, leads, leads * self.leader_in[rows]

    def _new_at(self, rows: np.ndarray, broker: int) -> np.ndarray:
        """1 where ``broker`` did not hold a replica of the row before (a replica there is a move)."""
        return (~(self.prev[rows] == broker).any(axis=1)).astype(np.float64)

    def _top(self, goal: Goal, rows: np.ndarray, cols: np.ndarray, heavy: bool) -> np.ndarray:
        """Indices of the slots to keep: by the goal's load, heaviest (or lightest) first; for the
        count goals, the lightest in every load first (they disturb the load goals least)."""
        if goal.kind in ("spread", "capacity"):
            key = self._deltas(rows, cols)[0][:, goal.k]
        elif goal.kind == "leader_in":
            key = self._deltas(rows, cols)[2]
        else:
            mean = np.maximum(self.totals.mean(axis=0), 1e-12)
            return np.argsort((self._deltas(rows, cols)[0] / mean).sum(axis=1), kind="stable")
        return np.argsort(-key if heavy else key, kind="stable")

    def _swaps(self, goal: Goal, s: int, t: int) -> Optional[_Candidates]:
        """Same-topic swaps: a replica on ``s`` trades places with one on ``t``."""
        rp, cp = self._slots(s, t)
        rq, cq = self._slots(t, s)
        if not len(rp) or not len(rq):
            return None
        okp, okq = self._rack_ok(rp, s, t), self._rack_ok(rq, t, s)
        rp, cp, rq, cq = rp[okp], cp[okp], rq[okq], cq[okq]
        rp, cp = self._per_topic(goal, rp, cp, heavy=True)
        rq, cq = self._per_topic(goal, rq, cq, heavy=False)
        if not len(rp) or not len(rq):
            return None
        tp, tq = self.topic[rp], self.topic[rq]
        order = np.argsort(tq, kind="stable")
        rq, cq, tq = rq[order], cq[order], tq[order]
        lo, hi = np.searchsorted(tq, tp, "left"), np.searchsorted(tq, tp, "right")
        counts = hi - lo
        i = np.repeat(np.arange(len(rp)), counts)
        j = np.concatenate([np.arange(x, y) for x, y in zip(lo.tolist(), hi.tolist())]) if len(i) else \
            np.zeros(0, dtype=np.int64)
        if not len(i):
            return None
        p, jp, q, jq = rp[i], cp[i], rq[j], cq[j]
        vp, lp, ip = self._deltas(p, jp)
        vq, lq, iq = self._deltas(q, jq)
        cost = self._new_at(p, t) - self._new_at(p, s) + self._new_at(q, s) - self._new_at(q, t)
        size = len(p)
        return _Candidates(np.zeros(size, dtype=np.int8), np.full(size, s), np.full(size, t),
                           np.stack([p, q], axis=1), np.stack([jp, jq], axis=1), vp - vq, np.zeros(size), lp - lq,
                           ip - iq, cost)

    def _per_topic(self, goal: Goal, rows: np.ndarray, cols: np.ndarray, heavy: bool) -> Tuple[np.ndarray, np.ndarray]:
        """At most :data:`_PER_TOPIC` slots per topic and :data:`_TOP` in all, heaviest (or lightest) first."""
        order = self._top(goal, rows, cols, heavy)
        rows, cols = rows[order], cols[order]
        topic = self.topic[rows]
        rank = np.zeros(len(rows), dtype=np.int64)
        if len(rows):
            by = np.argsort(topic, kind="stable")
            starts = np.searchsorted(topic[by], topic[by], "left")
            rank[by] = np.arange(len(rows)) - starts
        keep = np.flatnonzero(rank < _PER_TOPIC)[:_TOP * 4]
        return rows[keep], cols[keep]

    def _reorders(self, s: int, t: int) -> Optional[_Candidates]:
        """Leaderships passing from ``s`` to ``t`` within partitions that hold both."""
        rows = np.flatnonzero((self.m[:, 0] == s) & (self.m == t).any(axis=1))
        if not len(rows):
            return None
        cols = (self.m[rows] == t).argmax(axis=1)
        values = self.model.values[rows] * self.model.leader_only[None, :]
        size = len(rows)
        return _Candidates(np.ones(size, dtype=np.int8), np.full(size, s), np.full(size, t),
                           np.stack([rows, np.full(size, -1)], axis=1), np.stack([cols, np.full(size, -1)], axis=1),
                           values, np.zeros(size), np.ones(size), self.leader_in[rows], np.zeros(size))

    def _relocations(self, goal: Goal, s: int, t: int) -> Optional[_Candidates]:
        """One replica from ``s`` to ``t`` (hard goals only)."""
        rows, cols = self._slots(s, t)
        ok = self._rack_ok(rows, s, t)
        rows, cols = rows[ok], cols[ok]
        keep = self._top(goal, rows, cols, heavy=True)[:_TOP]
        rows, cols = rows[keep], cols[keep]
        if not len(rows):
            return None
        values, leads, lead_in = self._deltas(rows, cols)
        size = len(rows)
        cost = self._new_at(rows, t) - self._new_at(rows, s)
        return _Candidates(np.full(size, 2, dtype=np.int8), np.full(size, s), np.full(size, t),
                           np.stack([rows, np.full(size, -1)], axis=1), np.stack([cols, np.full(size, -1)], axis=1),
                           values, np.ones(size), leads, lead_in, cost)

    def _choose(self, g: int, c: _Candidates, live: Optional[np.ndarray] = None) -> Optional[Tuple[int, float]]:
        """The candidate to apply (among ``live`` ones) and its change of goal ``g`` (negative): it
        lowers goal ``g`` and raises no earlier goal; of those within half of the best reduction,
        the fewest moves (then the largest reduction). Each goal is judged on the candidates the
        goals before it left."""
        at = np.arange(len(c.a)) if live is None else np.flatnonzero(live)
        gain = np.zeros(0)
        for h in range(g + 1):
            if not len(at):
                return None
            delta = self._delta(h, c, at)
            tol = self.goals[h].tolerance
            keep = delta <= tol if h < g else delta < -tol
            at, gain = at[keep], delta[keep]
        if not len(at):
            return None
        near = np.flatnonzero(gain <= float(gain.min()) / 2)
        best = near[np.lexsort((gain[near], c.cost[at[near]]))[0]]
        return int(at[best]), float(gain[best])

    def _delta(self, h: int, c: _Candidates, at: np.ndarray) -> np.ndarray:
        """Goal ``h``'s change for candidates ``at``: the two brokers' terms after less before."""
        goal = self.goals[h]
        a, b = c.a[at], c.b[at]
        old = self._terms(h)
        d_totals, d_replicas, d_leaders, d_in = c.d_totals[at], c.d_replicas[at], c.d_leaders[at], c.d_leader_in[at]
        new = goal.term(self.totals[a] - d_totals, self.replicas[a] - d_replicas, self.leaders[a] - d_leaders,
                        self.lead_in[a] - d_in, a) + \
            goal.term(self.totals[b] + d_totals, self.replicas[b] + d_replicas, self.leaders[b] + d_leaders,
                      self.lead_in[b] + d_in, b)
        return np.asarray(new - old[a] - old[b])

    def _apply(self, c: _Candidates, i: int) -> None:
        a, b, kind = int(c.a[i]), int(c.b[i]), int(c.kind[i])
        (p, q), (jp, jq) = c.rows[i].tolist(), c.cols[i].tolist()
        if kind == 1:                                     # reorder: leader to slot 0
            self.m[p, 0], self.m[p, jp] = self.m[p, jp], self.m[p, 0]
        else:
            self._move(p, jp, a, b)
            if kind == 0:
                self._move(q, jq, b, a)
        self.totals[a] -= c.d_totals[i]
        self.totals[b] += c.d_totals[i]
        self.replicas[a] -= c.d_replicas[i]
        self.replicas[b] += c.d_replicas[i]
        self.leaders[a] -= c.d_leaders[i]
        self.leaders[b] += c.d_leaders[i]
        self.lead_in[a] -= c.d_leader_in[i]
        self.lead_in[b] += c.d_leader_in[i]

    def _move(self, row: int, col: int, s: int, t: int) -> None:
        self.m[row, col] = t
        self.rackcnt[row, self.rack_of[s]] -= 1
        self.rackcnt[row, self.rack_of[t]] += 1
