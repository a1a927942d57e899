-- spark-assign SQL, step 5: questions about the assignments (uses step 4's history).

-- Partitions that changed owner, per group and generation: compare each generation
-- with the one before it. A revoked partition (owner NULL) counts as moved when it
-- is taken away, and its handover counts in the next generation.
SELECT cur.group_id, cur.generation,
       count(*) AS partitions,
       count_if(NOT (cur.member_id <=> prev.member_id)) AS changed_owner,
       count_if(cur.member_id IS NULL) AS pending_transfer
FROM assignment_history cur
JOIN assignment_history prev
  ON prev.group_id = cur.group_id AND prev.generation = cur.generation - 1
 AND prev.topic = cur.topic AND prev.partition = cur.partition
GROUP BY cur.group_id, cur.generation
ORDER BY cur.group_id, cur.generation;

-- The same from the status column, which each generation carries.
SELECT generation,
       count_if(status = 'kept') AS kept,
       count_if(status IN ('moved', 'revoked')) AS taken_away,
       count_if(status = 'assigned') AS handed_over,
       count_if(status = 'new') AS new
FROM assignment_history
GROUP BY generation
ORDER BY generation;

-- Members and partitions per rack in the latest generation, and how many partitions
-- are consumed from a rack that holds one of their replicas (KIP-881 locality).
WITH latest AS (
    SELECT * FROM assignment_history
    WHERE generation = (SELECT max(generation) FROM assignment_history)
),
members AS (SELECT DISTINCT group_id, member_id, rack FROM subscriptions_2)
SELECT l.group_id, m.rack,
       count(DISTINCT l.member_id) AS members,
       count(*) AS partitions,
       count_if(array_contains(element_at(t.replica_racks, l.partition + 1), m.rack)) AS rack_local
FROM latest l
JOIN members m ON m.group_id = l.group_id AND m.member_id = l.member_id
JOIN topics t ON t.topic = l.topic
GROUP BY l.group_id, m.rack
ORDER BY l.group_id, m.rack;

-- Skew: partitions per member, per group and generation (members with none count as 0).
WITH members AS (
    SELECT DISTINCT 1 AS generation, group_id, member_id FROM subscriptions
    UNION ALL SELECT DISTINCT 2, group_id, member_id FROM subscriptions_2
    UNION ALL SELECT DISTINCT 3, group_id, member_id FROM subscriptions_2
),
load AS (
    SELECT m.group_id, m.generation, m.member_id, count(h.partition) AS partitions
    FROM members m
    LEFT JOIN assignment_history h
      ON h.group_id = m.group_id AND h.generation = m.generation AND h.member_id = m.member_id
    GROUP BY m.group_id, m.generation, m.member_id
)
SELECT group_id, generation, count(*) AS members,
       min(partitions) AS min_partitions, max(partitions) AS max_partitions,
       max(partitions) - min(partitions) AS spread,
       round(stddev_pop(partitions), 2) AS stddev
FROM load
GROUP BY group_id, generation
ORDER BY group_id, generation;

-- Key skew: how 10,000 keys of the form 'customer-<n>' spread over the 6 partitions of orders.
SELECT kafka_partition('customer-' || id, 6) AS partition, count(*) AS keys
FROM range(10000)
GROUP BY 1
ORDER BY 1;
