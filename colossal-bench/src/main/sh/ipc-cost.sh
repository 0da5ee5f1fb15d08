#!/usr/bin/env bash
# Instructions per message through each ring, counted by valgrind's callgrind: no hardware
# counters and no scheduler involved, so the figure is the same on a busy machine as on a quiet one.
#   colossal-bench/src/main/sh/ipc-cost.sh [RING...]      (default: all four rings, 32/64/256 B)
# One thread writes 64 messages and reads them back (RingCostMain), warmed up first; callgrind's
# counters are zeroed after the warm-up and dumped after the measured messages. Needs valgrind and
# a built colossal-bench/target/benchmarks.jar (./colossal build). About a minute per cell.
# KEEP=DIR (one cell) keeps the measured dump, per instruction, and the JIT's symbol map there for
# callgrind-methods.py DIR COUNT: instructions per message in each compiled method. JVM_FLAGS
# adds flags (e.g. to print a method's machine code to a log file).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
JAR="${JAR:-$ROOT/colossal-bench/target/benchmarks.jar}"   # JAR=... to measure another build
WARMUP=${WARMUP:-3000000}
COUNT=${COUNT:-1000000}
command -v valgrind >/dev/null || { echo "ipc-cost: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$JAR" ] || { echo "ipc-cost: $JAR missing; run ./colossal build" >&2; exit 1; }
RINGS=("$@")
[ ${#RINGS[@]} -gt 0 ] || RINGS=(colossal-spsc agrona-spsc colossal-mpsc agrona-mpsc)
SIZES=${SIZES:-"32 64 256"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
keep=()
[ -z "${KEEP:-}" ] || keep=(--dump-instr=yes)
keepjvm=()
[ -z "${KEEP:-}" ] || keepjvm=(-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)

cost() { # ring size -> instructions per message
  local gate="$work/gate" out="$work/out" pid
  rm -f "$gate" "$gate.done" "$out" "$work"/cg.*   # $out too: the JVM truncates it only once it starts
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" --smc-check=all-non-file "${keep[@]}" \
    "$JAVA" -XX:+UseSerialGC -XX:-UsePerfData "${keepjvm[@]}" ${JVM_FLAGS:-} --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED \
    -cp "$JAR" dev.colossal.bench.ipc.RingCostMain "$1" "$2" "$WARMUP" "$COUNT" "$gate" >"$out" 2>"$work/err" &
  pid=$!
  until grep -q WARM "$out" 2>/dev/null; do sleep 0.2; kill -0 $pid 2>/dev/null || { cat "$work/err" >&2; exit 1; }; done
  sleep "${SETTLE:-10}"   # valgrind runs one thread at a time: let the JIT finish its queue
  callgrind_control -z $pid >/dev/null 2>&1
  touch "$gate"
  until grep -q DONE "$out" 2>/dev/null; do sleep 0.2; kill -0 $pid 2>/dev/null || { echo "ipc-cost: $1 $2 exited before DONE" >&2; cat "$work/err" >&2; exit 1; }; done
  callgrind_control -d $pid >/dev/null 2>&1
  touch "$gate.done"
  wait $pid
  if [ -n "${KEEP:-}" ]; then   # the measured dump only, not the part after it
    mkdir -p "$KEEP" && cp "$work"/cg.$pid.1 "/tmp/perf-$pid.map" "$KEEP"/ && rm -f "/tmp/perf-$pid.map"
  fi
  local ir
  ir=$(cat "$work"/cg.$pid.* | sed -n 's/^totals: \([0-9]*\).*/\1/p' | head -n 1)
  awk -v ir="$ir" -v n="$COUNT" 'BEGIN { printf "%.1f", ir / n }'
}

printf '| ring | %s |\n|---|%s\n' "$(echo $SIZES | sed 's/ / B | /g') B" "$(for s in $SIZES; do printf -- '---:|'; done)"
for ring in "${RINGS[@]}"; do
  row="| $ring |"
  for size in $SIZES; do row="$row $(cost "$ring" "$size") |"; done
  echo "$row"
done
echo "(instructions per message, write + read, one thread; valgrind callgrind; warm-up $WARMUP, measured $COUNT)"
