-- spark-assign SQL, step 6: the fleet's generations in a Delta table (spark_assign.AssignmentTable).
--
-- The loop: read the latest generation, rebalance, write the next generation, forever.
-- Reading and analysing are SQL over two views; writing is one statement,
-- CALL spark_assign.rebalance(...), which run_script hands to spark-assign's Python API:
-- only groups whose input changed are recomputed, all new generations are appended in
-- one atomic Delta commit, and running it again with the same input commits nothing.
--
-- Run after 01 (it uses the views subscriptions and topics), with the table's location:
--   from spark_assign.state.consumer.sql import run_script
--   run_script(spark, Path("sql/06_delta_generations.sql"), params={"state": "/data/fleet_state"})
-- The location is a directory (or, with delta-spark in the session, a catalog table name).
-- Without run_script (a notebook's SQL cells), each CALL is one Python line: see
-- docs/sql.md, "Generations in a Delta table".

-- Read: the views fleet_latest (every group's latest generation) and fleet_history
-- (every generation). Before the first rebalance they are empty.
CALL spark_assign.views(state => '${state}', views => 'fleet');

SELECT count(*) AS partitions_before_the_first_rebalance FROM fleet_latest;

-- Generation 1 of every group: rebalance from plain views and commit. The views are refreshed.
CALL spark_assign.rebalance(state => '${state}', subscriptions => 'subscriptions', topics => 'topics',
                            strategy => 'cooperative-sticky', views => 'fleet');

-- The fleet changes: billing-3 leaves billing, analytics-5 joins analytics; audit is untouched.
CREATE OR REPLACE TEMPORARY VIEW fleet_subscriptions AS
SELECT * FROM subscriptions WHERE member_id <> 'billing-3'
UNION ALL
SELECT * FROM VALUES ('analytics', 'analytics-5', 'clicks', CAST(NULL AS STRING), 'rack-b'),
                     ('analytics', 'analytics-5', 'orders', CAST(NULL AS STRING), 'rack-b')
         AS s(group_id, member_id, topic, group_instance_id, rack);

-- Generation 2 of billing and analytics (audit did not change: not recomputed). With
-- cooperative-sticky, the partitions analytics-5 will get are revoked from their owners first.
CALL spark_assign.rebalance(state => '${state}', subscriptions => 'fleet_subscriptions', topics => 'topics',
                            strategy => 'cooperative-sticky', views => 'fleet');

-- Generation 3 of analytics: the revoked partitions reach analytics-5.
CALL spark_assign.rebalance(state => '${state}', subscriptions => 'fleet_subscriptions', topics => 'topics',
                            strategy => 'cooperative-sticky', views => 'fleet');

-- Nothing changed since: no group is recomputed, no commit (version is NULL).
CALL spark_assign.rebalance(state => '${state}', subscriptions => 'fleet_subscriptions', topics => 'topics',
                            strategy => 'cooperative-sticky', views => 'fleet');

-- The latest generation of every group, as the consumers would run it.
SELECT group_id, generation, member_id, count(*) AS partitions,
       sort_array(collect_list(topic || '-' || partition)) AS owns
FROM fleet_latest
GROUP BY group_id, generation, member_id
ORDER BY group_id, member_id;

-- Every generation, by status: what each rebalance did.
SELECT group_id, generation, status, count(*) AS partitions
FROM fleet_history
GROUP BY group_id, generation, status
ORDER BY group_id, generation, status;

-- Partitions that changed owner, per group and generation (a revoked partition counts
-- when it is taken away; its handover counts in the next generation).
SELECT cur.group_id, cur.generation,
       count_if(NOT (cur.member_id <=> prev.member_id)) AS changed_owner,
       count_if(cur.member_id IS NULL) AS pending_transfer
FROM fleet_history cur
JOIN fleet_history prev
  ON prev.group_id = cur.group_id AND prev.generation = cur.generation - 1
 AND prev.topic = cur.topic AND prev.partition = cur.partition
GROUP BY cur.group_id, cur.generation
ORDER BY cur.group_id, cur.generation;

-- Members and partitions per rack in the latest generation, and how many partitions are
-- consumed from a rack that holds one of their replicas.
WITH members AS (SELECT DISTINCT group_id, member_id, rack FROM fleet_subscriptions)
SELECT l.group_id, m.rack,
       count(DISTINCT l.member_id) AS members,
       count(*) AS partitions,
       count_if(array_contains(element_at(t.replica_racks, l.partition + 1), m.rack)) AS rack_local
FROM fleet_latest l
JOIN members m ON m.group_id = l.group_id AND m.member_id = l.member_id
JOIN topics t ON t.topic = l.topic
GROUP BY l.group_id, m.rack
ORDER BY l.group_id, m.rack;

-- Skew in the latest generation: partitions per member (members with none count as 0).
WITH load AS (
    SELECT m.group_id, m.member_id, count(l.partition) AS partitions
    FROM (SELECT DISTINCT group_id, member_id FROM fleet_subscriptions) m
    LEFT JOIN fleet_latest l ON l.group_id = m.group_id AND l.member_id = m.member_id
    GROUP BY m.group_id, m.member_id
)
SELECT group_id, count(*) AS members, min(partitions) AS min_partitions, max(partitions) AS max_partitions,
       max(partitions) - min(partitions) AS spread
FROM load
GROUP BY group_id
ORDER BY group_id;
