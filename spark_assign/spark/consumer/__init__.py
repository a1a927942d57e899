"""Consumer group assignment on Spark: ``DataFrame.assign_partitions`` (:mod:`.dataframe`), the SQL
table functions (:mod:`.sql_functions`), the Arrow wire between driver and tasks (:mod:`.wire`,
:mod:`.group_rows`) and what a task runs (:mod:`.worker`).
"""
