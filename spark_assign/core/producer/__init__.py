"""Where Kafka's producer sends records: keyed (:mod:`.murmur2`, ``kafka_partition``) and
without a key (:mod:`.partitioners`: round-robin and sticky, KIP-480 and KIP-794).
"""

from .partitioners import (STICKY_MODES, RoundRobinPartitioner, StickyBatches, StickyPartitioner,
                           check_partition_counts, round_robin_partitions, sticky_batches, sticky_partitions)

__all__ = ["STICKY_MODES", "RoundRobinPartitioner", "StickyBatches", "StickyPartitioner", "check_partition_counts",
           "round_robin_partitions", "sticky_batches", "sticky_partitions"]
