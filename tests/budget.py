"""A property test's size, scaled by the Hypothesis profile that ``tests/conftest.py`` loads.

``@examples(25)`` draws 25 examples under the ``default`` profile (60 examples a test), and the
same share of any other: 4 under ``quick``, 208 under ``deep``.
"""

from __future__ import annotations

from hypothesis import settings

#: The ``default`` profile's budget, the unit every ``examples(n)`` is written in.
DEFAULT_EXAMPLES = 60


def examples(n: int = DEFAULT_EXAMPLES) -> settings:
    """Settings for a test that draws ``n`` examples at the default budget (at least 1 under any profile)."""
    return settings(max_examples=max(1, round(n * settings.default.max_examples / DEFAULT_EXAMPLES)))
