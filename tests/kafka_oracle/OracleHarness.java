package org.apache.kafka.clients.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.coordinator.group.modern.TopicMetadata;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.*;

/** Reads random groups (one round each), runs Kafka's assignor, writes what it assigned. */
public class OracleHarness {
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        JsonNode cases = JSON.readTree(new File(args[0]));
        ArrayNode out = JSON.createArrayNode();
        for (JsonNode c : cases) {
            ObjectNode r = JSON.createObjectNode();
            r.put("name", c.get("name").asText());
            try {
                String strategy = c.get("strategy").asText();
                if (strategy.equals("uniform") || strategy.equals("server-range")) server(c, r);
                else client(c, r);
            } catch (Throwable e) {
                r.put("error", e.toString());
            }
            out.add(r);
        }
        JSON.writeValue(new File(args[1]), out);
    }

    static List<String> strings(JsonNode n) {
        List<String> l = new ArrayList<>();
        if (n != null) for (JsonNode x : n) l.add(x.asText());
        return l;
    }

    static List<TopicPartition> pairs(JsonNode n) {
        List<TopicPartition> l = new ArrayList<>();
        if (n != null) for (JsonNode x : n) l.add(new TopicPartition(x.get(0).asText(), x.get(1).asInt()));
        return l;
    }

    static ArrayNode json(Collection<TopicPartition> tps) {
        ArrayNode a = JSON.createArrayNode();
        for (TopicPartition tp : tps) {
            ArrayNode p = JSON.createArrayNode();
            p.add(tp.topic());
            p.add(tp.partition());
            a.add(p);
        }
        return a;
    }

    static Optional<String> text(JsonNode m, String key) {
        return m.hasNonNull(key) ? Optional.of(m.get(key).asText()) : Optional.empty();
    }

    static void client(JsonNode c, ObjectNode r) {
        String strategy = c.get("strategy").asText();
        // Brokers: one per rack named in partition_racks, else one without a rack.
        Map<String, Node> rackNodes = new TreeMap<>();
        JsonNode pr = c.get("partition_racks");
        if (pr != null) for (JsonNode parts : pr) for (JsonNode racks : parts) for (JsonNode rack : racks)
            rackNodes.computeIfAbsent(rack.asText(), k -> new Node(rackNodes.size(), "h" + rackNodes.size(), 9092, k));
        Node plain = new Node(1000, "plain", 9092);
        List<Node> nodes = new ArrayList<>(rackNodes.values());
        nodes.add(plain);
        List<PartitionInfo> infos = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> ts = c.get("topics").fields();
        while (ts.hasNext()) {
            Map.Entry<String, JsonNode> t = ts.next();
            for (int p = 0; p < t.getValue().asInt(); p++) {
                Node[] replicas = {plain};
                if (pr != null && pr.has(t.getKey())) {
                    JsonNode racks = pr.get(t.getKey()).get(p);
                    replicas = new Node[racks.size()];
                    for (int i = 0; i < racks.size(); i++) replicas[i] = rackNodes.get(racks.get(i).asText());
                }
                infos.add(new PartitionInfo(t.getKey(), p, replicas.length > 0 ? replicas[0] : null, replicas, replicas));
            }
        }
        Cluster cluster = new Cluster("c", nodes, infos, Collections.emptySet(), Collections.emptySet());

        TreeMap<String, JsonNode> byId = new TreeMap<>();
        c.get("members").fields().forEachRemaining(e -> byId.put(e.getKey(), e.getValue()));
        Map<String, ConsumerPartitionAssignor.Subscription> subs = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : byId.entrySet()) {
            JsonNode m = e.getValue();
            List<TopicPartition> owned = pairs(m.get("owned"));
            boolean hasGen = m.hasNonNull("generation");
            int gen = hasGen ? m.get("generation").asInt() : -1;
            ConsumerPartitionAssignor.Subscription s;
            if (strategy.equals("sticky")) {
                // A member with nothing to report sends no user data; else its pairs and generation (-1: none).
                ByteBuffer data = owned.isEmpty() && !hasGen ? null : StickyAssignor.serializeTopicPartitionAssignment(
                    new AbstractStickyAssignor.MemberData(owned, Optional.of(gen)));
                // Eager: nothing owned in the protocol field (revoked before joining); the generation
                // field carries the member's generation, as a consumer sends it (KIP-792).
                s = new ConsumerPartitionAssignor.Subscription(strings(m.get("topics")), data, Collections.emptyList(),
                    gen, text(m, "rack"));
            } else {
                s = new ConsumerPartitionAssignor.Subscription(strings(m.get("topics")), null, owned, gen, text(m, "rack"));
            }
            s.setGroupInstanceId(text(m, "instance_id"));
            subs.put(e.getKey(), s);
        }
        ConsumerPartitionAssignor a;
        switch (strategy) {
            case "range": a = new RangeAssignor(); break;
            case "roundrobin": a = new RoundRobinAssignor(); break;
            case "sticky": a = new StickyAssignor(); break;
            case "cooperative-sticky": a = new CooperativeStickyAssignor(); break;
            default: throw new IllegalArgumentException(strategy);
        }
        if (c.path("prefer_rack_aware").asBoolean(false)) {   // Kafka's test-only switch
            try {
                java.lang.reflect.Field f = org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor.class
                    .getDeclaredField("preferRackAwareLogic");
                f.setAccessible(true);
                f.setBoolean(a, true);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        ConsumerPartitionAssignor.GroupAssignment ga = a.assign(cluster, new ConsumerPartitionAssignor.GroupSubscription(subs));
        ObjectNode assignment = JSON.createObjectNode();
        for (String id : byId.keySet()) assignment.set(id, json(ga.groupAssignment().get(id).partitions()));
        r.set("assignment", assignment);
    }

    static void server(JsonNode c, ObjectNode r) {
        String strategy = c.get("strategy").asText();
        Map<String, Uuid> ids = new HashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        c.get("topic_ids").fields().forEachRemaining(e -> {
            Uuid u = Uuid.fromString(e.getValue().asText());
            ids.put(e.getKey(), u);
            names.put(u, e.getKey());
        });
        Map<Uuid, TopicMetadata> meta = new HashMap<>();
        c.get("topics").fields().forEachRemaining(e -> {
            Uuid u = ids.get(e.getKey());
            meta.put(u, new TopicMetadata(u, e.getKey(), e.getValue().asInt()));
        });
        TreeMap<String, JsonNode> byId = new TreeMap<>();
        c.get("members").fields().forEachRemaining(e -> byId.put(e.getKey(), e.getValue()));
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new LinkedHashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        Set<Set<String>> distinct = new HashSet<>();
        for (Map.Entry<String, JsonNode> e : byId.entrySet()) {
            JsonNode m = e.getValue();
            // As the broker holds it: the names a Java consumer sends (TreeSet order) in a HashSet,
            // seen as topic ids through a view that skips names without metadata but counts them
            // in its size (the coordinator's TopicIds).
            List<String> sent = new ArrayList<>(new TreeSet<>(strings(m.get("topics"))));
            Set<String> subscribed = new HashSet<>(sent);
            distinct.add(subscribed);
            Set<Uuid> topicIds = new NamesAsIds(subscribed, ids, meta.keySet());
            // The member's current target, a HashMap grown by put: its subscribed topics first, in the
            // order the builder's own new HashSet<>(subscribed ids) iterates them (the order in which a
            // first target is built), then the others as listed; each topic's partitions ascending.
            List<Uuid> topicOrder = new ArrayList<>(new HashSet<>(topicIds));
            List<TopicPartition> listed = pairs(m.get("owned"));
            for (TopicPartition tp : listed) if (!topicOrder.contains(ids.get(tp.topic()))) topicOrder.add(ids.get(tp.topic()));
            Map<Uuid, Set<Integer>> owned = new HashMap<>();
            for (Uuid u : topicOrder) {
                TreeSet<Integer> parts = new TreeSet<>();
                for (TopicPartition tp : listed) if (ids.get(tp.topic()).equals(u)) parts.add(tp.partition());
                if (parts.isEmpty()) continue;
                owned.put(u, new HashSet<>(parts));
                for (Integer p : parts) inverted.computeIfAbsent(u, k -> new HashMap<>()).put(p, e.getKey());
            }
            members.put(e.getKey(), new MemberSubscriptionAndAssignmentImpl(text(m, "rack"), text(m, "instance_id"),
                topicIds, new Assignment(owned)));
        }
        SubscriptionType type = distinct.size() <= 1 ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
        r.put("subscription_type", type.toString());
        ConsumerGroupPartitionAssignor a = strategy.equals("uniform")
            ? new org.apache.kafka.coordinator.group.assignor.UniformAssignor()
            : new org.apache.kafka.coordinator.group.assignor.RangeAssignor();
        GroupAssignment ga = a.assign(new GroupSpecImpl(members, type, inverted), new SubscribedTopicDescriberImpl(meta));
        ObjectNode assignment = JSON.createObjectNode();
        for (String id : byId.keySet()) {
            List<TopicPartition> tps = new ArrayList<>();
            MemberAssignment ma = ga.members().get(id);
            if (ma != null) for (Map.Entry<Uuid, Set<Integer>> e : ma.partitions().entrySet())
                for (Integer p : e.getValue()) tps.add(new TopicPartition(names.get(e.getKey()), p));
            assignment.set(id, json(tps));
        }
        r.set("assignment", assignment);
    }

    /** The broker's TopicIds view: iterates the ids of the names that have metadata; size counts every name. */
    static final class NamesAsIds extends AbstractSet<Uuid> {
        final Set<String> names;
        final Map<String, Uuid> ids;
        final Set<Uuid> known;

        NamesAsIds(Set<String> names, Map<String, Uuid> ids, Set<Uuid> known) {
            this.names = names;
            this.ids = ids;
            this.known = known;
        }

        @Override
        public int size() {
            return names.size();
        }

        @Override
        public boolean isEmpty() {
            return names.isEmpty();
        }

        @Override
        public Iterator<Uuid> iterator() {
            List<Uuid> out = new ArrayList<>();
            for (String n : names) {
                Uuid u = ids.get(n);
                if (u != null && known.contains(u)) out.add(u);
            }
            return out.iterator();
        }
    }
}
