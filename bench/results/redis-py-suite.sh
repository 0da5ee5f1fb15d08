#!/usr/bin/env bash
# redis-py's own test suite (the sdist's tests/, sync and asyncio) against one server, started here on
# PORT with fresh data and stopped after; bench/results/redis-py-suite.md has the comparison.
# usage: bench/results/redis-py-suite.sh redis|ROOT PORT [2|3] [more pytest args]
#   redis: redis-server at its defaults; ROOT: the Colossal checkout whose built jar is served.
#   WORK (default /tmp/redis-py-suite) holds the sdist, its venv, the data and the results.
#   ENABLE_DEBUG_COMMAND=yes starts either server with --enable-debug-command yes (default: no, as Redis).
# Compare two runs: bench/results/redis-py-suite.sh compare A.xml B.xml
set -u
work=${WORK:-/tmp/redis-py-suite}
if [ "$1" = compare ]; then
  python3 - "$2" "$3" <<'EOF'
import sys, collections, xml.etree.ElementTree as ET
def load(p):
    out = {}
    for tc in ET.parse(p).getroot().iter('testcase'):
        state, why = 'passed', ''
        for c in tc:
            if c.tag in ('failure', 'error'):
                state, why = 'failed', (c.get('message') or '').splitlines()[0][:160] if c.get('message') else ''
                break
            if c.tag == 'skipped':
                state = 'skipped'
        out[tc.get('classname') + '::' + tc.get('name')] = (state, why)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
for name, r in ((sys.argv[1], a), (sys.argv[2], b)):
    print(name, dict(collections.Counter(s for s, _ in r.values())))
for k in sorted(b):
    if b[k][0] == 'failed' and a.get(k, ('',))[0] != 'failed':
        print('failed in the second only:', k, '|', b[k][1])
for k in sorted(a):
    if a[k][0] == 'failed' and b.get(k, ('',))[0] != 'failed':
        print('failed in the first only:', k, '|', a[k][1])
EOF
  exit 0
fi
server=$1; port=$2; protocol=${3:-2}; shift; shift; [ $# -gt 0 ] && shift
debug=${ENABLE_DEBUG_COMMAND:-no}
mkdir -p "$work"
if [ ! -d "$work/venv" ]; then
  python3 -m venv "$work/venv"
  (cd "$work" && "$work/venv/bin/pip" download -q --no-binary :all: --no-deps redis==8.1.0 && tar xzf redis-8.1.0.tar.gz)
  "$work/venv/bin/pip" install -q pytest pytest-asyncio pytest-timeout packaging pybreaker -e "$work/redis-8.1.0"
fi
data="$work/data-$port"; rm -rf "$data"; mkdir -p "$data"
if [ "$server" = redis ]; then
  (cd "$data" && exec redis-server --port "$port" --save "" --appendonly no --bind 127.0.0.1 \
    --enable-debug-command "$debug") > "$data.log" 2>&1 & pid=$!
else
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
  java -cp "$server/colossal-server/target/colossal-server.jar:$server/colossal-server/target/lib/*" dev.colossal.cli.Main \
    serve --port "$port" --http-port -1 --data "$data" --enable-debug-command "$debug" > "$data.log" 2>&1 & pid=$!
fi
for i in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
name=$([ "$server" = redis ] && echo redis || echo colossal)-resp$protocol$([ "$debug" = no ] || echo "-debug-$debug")
# Left out: what needs Redis Stack modules, a cluster, sentinels, TLS certificates or Entra ID, and
# the multi-database and scenario suites, which need their own deployments.
(cd "$work/redis-8.1.0" && "$work/venv/bin/python" -m pytest tests -q -p no:cacheprovider -o addopts= -rfE \
  --timeout=15 --timeout-method=signal --protocol="$protocol" \
  --redis-url="redis://127.0.0.1:$port/0" --redis-mod-url="redis://127.0.0.1:$port/0" \
  --ignore=tests/test_multidb --ignore=tests/test_scenario --ignore=tests/test_asyncio/test_multidb \
  --ignore=tests/test_asyncio/test_scenario --ignore=tests/test_observability --ignore=tests/test_http \
  --ignore-glob='*test_cluster*' --ignore-glob='*test_sentinel*' --ignore-glob='*test_search*' \
  --ignore-glob='*test_json*' --ignore-glob='*test_bloom*' --ignore-glob='*test_timeseries*' \
  --ignore-glob='*test_vsets*' --ignore-glob='*test_credentials*' --ignore-glob='*test_ssl*' \
  --junitxml="$work/$name.xml" "$@") > "$work/$name.log" 2>&1
tail -1 "$work/$name.log"
kill "$pid"; wait "$pid" 2>/dev/null
echo "results: $work/$name.xml"
