-- spark-assign SQL, step 4: rebalances that follow each other, in plain SQL.
--
-- Each generation feeds the previous one back as Kafka's group leader sees it:
-- every member reports the partitions it owns (owned_partitions, per subscribed
-- topic) and the generation they come from. The new generation is that one + 1.
-- With cooperative-sticky, a partition that changes owner is first revoked
-- (member_id NULL, status 'revoked') and handed over in the next generation.
--
-- Here the history lives in cached temporary views. The Delta-backed loop
-- (spark_assign.AssignmentTable: only changed groups recomputed, one atomic
-- commit per rebalance, time travel) has its own script and guide section:
-- see docs/sql.md, "Generations in a Delta table".

-- Generation 1: nobody owns anything.
CACHE TABLE generation_1 AS
SELECT * FROM assign_cooperative_sticky(TABLE(assignment_input));

-- The fleet changes: billing-3 leaves billing, analytics-5 joins analytics.
CREATE OR REPLACE TEMPORARY VIEW subscriptions_2 AS
SELECT * FROM subscriptions WHERE member_id <> 'billing-3'
UNION ALL
SELECT * FROM VALUES ('analytics', 'analytics-5', 'clicks', CAST(NULL AS STRING), 'rack-b'),
                     ('analytics', 'analytics-5', 'orders', CAST(NULL AS STRING), 'rack-b')
         AS s(group_id, member_id, topic, group_instance_id, rack);

-- Generation 2: members claim what generation 1 gave them.
CREATE OR REPLACE TEMPORARY VIEW input_2 AS
WITH owned AS (
    SELECT group_id, member_id, topic, collect_list(partition) AS owned_partitions, max(generation) AS generation
    FROM generation_1
    WHERE member_id IS NOT NULL                   -- revoked partitions are owned by nobody
    GROUP BY group_id, member_id, topic
)
SELECT s.group_id, s.member_id, s.topic, s.group_instance_id, s.rack, t.num_partitions, t.replica_racks,
       o.owned_partitions,
       -- one generation per member (Kafka's Subscription.generationId), on all its rows
       max(o.generation) OVER (PARTITION BY s.group_id, s.member_id) AS generation
FROM subscriptions_2 s
LEFT JOIN topics t ON t.topic = s.topic
LEFT JOIN owned o ON o.group_id = s.group_id AND o.member_id = s.member_id AND o.topic = s.topic;

CACHE TABLE generation_2 AS
SELECT * FROM assign_cooperative_sticky(TABLE(input_2));

-- Generation 3: the same members again; the partitions revoked in generation 2 reach their new owners.
CREATE OR REPLACE TEMPORARY VIEW input_3 AS
WITH owned AS (
    SELECT group_id, member_id, topic, collect_list(partition) AS owned_partitions, max(generation) AS generation
    FROM generation_2
    WHERE member_id IS NOT NULL
    GROUP BY group_id, member_id, topic
)
SELECT s.group_id, s.member_id, s.topic, s.group_instance_id, s.rack, t.num_partitions, t.replica_racks,
       o.owned_partitions,
       max(o.generation) OVER (PARTITION BY s.group_id, s.member_id) AS generation
FROM subscriptions_2 s
LEFT JOIN topics t ON t.topic = s.topic
LEFT JOIN owned o ON o.group_id = s.group_id AND o.member_id = s.member_id AND o.topic = s.topic;

CACHE TABLE generation_3 AS
SELECT * FROM assign_cooperative_sticky(TABLE(input_3));

-- Every generation, queryable together.
CREATE OR REPLACE TEMPORARY VIEW assignment_history AS
SELECT * FROM generation_1
UNION ALL SELECT * FROM generation_2
UNION ALL SELECT * FROM generation_3;

SELECT group_id, generation, status, count(*) AS partitions
FROM assignment_history
GROUP BY group_id, generation, status
ORDER BY group_id, generation, status;
