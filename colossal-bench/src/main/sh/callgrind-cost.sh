# Sourced by the *-cost.sh scripts. cost_per_call COUNT MAIN_CLASS ARGS... runs the main of
# benchmarks.jar ($jar) under valgrind's callgrind and prints the instructions the calling thread
# (the one with the most; --separate-threads leaves JIT and GC threads out) spent per measured call.
# The main prints WARM after its warm-up and DONE after COUNT measured calls, each time waiting for
# a line on stdin, so the counters are zeroed and dumped exactly around the measured part.
# JVM_FLAGS adds flags; KEEP=DIR keeps callgrind's files, per instruction, and the JIT's symbol map
# there, for callgrind-methods.py (which method the instructions were spent in).
# STAGES=N: the main measures N cases in turn, each after a line on stdin and followed by a line
# "DONE NAME"; each is counted on its own (zeroed before, dumped after) and printed as NAME, instructions
# per call.
cost_per_call() {
  local count=$1 work pid ir
  shift
  work=$(mktemp -d "${TMPDIR:-/tmp}/cost.XXXXXX")
  mkfifo "$work/go"
  local keep=()
  [ -z "${KEEP:-}" ] || keep=(-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/cg.%p" --smc-check=all-non-file \
    ${KEEP:+--dump-instr=yes} \
    "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -XX:+Use"${GC:-Serial}"GC -XX:-UsePerfData \
    -XX:CompileCommand=quiet ${JVM_FLAGS:-} "${keep[@]}" -cp "$jar" "$@" \
    <"$work/go" >"$work/out" 2>"$work/err" &
  pid=$!
  exec 3>"$work/go"
  until grep -q WARM "$work/out"; do sleep 0.2; kill -0 $pid 2>/dev/null || { cat "$work/err" >&2; exit 1; }; done
  sleep "${SETTLE:-10}"   # let the JIT finish its queue
  local stage
  for stage in $(seq "${STAGES:-1}"); do
    callgrind_control -z $pid >/dev/null 2>&1
    echo go >&3
    until [ "$(grep -c '^DONE' "$work/out")" -ge "$stage" ]; do
      sleep 0.2; kill -0 $pid 2>/dev/null || { cat "$work/err" >&2; exit 1; }
    done
    callgrind_control -d $pid >/dev/null 2>&1
  done
  echo go >&3
  exec 3>&-
  wait $pid
  ir=$(for f in "$work"/cg.$pid*; do sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f"; done | sort -n | tail -n 1)
  if [ -n "${STAGES:-}" ]; then   # dump k is cg.PID.k-THREAD; the calling thread's file is the biggest
    for stage in $(seq "$STAGES"); do
      printf '%-30s ' "$(sed -n 's/^DONE //p' "$work/out" | sed -n "${stage}p")"
      for f in "$work"/cg.$pid.$stage-*; do sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f"; done | sort -n | tail -n 1 |
        awk -v n="$count" '{ printf "%8.1f\n", $1 / n }'
    done
  fi
  if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP" && cp "$work"/cg.$pid* "$KEEP"/ && cp "/tmp/perf-$pid.map" "$KEEP"/ 2>/dev/null || true
    rm -f "/tmp/perf-$pid.map"
  fi
  rm -rf "$work"
  [ -n "${STAGES:-}" ] || awk -v ir="$ir" -v n="$count" 'BEGIN { printf "%.1f\n", ir / n }'
}
