"""Kafka's ``__consumer_offsets`` records, read without Spark: the wire (:mod:`.wire`), the messages
(:mod:`.schemas`), one record (:mod:`.decode`, and its inverse :mod:`.encode`), many commits at once
(:mod:`.offsets`), a group's rows (:mod:`.groups`) and a whole partition replayed (:mod:`.replay`).

The Spark transformation over them is :func:`spark_assign.kafka.consumer_groups`.
"""

from .decode import RecordKey, decode_assignment, decode_key, decode_sticky_user_data, decode_subscription, \
    decode_value
from .encode import encode_assignment, encode_key, encode_sticky_user_data, encode_subscription, encode_value
from .replay import Frames, replay_partition

__all__ = ["RecordKey", "decode_key", "decode_value", "decode_subscription", "decode_assignment",
           "decode_sticky_user_data", "encode_key", "encode_value", "encode_subscription", "encode_assignment",
           "encode_sticky_user_data", "Frames", "replay_partition"]
