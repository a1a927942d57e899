"""Java's behaviour where Kafka's output depends on it: ``HashMap``/``HashSet`` iteration order,
``String.compareTo`` order, ``java.util.Random``, and Kafka's numeric limits (``int32``).

Nothing here knows about consumer groups or replicas; both domains build on it.
"""
