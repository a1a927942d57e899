"""Load-aware sticky assignment (issue 14): balance weights (lag, bytes/s), not counts, and stay sticky.

Strategies ``load-aware``, ``cooperative-load-aware`` and the baseline ``lag-based``.
Weights come from the ``weights`` option (:mod:`.weights`). Pipeline of
:func:`assign_load_aware`:

1. ``keep``: members keep their valid claims (Kafka's generation rules,
   :attr:`Context.claims`; doubly claimed partitions are not kept) on topics they
   still subscribe to;
2. ``place``: unowned partitions, heaviest first, each to the least loaded member
   subscribed to its topic that has count room (ties: fewer partitions, then member
   index). Count room: a member may hold at most ``min + max_count_skew`` partitions,
   ``min`` being the fewest any member of its *class* holds (a class: the members with
   the same subscriptions). A class's least-count member always has room, so every
   partition finds a member. A fresh group with identical subscriptions takes a
   vectorized path: rounds of M partitions, the round's heaviest to the least loaded;
3. ``repair``: kept claims may leave a class skewed (a member joined): move partitions
   from the class's fullest member to its emptiest, each the one whose weight best
   halves their load gap, until counts differ by at most ``max_count_skew``;
4. ``improve``: while the heaviest member has an improving action, apply the best:
   moving one of its partitions to, or swapping one with, one of the ``PARTNERS``
   lightest compatible members, within count room, such that both end lighter than
   it was. Best: the highest improvement per cost, cost being the moved weight plus
   one mean partition weight per moved partition (a consumer restart), then the
   larger improvement, then the smaller pid. Each action lowers the sorted load
   vector, so the loop ends (``MAX_STEPS`` bounds it anyway). For a fresh group all
   actions stand. Otherwise (``min_improvement`` = r) the actions stand only when they
   lower the heaviest load from L0 to L* with L0 > (1 + r) L*, and then only the
   shortest prefix reaching (1 + r) L*: stable or slightly noisy weights move nothing,
   and a second run on the result moves nothing either (the search is deterministic
   and resumes where the prefix stopped).

Guarantees (tested in tests/core/test_load_aware*.py): valid; counts within a class
differ by at most ``max_count_skew``; with identical subscriptions, fresh, max load
<= min load + the largest weight (rounds keep the spread under one weight; actions
never widen it), hence <= mean + largest weight. All weights equal (no weights
given, all zeros) is count balancing: the result is exactly ``sticky``'s
(``cooperative-sticky``'s), rack-aware included; otherwise racks are not read.

``cooperative-load-aware`` withholds partitions changing owner for one generation,
as ``cooperative-sticky`` does (:func:`.sticky.partitions_changing_hands`).
"""

from __future__ import annotations

import heapq
from typing import Iterator, List, Optional, Tuple

import numpy as np

from ..context import Context, Outcome
from .sticky import assign_cooperative_sticky, assign_sticky, partitions_changing_hands
from ..weights import LoadOptions, load_options

__all__ = ["assign_load_aware", "assign_cooperative_load_aware", "assign_lag_based", "PARTNERS", "MAX_STEPS",
           "MIN_GAIN"]

#: Lightest compatible members tried as partners of the heaviest one, per step.
PARTNERS = 4
#: Bound on improvement steps: MAX_STEPS * members + 64.
MAX_STEPS = 4
#: An action must lower the heaviest load by more than this fraction of it (no endless crumbs;
#: every run applies the same rule, so a run's end point is an end point for the next run too).
MIN_GAIN = 1e-3
#: Most partitions a fresh placement puts one by one (heap) before dealing rounds.
HEAD = 1 << 16
#: A fresh placement of at most this many partitions goes one by one through the heap: the exact
#: sequential rule, cheaper than rounds of array calls on a small group (a fleet's typical one).
SMALL = 256
#: A fresh placement's round goes to at least 1/BATCH of the members with room.
BATCH = 4

Action = List[Tuple[int, int]]         # (pid, new owner) pairs: one for a move, two for a swap


def assign_load_aware(ctx: Context) -> Outcome:
    opts = load_options(ctx.partition_weights, ctx.options)
    if opts.uniform:
        return assign_sticky(ctx)
    owner = _LoadBuilder(ctx, opts).run()
    return Outcome(owner, np.arange(len(owner), dtype=np.int64))


def assign_cooperative_load_aware(ctx: Context) -> Outcome:
    opts = load_options(ctx.partition_weights, ctx.options)
    if opts.uniform:
        return assign_cooperative_sticky(ctx)
    owner = _LoadBuilder(ctx, opts).run()
    withheld = partitions_changing_hands(ctx, owner)
    return Outcome(np.where(withheld, -1, owner), np.arange(len(owner), dtype=np.int64))


def assign_lag_based(ctx: Context) -> Outcome:
    """The lag-based assignor as its authors describe it (grantneale/kafka-lag-based-assignor):
    per topic, partitions in decreasing weight (ties: lower partition), each to the subscriber
    with the fewest partitions of that topic, then the least weight of that topic, then the
    smaller member id. Not sticky. Per topic the fewest-count rule deals rounds: each round
    of n subscribers hands the round's heaviest partitions to the least loaded, vectorized."""
    g = ctx.group
    w = ctx.partition_weights
    owner = np.full(g.num_partitions, -1, dtype=np.int64)
    subscribers, bounds = g.subscribers_by_topic()
    for t in np.flatnonzero(g.topic_counts > 0).tolist():
        members = subscribers[bounds[t]:bounds[t + 1]]
        if len(members) == 0:
            continue
        pids = np.arange(g.topic_offsets[t], g.topic_offsets[t + 1], dtype=np.int64)
        pids = pids[np.lexsort((pids, -w[pids]))]
        _deal_rounds(pids, members, np.zeros(len(members)), w, owner)
    return Outcome(owner, np.arange(g.num_partitions, dtype=np.int64))


def _deal_rounds(pids: np.ndarray, members: np.ndarray, loads: np.ndarray, w: np.ndarray,
                 owner: np.ndarray) -> None:
    """Hand ``pids`` (heaviest first) out in rounds of ``len(members)``: in each round the least
    loaded member (``loads`` aligned with ``members``, updated; ties: lower index) takes the
    heaviest. This is sequential least-loaded-with-room when counts start equal and may differ
    by at most one; the spread max - min of ``loads`` then never exceeds the largest weight."""
    n = len(members)
    index = np.arange(n)
    for start in range(0, len(pids), n):
        chunk = pids[start:start + n]
        takers = np.lexsort((index, loads))[:len(chunk)]
        owner[chunk] = members[takers]
        loads[takers] += w[chunk]


def _fill_fresh(pids: np.ndarray, members: np.ndarray, w: np.ndarray, owner: np.ndarray) -> None:
    """Least loaded with count room, for ``pids`` (heaviest first) and members with identical
    subscriptions and no partitions yet. Final counts: ``q = N // n`` or ``q + 1``, the first
    ``N % n`` members to reach ``q + 1`` keeping it (the count balance of ``sticky``).

    The head (partitions heavier than twice the mean, at least n, at most ``HEAD`` of them; all of
    them up to ``SMALL`` partitions) goes one by one through a heap: heavy partitions land on few members, which then wait while
    the others catch up. The tail deals rounds among the members with room, the round's
    heaviest to the least loaded (ties: fewer partitions, lower index), vectorized."""
    n, N = len(members), len(pids)
    q, extra = divmod(N, n)
    heavy = int((w[pids] > 2 * w[pids].mean()).sum()) if N else 0
    head = N if N <= SMALL else min(N, max(n, min(heavy, HEAD)))
    pids = _heaviest_first(pids, w, head)
    loads = np.zeros(n)
    counts = np.zeros(n, dtype=np.int64)
    heap = [(0.0, 0, i) for i in range(n)]
    taken = []
    for pid in pids[:head].tolist():
        while True:
            load, count, i = heapq.heappop(heap)
            if count < q or (count == q and extra > 0):
                break
        taken.append(i)
        extra -= count == q
        heapq.heappush(heap, (load + float(w[pid]), count + 1, i))
    taken_a = np.asarray(taken, dtype=np.int64)
    owner[pids[:head]] = members[taken_a]
    np.add.at(loads, taken_a, w[pids[:head]])
    np.add.at(counts, taken_a, 1)
    rest = pids[head:]
    while len(rest):
        at_q = counts == q
        room = np.flatnonzero((counts < q) | (at_q & (extra > 0)))
        room = room[np.argsort(loads[room], kind="stable")]
        full = at_q[room]
        room = room[~full | (np.cumsum(full) <= extra)][:len(rest)]
        # As the sequential rule would: only members lighter than the least loaded plus the
        # heaviest remaining partition take one now (members far above wait for the end).
        # (At least 1/BATCH of them: bounds the rounds at about BATCH * N / n.)
        lighter = int(np.searchsorted(loads[room], loads[room[0]] + w[rest[0]], "right"))
        room = room[:max(lighter, -(-len(room) // BATCH))]
        extra -= int(at_q[room].sum())
        chunk, rest = rest[:len(room)], rest[len(room):]
        chunk = chunk[np.argsort(-w[chunk], kind="stable")]    # exact within a round
        owner[chunk] = members[room]
        loads[room] += w[chunk]
        counts[room] += 1


def _heaviest_first(pids: np.ndarray, w: np.ndarray, head: int) -> np.ndarray:
    """``pids`` (ascending) reordered: the ``head`` heaviest exactly by decreasing weight (ties:
    lower pid), then the rest by decreasing weight bucket (``1/16`` of a doubling, about 4%,
    ties: lower pid). The rounds that deal the rest sort each round exactly, which is all the
    spread bound needs, and a 16-bit radix sort is several times faster than sorting floats."""
    if head >= len(pids):
        return pids[np.argsort(-w[pids], kind="stable")]
    top = np.argpartition(-w[pids], head - 1)
    first, rest = np.sort(top[:head]), np.sort(top[head:])
    first = first[np.argsort(-w[pids[first]], kind="stable")]
    wr = w[pids[rest]]
    with np.errstate(divide="ignore"):
        level = np.log2(wr / max(float(wr.max()), 1e-300)) * 16       # <= 0; -inf for weight 0
    key = np.minimum(-np.maximum(level, -65535.0), 65535).astype(np.uint16)
    rest = rest[np.argsort(key, kind="stable")]
    return pids[np.concatenate([first, rest])]


class _LoadBuilder:
    """State of one load-aware assignment: owner per pid, loads and counts per member, classes."""

    def __init__(self, ctx: Context, opts: LoadOptions) -> None:
        g = ctx.group
        self.ctx, self.g = ctx, g
        self.w = opts.weights
        self.skew, self.min_improvement = opts.max_count_skew, opts.min_improvement
        P, M = g.num_partitions, g.num_members
        self.topic = g.pid_topic()
        self.owner = np.full(P, -1, dtype=np.int64)
        # Classes: members with the same subscriptions (among topics with partitions).
        sub = g.subscription_matrix() & (g.topic_counts > 0)[None, :]
        if M and g.subscriptions_complete:
            self.cls = np.zeros(M, dtype=np.int64)
            self.class_sub = sub[:1]
        elif M:
            packed = np.packbits(sub, axis=1)
            _, first, self.cls = np.unique(packed, axis=0, return_index=True, return_inverse=True)
            self.cls = self.cls.reshape(-1).astype(np.int64)
            self.class_sub = sub[first]
        else:
            self.cls, self.class_sub = np.zeros(0, dtype=np.int64), np.zeros((0, g.num_topics), dtype=bool)
        has_topics = np.asarray(self.class_sub.any(axis=1), dtype=bool)
        self.active = has_topics[self.cls]
        self.members_of = [np.flatnonzero(self.cls == c) for c in range(len(self.class_sub))]
        # One restart, in weight units: the mean positive weight, summed in pid order (np.cumsum
        # adds in sequence, so the lock-step engine, batch_load, gets the very same float).
        positive = self.w[self.w > 0]
        self.cost = float(np.cumsum(positive)[-1]) / len(positive) if len(positive) else 1.0

    def run(self) -> np.ndarray:
        if self.g.num_members == 0 or self.g.num_partitions == 0:
            return self.owner
        fresh = not self.keep()
        self.place(fresh)
        self.repair()
        self.improve(None if fresh else self.min_improvement)
        return self.owner

    # ------------------------------------------------------------------ stages 1-3

    def keep(self) -> bool:
        """Stage 1. Returns whether any partition was kept."""
        g = self.g
        claim_owner, _ = self.ctx.claims
        cm, cp = g.claim_member, g.claim_pid
        valid = claim_owner[cp] == cm
        cm, cp = cm[valid], cp[valid]
        keep = self.class_sub[self.cls[cm], self.topic[cp]]
        self.owner[cp[keep]] = cm[keep]
        return bool(keep.any())

    def _tally(self) -> None:
        held = self.owner >= 0
        M = self.g.num_members
        self.counts = np.bincount(self.owner[held], minlength=M).astype(np.int64)
        # float64 always (bincount of nothing is int64, which would truncate later sums)
        self.loads = np.bincount(self.owner[held], weights=self.w[held], minlength=M).astype(np.float64)

    def place(self, fresh: bool) -> None:
        """Stage 2: unowned partitions, heaviest first (ties: lower pid)."""
        self._tally()
        pids = np.flatnonzero(self.owner < 0)
        pids = pids[~np.isin(self.topic[pids], np.flatnonzero(~self.class_sub.any(axis=0)))]
        if len(pids) == 0:
            return
        active = np.flatnonzero(self.active)
        if fresh and len(np.unique(self.cls[active])) == 1:
            _fill_fresh(pids, active, self.w, self.owner)
            self._tally()
            return
        pids = pids[np.argsort(-self.w[pids], kind="stable")]      # pids ascending: ties by pid
        subscribers, bounds = self.g.subscribers_by_topic()
        class_min = np.array([self.counts[m].min() if len(m) else 0 for m in self.members_of], dtype=np.int64)
        for pid in pids.tolist():
            t = self.topic[pid]
            cands = subscribers[bounds[t]:bounds[t + 1]]
            cands = cands[self.counts[cands] < class_min[self.cls[cands]] + self.skew]
            loads = self.loads[cands]
            cands = cands[loads == loads.min()]
            m = int(cands[np.argmin(self.counts[cands])]) if len(cands) > 1 else int(cands[0])
            self.owner[pid] = m
            self.loads[m] += self.w[pid]
            self.counts[m] += 1
            c = self.cls[m]
            if self.counts[m] - 1 == class_min[c]:
                class_min[c] = self.counts[self.members_of[c]].min()

    def repair(self) -> None:
        """Stage 3: within each class, move from the fullest to the emptiest member until the
        counts differ by at most ``max_count_skew`` (only kept claims can break it)."""
        parts = None
        for c, members in enumerate(self.members_of):
            if len(members) < 2 or not self.class_sub[c].any():
                continue
            while True:
                counts = self.counts[members]
                if counts.max() - counts.min() <= self.skew:
                    break
                if parts is None:
                    parts = self._parts()
                full = members[counts == counts.max()]
                empty = members[counts == counts.min()]
                a = int(full[np.argmax(self.loads[full])])
                b = int(empty[np.argmin(self.loads[empty])])
                pa = parts[a]
                target = max(0.0, (self.loads[a] - self.loads[b]) / 2)
                pid = int(pa[np.lexsort((pa, np.abs(self.w[pa] - target)))[0]])
                self._apply([(pid, b)], parts)

    # ------------------------------------------------------------------ stage 4

    def _parts(self) -> List[np.ndarray]:
        """Each member's partitions (sorted by pid)."""
        M = self.g.num_members
        held = np.flatnonzero(self.owner >= 0)
        key = self.owner[held].astype(np.uint16 if M < 1 << 16 else np.int64)
        held = held[np.argsort(key, kind="stable")]          # radix sort for 16-bit keys
        bounds = np.searchsorted(self.owner[held], np.arange(M + 1))
        return [held[bounds[m]:bounds[m + 1]] for m in range(M)]

    def _apply(self, action: Action, parts: Optional[List[np.ndarray]]) -> None:
        for pid, to in action:
            frm = int(self.owner[pid])
            self.owner[pid] = to
            self.loads[frm] -= self.w[pid]
            self.loads[to] += self.w[pid]
            self.counts[frm] -= 1
            self.counts[to] += 1
            if parts is not None:
                parts[frm] = parts[frm][parts[frm] != pid]
                parts[to] = np.append(parts[to], pid)

    def improve(self, threshold: Optional[float]) -> None:
        """Stage 4 (see the module docstring). ``threshold`` None: fresh, every action stands."""
        M = self.g.num_members
        parts = self._parts()
        start = self.owner.copy()
        peaks = [float(self.loads.max())]
        actions: List[Action] = []
        for _ in range(MAX_STEPS * M + 64):
            # Every member tied at the top (up to float noise) gets a try, so an end point does
            # not depend on how sums were rounded (the next run recomputes them).
            top = float(self.loads.max())
            action = None
            for a in np.flatnonzero(self.loads >= top - 1e-9 * abs(top)).tolist():
                action = self._best_action(a, parts)
                if action is not None:
                    break
            if action is None:
                break
            self._apply(action, parts)
            actions.append(action)
            peaks.append(float(self.loads.max()))
        if threshold is None or not actions:
            return
        final = peaks[-1]
        keep = 0 if peaks[0] <= (1 + threshold) * final else \
            next(k for k, peak in enumerate(peaks) if peak <= (1 + threshold) * final)
        if keep == len(actions):
            return
        self.owner = start
        for action in actions[:keep]:
            for pid, to in action:
                self.owner[pid] = to
        self._tally()

    def _partners(self, a: int, topics: np.ndarray) -> np.ndarray:
        """The ``PARTNERS`` lightest members (not ``a``) subscribed to a topic ``a`` holds."""
        if len(self.class_sub) == 1:                      # identical subscriptions: everyone
            compatible = np.ones(len(self.cls), dtype=bool)
        else:
            subscribes = np.asarray(self.class_sub[:, np.unique(topics)].any(axis=1), dtype=bool)
            compatible = subscribes[self.cls]
        compatible[a] = False
        cands = np.flatnonzero(compatible)
        if len(cands) > PARTNERS:
            # The lightest, ties to the lower index (not argpartition's pick, which depends on
            # NumPy's selection algorithm; the batched engine, batch_load_moves, breaks them so).
            loads = self.loads[cands]
            cands = cands[loads <= np.partition(loads, PARTNERS - 1)[PARTNERS - 1]]
        cands = cands[np.lexsort((cands, self.loads[cands]))]
        return cands[:PARTNERS]

    def _move_keeps_skew(self, a: int, b: int) -> bool:
        """Moving one partition a -> b keeps every class's count spread within the skew
        (conservative: the old extremes are assumed to stay)."""
        ca, cb = self.cls[a], self.cls[b]
        ka, kb = self.counts[a] - 1, self.counts[b] + 1
        in_a = self.counts[self.members_of[ca]]
        if ca == cb:
            return max(in_a.max(), kb) - min(in_a.min(), ka) <= self.skew
        in_b = self.counts[self.members_of[cb]]
        return kb - in_b.min() <= self.skew and in_a.max() - ka <= self.skew

    def _best_action(self, a: int, parts: List[np.ndarray]) -> Optional[Action]:
        pa = parts[a]
        if len(pa) == 0:
            return None
        wa, ta = self.w[pa], self.topic[pa]
        tol = MIN_GAIN * float(self.loads[a])
        best: Optional[Tuple[float, float, int]] = None
        chosen: Optional[Action] = None
        for b in self._partners(a, ta).tolist():
            gap = float(self.loads[a] - self.loads[b])
            if gap <= tol:
                continue
            for score, gain, pid, action in self._candidates(a, b, gap, tol, pa, wa, ta, parts):
                key = (score, gain, -pid)
                if best is None or key > best:
                    best, chosen = key, action
        return chosen

    def _candidates(self, a: int, b: int, gap: float, tol: float, pa: np.ndarray, wa: np.ndarray,
                    ta: np.ndarray, parts: List[np.ndarray]) -> Iterator[Tuple[float, float, int, Action]]:
        """The best move and the best swap between ``a`` and a lighter ``b`` (at most one each)."""
        to_b = self.class_sub[self.cls[b], ta]
        if self._move_keeps_skew(a, b):
            idx = np.flatnonzero(to_b & (wa > 0) & (wa < gap - tol))
            if len(idx):
                gain = np.minimum(wa[idx], gap - wa[idx])
                score = gain / (wa[idx] + self.cost)
                i = idx[np.lexsort((pa[idx], -gain, -score))[0]]
                g = float(min(wa[i], gap - wa[i]))
                yield g / (float(wa[i]) + self.cost), g, int(pa[i]), [(int(pa[i]), b)]
        pb = parts[b]
        pb = pb[self.class_sub[self.cls[a], self.topic[pb]]]
        ia = np.flatnonzero(to_b)
        if len(pb) == 0 or len(ia) == 0:
            return
        pb = pb[np.lexsort((pb, self.w[pb]))]
        wb = self.w[pb]
        # For each partition of a, the partners of b around the ideal delta gap / 2.
        at = np.searchsorted(wb, wa[ia] - gap / 2)
        i = np.concatenate([ia, ia])
        j = np.concatenate([np.clip(at - 1, 0, len(pb) - 1), np.clip(at, 0, len(pb) - 1)])
        delta = wa[i] - wb[j]
        ok = (delta > tol) & (delta < gap - tol)
        if not ok.any():
            return
        i, j, delta = i[ok], j[ok], delta[ok]
        gain = np.minimum(delta, gap - delta)
        score = gain / (wa[i] + wb[j] + 2 * self.cost)
        k = np.lexsort((pa[i], -gain, -score))[0]
        yield float(score[k]), float(gain[k]), int(pa[i[k]]), [(int(pa[i[k]]), b), (int(pb[j[k]]), a)]
