"""Strategy names as users paste them: Kafka's class names, Kafka's comma-separated lists, typos."""

import warnings

import pytest

from spark_assign.core.consumer.registry import STRATEGIES, get_strategy
from spark_assign.errors import StrategyListWarning, UnknownStrategyError


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s.kafka_class], ids=lambda s: s.name)
def test_kafka_class_name_finds_the_strategy(strategy):
    assert get_strategy(strategy.kafka_class) is strategy


@pytest.mark.parametrize("simple, name", [
    ("RangeAssignor", "range"),                 # the client's: partition.assignment.strategy is the client's config
    ("RoundRobinAssignor", "roundrobin"), ("StickyAssignor", "sticky"),
    ("CooperativeStickyAssignor", "cooperative-sticky"), ("UniformAssignor", "uniform")])
def test_simple_class_name_finds_the_client_strategy(simple, name):
    assert get_strategy(simple).name == name


def test_server_range_only_by_its_full_class_name():
    assert get_strategy("org.apache.kafka.coordinator.group.assignor.RangeAssignor").name == "server-range"


def test_a_list_uses_its_first_supported_entry_and_says_so():
    listed = "com.example.OwnAssignor, org.apache.kafka.clients.consumer.CooperativeStickyAssignor,RangeAssignor"
    with pytest.warns(StrategyListWarning) as caught:
        chosen = get_strategy(listed)
    assert chosen.name == "cooperative-sticky"
    text = str(caught[0].message)
    assert "'cooperative-sticky'" in text and "'com.example.OwnAssignor' (not supported)" in text
    assert "'RangeAssignor' unused" in text


def test_a_list_of_one_supported_entry_still_warns_with_no_entry_passed_over():
    with pytest.warns(StrategyListWarning) as caught:
        assert get_strategy("sticky,").name == "sticky"
    assert "not supported" not in str(caught[0].message)


def test_a_list_without_a_supported_entry_is_refused_with_the_closest_name():
    with pytest.raises(UnknownStrategyError) as e:
        get_strategy("com.example.A, stiky")
    assert e.value.name == "com.example.A, stiky"
    assert e.value.suggestion is None            # the first entry is nothing like a strategy


@pytest.mark.parametrize("typo, suggestion", [
    ("stiky", "sticky"), ("Sticky", "sticky"), ("cooperative_sticky", "cooperative-sticky"),
    ("CooperativeSticky", "cooperative-sticky"), ("round-robin", "roundrobin"), ("RangeAsignor", "range")])
def test_a_typo_gets_the_closest_name(typo, suggestion):
    with pytest.raises(UnknownStrategyError) as e:
        get_strategy(typo)
    assert e.value.suggestion == suggestion
    assert str(e.value).endswith(f"did you mean {suggestion!r}?")
    assert "valid strategies are: cooperative-load-aware" in str(e.value)


def test_nothing_close_gets_no_suggestion():
    with pytest.raises(UnknownStrategyError) as e:
        get_strategy("fastest")
    assert e.value.suggestion is None and "did you mean" not in str(e.value)


def test_a_single_name_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert get_strategy("org.apache.kafka.clients.consumer.StickyAssignor").name == "sticky"
