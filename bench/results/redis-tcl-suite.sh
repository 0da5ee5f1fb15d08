#!/usr/bin/env bash
# Redis 7.0.15's own Tcl test suite (tests/ of Debian's redis_7.0.15 source) in external-server mode
# (runtest --host --port: tests tagged external:skip are skipped) against one server, started here
# with fresh data and DEBUG allowed from local connections, once per unit so that a unit that ends in
# an exception or leaves the server in a bad state does not spoil the next; stopped after each.
# bench/results/redis-tcl-suite.md has the comparison.
# usage: bench/results/redis-tcl-suite.sh redis|ROOT PORT [UNIT...]
#   redis: redis-server at its defaults; ROOT: the Colossal checkout whose built jar is served.
#   UNIT: runtest's names (unit/type/list); default: the units below that external mode leaves tests in.
#   WORK (default /tmp/redis-tcl-suite) holds the source, the data and the output (WORK/out-PORT/).
#   EXCLUDE (default below) is passed to runtest as it is: tags denied on both servers.
#   UNIT_TIMEOUT (default 900) bounds one unit's run in seconds.
# Ports: PORT is the server's; runtest's own listening socket (the test server its client reports to)
# takes PORT+1 or PORT+2, and the few tests that look for a free port of their own take PORT+3..PORT+6:
# leave PORT+1..PORT+6 free. (runtest itself would search 32 ports below --baseport for its socket
# and probe each candidate's +10000 twin for a cluster bus: the copy of test_helper.tcl and
# util.tcl made here narrows both, so that a run stays within PORT..PORT+6.)
set -u
server=$1; port=$2; shift 2
work=${WORK:-/tmp/redis-tcl-suite}
# needs:debug tests are about Redis's internals (DEBUG RELOAD, DEBUG OBJECT and encodings, AOF
# loading with appendonly yes, quicklist node internals): denied on both servers; see
# redis-tcl-suite.md for why (EXCLUDE= runs them all).
exclude=${EXCLUDE---tags -needs:debug}
# Tests skipped on both servers: a script that runs past busy-reply-threshold holds the other
# connections of its event loop on Colossal where redis-server answers them BUSY, and these tests
# wait on such a connection for the BUSY (or the script never ends): they hang until runtest's
# timeout and take the rest of their unit with them. SKIP= runs them.
skip_default=('/^Timedout ' '/and script timeout$' '/^SHUTDOWN NOSAVE can kill a timedout script'
  '/^FUNCTION - test function kill' '/^FUNCTION - test script kill not working on function'
  "/^EVAL - Script can't run more than configured time limit")
skips=()
if [ -z "${SKIP+x}" ]; then
  for t in "${skip_default[@]}"; do skips+=(--skiptest "$t"); done
fi
units=("$@")
if [ ${#units[@]} -eq 0 ]; then
  units=(unit/type/string unit/type/incr unit/type/list unit/type/list-2 unit/type/list-3 unit/type/hash
    unit/type/set unit/type/zset unit/type/stream unit/type/stream-cgroups unit/keyspace unit/expire
    unit/scan unit/dump unit/info-command unit/pubsub unit/multi unit/quit unit/scripting unit/functions
    unit/bitops unit/bitfield unit/geo unit/hyperloglog unit/sort unit/other unit/querybuf
    unit/protocol unit/latency-monitor unit/introspection unit/introspection-2 unit/slowlog
    unit/tracking unit/pause unit/lazyfree unit/replybufsize)
fi
mkdir -p "$work"
src=$work/redis-7.0.15
if [ ! -x "$src/runtest" ]; then
  curl -sfL -o "$work/redis.orig.tar.gz" "http://deb.debian.org/debian/pool/main/r/redis/redis_7.0.15.orig.tar.gz" \
    || { echo "could not download redis's source from deb.debian.org" >&2; exit 2; }
  tar -xzf "$work/redis.orig.tar.gz" -C "$work"
fi
# A few helpers call the binaries by path even in external mode: the installed ones stand in.
for b in redis-server redis-cli redis-benchmark; do
  [ -e "$src/src/$b" ] || ln -sf "/usr/bin/$b" "$src/src/$b"
done
# Each port runs from its own copy of tests/ (runtest clears tests/tmp as it starts), so that two
# servers can be tested at once.
tree=$work/tree-$port
rm -rf "$tree"; mkdir -p "$tree"
cp -r "$src/tests" "$src/runtest" "$tree/"; ln -s "$src/src" "$tree/src"
sed -i 's/find_available_port \[expr {$::baseport - 32}\] 32/find_available_port [expr {$::baseport - 2}] 2/' \
  "$tree/tests/test_helper.tcl"
sed -i 's/\[catch {set fd2 \[socket -server 127.0.0.1 \[expr $port+10000\]\]}\]} {/0} {/; /close $fd2/d' \
  "$tree/tests/support/util.tcl"
. "$(dirname "$0")/start-server.sh"
out=$work/out-$port
rm -rf "$out"; mkdir -p "$out"
# except: the unit stopped there, at an exception (an unexpected error reply) or runtest's timeout
printf '%-28s %6s %6s %6s\n' unit passed failed except
for unit in "${units[@]}"; do
  log=$out/${unit//\//_}.txt
  start_server "$server" "$port" "$work/data-$port" --enable-debug-command local || exit 2
  # shellcheck disable=SC2086
  (cd "$tree" && timeout "${UNIT_TIMEOUT:-900}" tclsh tests/test_helper.tcl --host 127.0.0.1 --port "$port" \
    --single "$unit" --timeout 120 --baseport $((port + 3)) --portcount 4 $exclude "${skips[@]}") >"$log" 2>&1
  echo "runtest exit $?" >>"$log"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  clean=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | tr -d '\000')
  printf '%-28s %6d %6d %6d\n' "$unit" "$(grep -c '^\[ok\]' <<<"$clean")" \
    "$(grep -c '^\[err\]' <<<"$clean")" "$(grep -cE '^\[(exception|TIMEOUT)\]' <<<"$clean")"
  grep -aE '^\[(err|exception)\]|IN PROGRESS' <<<"$clean" | sed 's/^/    /'
done
