// Seeded `kafka-log-dirs --describe` outputs printed by Apache Kafka's own tool:
// tests/data/kafka_log_dirs_outputs.json (see README.md; build_log_dirs.sh compiles and runs it).
//   java -cp classes:JARS LogDirsOracle SEED KAFKA_COMMIT OUT.json
// Each case is a cluster (brokers, log directories, replicas) held by this program. Kafka's
// LogDirsCommand.execute(options, admin) runs on the case's command line, parsed by its own
// LogDirsCommandOptions, with an Admin (a java.lang.reflect.Proxy) that answers describeCluster and
// describeLogDirs from the case the way KafkaAdminClient builds its answers (the same HashMaps, filled
// in the same order, Errors.exception() for a directory's error code). What the tool printed on
// System.out is the case's `output`. The rest of the case (brokers queried, log directories, their
// errors, the replicas the topic filter lets through) comes from this program's own model, and is
// checked against Kafka's printed JSON before the file is written.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeLogDirsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.tools.LogDirsCommand;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.*;

public class LogDirsOracle {
    static final ObjectMapper JSON = new ObjectMapper();
    static final int CASES = 40;

    static final String[] PLAIN = {"orders", "payments", "clickstream", "user-events", "inventory.updates",
        "audit_log", "page_views", "com.acme.billing.invoices", "__consumer_offsets", "__transaction_state",
        "_schemas", "connect-offsets", "connect-status", "_confluent-metrics", "spark.checkpoints_v2"};
    static final String[] DASH_DIGITS = {"orders-2024-11", "events-2025", "clicks-7", "metrics-2024-11-29",
        "logs-0", "shard-03", "v2-payments-1", "topic-12", "sensor-42-99", "retry-5-dlq-1"};
    static final String[] NON_ASCII = {"événements", "主题", "заказы", "café-orders-2", "données.clients",
        "注文-2024", "Ereignisse_ä", "🚀-launches", "ταξίδια", "מוצרים", "commandes-été-3"};
    static final String[] MISSING = {"missing-topic", "nonexistent-9", "orders-archive", "ghost"};
    static final String[] WORDS = {"analytics", "eu-west-1", "tenant_4711", "clickstream", "raw", "enriched",
        "v3", "sessionized", "2024-11", "ingest", "prod", "warehouse.sync"};

    // ------------------------------------------------------------------ the model
    static final class Replica {
        int broker; String dir; String topic; int partition; long size; long lag; boolean future;
    }
    static final class Dir {
        int broker; String path; ApiException error; final List<Replica> replicas = new ArrayList<>();
    }
    static final class Broker {
        int id; final List<Dir> dirs = new ArrayList<>();
    }
    static final class Case {
        final List<Broker> brokers = new ArrayList<>();
        final List<String> args = new ArrayList<>(List.of("--bootstrap-server", "localhost:9092", "--describe"));
        final Set<String> topicFilter = new HashSet<>();     // empty: every topic
        final Set<Integer> brokerFilter = new HashSet<>();   // empty: every broker
        Broker broker(int id) {
            for (Broker b : brokers) if (b.id == id) return b;
            throw new IllegalArgumentException("no broker " + id);
        }
    }

    final Random rnd;
    final Map<String, Integer> counts = new TreeMap<>();
    int longTopics = 0;

    LogDirsOracle(long seed) { rnd = new Random(seed); }

    <T> T pick(T[] xs) { return xs[rnd.nextInt(xs.length)]; }
    boolean chance(double p) { return rnd.nextDouble() < p; }
    long below(long bound) { return Math.floorMod(rnd.nextLong(), bound); }
    void count(String what, int n) { counts.merge(what, n, Integer::sum); }

    String longTopic() {
        int target = longTopics++ % 3 == 0 ? 249 : 100 + rnd.nextInt(150);   // 249: Kafka's longest legal name
        StringBuilder sb = new StringBuilder(pick(WORDS));
        while (sb.length() < target) sb.append(pick(new String[]{".", "_", "-"})).append(pick(WORDS));
        String s = sb.substring(0, target);
        return s.endsWith(".") || s.endsWith("_") || s.endsWith("-") ? s.substring(0, target - 1) + "9" : s;
    }

    String topicName() {
        int k = rnd.nextInt(100);
        if (k < 30) return pick(DASH_DIGITS);
        if (k < 55) return pick(PLAIN);
        if (k < 82) return pick(NON_ASCII);
        if (k < 90) return longTopic();
        return pick(WORDS) + "-" + rnd.nextInt(2030);   // e.g. "raw-2024": ends like a partition number
    }

    List<Integer> brokerIds(int n) {
        List<Integer> ids = new ArrayList<>();
        int style = rnd.nextInt(5);
        int base = style == 0 ? 0 : style == 1 ? 1 : style == 2 ? 1001 : style == 3 ? 100 * (1 + rnd.nextInt(40)) : -1;
        while (ids.size() < n) {
            int id = base >= 0 ? base + ids.size() : rnd.nextInt(5000);
            if (!ids.contains(id)) ids.add(id);
        }
        return ids;
    }

    List<String> dirPaths(int n) {
        int style = rnd.nextInt(9);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            switch (style) {
                case 0: case 1: out.add("/var/lib/kafka/data-" + i); break;
                case 2: out.add("/data/kafka-logs-" + (i + 1)); break;
                case 3: out.add("/mnt/disk " + (i + 1) + "/kafka logs"); break;           // spaces
                case 4: out.add("/srv/données/kafka-" + i); break;                           // non-ASCII
                case 5: out.add(i == 0 ? "/tmp/kraft-combined-logs" : "/home/用户/kafka-logs-" + i); break;
                case 6: out.add("D:\\kafka\\data-" + i); break;                              // a Windows broker
                case 7: out.add("/opt/kafka/\"logs\" 📦 " + i); break;                       // a quote, an emoji
                default: out.add("/var/lib/kafka/data-" + i + (i % 2 == 0 ? "" : "/ssd")); break;
            }
        }
        return out;
    }

    /** A broker's error for a log directory, as KafkaAdminClient makes it: Errors.forCode(code).exception(). */
    ApiException dirError() {
        // ReplicaManager.describeLogDirs: KAFKA_STORAGE_ERROR for an offline directory, else Errors.forException(t).
        return chance(0.8) ? Errors.KAFKA_STORAGE_ERROR.exception() : Errors.UNKNOWN_SERVER_ERROR.exception();
    }

    Case makeCase(int index) {
        Case c = new Case();
        int nBrokers = index == 0 ? 1 : 1 + rnd.nextInt(6);
        for (int id : brokerIds(nBrokers)) {
            Broker b = new Broker();
            b.id = id;
            int nDirs = index == 0 ? 1 : (chance(0.07) ? 0 : 1 + rnd.nextInt(3));
            for (String p : dirPaths(nDirs)) {
                Dir d = new Dir();
                d.broker = id;
                d.path = p;
                if (index != 0 && chance(0.12)) d.error = dirError();
                b.dirs.add(d);
            }
            c.brokers.add(b);
        }
        // topics and their replicas, on healthy directories (and, rarely, on one in error)
        LinkedHashSet<String> topics = new LinkedHashSet<>();
        int nTopics = index == 0 ? 2 : 1 + rnd.nextInt(7);
        while (topics.size() < nTopics) topics.add(topicName());
        if (index % 4 == 1) topics.add(pick(DASH_DIGITS));
        List<Broker> hosts = new ArrayList<>();
        for (Broker b : c.brokers)
            for (Dir d : b.dirs) if (d.error == null) { hosts.add(b); break; }
        for (String topic : topics) {
            if (hosts.isEmpty()) break;
            TreeSet<Integer> partitions = new TreeSet<>();
            int mode = index == 0 ? 0 : rnd.nextInt(4);
            if (mode == 0) { int n = 1 + rnd.nextInt(3); for (int p = 0; p < n; p++) partitions.add(p); }
            else if (mode == 1) { int n = 4 + rnd.nextInt(21); for (int p = 0; p < n; p++) partitions.add(p); }
            else if (mode == 2) { int n = 1 + rnd.nextInt(8); while (partitions.size() < n) partitions.add(rnd.nextInt(301)); }
            else { partitions.add(300); partitions.add(rnd.nextInt(300)); partitions.add(0); }
            int rf = Math.min(1 + rnd.nextInt(3), hosts.size());
            for (int p : partitions) {
                long size = sizeOf();
                List<Broker> replicas = new ArrayList<>(hosts);
                Collections.shuffle(replicas, rnd);
                for (Broker b : replicas.subList(0, rf)) {
                    List<Dir> healthy = new ArrayList<>();
                    for (Dir d : b.dirs) if (d.error == null) healthy.add(d);
                    Dir home = healthy.get(rnd.nextInt(healthy.size()));
                    long mine = chance(0.8) ? size : size - below(size + 1) / 10;   // a follower behind
                    add(home, topic, p, mine, chance(0.97) ? 0 : 1 + below(5000), false);
                    if (healthy.size() > 1 && chance(0.1)) {                          // moving to another dir
                        Dir to = healthy.get(rnd.nextInt(healthy.size()));
                        if (to == home) to = healthy.get((healthy.indexOf(home) + 1) % healthy.size());
                        long copied = below(mine + 1);
                        long lag = chance(0.1) ? -1 : chance(0.2) ? 0 : 1 + below(2_000_000);
                        add(to, topic, p, copied, lag, true);
                    }
                }
            }
        }
        for (Broker b : c.brokers)                                  // rarely: replicas on a dir in error
            for (Dir d : b.dirs)
                if (d.error != null && chance(0.15)) add(d, pick(topics.toArray(new String[0])), rnd.nextInt(4), sizeOf(), 0, false);

        // the command line
        List<Integer> ids = new ArrayList<>();
        for (Broker b : c.brokers) ids.add(b.id);
        if (index != 0 && chance(0.3)) {
            List<Integer> chosen = new ArrayList<>(ids);
            Collections.shuffle(chosen, rnd);
            chosen = new ArrayList<>(chosen.subList(0, 1 + rnd.nextInt(chosen.size())));
            c.brokerFilter.addAll(chosen);
            List<String> parts = new ArrayList<>();
            for (int id : chosen) parts.add(String.valueOf(id));
            if (chance(0.2)) parts.add(parts.get(0));               // a broker named twice
            String list = String.join(",", parts) + (chance(0.15) ? "," : "");   // a trailing comma
            c.args.addAll(List.of("--broker-list", list));
        }
        if (index != 0 && chance(0.35)) {
            List<String> all = new ArrayList<>(topics);
            Collections.shuffle(all, rnd);
            List<String> chosen = new ArrayList<>(all.subList(0, 1 + rnd.nextInt(Math.min(3, all.size()))));
            if (chance(0.3)) chosen.add(pick(MISSING));
            c.topicFilter.addAll(chosen);
            String list = String.join(",", chosen);
            if (chance(0.15)) list = list + ",," + chosen.get(0);   // an empty element, a topic twice
            c.args.addAll(List.of("--topic-list", list));
        }
        if (chance(0.2)) {                                          // options in another order
            c.args.remove("--describe");
            c.args.add(0, "--describe");
        }
        return c;
    }

    long sizeOf() {
        int k = rnd.nextInt(10);
        if (k == 0) return 0;
        if (k == 1) return below(1_000_000_000_000L);               // up to ~10^12
        long scale = 1;
        for (int i = rnd.nextInt(12); i > 0; i--) scale *= 10;
        return below(scale * 10);
    }

    void add(Dir d, String topic, int partition, long size, long lag, boolean future) {
        for (Replica r : d.replicas)
            if (r.topic.equals(topic) && r.partition == partition) return;   // one replica per partition and dir
        Replica r = new Replica();
        r.broker = d.broker; r.dir = d.path; r.topic = topic; r.partition = partition;
        r.size = size; r.lag = lag; r.future = future;
        d.replicas.add(r);
    }

    // ------------------------------------------------------------------ the Admin the tool talks to
    static Admin admin(Case c) {
        return (Admin) Proxy.newProxyInstance(LogDirsOracle.class.getClassLoader(), new Class<?>[]{Admin.class},
            (proxy, method, args) -> {
                switch (method.getName()) {
                    case "describeCluster": return describeCluster(c);
                    case "describeLogDirs": {
                        @SuppressWarnings("unchecked") Collection<Integer> brokers = (Collection<Integer>) args[0];
                        return describeLogDirs(c, brokers);
                    }
                    case "close": return null;
                    case "toString": return "LogDirsOracle admin";
                    case "hashCode": return System.identityHashCode(proxy);
                    case "equals": return proxy == args[0];
                    default: throw new UnsupportedOperationException(method.toString());
                }
            });
    }

    static Object describeCluster(Case c) throws Exception {
        List<Node> nodes = new ArrayList<>();
        for (Broker b : c.brokers) nodes.add(new Node(b.id, "broker-" + b.id + ".kafka.internal", 9092));
        Constructor<DescribeClusterResult> k = DescribeClusterResult.class.getDeclaredConstructor(
            KafkaFuture.class, KafkaFuture.class, KafkaFuture.class, KafkaFuture.class);
        k.setAccessible(true);
        return k.newInstance(KafkaFuture.completedFuture(nodes), KafkaFuture.completedFuture(nodes.get(0)),
            KafkaFuture.completedFuture("q1Sh-9_ISia_zwGINzRvyQ"), KafkaFuture.completedFuture(null));
    }

    /** As KafkaAdminClient.describeLogDirs and logDirDescriptions build it from the brokers' responses. */
    static Object describeLogDirs(Case c, Collection<Integer> brokers) throws Exception {
        Map<Integer, KafkaFuture<Map<String, LogDirDescription>>> futures = new HashMap<>(brokers.size());
        for (Integer id : brokers) {
            Broker b = c.broker(id);
            // A broker that sends no log directory at all: KafkaAdminClient at this commit fails the call
            // (CLUSTER_AUTHORIZATION_FAILED); the tool is handed the empty map, as older clients did.
            Map<String, LogDirDescription> result = new HashMap<>(b.dirs.size());
            for (Dir d : b.dirs) {
                Map<TopicPartition, ReplicaInfo> replicaInfoMap = new HashMap<>();
                for (Replica r : d.replicas)
                    replicaInfoMap.put(new TopicPartition(r.topic, r.partition), new ReplicaInfo(r.size, r.lag, r.future));
                long total = d.error == null ? 1L << 41 : -1L, usable = d.error == null ? 1L << 40 : -1L;
                result.put(d.path, new LogDirDescription(d.error, replicaInfoMap, total, usable));
            }
            futures.put(id, KafkaFuture.completedFuture(result));
        }
        Constructor<DescribeLogDirsResult> k = DescribeLogDirsResult.class.getDeclaredConstructor(Map.class);
        k.setAccessible(true);
        return k.newInstance(new HashMap<>(futures));
    }

    /** Kafka's LogDirsCommand.execute(new LogDirsCommandOptions(args), admin); what it printed. */
    static String runTool(Case c) throws Exception {
        Class<?> optionsClass = Class.forName("org.apache.kafka.tools.LogDirsCommand$LogDirsCommandOptions");
        Constructor<?> k = optionsClass.getDeclaredConstructor(String[].class);
        k.setAccessible(true);
        Object options = k.newInstance((Object) c.args.toArray(new String[0]));
        Method execute = LogDirsCommand.class.getDeclaredMethod("execute", optionsClass, Admin.class);
        execute.setAccessible(true);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            execute.invoke(null, options, admin(c));
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("LogDirsCommand failed on " + c.args, e.getCause());
        } finally {
            System.out.flush();
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ expected, from the model
    static List<Integer> queried(Case c) {
        List<Integer> out = new ArrayList<>();
        for (Broker b : c.brokers) if (c.brokerFilter.isEmpty() || c.brokerFilter.contains(b.id)) out.add(b.id);
        Collections.sort(out);
        return out;
    }

    static List<Map<String, Object>> rows(Case c, String what) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int id : queried(c))
            for (Dir d : c.broker(id).dirs) {
                String error = d.error == null ? null : d.error.getClass().getName();
                if (what.equals("log_dirs") || what.equals("log_dir_errors") && error != null) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("broker", id);
                    m.put("log_dir", d.path);
                    m.put("error", error);
                    out.add(m);
                }
                if (what.equals("replicas"))
                    for (Replica r : d.replicas) {
                        if (!c.topicFilter.isEmpty() && !c.topicFilter.contains(r.topic)) continue;
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("broker", r.broker);
                        m.put("log_dir", r.dir);
                        m.put("topic", r.topic);
                        m.put("partition", r.partition);
                        m.put("size", r.size);
                        m.put("offset_lag", r.lag);
                        m.put("is_future", r.future);
                        out.add(m);
                    }
            }
        return out;
    }

    /** Kafka's printed JSON against the model: the same brokers, directories, errors and replicas. */
    static void check(Case c, String output) throws Exception {
        String nl = System.lineSeparator();
        String[] lines = output.split(nl, -1);
        if (lines.length != 4 || !lines[3].isEmpty() || !lines[0].equals("Querying brokers for log directories information")
                || !lines[1].startsWith("Received log directory information from brokers "))
            throw new IllegalStateException("unexpected output shape: " + output);
        List<Integer> said = new ArrayList<>();
        for (String s : lines[1].substring("Received log directory information from brokers ".length()).split(","))
            if (!s.isEmpty()) said.add(Integer.valueOf(s));
        Collections.sort(said);
        if (!said.equals(queried(c))) throw new IllegalStateException("brokers " + said + " vs " + queried(c));
        JsonNode root = JSON.readTree(lines[2]);
        Set<String> printedDirs = new TreeSet<>(), printedReplicas = new TreeSet<>();
        Set<Integer> printedBrokers = new TreeSet<>();
        for (JsonNode b : root.get("brokers")) {
            printedBrokers.add(b.get("broker").asInt());
            for (JsonNode d : b.get("logDirs")) {
                printedDirs.add(b.get("broker").asInt() + "|" + d.get("logDir").asText() + "|" + d.get("error"));
                for (JsonNode p : d.get("partitions"))
                    printedReplicas.add(b.get("broker").asInt() + "|" + d.get("logDir").asText() + "|" + p.get("partition").asText()
                        + "|" + p.get("size").asLong() + "|" + p.get("offsetLag").asLong() + "|" + p.get("isFuture").asBoolean());
            }
        }
        Set<String> modelDirs = new TreeSet<>(), modelReplicas = new TreeSet<>();
        for (Map<String, Object> m : rows(c, "log_dirs"))
            modelDirs.add(m.get("broker") + "|" + m.get("log_dir") + "|" + JSON.valueToTree(m.get("error")));
        for (Map<String, Object> m : rows(c, "replicas"))
            modelReplicas.add(m.get("broker") + "|" + m.get("log_dir") + "|" + m.get("topic") + "-" + m.get("partition")
                + "|" + m.get("size") + "|" + m.get("offset_lag") + "|" + m.get("is_future"));
        if (!printedBrokers.equals(new TreeSet<>(queried(c))) || !printedDirs.equals(modelDirs)
                || !printedReplicas.equals(modelReplicas) || rows(c, "replicas").size() != printedReplicas.size()
                || root.get("version").asInt() != 1)
            throw new IllegalStateException("Kafka printed something else than the model for " + c.args);
    }

    // ------------------------------------------------------------------ the file
    public static void main(String[] args) throws Exception {
        long seed = Long.parseLong(args[0]);
        String commit = args[1];
        LogDirsOracle o = new LogDirsOracle(seed);
        StringBuilder out = new StringBuilder("{\n");
        String about = "kafka-log-dirs --describe outputs printed by Apache Kafka's own tool at apache/kafka@" + commit
            + ": each case's output is what org.apache.kafka.tools.LogDirsCommand.execute(options, admin) wrote on"
            + " System.out (UTF-8, line separator \\n), options being LogDirsCommandOptions on the case's args and admin"
            + " a stand-in Admin that answers describeCluster and describeLogDirs from the case the way KafkaAdminClient"
            + " builds its answers (HashMaps filled in the same order; a log directory's error is"
            + " Errors.forCode(code).exception(): KafkaStorageException for an offline directory, UnknownServerException"
            + " for any other failure, as ReplicaManager.describeLogDirs reports them). Compiled over Kafka's sources"
            + " with stand-ins, never run, for KafkaAdminClient, ClientTelemetryReporter and ClientTelemetryUtils (which"
            + " need OpenTelemetry's classes). The JSON line is Jackson's"
            + " ObjectMapper over Java HashMaps, so its keys are in HashMap order (Jackson " + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION
            + " from pyspark; Kafka builds with 2.16.2, which writes such maps the same way). Not what a real cluster at this"
            + " commit can send, but printed by the tool all the same: non-ASCII topic names (Kafka's broker accepts"
            + " only ASCII letters, digits, '.', '_' and '-'), a few replicas listed in a log directory in error, a"
            + " few current replicas with a nonzero offsetLag, and brokers with no log directory (KafkaAdminClient"
            + " now fails the call for those; the tool prints \"logDirs\":[] when handed an empty map). cluster_brokers:"
            + " the brokers describeCluster lists, ascending; brokers: the"
            + " brokers queried (after --broker-list), ascending; log_dirs: every log directory of those, with its"
            + " error (error.getClass().getName(), null when none); log_dir_errors: those with an error; replicas:"
            + " the replicas printed (after --topic-list), with the topic and partition TopicPartition.toString()"
            + " joins with '-'. These come from the generator's model, not from the output; the model was checked"
            + " against the printed JSON. Made by tests/kafka_oracle/LogDirsOracle.java with seed " + seed
            + " (java.util.Random): tests/kafka_oracle/build_log_dirs.sh KAFKA_SRC WORK.";
        out.append("  \"about\": ").append(JSON.writeValueAsString(about)).append(",\n");
        out.append("  \"cases\": [\n");
        int replicas = 0, future = 0, errors = 0, noDirs = 0, dashDigits = 0;
        for (int i = 0; i < CASES; i++) {
            Case c = o.makeCase(i);
            String output = runTool(c);
            check(c, output);
            List<Integer> cluster = new ArrayList<>();
            for (Broker b : c.brokers) cluster.add(b.id);
            Collections.sort(cluster);
            out.append("    {\n");
            out.append("      \"args\": ").append(JSON.writeValueAsString(c.args)).append(",\n");
            out.append("      \"output\": ").append(JSON.writeValueAsString(output)).append(",\n");
            out.append("      \"cluster_brokers\": ").append(JSON.writeValueAsString(cluster)).append(",\n");
            out.append("      \"brokers\": ").append(JSON.writeValueAsString(queried(c))).append(",\n");
            String[] names = {"log_dirs", "log_dir_errors", "replicas"};
            for (int k = 0; k < names.length; k++) {
                List<Map<String, Object>> rows = rows(c, names[k]);
                out.append("      \"").append(names[k]).append("\": [");
                for (int j = 0; j < rows.size(); j++)
                    out.append(j == 0 ? "\n        " : ",\n        ").append(JSON.writeValueAsString(rows.get(j)));
                out.append(rows.isEmpty() ? "]" : "\n      ]").append(k + 1 < names.length ? ",\n" : "\n");
            }
            out.append("    }").append(i + 1 < CASES ? ",\n" : "\n");
            for (Map<String, Object> r : rows(c, "replicas")) {
                replicas++;
                if ((Boolean) r.get("is_future")) future++;
                if (((String) r.get("topic")).matches(".*-[0-9]+")) dashDigits++;
            }
            errors += rows(c, "log_dir_errors").size();
            for (int id : queried(c)) if (c.broker(id).dirs.isEmpty()) noDirs++;
            if (!c.topicFilter.isEmpty()) o.count("cases with --topic-list", 1);
            if (!c.brokerFilter.isEmpty()) o.count("cases with --broker-list", 1);
        }
        out.append("  ]\n}\n");
        Files.write(new File(args[2]).toPath(), out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.println("cases\t" + CASES);
        System.err.println("replicas printed\t" + replicas);
        System.err.println("future replicas printed\t" + future);
        System.err.println("replicas of a topic ending in -digits\t" + dashDigits);
        System.err.println("log dirs in error\t" + errors);
        System.err.println("queried brokers with no log dir\t" + noDirs);
        for (Map.Entry<String, Integer> e : o.counts.entrySet()) System.err.println(e.getKey() + "\t" + e.getValue());
    }
}
