-- spark-assign SQL, step 3: one rebalance of every group.
--
-- assign_partitions takes the input table partitioned by group_id and a strategy:
-- range, roundrobin, sticky, cooperative-sticky, uniform or server-range.
-- Output: one row per partition of every subscribed topic of every group:
--   group_id, generation, member_id, topic, partition, previous_member_id, status
-- Nobody owns anything yet, so this is generation 1 and every status is 'new'.

SELECT *
FROM assign_partitions(TABLE(assignment_input) PARTITION BY group_id, strategy => 'range')
ORDER BY group_id, topic, partition;

-- The same with a per-strategy function: it partitions by group_id itself
-- (so the PARTITION BY cannot be forgotten, and must not be written).
SELECT group_id, member_id, count(*) AS partitions, sort_array(collect_list(topic || '-' || partition)) AS owns
FROM assign_cooperative_sticky(TABLE(assignment_input))
GROUP BY group_id, member_id
ORDER BY group_id, member_id;

-- Every partition assigned exactly once, whatever the strategy.
SELECT strategy, count(*) AS rows, count(DISTINCT group_id, topic, partition) AS partitions,
       (SELECT count(*) FROM group_partitions) AS expected
FROM (
    SELECT 'range' AS strategy, * FROM assign_range(TABLE(assignment_input))
    UNION ALL SELECT 'roundrobin', * FROM assign_roundrobin(TABLE(assignment_input))
    UNION ALL SELECT 'sticky', * FROM assign_sticky(TABLE(assignment_input))
    UNION ALL SELECT 'uniform', * FROM assign_uniform(TABLE(assignment_input))
    UNION ALL SELECT 'server-range', * FROM assign_server_range(TABLE(assignment_input))
)
GROUP BY strategy
ORDER BY strategy;

-- A subset of groups, and a strategy per query: any query can feed the TABLE argument.
SELECT group_id, member_id, topic, partition
FROM assign_partitions(
    TABLE(SELECT * FROM assignment_input WHERE group_id = 'analytics') PARTITION BY group_id,
    strategy => 'roundrobin')
ORDER BY member_id, topic, partition;

-- Kafka's default partitioner: where would records with these keys go?
SELECT key,
       kafka_murmur2(key) AS murmur2,
       kafka_partition(key, 6) AS orders_partition,
       kafka_partition(CAST(key AS BINARY), 6) AS same_from_bytes
FROM VALUES ('customer-1'), ('customer-2'), ('customer-3'), ('foobar'), (NULL) AS k(key);
