// Random clusters mixing rackless and racked brokers, placed by Kafka's own StripedReplicaPlacer:
// tests/data/kafka_striped_mixed_racks_cases.json (see README.md). Compile over Kafka's sources:
//   javac -d classes -cp SLF4J_AND_JACKSON_JARS \
//       -sourcepath KAFKA/metadata/src/main/java:KAFKA/clients/src/main/java:KAFKA/server-common/src/main/java \
//       StripedOracle.java
//   java -cp classes:JARS StripedOracle 3000 20261129 > mixed.json
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.placement.*;
import java.util.*;

public class StripedOracle {
    static String q(String s) { return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        Random gen = new Random(Long.parseLong(args[1]));
        String[] names = {"Aa", "BB", "us-east-1a", "us-east-1b", "zone-ñ", "r1", "r2", "r3", "C#", "Bb"};
        StringBuilder out = new StringBuilder("[");
        for (int c = 0; c < n; c++) {
            int nb = 2 + gen.nextInt(29);
            int racks = 1 + gen.nextInt(5);
            LinkedHashMap<Integer, UsableBroker> brokers = new LinkedHashMap<>();
            List<String> listed = new ArrayList<>();
            Set<Integer> used = new HashSet<>();
            boolean big = gen.nextBoolean();
            while (brokers.size() < nb) {
                int id = big ? gen.nextInt(100000) : gen.nextInt(nb * 2);
                if (!used.add(id)) continue;
                String rack = gen.nextInt(3) == 0 ? null : names[gen.nextInt(racks + 1) % names.length];
                boolean fenced = gen.nextInt(8) == 0;
                brokers.put(id, new UsableBroker(id, Optional.ofNullable(rack), fenced));
                listed.add("[" + id + "," + q(rack) + "," + fenced + "]");
            }
            HashMap<Integer, UsableBroker> map = new HashMap<>();
            for (UsableBroker b : brokers.values()) map.put(b.id(), b);
            int rf = 1 + gen.nextInt(4);
            int parts = 1 + gen.nextInt(120);
            int start = gen.nextInt(20);
            long seed = gen.nextLong();
            String expected;
            String error = null;
            try {
                StripedReplicaPlacer placer = new StripedReplicaPlacer(new Random(seed));
                TopicAssignment a = placer.place(new PlacementSpec(start, parts, (short) rf), new ClusterDescriber() {
                    public Iterator<UsableBroker> usableBrokers() { return map.values().iterator(); }
                    public Uuid defaultDir(int brokerId) { return Uuid.ZERO_UUID; }
                });
                StringBuilder e = new StringBuilder("[");
                for (int p = 0; p < a.assignments().size(); p++) {
                    if (p > 0) e.append(",");
                    e.append(a.assignments().get(p).replicas().toString().replace(" ", ""));
                }
                expected = e.append("]").toString();
            } catch (Exception ex) {
                expected = null;
                error = ex.getClass().getSimpleName() + ": " + ex.getMessage();
            }
            if (c > 0) out.append(",\n");
            out.append("{\"name\":\"striped-mixed-" + c + "\",\"method\":\"striped\",\"brokers\":[" + String.join(",", listed)
                + "],\"partitions\":" + parts + ",\"replication_factor\":" + rf + ",\"start_index\":null,\"start_partition\":"
                + start + ",\"seed\":" + seed + (error == null ? ",\"expected\":" + expected : ",\"kafka_error\":" + q(error)) + "}");
        }
        System.out.println(out.append("]"));
    }
}
