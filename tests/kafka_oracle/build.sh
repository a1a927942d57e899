#!/usr/bin/env bash
# Rebuild tests/data/kafka_oracle_wide_cases.json from Kafka's own classes (see README.md).
#   tests/kafka_oracle/build.sh KAFKA_SRC ASSIGNORS WORK
# KAFKA_SRC  an apache/kafka source tree at 1eb7644349cb
# ASSIGNORS  a Kafka 4.1+ org/apache/kafka/coordinator/group/assignor directory (sources)
# WORK       a scratch directory
# Needs Java 17 and the project's venv (pyspark's jars give slf4j and jackson).
set -euo pipefail
KAFKA=$(cd "$1" && pwd); ASSIGNORS=$(cd "$2" && pwd); mkdir -p "$3"; WORK=$(cd "$3" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
PY="$REPO/.venv/bin/python"

# 1. Kafka's generated message classes: its generator, without the command line (gen_messages.sh).
"$HERE/gen_messages.sh" "$KAFKA" "$WORK"
CP=$(cat "$WORK/classpath")

# 2. The harness over Kafka's sources: the 4.1+ assignors first, then the stand-in for
#    JoinGroupRequest (its constants only), then Kafka's tree.
mkdir -p "$WORK/overlay/org/apache/kafka/coordinator/group/assignor" "$WORK/patch/org/apache/kafka/common/requests" "$WORK/classes"
for f in UniformAssignor UniformHomogeneousAssignmentBuilder UniformHeterogeneousAssignmentBuilder RangeAssignor RangeSet AssignorHelpers; do
    cp "$ASSIGNORS/$f.java" "$WORK/overlay/org/apache/kafka/coordinator/group/assignor/"
done
cp "$HERE/JoinGroupRequest.java" "$WORK/patch/org/apache/kafka/common/requests/"
mkdir -p "$WORK/harness/org/apache/kafka/clients/consumer"
cp "$HERE/OracleHarness.java" "$WORK/harness/org/apache/kafka/clients/consumer/"
SRC="$WORK/overlay:$WORK/patch:$WORK/gen-out:$KAFKA/clients/src/main/java:$KAFKA/group-coordinator/src/main/java"
SRC="$SRC:$KAFKA/group-coordinator/group-coordinator-api/src/main/java:$KAFKA/server-common/src/main/java"
javac -nowarn -d "$WORK/classes" -cp "$CP" -sourcepath "$SRC" "$WORK/harness/org/apache/kafka/clients/consumer/OracleHarness.java" \
    "$WORK"/overlay/org/apache/kafka/coordinator/group/assignor/*.java \
    "$KAFKA"/clients/src/main/java/org/apache/kafka/clients/consumer/{Range,RoundRobin,Sticky,CooperativeSticky}Assignor.java

# 3. Groups, Kafka's outputs, the fixture.
"$PY" "$HERE/generate.py" 16 80 "$WORK/groups.json"
java -cp "$WORK/classes:$CP" org.apache.kafka.clients.consumer.OracleHarness "$WORK/groups.json" "$WORK/kafka.json" 2>/dev/null
"$PY" "$HERE/build_fixture.py" "$WORK/groups.json" "$WORK/kafka.json" "$HERE/about.txt" "$REPO/tests/data/kafka_oracle_wide_cases.json"
