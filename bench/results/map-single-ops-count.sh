#!/bin/bash
# Instructions per op of the main Java thread under callgrind: two runs of GetCount (100k and
# 600k ops after the same warm-up), the difference divided by 500k. Run from a directory with a
# cg/ subdirectory, GetCount compiled into CLASSES (javac -cp JAR -d CLASSES GetCount.java).
#   CLASSES=... map-single-ops-count.sh TAG JAR STORE ENTRIES OP [JVM flags...]
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
tag=$1; jar=$2; store=$3; n=$4; op=$5; shift 5
for c in 100000 600000; do
  nice valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=cg/$tag-$c.%p --smc-check=all -q java -XX:+UseSerialGC "$@" -cp $jar:$CLASSES GetCount $store $n 300000 $c $op > /dev/null 2>&1 &
done
wait
a=$(grep -h '^summary:' cg/$tag-100000.*-02 | awk '{print $2}'); b=$(grep -h '^summary:' cg/$tag-600000.*-02 | awk '{print $2}')
echo "$tag: $(( (b - a) / 500000 )) instructions per $op (main thread: $a, $b)"
rm -f cg/$tag-*
