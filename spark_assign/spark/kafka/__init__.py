"""The Spark side of Kafka's own data: ``__consumer_offsets`` records read as DataFrames
(:mod:`.records`)."""
