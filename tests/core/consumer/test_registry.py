"""What a strategy's rebalance protocol pauses: every owned partition when eager, only the moving ones otherwise."""

import numpy as np
import pytest

from spark_assign.core.consumer.registry import (CONSUMER, COOPERATIVE, EAGER, STRATEGIES, get_strategy,
                                                 rebalance_protocol)


@pytest.mark.parametrize("name, protocol", [
    ("range", EAGER), ("roundrobin", EAGER), ("sticky", EAGER), ("load-aware", EAGER), ("lag-based", EAGER),
    ("cooperative-sticky", COOPERATIVE), ("cooperative-load-aware", COOPERATIVE),
    ("uniform", CONSUMER), ("server-range", CONSUMER)])
def test_each_strategy_runs_its_kafka_rebalance_protocol(name, protocol):
    assert get_strategy(name).rebalance_protocol == rebalance_protocol(name) == protocol


def test_every_cooperative_strategy_withholds_and_every_withholding_one_is_cooperative():
    assert {s.name for s in STRATEGIES if s.cooperative} == \
        {s.name for s in STRATEGIES if s.rebalance_protocol == COOPERATIVE}


def test_an_unknown_strategy_counts_as_eager_the_classic_default():
    assert rebalance_protocol("com.example.MyAssignor") == EAGER


def test_eager_pauses_everything_owned_the_others_only_what_changes_owner():
    kept, moved, revoked = np.array([90, 0, 5]), np.array([10, 0, 0]), np.array([0, 0, 3])
    assert get_strategy("sticky").paused(kept, moved, revoked).tolist() == [100, 0, 8]
    assert get_strategy("cooperative-sticky").paused(kept, moved, revoked).tolist() == [10, 0, 3]
    assert get_strategy("uniform").paused(90, 10, 0) == 10
