// Seeded __consumer_offsets records written by Apache Kafka's own code:
// tests/data/kafka_consumer_offsets_records.json (see README.md; build_records.sh compiles and runs it).
//   java -cp classes:JARS RecordsOracle SEED KAFKA_COMMIT OUT.json
// Keys and values: Kafka's generated record classes, serialized by GroupCoordinatorRecordSerde.
// A classic member's subscription and assignment: ConsumerProtocol.serializeSubscription and
// serializeAssignment; sticky user data: StickyAssignor (its V1 form through subscriptionUserData,
// its V0 form with its own V0 schema); cooperative-sticky user data: CooperativeStickyAssignor.
// The `expected` section comes from this program's model of what it wrote (latest record per key,
// tombstones delete), checked against Kafka's own reading of every byte it wrote.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolAssignmentJsonConverter;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.ConsumerProtocolSubscriptionJsonConverter;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.*;
import org.apache.kafka.server.common.ApiMessageAndVersion;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.*;

public class RecordsOracle {
    static final int NUM_PARTITIONS = 50;   // offsets.topic.num.partitions' default
    static final ObjectMapper JSON = new ObjectMapper();
    static final GroupCoordinatorRecordSerde SERDE = new GroupCoordinatorRecordSerde();
    static final String[] TYPE_NAMES = {
        "OffsetCommit", "OffsetCommit", "GroupMetadata", "ConsumerGroupMetadata", "ConsumerGroupPartitionMetadata",
        "ConsumerGroupMemberMetadata", "ConsumerGroupTargetAssignmentMetadata", "ConsumerGroupTargetAssignmentMember",
        "ConsumerGroupCurrentMemberAssignment", "ShareGroupPartitionMetadata", "ShareGroupMemberMetadata",
        "ShareGroupMetadata", "ShareGroupTargetAssignmentMetadata", "ShareGroupTargetAssignmentMember",
        "ShareGroupCurrentMemberAssignment", "ShareGroupStatePartitionMetadata"};
    static final String[] RACKS = {"use1-az1", "use1-az2", "use1-az4"};
    static final String[] METADATA = {"", "", "", "", "checkpoint", "批次-42", "café ✓ reprocessed",
        "{\"host\":\"worker-7\",\"lag\":0}", "🚀 launch", "spark-batch-000193"};

    // ------------------------------------------------------------------ what was written
    static final class Rec {
        String group;             // the group id the record is partitioned by
        byte[] key, value;
        Integer keyVersion, valueVersion;
        String type;
        JsonNode kafkaKey, kafkaValue;
        String problem;
        int partition;
        long offset;
    }

    /** The latest record of one logical key (offset keys of version 0 and 1 are one key). */
    static final class Latest {
        String group;
        int type, keyVersion;
        ApiMessage value;         // null: tombstone
        String problem;
        Object model;             // ClassicSnap for GroupMetadata
    }

    static final class CMemberSnap {
        String memberId, instanceId, rack;
        int subVersion, assignVersion;
        List<String> topics;
        TreeMap<String, List<Integer>> owned;       // null: subscription v0
        Integer generationId;
        int userData;                               // 0 none, 1 sticky V0, 2 sticky V1, 3 other
        TreeMap<String, List<Integer>> stickyClaims = new TreeMap<>();
        Integer stickyGeneration;
        Integer cooperativeGeneration;              // CooperativeStickyAssignor.memberData's generation; null: none or -1
        TreeMap<String, List<Integer>> assignment = new TreeMap<>();
        boolean garbage;
    }

    static final class ClassicSnap {
        String protocolType, protocol, leader;
        int generation;
        boolean consumerProtocol;
        List<CMemberSnap> members = new ArrayList<>();
    }

    final Random rnd;
    final List<List<Rec>> streams = new ArrayList<>();
    List<Rec> stream;
    final LinkedHashMap<String, Latest> latest = new LinkedHashMap<>();
    final ArrayNode embedded = JSON.createArrayNode();
    final Set<String> embeddedSeen = new HashSet<>();
    final Set<String> groupIds = new HashSet<>();
    final TreeMap<String, Integer> coverage = new TreeMap<>();
    final List<String> notes = new ArrayList<>();
    long clock = 1_714_000_000_000L;

    // the cluster's topics
    final LinkedHashMap<String, Integer> topicPartitions = new LinkedHashMap<>();
    final LinkedHashMap<String, Uuid> topicIds = new LinkedHashMap<>();

    RecordsOracle(long seed) {
        rnd = new Random(seed);
        String[] names = {"orders", "payments", "payments.v2", "clickstream-raw", "user_events", "inventory.updates",
            "shipments", "audit-log", "fraud.scores", "email-outbox", "search-index", "price-changes", "cart_events",
            "sessions", "metrics.host", "metrics.app", "logs.nginx", "logs.app", "geo.updates", "recommendations",
            "ledger", "notifications.push", "notifications.sms", "returns", "reviews", "catalog.products",
            "catalog.prices", "kyc.documents", "iot.telemetry", "iot.commands", "dead-letter", "retry-5m", "retry-1h",
            "cdc.public.customers", "cdc.public.accounts", "cdc.public.transactions", "feature-store.online",
            "ab-tests", "billing.invoices",
            "com.example.platform.data-engineering.ingestion.raw-events.partitioned-by-customer-region.v3.compacted"};
        int[] sizes = {1, 1, 2, 3, 3, 4, 6, 8, 12, 16};
        for (String n : names) {
            topicPartitions.put(n, sizes[rnd.nextInt(sizes.length)]);
            topicIds.put(n, uuid());
        }
        topicPartitions.put("clickstream-raw", 64);
        topicPartitions.put("iot.telemetry", 40);
        topicPartitions.put("logs.app", 24);
    }

    Uuid uuid() {
        while (true) {
            Uuid u = new Uuid(rnd.nextLong(), rnd.nextLong());
            if (!Uuid.RESERVED.contains(u) && !u.toString().startsWith("-")) return u;
        }
    }

    String javaUuid() { return new UUID(rnd.nextLong(), rnd.nextLong()).toString(); }

    long tick() { clock += 1 + rnd.nextInt(90_000); return clock; }

    void count(String what) { coverage.merge(what, 1, Integer::sum); }

    static <T> T pick(Random r, List<T> xs) { return xs.get(r.nextInt(xs.size())); }

    void begin(String groupId) {
        if (!groupIds.add(groupId)) throw new IllegalStateException("group id used twice: " + groupId);
        stream = new ArrayList<>();
        streams.add(stream);
    }

    List<String> pickTopics(int n) { return pickTopics(n, Integer.MAX_VALUE); }

    List<String> pickTopics(int n, int maxPartitions) {
        List<String> all = new ArrayList<>();
        for (Map.Entry<String, Integer> e : topicPartitions.entrySet()) if (e.getValue() <= maxPartitions) all.add(e.getKey());
        Collections.shuffle(all, rnd);
        List<String> out = new ArrayList<>(all.subList(0, n));
        Collections.sort(out);
        return out;
    }

    // ------------------------------------------------------------------ writing records
    static String logicalKey(ApiMessageAndVersion key) {
        ApiMessage m = key.message();
        if (m instanceof OffsetCommitKey) {
            OffsetCommitKey k = (OffsetCommitKey) m;
            return "offset|" + k.group() + "|" + k.topic() + "|" + k.partition();
        }
        return key.version() + "|" + String.join("|", groupAndMember(m));
    }

    static List<String> groupAndMember(ApiMessage m) {
        JsonNode j = keyJson(new ApiMessageAndVersion(m, m.highestSupportedVersion()));
        List<String> out = new ArrayList<>();
        j.properties().forEach(e -> out.add(e.getValue().asText()));
        return out;
    }

    static JsonNode keyJson(ApiMessageAndVersion key) { return converter(key); }

    static JsonNode valueJson(ApiMessageAndVersion value) { return converter(value); }

    static JsonNode converter(ApiMessageAndVersion mv) {   // the record class's generated JsonConverter
        try {
            Class<?> c = mv.message().getClass();
            Class<?> conv = Class.forName(c.getName() + "JsonConverter");
            Method w = conv.getMethod("write", c, short.class);
            return (JsonNode) w.invoke(null, mv.message(), mv.version());
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    static String groupOf(ApiMessage key) { return groupAndMember(key).get(0); }

    /** A record as Kafka writes it; problem: a defect of its content that Kafka's record reader does not see. */
    Rec emit(CoordinatorRecord record, Object model, String problem) { return emit(record, model, problem, null); }

    /**
     * relabel: a value version newer than Kafka knows, put in the value's version prefix over the body Kafka wrote.
     * GroupCoordinatorRecordSerde reads such a value with the newest layout it knows (KIP-915), so the record is an
     * ordinary one; its kafka_value is the converter's output at the version in the bytes.
     */
    Rec emit(CoordinatorRecord record, Object model, String problem, Integer relabel) {
        short type = record.key().version();
        Rec r = new Rec();
        r.group = groupOf(record.key().message());
        r.key = SERDE.serializeKey(record);
        r.value = SERDE.serializeValue(record);
        if (relabel != null) {
            if (relabel <= record.value().message().highestSupportedVersion()) throw new IllegalArgumentException("not newer");
            r.value[0] = (byte) (relabel >> 8);
            r.value[1] = (byte) (int) relabel;
        }
        // Kafka reads back exactly what was meant: no field was silently dropped by a version.
        CoordinatorRecord back = SERDE.deserialize(ByteBuffer.wrap(r.key), r.value == null ? null : ByteBuffer.wrap(r.value));
        if (relabel == null ? !back.equals(record) : !back.key().equals(record.key()) || back.value().version() != relabel
                || !back.value().message().equals(record.value().message()))
            throw new IllegalStateException("Kafka reads back something else: " + record + " vs " + back);
        r.keyVersion = (int) type;
        r.valueVersion = back.value() == null ? null : (int) back.value().version();
        r.type = TYPE_NAMES[type];
        r.kafkaKey = keyJson(back.key());
        r.kafkaValue = back.value() == null ? null : valueJson(back.value());
        r.problem = problem;
        if (relabel != null)
            notes.add("value version " + relabel + " over version " + record.value().version() + "'s body [" + r.group
                + "]: GroupCoordinatorRecordSerde.deserialize reads it, the same message");
        stream.add(r);
        Latest l = new Latest();
        l.group = r.group;
        l.type = type;
        l.value = record.value() == null ? null : record.value().message();
        l.problem = problem;
        l.model = model;
        l.keyVersion = type;
        Latest before = latest.put(logicalKey(record.key()), l);
        if (type <= 1 && before != null && before.keyVersion != l.keyVersion) count("offset key v" + before.keyVersion + " superseded by key v" + l.keyVersion);
        count("record " + r.type + " key v" + r.keyVersion + " value " + (r.valueVersion == null ? "null" : "v" + r.valueVersion));
        return r;
    }

    /** A record whose bytes were altered by hand; keyOf: the logical key it still names, or null when its key is undecodable. */
    void emitBroken(String group, byte[] key, byte[] value, String type, ApiMessageAndVersion keyOf, String problem,
                    boolean kafkaReadsIt) {
        Rec r = new Rec();
        r.group = group;
        r.key = key;
        r.value = value;
        r.keyVersion = key.length >= 2 ? (int) ByteBuffer.wrap(key).getShort() : null;
        r.valueVersion = value != null && value.length >= 2 ? (int) ByteBuffer.wrap(value).getShort() : null;
        r.type = type;
        r.kafkaKey = keyOf == null ? null : keyJson(keyOf);
        r.kafkaValue = null;
        r.problem = problem;
        String outcome;
        try {
            SERDE.deserialize(ByteBuffer.wrap(key), value == null ? null : ByteBuffer.wrap(value));
            outcome = "reads it";
        } catch (RuntimeException e) {
            outcome = "rejects it (" + e.getClass().getSimpleName() + ")";
        }
        if (kafkaReadsIt != outcome.equals("reads it"))
            throw new IllegalStateException(problem + ": GroupCoordinatorRecordSerde " + outcome);
        notes.add(problem + " [" + group + "]: GroupCoordinatorRecordSerde.deserialize " + outcome);
        stream.add(r);
        if (keyOf != null) {
            Latest l = new Latest();
            l.group = group;
            l.type = keyOf.version();
            l.keyVersion = keyOf.version();
            l.problem = problem;
            latest.put(logicalKey(keyOf), l);
        }
        count("broken: " + problem.replaceAll(" \\[.*", ""));
    }

    // ------------------------------------------------------------------ offsets
    final Map<String, Long> nextCommit = new HashMap<>();

    void commit(String group, String topic, int partition, int keyVersion, int valueVersion) {
        String k = group + "|" + topic + "|" + partition;
        long off = nextCommit.getOrDefault(k, (long) rnd.nextInt(5_000_000)) + 1 + rnd.nextInt(40_000);
        nextCommit.put(k, off);
        long ts = tick();
        OffsetCommitValue v = new OffsetCommitValue().setOffset(off).setMetadata(METADATA[rnd.nextInt(METADATA.length)])
            .setCommitTimestamp(ts);
        if (valueVersion >= 3) v.setLeaderEpoch(rnd.nextInt(4) == 0 ? -1 : rnd.nextInt(40));
        if (valueVersion == 1) v.setExpireTimestamp(rnd.nextInt(3) == 0 ? -1 : ts + 7L * 86_400_000);
        emit(new CoordinatorRecord(
            new ApiMessageAndVersion(new OffsetCommitKey().setGroup(group).setTopic(topic).setPartition(partition), (short) keyVersion),
            new ApiMessageAndVersion(v, (short) valueVersion)), null, null);
    }

    void offsetTombstone(String group, String topic, int partition) {
        emit(new CoordinatorRecord(new ApiMessageAndVersion(
            new OffsetCommitKey().setGroup(group).setTopic(topic).setPartition(partition), (short) 1), null), null, null);
    }

    /** Commits for some of the partitions a group was given; a few of them twice (the later one wins). */
    void commitSome(String group, Map<String, List<Integer>> given, int keyVersion, int valueVersion) {
        int total = 0;
        for (List<Integer> ps : given.values()) total += ps.size();
        double share = Math.min(0.5, 5.0 / Math.max(1, total));
        for (Map.Entry<String, List<Integer>> e : given.entrySet())
            for (int p : e.getValue()) {
                if (rnd.nextDouble() >= share) continue;
                int v = valueVersion >= 0 ? valueVersion : rnd.nextInt(5);
                commit(group, e.getKey(), p, keyVersion, v);
                if (rnd.nextInt(8) == 0) commit(group, e.getKey(), p, keyVersion, v);
            }
    }

    void deleteLiveOffsets(String group) {
        List<String[]> live = new ArrayList<>();
        for (Map.Entry<String, Latest> e : latest.entrySet())
            if (e.getKey().startsWith("offset|") && e.getValue().group.equals(group) && e.getValue().value != null) {
                String[] parts = e.getKey().split("\\|");
                live.add(new String[]{parts[parts.length - 2], parts[parts.length - 1]});
            }
        for (String[] tp : live) offsetTombstone(group, tp[0], Integer.parseInt(tp[1]));
    }

    /** Expires a few of a group's committed offsets, then commits one of them again. */
    void expireSome(String group, int keyVersion) {
        List<String[]> live = new ArrayList<>();
        for (Map.Entry<String, Latest> e : latest.entrySet())
            if (e.getKey().startsWith("offset|") && e.getValue().group.equals(group) && e.getValue().value != null) {
                String[] parts = e.getKey().split("\\|");
                live.add(new String[]{parts[parts.length - 2], parts[parts.length - 1]});
            }
        Collections.shuffle(live, rnd);
        for (int i = 0; i < Math.min(live.size(), 1 + rnd.nextInt(3)); i++)
            offsetTombstone(group, live.get(i)[0], Integer.parseInt(live.get(i)[1]));
        if (live.size() > 3 && rnd.nextBoolean()) commit(group, live.get(0)[0], Integer.parseInt(live.get(0)[1]), keyVersion, 3);
    }

    // ------------------------------------------------------------------ classic groups
    static final class CMember {
        String memberId, clientId, host, instanceId, rack;
        int subVersion;
        boolean oldSticky;
        List<String> topics;
        TreeMap<String, List<Integer>> given;   // the assignment of the last generation it had
        int givenGeneration = -1;
    }

    static final class ClassicSpec {
        String protocolType = "consumer", protocol;
        int topics = 4, members = 3, generations = 3, startGeneration = 1;
        boolean statics, racks, heterogeneous, oldClients, v0Keys, lastEmpty;
        int fixedValueVersion = -1;                 // -1: any
        int[] subVersions = {0, 1, 2, 3};
        int maxPartitions = Integer.MAX_VALUE;
        String memberStyle = "plain";               // plain, long
        int offsetValueVersion = -1;
        ClassicSpec(String protocol) {
            this.protocol = protocol;
            if (protocol.equals("cooperative-sticky")) subVersions = new int[]{1, 2, 3};   // it came with v1 (KIP-429)
        }
    }

    int valueVersionCursor = 0;

    CMember newMember(String group, ClassicSpec s, int index) {
        CMember m = new CMember();
        m.clientId = "consumer-" + group + "-" + (index + 1);
        if (s.memberStyle.equals("long"))
            m.clientId = "spark-executor-driver-" + group + "-application_1714000000000_" + (1000 + index) + "-attempt-1-" + index;
        m.host = "/10." + rnd.nextInt(256) + "." + rnd.nextInt(256) + "." + rnd.nextInt(256);
        if (s.statics) m.instanceId = (index % 3 == 2 ? "実例-" : "instance-") + index;
        m.memberId = (m.instanceId != null ? m.instanceId : m.clientId) + "-" + javaUuid();
        m.rack = s.racks && rnd.nextInt(5) != 0 ? RACKS[rnd.nextInt(RACKS.length)] : null;
        m.subVersion = s.subVersions[rnd.nextInt(s.subVersions.length)];
        m.oldSticky = s.oldClients || rnd.nextInt(3) == 0;
        return m;
    }

    /** Writes a classic group's generations (and offsets); returns its latest members. */
    List<CMember> classicGroup(String group, ClassicSpec s) {
        List<String> topics = pickTopics(s.topics, s.maxPartitions);
        List<CMember> members = new ArrayList<>();
        for (int i = 0; i < s.members; i++) members.add(newMember(group, s, i));
        int next = s.members;
        int generation = s.startGeneration;
        for (int g = 0; g < s.generations; g++, generation++) {
            if (g > 0) {   // churn
                if (members.size() > 1 && rnd.nextInt(3) == 0) members.remove(rnd.nextInt(members.size()));
                if (rnd.nextInt(2) == 0) members.add(newMember(group, s, next++));
            }
            for (CMember m : members) {
                if (m.topics == null || rnd.nextInt(6) == 0) {
                    if (s.heterogeneous) {
                        List<String> mine = new ArrayList<>(topics);
                        Collections.shuffle(mine, rnd);
                        m.topics = new ArrayList<>(mine.subList(0, 1 + rnd.nextInt(mine.size())));
                    } else m.topics = new ArrayList<>(topics);
                    if (rnd.nextInt(10) == 0) m.topics.add("not-created-yet");
                }
            }
            int version = s.fixedValueVersion >= 0 ? s.fixedValueVersion : (valueVersionCursor++ + rnd.nextInt(2)) % 5;
            boolean last = g == s.generations - 1;
            if (last && s.lastEmpty) {
                writeClassic(group, s, new ArrayList<>(), generation, version, null);
            } else {
                writeClassic(group, s, members, generation, version, null);
            }
            if (s.protocolType.equals("consumer") && !(last && s.lastEmpty)) {
                TreeMap<String, List<Integer>> union = new TreeMap<>();
                for (CMember m : members)
                    m.given.forEach((t, ps) -> union.computeIfAbsent(t, x -> new ArrayList<>()).addAll(ps));
                commitSome(group, union, s.v0Keys && g == 0 ? 0 : 1, s.offsetValueVersion);
            }
        }
        return members;
    }

    /** The assignment a leader might make: each topic's partitions dealt over its subscribers in id order. */
    Map<String, TreeMap<String, List<Integer>>> deal(List<CMember> members) {
        Map<String, TreeMap<String, List<Integer>>> out = new HashMap<>();
        TreeSet<String> all = new TreeSet<>();
        for (CMember m : members) {
            out.put(m.memberId, new TreeMap<>());
            all.addAll(m.topics);
        }
        int shift = rnd.nextInt(7);
        for (String t : all) {
            Integer n = topicPartitions.get(t);
            if (n == null) continue;
            List<String> subs = new ArrayList<>();
            for (CMember m : members) if (m.topics.contains(t)) subs.add(m.memberId);
            Collections.sort(subs);
            for (int p = 0; p < n; p++)
                out.get(subs.get((p + shift) % subs.size())).computeIfAbsent(t, x -> new ArrayList<>()).add(p);
            shift++;
        }
        return out;
    }

    static List<TopicPartition> flat(Map<String, List<Integer>> m) {
        List<TopicPartition> out = new ArrayList<>();
        m.forEach((t, ps) -> ps.forEach(p -> out.add(new TopicPartition(t, p))));
        return out;
    }

    static final Schema STICKY_V0 = staticField(StickyAssignor.class, "STICKY_ASSIGNOR_USER_DATA_V0");
    static final Schema STICKY_TOPIC = staticField(StickyAssignor.class, "TOPIC_ASSIGNMENT");

    @SuppressWarnings("unchecked")
    static <T> T staticField(Class<?> c, String name) {
        try {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return (T) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** StickyAssignor's user data in its V0 form (no generation), written with its own V0 schema. */
    static ByteBuffer stickyV0(Map<String, List<Integer>> claims) {
        Struct struct = new Struct(STICKY_V0);
        List<Struct> topics = new ArrayList<>();
        claims.forEach((t, ps) -> {
            Struct ta = new Struct(STICKY_TOPIC);
            ta.set("topic", t);
            ta.set("partitions", ps.toArray());
            topics.add(ta);
        });
        struct.set("previous_assignment", topics.toArray());
        ByteBuffer buffer = ByteBuffer.allocate(STICKY_V0.sizeOf(struct));
        STICKY_V0.write(buffer, struct);
        buffer.flip();
        return buffer;
    }

    /** Kafka's StickyAssignor reading its user data. */
    static MemberData stickyRead(byte[] userData) {
        try {
            Method m = StickyAssignor.class.getDeclaredMethod("deserializeTopicPartitionAssignment", ByteBuffer.class);
            m.setAccessible(true);
            return (MemberData) m.invoke(null, ByteBuffer.wrap(userData));
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** Kafka's CooperativeStickyAssignor reading a member's subscription: its memberData's generation, null for -1. */
    static Integer cooperativeGeneration(byte[] subscription) {
        try {
            Method m = CooperativeStickyAssignor.class.getDeclaredMethod("memberData", Subscription.class);
            m.setAccessible(true);
            MemberData md = (MemberData) m.invoke(new CooperativeStickyAssignor(),
                ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(subscription)));
            return md.generation.filter(g -> g != -1).orElse(null);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    void writeClassic(String group, ClassicSpec s, List<CMember> members, int generation, int version, String garbageMember) {
        writeClassic(group, s, members, generation, version, garbageMember, null, null);
    }

    void writeClassic(String group, ClassicSpec s, List<CMember> members, int generation, int version, String garbageMember,
                      String cutValueProblem) {
        writeClassic(group, s, members, generation, version, garbageMember, cutValueProblem, null);
    }

    /** One GroupMetadata record; garbageMember's subscription is replaced by bytes that are no ConsumerProtocolSubscription. */
    ClassicSnap writeClassic(String group, ClassicSpec s, List<CMember> members, int generation, int version,
                             String garbageMember, String cutValueProblem, Integer relabel) {
        ClassicSnap snap = new ClassicSnap();
        snap.protocolType = s.protocolType;
        snap.generation = generation;
        snap.consumerProtocol = s.protocolType.equals("consumer");
        List<CMember> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparing(m -> m.memberId));
        snap.protocol = members.isEmpty() ? null : s.protocol;
        snap.leader = members.isEmpty() ? null : sorted.get(rnd.nextInt(sorted.size())).memberId;
        Map<String, TreeMap<String, List<Integer>>> dealt = snap.consumerProtocol && !members.isEmpty() ? deal(members) : Map.of();
        GroupMetadataValue value = new GroupMetadataValue().setProtocolType(s.protocolType).setGeneration(generation)
            .setProtocol(snap.protocol).setLeader(snap.leader);
        if (version >= 2) value.setCurrentStateTimestamp(tick());
        List<GroupMetadataValue.MemberMetadata> mms = new ArrayList<>();
        List<Object[]> embeds = new ArrayList<>();
        for (CMember m : members) {
            GroupMetadataValue.MemberMetadata mm = new GroupMetadataValue.MemberMetadata().setMemberId(m.memberId)
                .setClientId(m.clientId).setClientHost(m.host).setSessionTimeout(rnd.nextBoolean() ? 45_000 : 10_000);
            if (version >= 1) mm.setRebalanceTimeout(300_000);
            if (version >= 3) mm.setGroupInstanceId(m.instanceId);
            CMemberSnap ms = new CMemberSnap();
            ms.memberId = m.memberId;
            ms.instanceId = version >= 3 ? m.instanceId : null;
            if (snap.consumerProtocol) {
                ms.subVersion = m.subVersion;
                ms.topics = new ArrayList<>(new TreeSet<>(m.topics));
                boolean hadGiven = m.given != null;
                List<TopicPartition> owned = new ArrayList<>();
                if (hadGiven && !s.protocol.equals("sticky") && (s.protocol.equals("cooperative-sticky") || rnd.nextInt(3) != 0))
                    owned = flat(m.given);
                int generationId = hadGiven ? m.givenGeneration : -1;
                ByteBuffer userData = null;
                if (s.protocol.equals("sticky") && hadGiven) {
                    if (m.oldSticky) {
                        userData = stickyV0(m.given);
                        ms.userData = 1;
                    } else {
                        StickyAssignor a = new StickyAssignor();
                        a.onAssignment(new Assignment(flat(m.given)),
                            new ConsumerGroupMetadata(group, m.givenGeneration, m.memberId, Optional.ofNullable(m.instanceId)));
                        userData = a.subscriptionUserData(new HashSet<>(m.topics));
                        ms.userData = 2;
                        ms.stickyGeneration = m.givenGeneration;
                    }
                    m.given.forEach((t, ps) -> ms.stickyClaims.put(t, new ArrayList<>(ps)));
                } else if (s.protocol.equals("cooperative-sticky")) {
                    CooperativeStickyAssignor a = new CooperativeStickyAssignor();
                    if (hadGiven)
                        a.onAssignment(new Assignment(flat(m.given)),
                            new ConsumerGroupMetadata(group, m.givenGeneration, m.memberId, Optional.ofNullable(m.instanceId)));
                    userData = a.subscriptionUserData(new HashSet<>(m.topics));
                    ms.userData = 3;
                } else if (!s.protocol.equals("range") && !s.protocol.equals("roundrobin") && !s.protocol.equals("sticky")) {
                    userData = ByteBuffer.wrap(("{\"weight\":" + (1 + rnd.nextInt(9)) + ",\"zone\":\"é\"}").getBytes(StandardCharsets.UTF_8));
                    ms.userData = 3;
                }
                List<String> subTopics = new ArrayList<>(m.topics);
                Collections.shuffle(subTopics, rnd);
                byte[] sub = bytes(ConsumerProtocol.serializeSubscription(
                    new Subscription(subTopics, userData, owned, generationId, Optional.ofNullable(m.rack)), (short) m.subVersion));
                if (m.subVersion >= 1) {
                    ms.owned = new TreeMap<>();
                    for (TopicPartition tp : owned) ms.owned.computeIfAbsent(tp.topic(), x -> new ArrayList<>()).add(tp.partition());
                    ms.owned.values().forEach(Collections::sort);
                }
                ms.generationId = m.subVersion >= 2 && generationId != -1 ? generationId : null;
                if (s.protocol.equals("cooperative-sticky")) {
                    // the subscription's generation (v2+), else the one its user data carries (-1 before any assignment)
                    ms.cooperativeGeneration = cooperativeGeneration(sub);
                    Integer meant = hadGiven ? Integer.valueOf(m.givenGeneration) : null;
                    if (!Objects.equals(ms.cooperativeGeneration, meant))
                        throw new IllegalStateException("cooperative-sticky generation " + ms.cooperativeGeneration + " " + meant);
                    if (m.subVersion < 2 && meant != null) count("cooperative-sticky generation from user data");
                }
                ms.rack = m.subVersion >= 3 ? m.rack : null;
                ms.assignVersion = rnd.nextInt(4);
                TreeMap<String, List<Integer>> given = dealt.get(m.memberId);
                ByteBuffer assignmentUserData = ms.userData == 3 && !s.protocol.equals("cooperative-sticky")
                    ? ByteBuffer.wrap(new byte[]{0, 1, (byte) rnd.nextInt(128)}) : null;
                byte[] asg = bytes(ConsumerProtocol.serializeAssignment(new Assignment(flat(given), assignmentUserData), (short) ms.assignVersion));
                given.forEach((t, ps) -> ms.assignment.put(t, new ArrayList<>(ps)));
                check(group, m.memberId, sub, ms, asg);
                if (m.memberId.equals(garbageMember)) {
                    ms.garbage = true;
                    sub = garbage(sub);
                } else {
                    embeds.add(new Object[]{m.memberId, "subscription", m.subVersion, sub});
                    if (s.protocol.equals("sticky") && ms.userData != 0)
                        embeds.add(new Object[]{m.memberId, "sticky_user_data", ms.userData == 1 ? 0 : 1, bytes(userData)});
                }
                embeds.add(new Object[]{m.memberId, "assignment", ms.assignVersion, asg});
                count("subscription v" + m.subVersion);
                count("assignment v" + ms.assignVersion);
                if (m.instanceId != null && version >= 3) count("static member");
                if (ms.userData == 1) count("sticky user data V0");
                if (ms.userData == 2) count("sticky user data V1");
                if (ms.rack != null) count("rack on subscription");
                mm.setSubscription(sub).setAssignment(asg);
            } else {
                // Connect's worker protocol: opaque here.
                ByteBuffer b = ByteBuffer.allocate(64);
                b.putShort((short) 1);
                byte[] url = ("http://connect-" + Math.floorMod(m.clientId.hashCode(), 100) + ":8083/").getBytes(StandardCharsets.UTF_8);
                b.putShort((short) url.length).put(url).putLong(rnd.nextInt(5000));
                mm.setSubscription(Arrays.copyOf(b.array(), b.position()));
                mm.setAssignment(new byte[]{0, 1, 0, (byte) rnd.nextInt(3), 0, 0, 0, 0});
            }
            mms.add(mm);
            snap.members.add(ms);
        }
        value.setMembers(mms);
        ApiMessageAndVersion key = new ApiMessageAndVersion(new GroupMetadataKey().setGroup(group), (short) 2);
        CoordinatorRecord record = new CoordinatorRecord(key, new ApiMessageAndVersion(value, (short) version));
        if (cutValueProblem != null) {
            byte[] v = SERDE.serializeValue(record);
            emitBroken(group, SERDE.serializeKey(record), Arrays.copyOf(v, v.length / 2), "GroupMetadata", key, cutValueProblem, false);
            return snap;
        }
        String problem = garbageMember == null ? null : "garbage subscription: member " + garbageMember;
        emit(record, snap, problem, relabel);
        for (Object[] e : embeds) embed(group, (String) e[0], (String) e[1], (Integer) e[2], (byte[]) e[3]);
        count("GroupMetadataValue v" + (relabel != null ? relabel + " (v" + version + "'s body)" : version) + " protocolType " + s.protocolType);
        // what each member was given, for the next generation's claims and the offsets
        for (CMember m : members) {
            m.given = snap.consumerProtocol ? dealt.get(m.memberId) : new TreeMap<>();
            m.givenGeneration = generation;
        }
        return snap;
    }

    /** Bytes that Kafka's ConsumerProtocol cannot read: the version, then a topic count far past the end. */
    byte[] garbage(byte[] sub) {
        byte[] g = new byte[11 + rnd.nextInt(20)];
        rnd.nextBytes(g);
        g[0] = 0;
        g[1] = (byte) rnd.nextInt(4);
        g[2] = 0x7f;
        try {
            ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(g));
        } catch (RuntimeException e) {
            return g;
        }
        throw new IllegalStateException("Kafka reads the garbage");
    }

    /** Kafka's ConsumerProtocol and StickyAssignor read back what the model says was written. */
    void check(String group, String memberId, byte[] sub, CMemberSnap ms, byte[] asg) {
        Subscription read = ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(sub));
        if (!read.topics().equals(ms.topics)) throw new IllegalStateException("topics " + read.topics() + " " + ms.topics);
        TreeMap<String, List<Integer>> owned = new TreeMap<>();
        for (TopicPartition tp : read.ownedPartitions()) owned.computeIfAbsent(tp.topic(), x -> new ArrayList<>()).add(tp.partition());
        if (!owned.equals(ms.owned == null ? Map.of() : ms.owned)) throw new IllegalStateException("owned " + owned + " " + ms.owned);
        if (!read.generationId().equals(Optional.ofNullable(ms.generationId))) throw new IllegalStateException("generation");
        if (!read.rackId().equals(Optional.ofNullable(ms.rack))) throw new IllegalStateException("rack");
        if (ms.userData == 1 || ms.userData == 2) {
            MemberData md = stickyRead(bytes(read.userData()));
            TreeMap<String, List<Integer>> claims = new TreeMap<>();
            for (TopicPartition tp : md.partitions) claims.computeIfAbsent(tp.topic(), x -> new ArrayList<>()).add(tp.partition());
            claims.values().forEach(Collections::sort);
            if (!claims.equals(ms.stickyClaims) || !md.generation.equals(Optional.ofNullable(ms.stickyGeneration)))
                throw new IllegalStateException("sticky user data " + claims + " " + md.generation);
        }
        Assignment a = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(asg));
        TreeMap<String, List<Integer>> given = new TreeMap<>();
        for (TopicPartition tp : a.partitions()) given.computeIfAbsent(tp.topic(), x -> new ArrayList<>()).add(tp.partition());
        if (!given.equals(ms.assignment)) throw new IllegalStateException("assignment");
    }

    void embed(String group, String member, String kind, int version, byte[] b) {
        String b64 = Base64.getEncoder().encodeToString(b);
        if (!embeddedSeen.add(group + "\u0000" + member + "\u0000" + kind + "\u0000" + b64)) return;
        ObjectNode e = JSON.createObjectNode();
        e.put("group_id", group);
        e.put("member_id", member);
        e.put("kind", kind);
        e.put("version", version);
        e.put("bytes", b64);
        if (kind.equals("subscription")) {
            ConsumerProtocolSubscription s = ConsumerProtocol.deserializeConsumerProtocolSubscription(ByteBuffer.wrap(b));
            e.set("kafka", ConsumerProtocolSubscriptionJsonConverter.write(s, (short) version));
        } else if (kind.equals("assignment")) {
            ConsumerProtocolAssignment a = ConsumerProtocol.deserializeConsumerProtocolAssignment(ByteBuffer.wrap(b));
            e.set("kafka", ConsumerProtocolAssignmentJsonConverter.write(a, (short) version));
        } else {
            MemberData md = stickyRead(b);
            ObjectNode k = JSON.createObjectNode();
            ArrayNode parts = k.putArray("partitions");
            ObjectNode cur = null;
            for (TopicPartition tp : md.partitions) {
                if (cur == null || !cur.get("topic").asText().equals(tp.topic())) {
                    cur = parts.addObject();
                    cur.put("topic", tp.topic());
                    cur.putArray("partitions");
                }
                ((ArrayNode) cur.get("partitions")).add(tp.partition());
            }
            if (md.generation.isPresent()) k.put("generation", md.generation.get());
            else k.putNull("generation");
            e.set("kafka", k);
        }
        embedded.add(e);
        count("embedded " + kind + " v" + version);
    }

    void classicTombstone(String group) {
        emit(new CoordinatorRecord(new ApiMessageAndVersion(new GroupMetadataKey().setGroup(group), (short) 2), null), null, null);
    }

    // ------------------------------------------------------------------ consumer groups (KIP-848)
    static final class KMember {
        String memberId, instanceId, rack, clientId, host, assignor;
        List<String> topics;
        ConsumerGroupMemberMetadataValue.ClassicMemberMetadata classic;
        TreeMap<String, TreeSet<Integer>> target = new TreeMap<>(), assigned = new TreeMap<>(), pending = new TreeMap<>();
        int epoch, previousEpoch;
        boolean wroteTarget;
    }

    static final class KSpec {
        int topics = 4, members = 3, rounds = 3, startEpoch = 1, maxPartitions = Integer.MAX_VALUE;
        String[] assignors = {"uniform", "range", null};
        boolean statics, racks, classicMembers, leaveOne, allLeave, delete, transition, noCurrentForNewcomer, partitionRacks;
        String unknownTopicId;   // "assigned" or "pending"
        boolean cutMemberValue;
    }

    ConsumerGroupMemberMetadataValue memberValue(KMember m) {
        List<String> topics = new ArrayList<>(new TreeSet<>(m.topics));
        return new ConsumerGroupMemberMetadataValue().setInstanceId(m.instanceId).setRackId(m.rack).setClientId(m.clientId)
            .setClientHost(m.host).setSubscribedTopicNames(topics).setSubscribedTopicRegex("").setRebalanceTimeoutMs(300_000)
            .setServerAssignor(m.assignor).setClassicMemberMetadata(m.classic);
    }

    KMember newKMember(String group, KSpec s, int index) {
        KMember m = new KMember();
        m.memberId = uuid().toString();
        m.clientId = "consumer-" + group + "-" + (index + 1);
        m.host = "/10." + rnd.nextInt(256) + "." + rnd.nextInt(256) + "." + rnd.nextInt(256);
        if (s.statics && rnd.nextBoolean()) m.instanceId = "pod-" + group.length() + "-" + index;
        if (s.racks) m.rack = RACKS[rnd.nextInt(RACKS.length)];
        if (s.classicMembers && rnd.nextBoolean()) {
            // a consumer still on the classic protocol: its join metadata, no server assignor
            m.assignor = null;
            return m;
        }
        m.assignor = s.assignors[rnd.nextInt(s.assignors.length)];
        return m;
    }

    void classicMetadataFor(String group, KMember m) {
        List<ConsumerGroupMemberMetadataValue.ClassicProtocol> protocols = new ArrayList<>();
        for (String name : new String[]{"cooperative-sticky", "range"}) {
            byte[] sub = bytes(ConsumerProtocol.serializeSubscription(
                new Subscription(m.topics, null, flat(toLists(m.assigned)), m.epoch > 0 ? m.epoch : -1, Optional.ofNullable(m.rack)), (short) 3));
            protocols.add(new ConsumerGroupMemberMetadataValue.ClassicProtocol().setName(name).setMetadata(sub));
        }
        m.classic = new ConsumerGroupMemberMetadataValue.ClassicMemberMetadata().setSessionTimeoutMs(45_000).setSupportedProtocols(protocols);
        count("ClassicMemberMetadata");
    }

    static TreeMap<String, List<Integer>> toLists(TreeMap<String, TreeSet<Integer>> m) {
        TreeMap<String, List<Integer>> out = new TreeMap<>();
        m.forEach((t, ps) -> { if (!ps.isEmpty()) out.put(t, new ArrayList<>(ps)); });
        return out;
    }

    List<ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions> byId(TreeMap<String, TreeSet<Integer>> m) {
        List<ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions> out = new ArrayList<>();
        m.forEach((t, ps) -> {
            if (!ps.isEmpty())
                out.add(new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions().setTopicId(topicIds.get(t)).setPartitions(new ArrayList<>(ps)));
        });
        return out;
    }

    ApiMessageAndVersion kkey(int type, String group, String member) {
        ApiMessage k;
        switch (type) {
            case 3: k = new ConsumerGroupMetadataKey().setGroupId(group); break;
            case 4: k = new ConsumerGroupPartitionMetadataKey().setGroupId(group); break;
            case 5: k = new ConsumerGroupMemberMetadataKey().setGroupId(group).setMemberId(member); break;
            case 6: k = new ConsumerGroupTargetAssignmentMetadataKey().setGroupId(group); break;
            case 7: k = new ConsumerGroupTargetAssignmentMemberKey().setGroupId(group).setMemberId(member); break;
            case 8: k = new ConsumerGroupCurrentMemberAssignmentKey().setGroupId(group).setMemberId(member); break;
            default: throw new IllegalArgumentException();
        }
        return new ApiMessageAndVersion(k, (short) type);
    }

    void kemit(int type, String group, String member, ApiMessage value) { kemit(type, group, member, value, null); }

    void kemit(int type, String group, String member, ApiMessage value, String problem) {
        emit(new CoordinatorRecord(kkey(type, group, member), value == null ? null : new ApiMessageAndVersion(value, (short) 0)), null, problem);
    }

    void leave(String group, KMember m) {
        kemit(8, group, m.memberId, null);
        kemit(7, group, m.memberId, null);
        kemit(5, group, m.memberId, null);
        count("consumer member left");
    }

    /** Writes a consumer group's rounds in the order the coordinator does: members, metadata, epoch, target, current. */
    void consumerGroup(String group, KSpec s) {
        List<String> topics = pickTopics(s.topics, s.maxPartitions);
        LinkedHashMap<String, KMember> members = new LinkedHashMap<>();
        int next = 0;
        for (; next < s.members; next++) {
            KMember m = newKMember(group, s, next);
            members.put(m.memberId, m);
        }
        TreeSet<String> metadataTopics = null;
        int epoch = s.startEpoch - 1;
        for (int r = 0; r < s.rounds; r++) {
            boolean last = r == s.rounds - 1;
            List<KMember> changed = new ArrayList<>();
            if (r > 0) {
                if ((s.leaveOne && last) || (members.size() > 2 && rnd.nextInt(3) == 0)) {
                    KMember gone = new ArrayList<>(members.values()).get(rnd.nextInt(members.size()));
                    members.remove(gone.memberId);
                    leave(group, gone);
                }
                if (s.allLeave && last) {
                    for (KMember gone : new ArrayList<>(members.values())) leave(group, gone);
                    members.clear();
                }
                if (!(s.allLeave && last) && rnd.nextBoolean()) {
                    KMember m = newKMember(group, s, next++);
                    members.put(m.memberId, m);
                }
            }
            for (KMember m : members.values()) {
                if (m.topics == null || rnd.nextInt(5) == 0) {
                    List<String> mine = new ArrayList<>(topics);
                    Collections.shuffle(mine, rnd);
                    m.topics = rnd.nextInt(3) == 0 ? new ArrayList<>(mine.subList(0, 1 + rnd.nextInt(mine.size()))) : new ArrayList<>(topics);
                    if (rnd.nextInt(8) == 0) m.topics.add("not-created-yet");
                    if (s.classicMembers && m.assignor == null) classicMetadataFor(group, m);
                    changed.add(m);
                }
            }
            if (s.cutMemberValue && last && changed.isEmpty()) changed.add(members.values().iterator().next());
            KMember cutOne = null;
            for (KMember m : changed) {
                if (s.cutMemberValue && last && cutOne == null) { cutOne = m; continue; }
                kemit(5, group, m.memberId, memberValue(m));
            }
            if (cutOne != null) {
                CoordinatorRecord rec = new CoordinatorRecord(kkey(5, group, cutOne.memberId), new ApiMessageAndVersion(memberValue(cutOne), (short) 0));
                byte[] v = SERDE.serializeValue(rec);
                emitBroken(group, SERDE.serializeKey(rec), Arrays.copyOf(v, v.length - 5), "ConsumerGroupMemberMetadata",
                    rec.key(), "truncated value", false);
            }
            TreeSet<String> wanted = new TreeSet<>();
            for (KMember m : members.values()) for (String t : m.topics) if (topicPartitions.containsKey(t)) wanted.add(t);
            if (metadataTopics == null || !wanted.equals(metadataTopics)) {
                ConsumerGroupPartitionMetadataValue pm = new ConsumerGroupPartitionMetadataValue();
                for (String t : wanted) {
                    ConsumerGroupPartitionMetadataValue.TopicMetadata tm = new ConsumerGroupPartitionMetadataValue.TopicMetadata()
                        .setTopicId(topicIds.get(t)).setTopicName(t).setNumPartitions(topicPartitions.get(t));
                    if (s.partitionRacks) {
                        List<ConsumerGroupPartitionMetadataValue.PartitionMetadata> racks = new ArrayList<>();
                        for (int p = 0; p < topicPartitions.get(t); p++)
                            racks.add(new ConsumerGroupPartitionMetadataValue.PartitionMetadata().setPartition(p)
                                .setRacks(Arrays.asList(RACKS[p % 3], RACKS[(p + 1) % 3])));
                        tm.setPartitionMetadata(racks);
                    }
                    pm.topics().add(tm);
                }
                kemit(4, group, null, pm);
                metadataTopics = wanted;
            }
            epoch++;
            kemit(3, group, null, new ConsumerGroupMetadataValue().setEpoch(epoch));
            // target: each topic's partitions dealt over its subscribers in id order
            Map<String, TreeMap<String, TreeSet<Integer>>> target = new HashMap<>();
            for (KMember m : members.values()) target.put(m.memberId, new TreeMap<>());
            int shift = rnd.nextInt(5);
            for (String t : wanted) {
                List<String> subs = new ArrayList<>();
                for (KMember m : members.values()) if (m.topics.contains(t)) subs.add(m.memberId);
                Collections.sort(subs);
                for (int p = 0; p < topicPartitions.get(t); p++)
                    target.get(subs.get((p + shift) % subs.size())).computeIfAbsent(t, x -> new TreeSet<>()).add(p);
                shift++;
            }
            KMember newcomer = s.noCurrentForNewcomer && last ? newKMember(group, s, next++) : null;
            for (KMember m : members.values()) {
                TreeMap<String, TreeSet<Integer>> t = target.get(m.memberId);
                if (!m.wroteTarget || !t.equals(m.target)) {
                    List<ConsumerGroupTargetAssignmentMemberValue.TopicPartition> tps = new ArrayList<>();
                    t.forEach((name, ps) -> tps.add(new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                        .setTopicId(topicIds.get(name)).setPartitions(new ArrayList<>(ps))));
                    kemit(7, group, m.memberId, new ConsumerGroupTargetAssignmentMemberValue().setTopicPartitions(tps));
                    m.wroteTarget = true;
                }
                m.target = t;
            }
            kemit(6, group, null, new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(epoch));
            // current assignments: stable, or (last round of a transition) a member still revoking and one waiting
            Set<String> stillOwned = new HashSet<>();
            Map<String, byte[]> state = new HashMap<>();
            // members that have not heartbeated since: their record stays, and what they hold is not handed on yet
            Set<String> stragglers = new HashSet<>();
            if (r > 0 && !last)
                for (KMember m : members.values())
                    if (m.epoch > 0 && wanted.containsAll(m.assigned.keySet()) && rnd.nextInt(6) == 0) {
                        stragglers.add(m.memberId);
                        m.assigned.forEach((t, ps) -> ps.forEach(p -> stillOwned.add(t + "-" + p)));
                    }
            if (s.transition && last) {
                for (KMember m : members.values()) {
                    TreeMap<String, TreeSet<Integer>> revoke = new TreeMap<>();
                    m.assigned.forEach((t, ps) -> ps.forEach(p -> {
                        if (!m.target.getOrDefault(t, new TreeSet<>()).contains(p) && m.topics.contains(t))
                            revoke.computeIfAbsent(t, x -> new TreeSet<>()).add(p);
                    }));
                    if (!revoke.isEmpty() && state.isEmpty()) {
                        m.pending = revoke;
                        revoke.forEach((t, ps) -> ps.forEach(p -> stillOwned.add(t + "-" + p)));
                        state.put(m.memberId, new byte[]{1});
                    }
                }
            }
            for (KMember m : members.values()) {
                if (m.epoch == epoch) continue;
                boolean revoking = state.containsKey(m.memberId);
                if (stragglers.contains(m.memberId)) {
                    count("consumer member behind the group epoch");
                    continue;
                }
                byte st = 0;
                TreeMap<String, TreeSet<Integer>> now = new TreeMap<>();
                if (revoking) {
                    st = 1;
                    m.assigned.forEach((t, ps) -> ps.forEach(p -> {
                        if (m.target.getOrDefault(t, new TreeSet<>()).contains(p)) now.computeIfAbsent(t, x -> new TreeSet<>()).add(p);
                    }));
                } else {
                    m.pending = new TreeMap<>();
                    m.target.forEach((t, ps) -> ps.forEach(p -> {
                        if (!stillOwned.contains(t + "-" + p)) now.computeIfAbsent(t, x -> new TreeSet<>()).add(p);
                    }));
                    if (!now.equals(m.target)) st = 2;
                }
                m.assigned = now;
                if (!revoking) {
                    m.previousEpoch = m.epoch;
                    m.epoch = epoch;
                }
                ConsumerGroupCurrentMemberAssignmentValue cur = new ConsumerGroupCurrentMemberAssignmentValue()
                    .setMemberEpoch(m.epoch).setPreviousMemberEpoch(m.previousEpoch).setState(st)
                    .setAssignedPartitions(byId(m.assigned)).setPartitionsPendingRevocation(byId(m.pending));
                String problem = null;
                if (s.unknownTopicId != null && last && members.values().iterator().next() == m) {
                    Uuid unknown = uuid();
                    List<ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions> l = new ArrayList<>(
                        s.unknownTopicId.equals("assigned") ? cur.assignedPartitions() : cur.partitionsPendingRevocation());
                    l.add(new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions().setTopicId(unknown).setPartitions(List.of(0, 3)));
                    if (s.unknownTopicId.equals("assigned")) cur.setAssignedPartitions(l);
                    else cur.setPartitionsPendingRevocation(l);
                    problem = "unknown topic id: " + unknown + " in " + (s.unknownTopicId.equals("assigned")
                        ? "assigned partitions" : "partitions pending revocation") + ", no partition metadata names it";
                }
                kemit(8, group, m.memberId, cur, problem);
                if (st != 0) count("current assignment state " + st);
                if (!m.pending.isEmpty()) count("partitions pending revocation");
            }
            if (newcomer != null) {
                newcomer.topics = new ArrayList<>(topics);
                kemit(5, group, newcomer.memberId, memberValue(newcomer));
                members.put(newcomer.memberId, newcomer);
                count("consumer member without current assignment");
            }
            // offsets: members commit what they hold
            for (KMember m : members.values())
                for (Map.Entry<String, TreeSet<Integer>> e : m.assigned.entrySet())
                    for (int p : e.getValue()) if (rnd.nextInt(16) == 0) commit(group, e.getKey(), p, 1, 3 + rnd.nextInt(2));
        }
        if (s.delete) {
            deleteLiveOffsets(group);
            List<String> ids = new ArrayList<>(members.keySet());
            for (String id : ids) kemit(8, group, id, null);
            for (String id : ids) kemit(7, group, id, null);
            kemit(6, group, null, null);
            for (String id : ids) kemit(5, group, id, null);
            kemit(4, group, null, null);
            kemit(3, group, null, null);
            count("consumer group deleted");
        }
    }

    // ------------------------------------------------------------------ share groups
    void shareGroup(String group) {
        List<String> topics = pickTopics(2);
        ShareGroupPartitionMetadataValue pm = new ShareGroupPartitionMetadataValue();
        for (String t : topics)
            pm.topics().add(new ShareGroupPartitionMetadataValue.TopicMetadata().setTopicId(topicIds.get(t)).setTopicName(t)
                .setNumPartitions(topicPartitions.get(t)));
        for (int i = 0; i < 2; i++)
            emit(new CoordinatorRecord(new ApiMessageAndVersion(new ShareGroupMemberMetadataKey().setGroupId(group)
                .setMemberId(uuid().toString()), (short) 10), new ApiMessageAndVersion(new ShareGroupMemberMetadataValue()
                .setClientId("share-consumer-" + i).setClientHost("/10.9.0." + i).setRackId(null).setSubscribedTopicNames(topics), (short) 0)), null, null);
        emit(new CoordinatorRecord(new ApiMessageAndVersion(new ShareGroupPartitionMetadataKey().setGroupId(group), (short) 9),
            new ApiMessageAndVersion(pm, (short) 0)), null, null);
        emit(new CoordinatorRecord(new ApiMessageAndVersion(new ShareGroupMetadataKey().setGroupId(group), (short) 11),
            new ApiMessageAndVersion(new ShareGroupMetadataValue().setEpoch(1 + rnd.nextInt(5)), (short) 0)), null, null);
    }

    // ------------------------------------------------------------------ the stream
    void build() {
        String longAscii = "analytics.platform.team.prod.eu-west-1.streaming-etl.sessionization-and-attribution-pipeline."
            + "customer-360-enrichment.job-7f3a9c.owner-data-engineering-guild.cost-center-4411.tier-1.retention-long.v12.1";
        String longCjk = "データパイプライン・本番環境・東京リージョン・顧客行動分析チーム・セッション集計ジョブ・"
            + "リアルタイム推薦エンジン向け特徴量生成・第三世代・高可用性構成・監視対象・夜間バッチ連携あり・"
            + "担当者：データ基盤グループ・問い合わせ先は社内ポータル参照・変更管理番号ＣＨＧ－２０２４－０４１７－０９３・"
            + "旧名称：ログ集約基盤からの移行中につき一時的に二重購読・移行完了予定は次四半期・移行後はこのグループを削除すること・重要度：高・影響範囲：全社ダッシュボード";
        if (longAscii.length() < 200 || longCjk.length() < 200) throw new IllegalStateException();

        // classic consumer groups
        Object[][] classic = {
            {"orders-service", "range", 6, 4, 3},
            {"payments-reconciler", "roundrobin", 3, 5, 2},
            {"clickstream-sessionizer", "sticky", 4, 3, 3},
            {"inventory-sync", "cooperative-sticky", 4, 3, 3},
            {"fraud-scoring", "my-assignor", 3, 3, 2},
            {"消费者组-订单处理", "range", 5, 3, 3},
            {"café-élève-analytics", "cooperative-sticky", 4, 4, 2},
            {"🚀-launch-metrics", "sticky", 3, 3, 3},
            {longAscii, "roundrobin", 3, 2, 2},
            {longCjk, "range", 2, 2, 2},
            {"search-indexer", "sticky", 2, 4, 3},
            {"notifications-dispatcher", "cooperative-sticky", 3, 4, 4},
            {"billing-pipeline", "range", 4, 5, 3},
            {"ledger-consumer", "my-assignor", 2, 2, 3},
            {"audit-archiver", "roundrobin", 30, 3, 2},
            {"cdc-sink-all", "range", 20, 2, 2},
            {"feature-store-loader", "cooperative-sticky", 22, 2, 2},
            {"legacy-reporting", "range", 3, 2, 2},
            {"geo-enricher", "sticky", 4, 4, 3},
            {"recommendations-ranker", "my-assignor", 5, 4, 2},
            {"ab-tests-evaluator", "roundrobin", 2, 2, 4},
        };
        for (Object[] c : classic) {
            String g = (String) c[0];
            ClassicSpec s = new ClassicSpec((String) c[1]);
            s.topics = (Integer) c[2];
            s.members = (Integer) c[3];
            s.generations = (Integer) c[4];
            s.startGeneration = 1 + rnd.nextInt(40);
            s.heterogeneous = rnd.nextInt(3) == 0;
            if (g.equals("notifications-dispatcher") || g.equals("billing-pipeline") || g.equals("geo-enricher")) s.statics = true;
            if (g.equals("billing-pipeline") || g.equals("café-élève-analytics") || g.equals("feature-store-loader") || g.equals("orders-service")) s.racks = true;
            if (g.equals("search-indexer")) { s.oldClients = true; s.subVersions = new int[]{0, 1}; }
            if (g.equals("legacy-reporting")) { s.subVersions = new int[]{0}; s.fixedValueVersion = 0; s.v0Keys = true; s.offsetValueVersion = 0; }
            if (g.equals("notifications-dispatcher") || g.equals("billing-pipeline")) s.fixedValueVersion = 3 + rnd.nextInt(2);
            if (g.equals(longAscii) || g.equals(longCjk)) { s.memberStyle = "long"; s.maxPartitions = 4; }
            if (g.startsWith("cdc") || g.equals("ledger-consumer")) s.v0Keys = true;
            begin(g);
            classicGroup(g, s);
            if (rnd.nextBoolean()) expireSome(g, 1);
        }

        // an empty group whose members all left (generation kept, no protocol, no leader), and one never joined
        begin("dead-letter-replayer");
        ClassicSpec empty = new ClassicSpec("range");
        empty.generations = 3;
        empty.startGeneration = 12;
        empty.lastEmpty = true;
        classicGroup("dead-letter-replayer", empty);
        begin("retry-worker-pool");
        ClassicSpec empty2 = new ClassicSpec("cooperative-sticky");
        empty2.generations = 2;
        empty2.startGeneration = 5;
        empty2.lastEmpty = true;
        empty2.fixedValueVersion = 4;
        classicGroup("retry-worker-pool", empty2);
        begin("offsets-only-then-empty");
        commit("offsets-only-then-empty", "orders", 0, 1, 3);
        ClassicSpec never = new ClassicSpec("range");
        never.protocolType = "";
        writeClassic("offsets-only-then-empty", never, List.of(), 0, 3, null);

        // Kafka Connect workers: not the consumer protocol
        for (String[] c : new String[][]{{"connect-cluster-prod", "sessioned"}, {"connect-cluster-staging", "compatible"}}) {
            begin(c[0]);
            ClassicSpec s = new ClassicSpec(c[1]);
            s.protocolType = "connect";
            s.members = 3;
            s.generations = 2 + rnd.nextInt(2);
            s.startGeneration = 1 + rnd.nextInt(100);
            classicGroup(c[0], s);
        }

        // deleted; deleted and re-created (the same protocol, another one, and as a consumer group)
        begin("returns-processor");
        ClassicSpec del = new ClassicSpec("range");
        classicGroup("returns-processor", del);
        deleteLiveOffsets("returns-processor");
        classicTombstone("returns-processor");
        count("classic group deleted");
        begin("shipments-tracker");
        classicGroup("shipments-tracker", new ClassicSpec("roundrobin"));
        deleteLiveOffsets("shipments-tracker");
        classicTombstone("shipments-tracker");
        count("classic group deleted");
        for (String[] c : new String[][]{{"reviews-moderation", "sticky", "range"}, {"kyc-checker", "range", "cooperative-sticky"}}) {
            begin(c[0]);
            ClassicSpec first = new ClassicSpec(c[1]);
            first.generations = 2;
            classicGroup(c[0], first);
            deleteLiveOffsets(c[0]);
            classicTombstone(c[0]);
            count("classic group deleted then re-created");
            ClassicSpec again = new ClassicSpec(c[2]);
            again.generations = 2;
            again.startGeneration = 1;
            classicGroup(c[0], again);
        }
        begin("iot-ingest");
        ClassicSpec before = new ClassicSpec("cooperative-sticky");
        before.generations = 2;
        before.startGeneration = 7;
        classicGroup("iot-ingest", before);
        classicTombstone("iot-ingest");          // converted to a consumer group: its offsets stay
        KSpec after = new KSpec();
        after.startEpoch = 9;
        after.classicMembers = true;
        after.rounds = 2;
        consumerGroup("iot-ingest", after);
        count("classic group converted to a consumer group");

        // groups that only commit offsets
        for (String g : new String[]{"ad-hoc-offset-tool", "spark-kafka-source-3f1e", "ñandú-backfill"}) {
            begin(g);
            for (String t : pickTopics(2))
                for (int p = 0; p < Math.min(6, topicPartitions.get(t)); p++) commit(g, t, p, 1, rnd.nextInt(5));
            expireSome(g, 1);
        }

        // consumer groups
        Object[][] consumers = {
            {"orders-v2", 5, 4, 3}, {"payments-v2", 3, 3, 3}, {"clicks-stream", 6, 6, 3}, {"推荐-服务", 4, 3, 2},
            {longAscii + ".kip-848", 3, 4, 3}, {"telemetry-agg", 3, 4, 3}, {"members-left-group", 2, 3, 3},
            {"deleted-consumer-group", 3, 3, 2}, {"member-churn", 4, 5, 4}, {"no-assignor-group", 2, 3, 2},
            {"pending-revocation", 4, 4, 3}, {"assignor-tie", 3, 4, 2}, {"newcomer-without-assignment", 3, 3, 2},
            {"wide-consumer-group", 20, 3, 2},
        };
        for (Object[] c : consumers) {
            String g = (String) c[0];
            KSpec s = new KSpec();
            s.topics = (Integer) c[1];
            s.members = (Integer) c[2];
            s.rounds = (Integer) c[3];
            s.startEpoch = 1 + rnd.nextInt(20);
            s.statics = rnd.nextInt(3) == 0;
            s.racks = rnd.nextInt(3) == 0;
            s.partitionRacks = g.equals("orders-v2") || g.equals("推荐-服务");
            if (g.startsWith(longAscii)) s.maxPartitions = 4;
            if (g.equals("payments-v2")) s.assignors = new String[]{"range"};
            if (g.equals("telemetry-agg")) s.classicMembers = true;
            if (g.equals("members-left-group")) s.allLeave = true;
            if (g.equals("deleted-consumer-group")) s.delete = true;
            if (g.equals("member-churn")) s.leaveOne = true;
            if (g.equals("no-assignor-group")) s.assignors = new String[]{null};
            if (g.equals("pending-revocation") || g.equals("member-churn") || g.equals("clicks-stream")) s.transition = true;
            if (g.equals("newcomer-without-assignment")) s.noCurrentForNewcomer = true;
            begin(g);
            if (g.equals("assignor-tie")) tieGroup(g);
            else consumerGroup(g, s);
        }

        for (String g : new String[]{"share-orders", "share-jobs"}) {
            begin(g);
            shareGroup(g);
        }

        broken();
    }

    /** Two members name uniform and two range: a tie. */
    void tieGroup(String group) {
        KSpec s = new KSpec();
        s.assignors = new String[]{"range"};
        List<String> topics = pickTopics(3);
        String[] names = {"range", "uniform", "range", "uniform"};
        List<KMember> ms = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            KMember m = newKMember(group, s, i);
            m.assignor = names[i];
            m.topics = topics;
            kemit(5, group, m.memberId, memberValue(m));
            ms.add(m);
        }
        ConsumerGroupPartitionMetadataValue pm = new ConsumerGroupPartitionMetadataValue();
        for (String t : topics)
            pm.topics().add(new ConsumerGroupPartitionMetadataValue.TopicMetadata().setTopicId(topicIds.get(t)).setTopicName(t)
                .setNumPartitions(topicPartitions.get(t)));
        kemit(4, group, null, pm);
        kemit(3, group, null, new ConsumerGroupMetadataValue().setEpoch(3));
        int i = 0;
        for (KMember m : ms) {
            for (String t : topics)
                for (int p = i; p < topicPartitions.get(t); p += 4) m.assigned.computeIfAbsent(t, x -> new TreeSet<>()).add(p);
            i++;
            List<ConsumerGroupTargetAssignmentMemberValue.TopicPartition> tps = new ArrayList<>();
            m.assigned.forEach((name, ps) -> tps.add(new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                .setTopicId(topicIds.get(name)).setPartitions(new ArrayList<>(ps))));
            kemit(7, group, m.memberId, new ConsumerGroupTargetAssignmentMemberValue().setTopicPartitions(tps));
        }
        kemit(6, group, null, new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(3));
        for (KMember m : ms)
            kemit(8, group, m.memberId, new ConsumerGroupCurrentMemberAssignmentValue().setMemberEpoch(3).setPreviousMemberEpoch(2)
                .setState((byte) 0).setAssignedPartitions(byId(m.assigned)).setPartitionsPendingRevocation(List.of()));
        count("server assignor tie");
    }

    /** Records altered by hand, each in a group of its own. */
    void broken() {
        // unknown key version 99: a GroupMetadata key and value, the key's version replaced
        for (String g : new String[]{"broken-key-version-99", "broken-key-version-99-tombstone"}) {
            begin(g);
            CoordinatorRecord rec = new CoordinatorRecord(new ApiMessageAndVersion(new GroupMetadataKey().setGroup(g), (short) 2),
                new ApiMessageAndVersion(new GroupMetadataValue().setProtocolType("consumer").setGeneration(4)
                    .setProtocol(null).setLeader(null).setCurrentStateTimestamp(tick()), (short) 3));
            byte[] key = SERDE.serializeKey(rec);
            key[0] = 0;
            key[1] = 99;
            emitBroken(g, key, g.endsWith("tombstone") ? null : SERDE.serializeValue(rec), null, null, "unknown key version 99", false);
        }
        // truncated keys: in a GroupMetadata key's string, in an OffsetCommit key's partition, and a single byte
        begin("broken-truncated-key");
        {
            CoordinatorRecord rec = new CoordinatorRecord(new ApiMessageAndVersion(new GroupMetadataKey().setGroup("broken-truncated-key"), (short) 2),
                new ApiMessageAndVersion(new GroupMetadataValue().setProtocolType("consumer").setGeneration(2), (short) 2));
            byte[] key = SERDE.serializeKey(rec);
            emitBroken("broken-truncated-key", Arrays.copyOf(key, 9), SERDE.serializeValue(rec), "GroupMetadata", null, "truncated key", false);
        }
        begin("broken-truncated-offset-key");
        {
            CoordinatorRecord rec = new CoordinatorRecord(new ApiMessageAndVersion(new OffsetCommitKey().setGroup("broken-truncated-offset-key")
                .setTopic("orders").setPartition(3), (short) 1), new ApiMessageAndVersion(new OffsetCommitValue().setOffset(42)
                .setMetadata("").setCommitTimestamp(tick()).setLeaderEpoch(5), (short) 3));
            byte[] key = SERDE.serializeKey(rec);
            emitBroken("broken-truncated-offset-key", Arrays.copyOf(key, key.length - 2), SERDE.serializeValue(rec), "OffsetCommit",
                null, "truncated key", false);
        }
        begin("broken-one-byte-key");
        emitBroken("broken-one-byte-key", new byte[]{0}, null, null, null, "truncated key", false);

        // a GroupMetadataValue version newer than this Kafka knows: version 4's body behind version 5 (after good
        // generations, and alone). Not broken: Kafka reads a newer version with the newest layout it knows (KIP-915).
        for (String g : new String[]{"newer-value-version-5", "newer-value-version-5-only"}) {
            begin(g);
            ClassicSpec s = new ClassicSpec("range");
            s.generations = g.endsWith("only") ? 0 : 2;
            List<CMember> ms = classicGroup(g, s);
            if (ms.isEmpty()) for (int i = 0; i < 2; i++) ms.add(newMember(g, s, i));
            for (CMember m : ms) if (m.topics == null) m.topics = pickTopics(2);
            writeClassic(g, s, ms, 40, 4, null, null, 5);
        }
        // truncated values: GroupMetadata, a consumer group's member metadata, an offset commit
        begin("broken-truncated-value");
        {
            ClassicSpec s = new ClassicSpec("roundrobin");
            s.generations = 2;
            List<CMember> ms = classicGroup("broken-truncated-value", s);
            writeClassic("broken-truncated-value", s, ms, 99, 3, null, "truncated value");
        }
        begin("broken-truncated-member-value");
        {
            KSpec s = new KSpec();
            s.cutMemberValue = true;
            s.rounds = 2;
            consumerGroup("broken-truncated-member-value", s);
        }
        begin("broken-truncated-offset-value");
        {
            CoordinatorRecord rec = new CoordinatorRecord(new ApiMessageAndVersion(new OffsetCommitKey().setGroup("broken-truncated-offset-value")
                .setTopic("payments").setPartition(1), (short) 1), new ApiMessageAndVersion(new OffsetCommitValue().setOffset(7_000_123)
                .setMetadata("批次-7").setCommitTimestamp(tick()).setLeaderEpoch(2), (short) 3));
            byte[] v = SERDE.serializeValue(rec);
            emitBroken("broken-truncated-offset-value", SERDE.serializeKey(rec), Arrays.copyOf(v, 11), "OffsetCommit", rec.key(),
                "truncated value", false);
        }
        // a truncated value superseded by a good one: the group is fine
        begin("recovered-after-truncated-value");
        {
            ClassicSpec s = new ClassicSpec("range");
            s.generations = 1;
            s.startGeneration = 3;
            List<CMember> ms = classicGroup("recovered-after-truncated-value", s);
            writeClassic("recovered-after-truncated-value", s, ms, 4, 4, null, "truncated value");
            writeClassic("recovered-after-truncated-value", s, ms, 5, 4, null);
        }
        // classic consumer members whose subscription is garbage
        for (String g : new String[]{"broken-garbage-subscription", "broken-garbage-subscription-2"}) {
            begin(g);
            ClassicSpec s = new ClassicSpec(g.endsWith("2") ? "cooperative-sticky" : "range");
            s.generations = 1;
            s.members = 3;
            List<CMember> ms = classicGroup(g, s);
            writeClassic(g, s, ms, ms.get(0).givenGeneration + 1, 3, ms.get(1).memberId);
        }
        // consumer groups whose current assignment names a topic id no partition metadata resolves
        for (String[] c : new String[][]{{"broken-unknown-topic-id", "assigned"}, {"broken-unknown-pending-topic-id", "pending"}}) {
            begin(c[0]);
            KSpec s = new KSpec();
            s.rounds = 2;
            s.unknownTopicId = c[1];
            consumerGroup(c[0], s);
        }
    }

    // ------------------------------------------------------------------ expected
    ObjectNode expected() {
        Set<String> problems = new TreeSet<>();
        for (Latest l : latest.values()) if (l.problem != null) problems.add(l.group);
        ArrayNode groups = JSON.createArrayNode(), subs = JSON.createArrayNode(), asg = JSON.createArrayNode(), offs = JSON.createArrayNode();
        // consumer groups' latest records, by group
        Map<String, ConsumerGroupPartitionMetadataValue> partitionMeta = new HashMap<>();
        Map<String, LinkedHashMap<String, ConsumerGroupMemberMetadataValue>> kmembers = new HashMap<>();
        Map<String, Map<String, ConsumerGroupCurrentMemberAssignmentValue>> kcurrent = new HashMap<>();
        for (Map.Entry<String, Latest> e : latest.entrySet()) {
            Latest l = e.getValue();
            if (l.value == null || l.problem != null) continue;
            String member = e.getKey().substring(e.getKey().indexOf('|', e.getKey().indexOf('|') + 1) + 1);
            if (l.type == 4) partitionMeta.put(l.group, (ConsumerGroupPartitionMetadataValue) l.value);
            if (l.type == 5) kmembers.computeIfAbsent(l.group, x -> new LinkedHashMap<>()).put(member, (ConsumerGroupMemberMetadataValue) l.value);
            if (l.type == 8) kcurrent.computeIfAbsent(l.group, x -> new HashMap<>()).put(member, (ConsumerGroupCurrentMemberAssignmentValue) l.value);
        }
        for (Map.Entry<String, Latest> e : latest.entrySet()) {
            Latest l = e.getValue();
            if (l.value == null || problems.contains(l.group)) continue;
            if (l.type == 2) {
                ClassicSnap c = (ClassicSnap) l.model;
                ObjectNode g = groups.addObject();
                g.put("group_id", l.group);
                g.put("protocol", "classic");
                g.put("protocol_type", c.protocolType);
                g.put("strategy", c.protocol);
                g.put("generation", c.generation);
                g.put("leader", c.leader);
                g.put("members", c.members.size());
                if (!c.consumerProtocol) continue;
                boolean sticky = "sticky".equals(c.protocol);
                boolean cooperative = "cooperative-sticky".equals(c.protocol);
                for (CMemberSnap m : c.members) {
                    for (String t : m.topics) {
                        ObjectNode s = subs.addObject();
                        s.put("group_id", l.group);
                        s.put("member_id", m.memberId);
                        s.put("topic", t);
                        s.put("group_instance_id", m.instanceId);
                        s.put("rack", m.rack);
                        if (sticky) {
                            ints(s.putArray("owned_partitions"), m.stickyClaims.get(t));
                            putInt(s, "generation", m.stickyGeneration);
                        } else {
                            if (m.owned == null) s.putNull("owned_partitions");
                            else ints(s.putArray("owned_partitions"), m.owned.get(t));
                            putInt(s, "generation", cooperative ? m.cooperativeGeneration : m.generationId);
                        }
                    }
                    m.assignment.forEach((t, ps) -> ps.forEach(p -> {
                        ObjectNode a = asg.addObject();
                        a.put("group_id", l.group);
                        a.put("member_id", m.memberId);
                        a.put("topic", t);
                        a.put("partition", p);
                        a.put("generation", c.generation);
                    }));
                }
            } else if (l.type == 3) {
                LinkedHashMap<String, ConsumerGroupMemberMetadataValue> ms = kmembers.getOrDefault(l.group, new LinkedHashMap<>());
                Map<String, ConsumerGroupCurrentMemberAssignmentValue> cur = kcurrent.getOrDefault(l.group, Map.of());
                Map<Uuid, String> names = new HashMap<>();
                ConsumerGroupPartitionMetadataValue pm = partitionMeta.get(l.group);
                if (pm != null) for (ConsumerGroupPartitionMetadataValue.TopicMetadata tm : pm.topics()) names.put(tm.topicId(), tm.topicName());
                // ConsumerGroup.computePreferredServerAssignor: counts in a HashMap, Stream.max keeps the first maximum
                Map<String, Integer> counts = new HashMap<>();
                for (ConsumerGroupMemberMetadataValue m : ms.values())
                    if (m.serverAssignor() != null) counts.merge(m.serverAssignor(), 1, Integer::sum);
                String strategy = counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("uniform");
                ObjectNode g = groups.addObject();
                g.put("group_id", l.group);
                g.put("protocol", "consumer");
                g.put("protocol_type", "consumer");
                g.put("strategy", strategy);
                g.put("generation", ((ConsumerGroupMetadataValue) l.value).epoch());
                g.putNull("leader");
                g.put("members", ms.size());
                for (Map.Entry<String, ConsumerGroupMemberMetadataValue> me : ms.entrySet()) {
                    ConsumerGroupCurrentMemberAssignmentValue c = cur.get(me.getKey());
                    TreeMap<String, TreeSet<Integer>> owned = new TreeMap<>();
                    if (c != null) {
                        for (List<ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions> l2 : List.of(c.assignedPartitions(), c.partitionsPendingRevocation()))
                            for (ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions tp : l2) {
                                if (!names.containsKey(tp.topicId()))
                                    throw new IllegalStateException("unresolved topic id in a clean group " + l.group);
                                owned.computeIfAbsent(names.get(tp.topicId()), x -> new TreeSet<>()).addAll(tp.partitions());
                            }
                        for (ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions tp : c.assignedPartitions())
                            for (int p : new TreeSet<>(tp.partitions())) {
                                ObjectNode a = asg.addObject();
                                a.put("group_id", l.group);
                                a.put("member_id", me.getKey());
                                a.put("topic", names.get(tp.topicId()));
                                a.put("partition", p);
                                a.put("generation", c.memberEpoch());
                            }
                    }
                    for (String t : me.getValue().subscribedTopicNames()) {
                        ObjectNode s = subs.addObject();
                        s.put("group_id", l.group);
                        s.put("member_id", me.getKey());
                        s.put("topic", t);
                        s.put("group_instance_id", me.getValue().instanceId());
                        s.put("rack", me.getValue().rackId());
                        ints(s.putArray("owned_partitions"), owned.containsKey(t) ? new ArrayList<>(owned.get(t)) : null);
                        putInt(s, "generation", c == null ? null : c.memberEpoch());
                    }
                }
            }
        }
        for (Latest l : latest.values()) {
            if (l.type > 1 || l.value == null || l.problem != null) continue;
            OffsetCommitValue v = (OffsetCommitValue) l.value;
            String[] parts = null;
            for (Map.Entry<String, Latest> e : latest.entrySet()) if (e.getValue() == l) parts = e.getKey().split("\\|");
            ObjectNode o = offs.addObject();
            o.put("group_id", l.group);
            o.put("topic", parts[parts.length - 2]);
            o.put("partition", Integer.parseInt(parts[parts.length - 1]));
            o.put("committed_offset", v.offset());
            putInt(o, "leader_epoch", v.leaderEpoch() == -1 ? null : v.leaderEpoch());
            o.put("metadata", v.metadata());
            o.put("commit_timestamp", v.commitTimestamp());
        }
        ObjectNode out = JSON.createObjectNode();
        out.set("groups", groups);
        out.set("subscriptions", subs);
        out.set("assignment", asg);
        out.set("offsets", offs);
        ArrayNode pg = out.putArray("problem_groups");
        problems.forEach(pg::add);
        return out;
    }

    static void ints(ArrayNode a, List<Integer> xs) {
        if (xs == null) return;
        List<Integer> s = new ArrayList<>(xs);
        Collections.sort(s);
        s.forEach(a::add);
    }

    static void putInt(ObjectNode o, String k, Integer v) {
        if (v == null) o.putNull(k);
        else o.put(k, v);
    }

    // ------------------------------------------------------------------ main
    public static void main(String[] args) throws Exception {
        long seed = Long.parseLong(args[0]);
        String commit = args[1];
        RecordsOracle o = new RecordsOracle(seed);
        o.build();
        // interleave the groups' streams as one broker would take them, then number each partition's records
        List<Rec> order = new ArrayList<>();
        List<Deque<Rec>> queues = new ArrayList<>();
        for (List<Rec> s : o.streams) queues.add(new ArrayDeque<>(s));
        int left = 0;
        for (Deque<Rec> q : queues) left += q.size();
        while (left > 0) {
            int i = o.rnd.nextInt(left);
            for (Deque<Rec> q : queues) {
                if (i < q.size()) { order.add(q.poll()); break; }
                i -= q.size();
            }
            left--;
        }
        long[] next = new long[NUM_PARTITIONS];
        for (Rec r : order) {
            r.partition = Utils.abs(r.group.hashCode()) % NUM_PARTITIONS;   // GroupCoordinatorService.partitionFor
            r.offset = next[r.partition]++;
        }
        List<Rec> shuffled = new ArrayList<>(order);
        Collections.shuffle(shuffled, o.rnd);

        StringBuilder out = new StringBuilder("{\n");
        String about = "__consumer_offsets records written by Apache Kafka's own code at apache/kafka@" + commit
            + ": keys and values are its generated record classes serialized by GroupCoordinatorRecordSerde, a classic"
            + " member's subscription and assignment are ConsumerProtocol.serializeSubscription/serializeAssignment, sticky"
            + " user data is StickyAssignor's (V1 through subscriptionUserData, V0 with its own V0 schema), cooperative-sticky"
            + " user data is CooperativeStickyAssignor's; kafka_key, kafka_value and embedded[].kafka are Kafka's generated"
            + " JSON converters (and StickyAssignor's reader) on those bytes. Records with a problem were altered by hand"
            + " after Kafka wrote them (or carry content Kafka's record reader does not check); GroupCoordinatorRecordSerde"
            + " rejects each of those altered by hand. The latest GroupMetadataValue of groups newer-value-version-5 and"
            + " newer-value-version-5-only is version 4's body relabelled version 5, a version newer than this Kafka knows:"
            + " GroupCoordinatorRecordSerde reads it with the newest layout it knows, version 4's (KIP-915: later versions"
            + " of these records only add tagged fields), so these are ordinary records with no problem, value_version 5,"
            + " and kafka_value is the generated JSON converter's output at version 5 (the same fields as version 4)."
            + " Partition ="
            + " Utils.abs(groupId.hashCode()) % " + NUM_PARTITIONS + ", offsets in write order per partition, records listed"
            + " shuffled. expected: the final state from the generator's own model of what it wrote (latest record per key,"
            + " tombstones delete); a cooperative-sticky member's subscription generation is what"
            + " CooperativeStickyAssignor.memberData reads from its subscription (the subscription's generation from"
            + " version 2, else the generation in the assignor's user data; null for -1). Made by tests/kafka_oracle/RecordsOracle.java with seed " + seed + ": "
            + "tests/kafka_oracle/build_records.sh KAFKA_SRC WORK.";
        out.append("  \"about\": ").append(JSON.writeValueAsString(about)).append(",\n");
        out.append("  \"records\": [\n");
        for (int i = 0; i < shuffled.size(); i++) {
            Rec r = shuffled.get(i);
            ObjectNode n = JSON.createObjectNode();
            n.put("partition", r.partition);
            n.put("offset", r.offset);
            n.put("key", Base64.getEncoder().encodeToString(r.key));
            if (r.value == null) n.putNull("value");
            else n.put("value", Base64.getEncoder().encodeToString(r.value));
            putInt(n, "key_version", r.keyVersion);
            putInt(n, "value_version", r.valueVersion);
            n.put("type", r.type);
            n.set("kafka_key", r.kafkaKey);
            n.set("kafka_value", r.kafkaValue);
            n.put("problem", r.problem);
            out.append("    ").append(JSON.writeValueAsString(n)).append(i + 1 < shuffled.size() ? ",\n" : "\n");
        }
        out.append("  ],\n  \"embedded\": [\n");
        for (int i = 0; i < o.embedded.size(); i++)
            out.append("    ").append(JSON.writeValueAsString(o.embedded.get(i))).append(i + 1 < o.embedded.size() ? ",\n" : "\n");
        out.append("  ],\n  \"expected\": {\n");
        ObjectNode exp = o.expected();
        List<String> names = new ArrayList<>();
        exp.fieldNames().forEachRemaining(names::add);
        for (int k = 0; k < names.size(); k++) {
            JsonNode rows = exp.get(names.get(k));
            out.append("    ").append(JSON.writeValueAsString(names.get(k))).append(": [");
            for (int i = 0; i < rows.size(); i++)
                out.append(i == 0 ? "\n      " : ",\n      ").append(JSON.writeValueAsString(rows.get(i)));
            out.append(rows.size() > 0 ? "\n    ]" : "]").append(k + 1 < names.size() ? ",\n" : "\n");
        }
        out.append("  }\n}\n");
        Files.write(new File(args[2]).toPath(), out.toString().getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, Integer> e : o.coverage.entrySet()) System.err.println(e.getValue() + "\t" + e.getKey());
        for (String n : o.notes) System.err.println("note\t" + n);
        for (String k : names) System.err.println("expected\t" + k + "\t" + exp.get(k).size());
    }
}
