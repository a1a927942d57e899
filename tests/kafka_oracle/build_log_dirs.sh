#!/usr/bin/env bash
# Rebuild tests/data/kafka_log_dirs_outputs.json from Kafka's own tool (see README.md).
#   tests/kafka_oracle/build_log_dirs.sh KAFKA_SRC WORK
# KAFKA_SRC  an apache/kafka source tree at 1eb7644349cb (clients, generator, server-common, tools, and
#            group-coordinator's message definitions, which gen_messages.sh also reads)
# WORK       a scratch directory
# Needs Java 17, the project's venv (pyspark's jars give slf4j and jackson) and jopt-simple 5.0.4
# (JOPT_SIMPLE_JAR; Kafka's command line options are parsed by it).
set -euo pipefail
KAFKA=$(cd "$1" && pwd); mkdir -p "$2"; WORK=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
JOPT=${JOPT_SIMPLE_JAR:-/root/.m2/repository/net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar}
SEED=20261129
COMMIT=1eb7644349cb

# 1. Kafka's generated message classes (the same step as build.sh).
"$HERE/gen_messages.sh" "$KAFKA" "$WORK"
CP="$(cat "$WORK/classpath"):$JOPT"

# 2. Stand-ins for the three classes through which the Admin interface and the client configs reach
#    the client telemetry, which needs OpenTelemetry's protobuf classes (not on this classpath). None
#    of them runs: the oracle hands LogDirsCommand its own Admin.
P="$WORK/log-dirs-patch/org/apache/kafka"
rm -rf "$WORK/log-dirs-patch" "$WORK/log-dirs-classes"
mkdir -p "$P/clients/admin" "$P/common/telemetry/internals" "$WORK/log-dirs-classes"
cat > "$P/clients/admin/KafkaAdminClient.java" <<'EOF'
package org.apache.kafka.clients.admin;

import org.apache.kafka.common.protocol.Errors;

import java.util.Map;

/** Oracle build only: what Admin.create and the admin result classes use of KafkaAdminClient. */
public abstract class KafkaAdminClient extends AdminClient {
    static Admin createInternal(AdminClientConfig config, Object timeoutProcessorFactory) {
        throw new UnsupportedOperationException("oracle build: no KafkaAdminClient");
    }

    static Admin createInternal(AdminClientConfig config, Object timeoutProcessorFactory, Object hostResolver) {
        throw new UnsupportedOperationException("oracle build: no KafkaAdminClient");
    }

    static <K> Throwable getSubLevelError(Map<K, Errors> subLevelErrors, K subKey, String keyNotFoundMsg) {
        if (!subLevelErrors.containsKey(subKey)) {
            return new IllegalArgumentException(keyNotFoundMsg);
        } else {
            return subLevelErrors.get(subKey).exception();
        }
    }
}
EOF
cat > "$P/common/telemetry/internals/ClientTelemetryReporter.java" <<'EOF'
package org.apache.kafka.common.telemetry.internals;

import org.apache.kafka.common.utils.Time;

import java.util.Map;

/** Oracle build only: what CommonClientConfigs uses of ClientTelemetryReporter. */
public class ClientTelemetryReporter {
    public ClientTelemetryReporter(Time time) {
        throw new UnsupportedOperationException("oracle build: no client telemetry");
    }

    public void configure(Map<String, ?> configs) {
    }
}
EOF
cat > "$P/common/telemetry/internals/ClientTelemetryUtils.java" <<'EOF'
package org.apache.kafka.common.telemetry.internals;

import org.apache.kafka.common.record.CompressionType;

import java.nio.ByteBuffer;

/** Oracle build only: what PushTelemetryRequest uses of ClientTelemetryUtils. */
public class ClientTelemetryUtils {
    public static ByteBuffer decompress(byte[] metrics, CompressionType compressionType) {
        throw new UnsupportedOperationException("oracle build: no client telemetry");
    }
}
EOF

# 3. LogDirsOracle over Kafka's sources: LogDirsCommand and what it reaches (clients, server-common).
SRC="$WORK/log-dirs-patch:$WORK/gen-out:$KAFKA/clients/src/main/java:$KAFKA/server-common/src/main/java"
SRC="$SRC:$KAFKA/tools/src/main/java"
javac -nowarn -d "$WORK/log-dirs-classes" -cp "$CP" -sourcepath "$SRC" "$HERE/LogDirsOracle.java"

# 4. The outputs and what the model expects; the counts go to WORK.
java -cp "$WORK/log-dirs-classes:$CP" LogDirsOracle "$SEED" "$COMMIT" \
    "$REPO/tests/data/kafka_log_dirs_outputs.json" 2> "$WORK/log-dirs-report.txt"
grep -v '^SLF4J' "$WORK/log-dirs-report.txt"
