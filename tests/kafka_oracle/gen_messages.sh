#!/usr/bin/env bash
# Kafka's generated message classes, made by Kafka's own generator (step 1 of build.sh and
# build_records.sh). Writes the sources to WORK/gen-out and the classpath the oracles compile
# against (pyspark's slf4j, jackson and compression jars) to WORK/classpath.
#   tests/kafka_oracle/gen_messages.sh KAFKA_SRC WORK
# KAFKA_SRC  an apache/kafka source tree at 1eb7644349cb
# WORK       a scratch directory
set -euo pipefail
KAFKA=$(cd "$1" && pwd); mkdir -p "$2"; WORK=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
PY="$REPO/.venv/bin/python"
JARS=$("$PY" -c 'import pyspark, os; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
CP=$(ls "$JARS"/slf4j-api-*.jar "$JARS"/jackson-databind-*.jar "$JARS"/jackson-core-*.jar \
        "$JARS"/jackson-annotations-*.jar "$JARS"/zstd-jni-*.jar "$JARS"/lz4-java-*.jar "$JARS"/snappy-java-*.jar \
        "${JDK8_JACKSON:-$REPO/../shared/delta-jars}"/jackson-datatype-jdk8-*.jar | tr '\n' ':')
printf '%s\n' "$CP" > "$WORK/classpath"

# Kafka's generator, without the command line (argparse4j).
mkdir -p "$WORK/gen-src" "$WORK/gen-classes" "$WORK/gen-out"
cp -r "$KAFKA/generator/src/main/java/." "$WORK/gen-src/"
rm -rf "$WORK/gen-src/org/apache/kafka/message/checker"
"$PY" - "$WORK/gen-src/org/apache/kafka/message/MessageGenerator.java" <<'PY'
import sys
path = sys.argv[1]
text = "\n".join(line for line in open(path).read().split("\n") if "argparse4j" not in line)
open(path, "w").write(text[:text.index("    public static void main(String[] args)")] + "}\n")
PY
javac -nowarn -d "$WORK/gen-classes" -cp "$CP" $(find "$WORK/gen-src" -name '*.java') "$HERE/GenDriver.java"
java -cp "$WORK/gen-classes:$CP" GenDriver org.apache.kafka.common.message \
    "$WORK/gen-out/org/apache/kafka/common/message" "$KAFKA/clients/src/main/resources/common/message" ApiMessageTypeGenerator
java -cp "$WORK/gen-classes:$CP" GenDriver org.apache.kafka.coordinator.group.generated \
    "$WORK/gen-out/org/apache/kafka/coordinator/group/generated" "$KAFKA/group-coordinator/src/main/resources/common/message" ""
