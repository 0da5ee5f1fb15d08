#!/usr/bin/env bash
# MapBench get/put with keys in the order written and in a fixed shuffle (getShuffled, putShuffled), ours vs
# Chronicle Map vs ConcurrentHashMap vs lmdbjava, JMH as the map suite runs it (1 fork, 5 x 1 s warm-up, 8 x 1 s):
#   colossal-bench/target/benchmarks.jar built first; STORES="colossal chronicle" to choose; CSVs in $OUT (default /tmp)
set -eu
JAR=${JAR:-colossal-bench/target/benchmarks.jar}
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
PEER="--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED --add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dchronicle.analytics.disable=true"
for store in ${STORES:-colossal chronicle chm lmdb}; do
  flags=""; [ "$store" = colossal ] || [ "$store" = chm ] || flags="-jvmArgsAppend \"$PEER\""
  eval $J -cp $JAR org.openjdk.jmh.Main "'dev\.colossal\.bench\.map\.MapBench\.(get|getShuffled|put|putShuffled)$'" -p store=$store -p entries=1048576 -f 1 -wi 5 -w 1 -i 8 -r 1 $flags -rf csv -rff ${OUT:-/tmp}/map-shuffled-$store.csv 2>&1 | grep -E "^MapBench" || true
done
