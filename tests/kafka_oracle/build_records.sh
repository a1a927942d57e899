#!/usr/bin/env bash
# Rebuild tests/data/kafka_consumer_offsets_records.json from Kafka's own classes (see README.md).
#   tests/kafka_oracle/build_records.sh KAFKA_SRC WORK
# KAFKA_SRC  an apache/kafka source tree at 1eb7644349cb (clients, generator, group-coordinator,
#            coordinator-common, server-common)
# WORK       a scratch directory
# Needs Java 17 and the project's venv (pyspark's jars give slf4j and jackson).
set -euo pipefail
KAFKA=$(cd "$1" && pwd); mkdir -p "$2"; WORK=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
SEED=20250612
COMMIT=1eb7644349cb

# 1. Kafka's generated message classes (the same step as build.sh).
"$HERE/gen_messages.sh" "$KAFKA" "$WORK"
CP=$(cat "$WORK/classpath")

# 2. RecordsOracle over Kafka's sources, with the stand-in for JoinGroupRequest (its constants only).
#    The generated record classes and their JSON converters are compiled whole: the oracle finds a
#    record's converter by name.
rm -rf "$WORK/records-classes"
mkdir -p "$WORK/records-classes" "$WORK/patch/org/apache/kafka/common/requests"
cp "$HERE/JoinGroupRequest.java" "$WORK/patch/org/apache/kafka/common/requests/"
SRC="$WORK/patch:$WORK/gen-out:$KAFKA/clients/src/main/java:$KAFKA/group-coordinator/src/main/java"
SRC="$SRC:$KAFKA/coordinator-common/src/main/java:$KAFKA/server-common/src/main/java"
javac -nowarn -d "$WORK/records-classes" -cp "$CP" -sourcepath "$SRC" "$HERE/RecordsOracle.java" \
    "$WORK"/gen-out/org/apache/kafka/coordinator/group/generated/*.java

# 3. The records, their embedded bytes and the expected state; what was covered goes to WORK.
java -cp "$WORK/records-classes:$CP" RecordsOracle "$SEED" "$COMMIT" \
    "$REPO/tests/data/kafka_consumer_offsets_records.json" 2> "$WORK/records-report.txt"
grep '^expected' "$WORK/records-report.txt"
