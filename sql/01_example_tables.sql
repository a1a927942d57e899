-- spark-assign SQL, step 1: example tables.
--
-- Two plain tables, as a platform team would have them:
--   topics         one row per topic: its partition count and the racks of each partition's replicas
--   subscriptions  one row per consumer group member and subscribed topic (Kafka's Subscription)
-- Temporary views, so the scripts write nothing to disk. Run these scripts in order
-- (01, 02, ...) on a session where spark_assign.register(spark) was called.

CREATE OR REPLACE TEMPORARY VIEW topics AS
SELECT topic,
       num_partitions,
       -- partition p has replicas on two of three racks: rack (p mod 3) and rack (p + 1 mod 3)
       transform(sequence(0, num_partitions - 1),
                 p -> array(element_at(array('rack-a', 'rack-b', 'rack-c'), p % 3 + 1),
                            element_at(array('rack-a', 'rack-b', 'rack-c'), (p + 1) % 3 + 1))) AS replica_racks
FROM VALUES ('orders', 6), ('payments', 4), ('clicks', 8), ('audit-log', 2) AS t(topic, num_partitions);

CREATE OR REPLACE TEMPORARY VIEW subscriptions AS
SELECT * FROM VALUES
    -- group_id,  member_id,     topic,       group_instance_id, rack
    ('billing',   'billing-1',   'orders',    'billing-host-1',  'rack-a'),
    ('billing',   'billing-1',   'payments',  'billing-host-1',  'rack-a'),
    ('billing',   'billing-2',   'orders',    'billing-host-2',  'rack-b'),
    ('billing',   'billing-2',   'payments',  'billing-host-2',  'rack-b'),
    ('billing',   'billing-3',   'orders',    NULL,              'rack-c'),
    ('billing',   'billing-3',   'payments',  NULL,              'rack-c'),
    ('analytics', 'analytics-1', 'clicks',    NULL,              'rack-a'),
    ('analytics', 'analytics-1', 'orders',    NULL,              'rack-a'),
    ('analytics', 'analytics-2', 'clicks',    NULL,              'rack-b'),
    ('analytics', 'analytics-2', 'orders',    NULL,              'rack-b'),
    ('analytics', 'analytics-3', 'clicks',    NULL,              'rack-c'),
    ('analytics', 'analytics-4', 'clicks',    NULL,              'rack-a'),
    ('audit',     'auditor-1',   'audit-log', NULL,              'rack-b'),
    ('audit',     'auditor-1',   'payments',  NULL,              'rack-b')
AS s(group_id, member_id, topic, group_instance_id, rack);

SELECT * FROM topics ORDER BY topic;

SELECT group_id, count(DISTINCT member_id) AS members, collect_set(topic) AS topics
FROM subscriptions GROUP BY group_id ORDER BY group_id;
