"""Turn generated groups and Kafka's outputs into tests/data/kafka_oracle_wide_cases.json.

    python tests/kafka_oracle/build_fixture.py inputs.json outputs.json about.txt out.json

Kept: every group Kafka assigned, with Kafka's assignment as ``expected``. Left out (counted in
the file's ``about``): groups where Kafka raised; where Kafka's output gives a member a topic it
does not subscribe to; and, for the sticky assignors, groups where spark-assign differs from
Kafka by one of the deliberate differences of docs/kafka-fidelity.md: 3 (a stale claimant is
not handed a partition its valid owner revokes in the same round), recognised partition by
partition; 4 (claims on partitions that do not exist are dropped), recognised by such claims in
the group (when the file was built, removing them removed every such difference or made Kafka's
own output invalid). Any other difference stops the build: it is a defect to fix first.
"""

import collections
import json
import sys
import warnings
from typing import Any, Dict

from spark_assign.testing import run_case

ORDERED = ("range", "roundrobin")


def as_case(group: Dict[str, Any], out: Dict[str, Any]) -> Dict[str, Any]:
    case = {"name": group["name"], "strategy": group["strategy"], "topics": group["topics"],
            "rounds": [{"members": group["members"], "expected": out["assignment"],
                        "ordered": group["strategy"] in ORDERED}]}
    if "partition_racks" in group:
        case["partition_racks"] = group["partition_racks"]
    if "topic_ids" in group:
        case["options"] = {"topic_ids": group["topic_ids"]}
    return case


def unsubscribed_topic_given(group: Dict[str, Any], out: Dict[str, Any]) -> bool:
    return any(t not in group["members"][m]["topics"] for m, pairs in out["assignment"].items() for t, _ in pairs)


def claims_what_does_not_exist(group: Dict[str, Any]) -> bool:
    topics = group["topics"]
    return any(t not in topics or p >= topics[t] for m in group["members"].values() for t, p in m["owned"])


def stale_claimant_handed(case: Dict[str, Any], failures) -> bool:
    """Deliberate difference 3: every partition Kafka gives a member and we do not is one that
    member claims with an older generation than another claimant (its valid owner, revoking it)."""
    members = case["rounds"][0]["members"]
    generation = {m: v.get("generation", -1) for m, v in members.items()}
    claimants = collections.defaultdict(list)
    for m, v in members.items():
        for t, p in v["owned"]:
            claimants[(t, p)].append(m)
    for failure in failures:
        want, got = failure.details["expected"], failure.details["got"]
        for m, pairs in want.items():
            for tp in set(map(tuple, pairs)) - set(map(tuple, got.get(m, []))):
                others = [generation[c] for c in claimants[tp] if c != m]
                if m not in claimants[tp] or not others or generation[m] >= max(others):
                    return False
    return True


def main(inputs_path: str, outputs_path: str, about_path: str, dest: str) -> None:
    warnings.simplefilter("ignore")          # MissingTopicWarning for every group with missing topics
    with open(inputs_path, encoding="utf-8") as f:
        groups = json.load(f)
    with open(outputs_path, encoding="utf-8") as f:
        outputs = {o["name"]: o for o in json.load(f)}
    kept, left = [], collections.Counter()
    for group in groups:
        out = outputs[group["name"]]
        if "error" in out:
            left["Kafka raised an exception"] += 1
        elif unsubscribed_topic_given(group, out):
            left["Kafka's output gives a member a topic it does not subscribe to"] += 1
        else:
            case = as_case(group, out)
            failures = run_case(case)
            if not failures:
                kept.append(case)
            elif group["strategy"] in ("sticky", "cooperative-sticky") and claims_what_does_not_exist(group):
                left[f"{group['strategy']}, deliberate difference 4"] += 1
            elif group["strategy"] == "cooperative-sticky" and stale_claimant_handed(case, failures):
                left["cooperative-sticky, deliberate difference 3"] += 1
            else:
                raise SystemExit(f"{group['name']}: spark-assign differs from Kafka")
    with open(about_path, encoding="utf-8") as f:
        about = " ".join(f.read().split())
    about += f" Left out, of {len(groups)} generated: " + "; ".join(f"{n}: {k}" for k, n in sorted(left.items())) + "."
    with open(dest, "w", encoding="utf-8") as f:
        json.dump({"about": about, "cases": kept}, f, ensure_ascii=False, separators=(",", ":"))
    print(dict(collections.Counter(c["strategy"] for c in kept)), dict(left))


if __name__ == "__main__":
    main(*sys.argv[1:])
