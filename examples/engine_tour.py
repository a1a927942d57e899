"""A tour of the engine: one group, every client strategy, then a cooperative rebalance.

Run: python examples/engine_tour.py
"""

from spark_assign.core import Member, assign, strategy_names
from spark_assign.core.consumer.checks import check_assignment, moves


def show(title, result):
    print(f"\n{title}")
    for member, partitions in result.assignment.items():
        print(f"  {member:>4}: {', '.join(f'{t}-{p}' for t, p in partitions) or '-'}")
    withheld = [f"{result.group.topic_names[t]}-{p}" for t, p, o in
                zip(result.topic.tolist(), result.partition.tolist(), result.owner.tolist()) if o < 0]
    if withheld:
        print(f"  pending transfer: {', '.join(withheld)}")


def main():
    topics = {"orders": 4, "payments": 3}
    members = [Member(f"c{i}", topics=["orders", "payments"]) for i in range(3)]
    for strategy in strategy_names():
        show(f"{strategy}: three members, fresh", assign(members, topics, strategy))

    # c1 leaves: sticky keeps everything it can.
    first = assign(members, topics, "sticky")
    survivors = [Member(m, topics=["orders", "payments"], owned=first.assignment[m], generation=1)
                 for m in ("c0", "c2")]
    after = assign(survivors, topics, "sticky")
    kept = after.status_names().count("kept")
    show(f"sticky after c1 leaves ({kept} kept, {moves(after)} moved between members)", after)

    # c3 joins a cooperative group: first round revokes, follow-up assigns.
    coop = assign(members, topics, "cooperative-sticky")
    joined = [Member(m, topics=["orders", "payments"], owned=coop.assignment[m], generation=1)
              for m in ("c0", "c1", "c2")] + [Member("c3", topics=["orders", "payments"], generation=1)]
    round1 = assign(joined, topics, "cooperative-sticky")
    show("cooperative-sticky, c3 joins: round 1", round1)
    print(f"  revoked: { {m: v for m, v in round1.revoked.items() if v} }")
    follow_up = [Member(m.member_id, topics=m.topics, owned=round1.assignment[m.member_id], generation=2)
                 for m in joined]
    round2 = assign(follow_up, topics, "cooperative-sticky")
    show("cooperative-sticky, follow-up round 2", round2)
    print(f"\nchecks of the final round: {'all pass' if check_assignment(round2).ok else check_assignment(round2)}")


if __name__ == "__main__":
    main()
