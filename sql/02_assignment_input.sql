-- spark-assign SQL, step 2: the table functions' input.
--
-- The assign_* table functions take one row per member and subscribed topic, with the
-- topic's partition count joined in: Kafka's subscription as the group leader sees it.
--   required: group_id, member_id, topic, num_partitions
--   optional: group_instance_id, rack, owned_partitions (array<int>), generation (int),
--             replica_racks (array<array<string>>, used by the rack-aware strategies)
-- A LEFT JOIN keeps subscriptions to topics missing from the metadata: they get no
-- partitions (num_partitions is NULL), as in Kafka.

CREATE OR REPLACE TEMPORARY VIEW assignment_input AS
SELECT s.group_id, s.member_id, s.topic, s.group_instance_id, s.rack,
       t.num_partitions, t.replica_racks
FROM subscriptions s
LEFT JOIN topics t ON t.topic = s.topic;

-- Every partition of every subscribed topic, per group: what an assignment must cover.
CREATE OR REPLACE TEMPORARY VIEW group_partitions AS
SELECT DISTINCT s.group_id, s.topic, p AS partition
FROM assignment_input s
LATERAL VIEW explode(sequence(0, s.num_partitions - 1)) AS p
WHERE s.num_partitions > 0;

SELECT group_id, count(*) AS partitions FROM group_partitions GROUP BY group_id ORDER BY group_id;
