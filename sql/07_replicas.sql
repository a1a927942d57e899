-- spark-assign SQL, step 7: replica placement on brokers, for a fleet of clusters.
--
-- assign_replicas places each topic's replicas as Kafka would (method 'striped': the KRaft
-- controller's StripedReplicaPlacer; 'admin-utils': kafka-reassign-partitions --generate), and
-- 'sticky' reassigns a current placement after brokers join or leave, moving few replicas.
-- Input: one row per topic, carrying its cluster's brokers (an array of structs) and, to
-- reassign, its current replicas. Output: one row per replica:
--   cluster_id, topic, partition, replica_index, broker_id, rack, is_preferred_leader, status

CREATE OR REPLACE TEMPORARY VIEW fleet_brokers AS
SELECT * FROM VALUES
    -- cluster_id, broker_id, rack
    ('eu-1', 1, 'az-a'), ('eu-1', 2, 'az-b'), ('eu-1', 3, 'az-c'),
    ('eu-1', 4, 'az-a'), ('eu-1', 5, 'az-b'), ('eu-1', 6, 'az-c'),
    ('us-1', 11, NULL), ('us-1', 12, NULL), ('us-1', 13, NULL), ('us-1', 14, NULL)
AS b(cluster_id, broker_id, rack);

CREATE OR REPLACE TEMPORARY VIEW fleet_topics AS
SELECT * FROM VALUES
    ('eu-1', 'orders', 6, 3), ('eu-1', 'payments', 4, 3), ('eu-1', 'audit-log', 2, 2),
    ('us-1', 'orders', 6, 3), ('us-1', 'clicks', 8, 2)
AS t(cluster_id, topic, num_partitions, replication_factor);

-- Each topic with its cluster's brokers: the table argument.
CREATE OR REPLACE TEMPORARY VIEW replica_input AS
SELECT t.*, b.brokers
FROM fleet_topics t
JOIN (SELECT cluster_id, collect_list(struct(broker_id, rack)) AS brokers
      FROM fleet_brokers GROUP BY cluster_id) b
  ON b.cluster_id = t.cluster_id;

-- Place every topic of every cluster as a KRaft controller would (seed: reproducible rows).
CACHE TABLE replicas_1 AS
SELECT * FROM assign_replicas(TABLE(replica_input), method => 'striped', seed => 7);

-- Replicas and preferred leaders per broker.
SELECT cluster_id, broker_id, rack, count(*) AS replicas, count_if(is_preferred_leader) AS leaders
FROM replicas_1
GROUP BY cluster_id, broker_id, rack
ORDER BY cluster_id, broker_id;

-- Every partition of eu-1 spans three availability zones.
SELECT cluster_id, topic, partition, count(DISTINCT rack) AS zones
FROM replicas_1
WHERE cluster_id = 'eu-1'
GROUP BY cluster_id, topic, partition
HAVING zones < least(3, max(replica_index) + 1);

-- Broker 15 joins us-1 and broker 1 leaves eu-1: reassign with 'sticky'. The current replicas of
-- each topic go in as an array of structs (one collect_list of the previous result per topic).
CREATE OR REPLACE TEMPORARY VIEW replica_input_2 AS
WITH brokers AS (
    SELECT * FROM fleet_brokers WHERE broker_id <> 1
    UNION ALL SELECT 'us-1', 15, NULL
),
previous AS (
    SELECT cluster_id, topic, collect_list(struct(partition, replica_index, broker_id)) AS previous
    FROM replicas_1 GROUP BY cluster_id, topic
)
SELECT t.*, b.brokers, p.previous
FROM fleet_topics t
JOIN (SELECT cluster_id, collect_list(struct(broker_id, rack)) AS brokers FROM brokers GROUP BY cluster_id) b
  ON b.cluster_id = t.cluster_id
LEFT JOIN previous p ON p.cluster_id = t.cluster_id AND p.topic = t.topic;

CACHE TABLE replicas_2 AS
SELECT * FROM assign_replicas(TABLE(replica_input_2), method => 'sticky');

-- What moved: each 'moved' replica is one copy of a partition's data.
SELECT cluster_id, status, count(*) AS replicas
FROM replicas_2
GROUP BY cluster_id, status
ORDER BY cluster_id, status;

-- The reassignment per partition, as kafka-reassign-partitions --execute takes it: replicas in order.
SELECT cluster_id, topic, partition, array_join(transform(array_sort(collect_list(struct(replica_index, broker_id))),
                                                          r -> CAST(r.broker_id AS STRING)), ',') AS replicas
FROM replicas_2
GROUP BY cluster_id, topic, partition
HAVING count_if(status = 'moved') > 0
ORDER BY cluster_id, topic, partition;
