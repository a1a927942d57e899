"""``java.util.Random`` and ``Collections.shuffle`` against values printed by a real JVM.

Every expected list below was printed once by OpenJDK 17.0.15 (``jshell``), e.g.
``Random r = new Random(42); r.nextInt(10)`` eight times, and pasted here; the
``MockRandom`` values by a jshell copy of Kafka's test class (``next(bits)``
overridden as in ``server-common``'s ``MockRandom``).
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from spark_assign.core.java.random import JavaRandom, java_shuffle

from .mock_random import MockRandom

INT_MAX = 2**31 - 1

# (seed, bound) -> the first 8 values of new Random(seed).nextInt(bound); bound None is nextInt().
JVM = {
    (42, None): [-1170105035, 234785527, -1360544799, 205897768, 1325939940, -248792245, 1190043011, -1255373459],
    (42, 10): [0, 3, 8, 4, 0, 5, 5, 8],
    (42, 16): [11, 0, 10, 0, 4, 15, 4, 11],                     # power of two: the high bits
    (42, 1): [0] * 8,
    (42, 3): [2, 0, 0, 2, 0, 1, 2, 2],
    (42, 1000): [130, 763, 248, 884, 970, 525, 505, 918],
    (42, 1 << 30): [781215565, 58696381, 733605624, 51474442, 331484985, 1011543762, 297510752, 759898459],
    (42, INT_MAX): [1562431130, 117392763, 1467211248, 102948884, 662969970, 2023087525, 595021505, 1519796918],
    # 1431655765 = 2^31 * 2/3 (rounded): a third of the draws are rejected (1562431130 and 1467211248 above).
    (42, 1431655765): [117392763, 102948884, 662969970, 595021505, 1429255519, 196118093, 969067502, 791955276],
    (0, None): [-1155484576, -723955400, 1033096058, -1690734402, -1557280266, 1327362106, -1930858313, 502539523],
    (0, 10): [0, 8, 9, 7, 5, 3, 1, 1],
    (0, 16): [11, 13, 3, 9, 10, 4, 8, 1],
    (0, 1431655765): [516548029, 1302116447, 1368843515, 663681053, 1182054491, 251269761, 1283218719, 715581077],
    (-1, 10): [3, 5, 9, 9, 4, 8, 7, 8],
    (-1, 1431655765): [577549913, 943952225, 26349579, 1176895439, 1421815604, 1290198438, 894294477, 857465478],
    (7, 3): [1, 2, 0, 1, 1, 1, 1, 2],
    (123456789, 1000): [965, 600, 483, 344, 290, 554, 533, 807],
    (17, 10): [6, 0, 4, 6, 2, 3, 4, 5],
    (17, 1000): [976, 220, 694, 516, 892, 693, 404, 915],
    (-2**63, 10): [0, 8, 9, 7, 5, 3, 1, 1],                     # only the low 48 bits of a seed count
    (2**63 - 1, 3): [2, 2, 0, 2, 2, 0, 0, 0],
}


@pytest.mark.parametrize("seed,bound", sorted(JVM, key=str), ids=str)
def test_next_int_matches_the_jvm(seed, bound):
    rnd = JavaRandom(seed)
    assert [rnd.next_int(bound) for _ in range(8)] == JVM[seed, bound]


def test_next_long_matches_the_jvm():
    rnd = JavaRandom(42)
    assert [rnd.next_long() for _ in range(3)] == [-5025562857975149833, -5843495416241995736, 5694868678511409995]


def test_collections_shuffle_matches_the_jvm():
    numbers = list(range(10))
    java_shuffle(numbers, JavaRandom(7))
    assert numbers == [0, 1, 9, 3, 7, 4, 8, 5, 2, 6]
    letters = ["a", "b", "c", "d"]
    java_shuffle(letters, JavaRandom(7))
    assert letters == ["a", "b", "d", "c"]


def test_bad_bounds_are_refused_as_in_java():
    for bound in (0, -1, 2**31):
        with pytest.raises(ValueError):
            JavaRandom(1).next_int(bound)


def test_kafka_mock_random_matches_the_jvm():
    rnd = MockRandom()
    assert [rnd.next_int(5) for _ in range(10)] == [0, 4, 2, 2, 0, 0, 2, 2, 3, 2]
    rnd = MockRandom()
    assert [rnd.next_int(1000) for _ in range(10)] == [335, 759, 877, 447, 150, 80, 632, 632, 878, 432]
    rnd = MockRandom()
    assert [rnd.next_int() for _ in range(6)] == [-1553064625, -1379575778, 649309754, -422816401, 874314300,
                                                   -787303135]


@given(st.integers(-2**63, 2**63 - 1),
       st.lists(st.one_of(st.integers(1, 64), st.integers(1, 2**31 - 1), st.sampled_from([2**30, 2**31 - 1])),
                max_size=200))
def test_next_ints_is_next_int_in_turn(seed, bounds):
    one, many = JavaRandom(seed), JavaRandom(seed)
    assert many.next_ints(np.array(bounds, dtype=np.int64)).tolist() == [one.next_int(b) for b in bounds]
    assert many.next_long() == one.next_long()             # the same state after


def test_next_ints_draws_through_a_replaced_next():
    rnd = MockRandom()
    assert MockRandom().next_ints(np.array([5, 7, 5])).tolist() == [rnd.next_int(b) for b in (5, 7, 5)]
