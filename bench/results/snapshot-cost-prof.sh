#!/bin/bash
# snapshot-cost-prof.sh ROOT NAME [strings]: a JFR recording (settings=profile) of ROOT's server over 6
# `redis-cli --rdb` of the snapshot-cost dataset, after 2 warm-up ones; prints the event loop's hottest
# frames (self and inclusive, share of its samples). Port 7510; files under $WORK (default /tmp/snapshot-cost).
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}; export PATH=$JAVA_HOME/bin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/snapshot-cost}; mkdir -p "$WORK"; port=7510; d=$WORK/d-prof-$2
python3 "$here/snapshot-cost-data.py" ${3:-} > "$WORK/prof.resp"
rm -rf "$d"; mkdir -p "$d"
java -cp "$1/colossal-server/target/colossal-server.jar:$1/colossal-server/target/lib/*" dev.colossal.cli.Main serve \
  --port $port --http-port -1 --data "$d" >"$d.log" 2>&1 & pid=$!
trap 'kill $pid' EXIT
for _ in $(seq 100); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.2; done
redis-cli -p $port --pipe < "$WORK/prof.resp" | tail -1
for w in 1 2; do redis-cli -p $port --rdb "$WORK/p-$2.rdb" >/dev/null 2>&1; done
jcmd $pid JFR.start name=s settings=profile >/dev/null
for w in 1 2 3 4 5 6; do rm -f "$WORK/p-$2.rdb"; redis-cli -p $port --rdb "$WORK/p-$2.rdb" >/dev/null 2>&1; done
jcmd $pid JFR.dump name=s filename="$WORK/$2.jfr" >/dev/null
jfr print --events jdk.ExecutionSample --stack-depth 40 "$WORK/$2.jfr" > "$WORK/$2.txt"
python3 - "$WORK/$2.txt" <<'PY'
import re, collections, sys
self_, incl, n = collections.Counter(), collections.Counter(), 0
for e in open(sys.argv[1]).read().split('jdk.ExecutionSample'):
    frames = re.findall(r'^\s+([\w.$<>]+)\(', e, re.M)
    if not frames or 'colossal-io' not in e:
        continue
    n += 1
    self_[frames[0]] += 1
    for f in set(frames):
        incl[f] += 1
print("event-loop samples", n)
for f, c in self_.most_common(20): print("self %5.1f%% %s" % (100 * c / n, f))
for f, c in incl.most_common(45): print("incl %5.1f%% %s" % (100 * c / n, f))
PY
