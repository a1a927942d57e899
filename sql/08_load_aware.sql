-- spark-assign SQL, step 8: balance load (consumer lag), not partition counts.
--
-- Kafka's strategies balance how many partitions each member gets. When partitions carry
-- different load, load-aware balances a weight per partition instead (lag, bytes/s, any
-- non-negative cost), keeps the counts balanced (max_count_skew, default 1) and stays sticky:
-- partitions move only when that lowers the heaviest member's load by more than
-- min_improvement (default 0.05). The weights come as one more column of the input,
-- partition_weights: per topic, an array with one weight per partition (like replica_racks).

-- Lag per partition, as a platform computes it from end offsets and committed offsets:
-- partition 0 of every topic is hot.
CREATE OR REPLACE TEMPORARY VIEW partition_lag AS
SELECT topic,
       transform(sequence(0, num_partitions - 1),
                 p -> CAST(IF(p = 0, 5000, 100 + 40 * p) AS DOUBLE)) AS partition_weights
FROM topics;

CREATE OR REPLACE TEMPORARY VIEW load_input AS
SELECT a.*, l.partition_weights
FROM assignment_input a
LEFT JOIN partition_lag l ON l.topic = a.topic;

-- With partition_weights in the input, every function returns each partition's weight too.
-- Heaviest member's load against the mean, per group and strategy (1.00 is perfect balance),
-- and the count spread (most minus fewest partitions per member).
WITH runs AS (
    SELECT 'sticky' AS strategy, * FROM assign_sticky(TABLE(load_input))
    UNION ALL SELECT 'load-aware', * FROM assign_load_aware(TABLE(load_input))
    UNION ALL SELECT 'lag-based', * FROM assign_lag_based(TABLE(load_input))
),
loads AS (
    SELECT strategy, group_id, member_id, sum(weight) AS load, count(*) AS partitions
    FROM runs
    GROUP BY strategy, group_id, member_id
)
SELECT group_id, strategy, max(load) AS heaviest, round(avg(load), 1) AS mean_load,
       round(max(load) / avg(load), 2) AS imbalance, max(partitions) - min(partitions) AS spread
FROM loads
GROUP BY group_id, strategy
ORDER BY group_id, strategy;

-- The knobs are constant arguments: a count skew of 2 lets a member take fewer, heavier
-- partitions; assign_partitions takes them too.
CACHE TABLE load_generation_1 AS
SELECT * FROM assign_partitions(TABLE(load_input) PARTITION BY group_id, strategy => 'load-aware',
                                max_count_skew => 2, min_improvement => 0.05);

SELECT group_id, member_id, count(*) AS partitions, sum(weight) AS load
FROM load_generation_1
GROUP BY group_id, member_id
ORDER BY group_id, member_id;

-- Next generation: members claim what they own and the lag has drifted by up to 2%.
-- Small drift is not worth a consumer restart: nothing moves.
CREATE OR REPLACE TEMPORARY VIEW load_input_2 AS
WITH owned AS (
    SELECT group_id, member_id, topic, collect_list(partition) AS owned_partitions, max(generation) AS generation
    FROM load_generation_1
    GROUP BY group_id, member_id, topic
)
SELECT i.group_id, i.member_id, i.topic, i.num_partitions, o.owned_partitions,
       max(o.generation) OVER (PARTITION BY i.group_id, i.member_id) AS generation,
       transform(i.partition_weights, (w, p) -> w * (1 + 0.02 * sin(p))) AS partition_weights
FROM load_input i
LEFT JOIN owned o ON o.group_id = i.group_id AND o.member_id = i.member_id AND o.topic = i.topic;

SELECT status, count(*) AS partitions
FROM assign_load_aware(TABLE(load_input_2), max_count_skew => 2)
GROUP BY status
ORDER BY status;
