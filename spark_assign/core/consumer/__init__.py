"""Consumer group assignment: the engine behind :func:`spark_assign.core.assign`.

* :mod:`.model`, :mod:`.encode`, :mod:`.keys`: the group's input, checked and made dense;
* :mod:`.context`, :mod:`.racks`, :mod:`.weights`: what every strategy may read;
* :mod:`.strategies`: one module per strategy, chosen by name through :mod:`.registry`;
* :mod:`.result`, :mod:`.partition_list`, :mod:`.checks`: the answer and Kafka's guarantees on it;
* :mod:`.batch`: many groups at once, in lock step (what a Spark task runs);
* :mod:`.api`: :func:`~.api.assign` and :func:`~.api.assign_group`.
"""
