#!/bin/bash
# Thread CPU ns per get of the raw map with parts of the get switched off, one JVM per setting
# (see map-single-ops.md). The switches exist only in a build with map-single-ops-knobs.patch
# applied (git apply, then package colossal-core, colossal-server and colossal-bench); the
# settings without switches ("base", "unverified") run on any build.
#
#   bench/results/map-single-ops-knobs.sh JAR ENTRIES CALLS SETTING...
#   e.g. ... colossal-bench/target/benchmarks.jar 4096 5000000 base unverified noseq nocopy
#        unverified+noseq+nocopy+nohdrcheck+nokey+noexpiry
#
# A setting is switches joined by '+': noseq (no version read and check around the lookup),
# nocopy (the value is not copied out), nohdrcheck (no bounds checks of the entry before its
# header is decoded), nokey (a tag match is taken for the key, no compare), noexpiry (no expiry
# check), loopcopy (the value copied by a Java loop of 8-byte loads, not MemorySegment.copy),
# loopcrc (the checksum's bytes copied to its array the same way), unverified (the store opened
# with withVerifyReads(false)).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=$1; n=$2; calls=$3; shift 3
classes=$(mktemp -d)
javac -cp "$jar" -d "$classes" "$(dirname "$0")/GetProbe.java" || exit 1
for setting in "$@"; do
  store=colossal; flags=""
  for k in ${setting//+/ }; do
    case $k in base) ;; unverified) store=colossal-unverified;; *) flags="$flags -Dexp.$k=true";; esac
  done
  java $flags -cp "$jar:$classes" GetProbe $store "$n" 5 "$calls" 2>&1 | grep "cpu ns" | sed "s/^/$n $setting: /"
done
rm -rf "$classes"
