"""The consumer group strategies, one module (or folder) each: Kafka's client assignors
(``range``, ``roundrobin``, ``sticky``, ``cooperative-sticky``), KIP-848's broker-side ones
(``uniform``, ``server-range``) and our ``load-aware`` pair. Each is a function
``(Context) -> Outcome``, registered by name in :mod:`spark_assign.core.consumer.registry`.
"""
