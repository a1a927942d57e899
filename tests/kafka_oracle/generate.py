"""Seeded wide random groups for Kafka's own assignor classes (see README.md).

Writes a JSON list of one-round groups in the shape ``OracleHarness`` reads and
``tests/data/kafka_oracle_wide_cases.json`` keeps: ``name``, ``strategy``, ``topics``
``{name: partition count}``, ``members`` ``{id: {topics, owned, generation?,
instance_id?, rack?}}``, and ``partition_racks`` or ``topic_ids`` where they apply.

    python tests/kafka_oracle/generate.py 16 80 /tmp/oracle/inputs.json

What the groups look like users' data: long client ids and non-ASCII ones (CJK,
Cyrillic, emoji, fullwidth letters) mixed with ASCII; realistic topic names and
short ``t<n>`` names (many share a ``HashMap`` bucket); partition numbers past 16;
up to 14 subscribed topics missing from the metadata; identical or random
subscriptions; static members; racks; claims with stale generations, claimed twice,
or on partitions that do not exist (client strategies only: the broker keeps one
target per partition).
"""

import base64
import json
import random
import sys
import uuid
from typing import Any, Dict, List

from spark_assign.core.java.util import java_sort_key

STRATEGIES = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
SERVER = ("uniform", "server-range")
RACKS = ["us-east-1a", "us-east-1b", "eu-west-1c", "机架-1"]


def member_id(rng: random.Random, n: int) -> str:
    kind = rng.random()
    if kind < 0.35:
        return f"consumer-orders-app-{n}-{uuid.UUID(int=rng.getrandbits(128))}"
    if kind < 0.55:
        return f"c{n}"
    return rng.choice(["消费者-{}", "ユーザー{}", "über-{}", "🚀-{}", "ｃ{}", "Consumer{}", "клиент-{}", "c{}-é"]).format(n)


def topic_name(rng: random.Random, n: int) -> str:
    kind = rng.random()
    if kind < 0.4:
        return f"t{n}"
    if kind < 0.6:
        return rng.choice(["orders", "payments", "clicks", "audit"]) + f".v{n}"
    if kind < 0.8:
        return rng.choice(["主题{}", "événements-{}", "клики-{}", "📦shipments-{}", "ｔｏｐｉｃ{}"]).format(n)
    return f"com.acme.telemetry.device-events.raw.partitioned-by-region.v{n}"


def distinct(rng: random.Random, count: int, make) -> List[str]:
    out: List[str] = []
    while len(out) < count:
        value = make(rng, rng.randint(0, 999))
        if value not in out:
            out.append(value)
    return out


def group(rng: random.Random, name: str, strategy: str) -> Dict[str, Any]:
    server = strategy in SERVER
    names = distinct(rng, rng.choice([1, 2, 3, rng.randint(4, 12), rng.randint(10, 24)]),
                     lambda r, n: topic_name(r, n % 100))
    big = rng.random() < 0.25
    topics = {t: rng.randint(0, 48 if big else 20) for t in names}
    missing = [f"missing-{i}" for i in rng.sample(range(100), rng.choice([0, 0, 1, 3, rng.randint(10, 14)]))]
    ids = distinct(rng, rng.choice([1, 2, 3, rng.randint(4, 10), rng.randint(8, 20)]), member_id)
    pool = names + missing
    shared = rng.sample(pool, rng.randint(1, len(pool))) if rng.random() < 0.4 else None
    racked = not server and rng.random() < 0.35
    members: Dict[str, Dict[str, Any]] = {}
    for i, m in enumerate(ids):
        subs = shared or rng.sample(pool, rng.randint(1, min(len(pool), rng.choice([1, 2, 4, 40]))))
        members[m] = {"topics": sorted(subs, key=java_sort_key), "owned": []}   # as a Java consumer lists them
        if rng.random() < 0.25:
            members[m]["instance_id"] = f"instance-{i}-{m[:12]}"
        if racked and rng.random() < 0.85:
            members[m]["rack"] = rng.choice(RACKS[:rng.randint(1, 4)])
    case: Dict[str, Any] = {"name": name, "strategy": strategy, "topics": topics, "members": members}
    if rng.random() < 0.65:
        claim(rng, case, server, missing)
    if racked:
        case["partition_racks"] = {t: [rng.sample(RACKS, rng.randint(1, 3)) for _ in range(c)]
                                   for t, c in topics.items()}
    if server:
        case["topic_ids"] = {t: base64.urlsafe_b64encode(rng.getrandbits(128).to_bytes(16, "big")).decode().rstrip("=")
                             for t in names}
    return case


def claim(rng: random.Random, case: Dict[str, Any], server: bool, missing: List[str]) -> None:
    """Previous ownership: a random share of the partitions, some claims stale (older
    generation), some twice, some on partitions past the count or on a missing topic."""
    members = case["members"]
    ids = list(members)
    current = rng.randint(3, 9)                  # generations >= 0, as clients send them
    generation = {m: current - (rng.random() < 0.2) * rng.randint(1, 3) for m in ids}
    share = rng.random()
    for t, count in case["topics"].items():
        past = 0 if server else (rng.random() < 0.1) * rng.randint(1, 3)
        for p in range(count + past):
            if rng.random() < share:
                owners = [rng.choice(ids)] + ([rng.choice(ids)] if not server and rng.random() < 0.08 else [])
                for m in dict.fromkeys(owners):
                    members[m]["owned"].append([t, p])
    if not server and missing and rng.random() < 0.3:
        members[rng.choice(ids)]["owned"].append([missing[0], rng.randint(0, 5)])
    for m in ids:
        rng.shuffle(members[m]["owned"])
        if members[m]["owned"] and not server and rng.random() < 0.9:
            members[m]["generation"] = generation[m]


def generate(seed: int, per_strategy: int) -> List[Dict[str, Any]]:
    """``per_strategy`` groups per strategy, twice that for ``uniform`` (two builders, the most
    Java set orders to get right)."""
    rng = random.Random(seed)
    return [group(rng, f"{s}-w{seed}-{i}", s) for i in range(2 * per_strategy) for s in STRATEGIES
            if s == "uniform" or i < per_strategy]


if __name__ == "__main__":
    seed, per_strategy, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(generate(seed, per_strategy), f, ensure_ascii=False)
