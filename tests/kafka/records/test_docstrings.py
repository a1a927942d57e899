"""The examples in the record decoder's and the audit's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["spark_assign.kafka.records.wire", "spark_assign.kafka.records.decode", "spark_assign.kafka.records.encode",
           "spark_assign.kafka.records.groups", "spark_assign.kafka.records.offsets",
           "spark_assign.kafka.records.replay", "spark_assign.core.consumer.audit"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    failed, tried = doctest.testmod(importlib.import_module(name))
    assert tried > 0 and failed == 0
