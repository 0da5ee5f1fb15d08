#!/usr/bin/env bash
# The metrics redis_exporter (Prometheus' Redis exporter, v1.62.0) makes of one server, started here on
# PORT with fresh data: prints the metric names, one a line. Compare two servers with
#   diff <(bench/results/redis-exporter-metrics.sh redis 7797) <(bench/results/redis-exporter-metrics.sh ROOT 7798)
# usage: bench/results/redis-exporter-metrics.sh redis|ROOT PORT     (WORK, default /tmp/redis-exporter)
set -u
server=$1; port=$2
work=${WORK:-/tmp/redis-exporter}
mkdir -p "$work"
exe=$work/redis_exporter
if [ ! -x "$exe" ]; then
  # From the Go module proxy. The proxy here lists no versions of it and sum.golang.org does not
  # answer for it, hence the exact version and GOSUMDB=off; `go get` in a scratch module fetches it.
  (cd "$work" && rm -f go.mod && go mod init scratch >/dev/null 2>&1 \
    && GOSUMDB=off GOFLAGS=-mod=mod go get github.com/oliver006/redis_exporter@v1.62.0 >/dev/null 2>&1) \
    || { echo "could not fetch redis_exporter v1.62.0 from the Go module proxy" >&2; exit 2; }
  (cd "$(go env GOMODCACHE)/github.com/oliver006/redis_exporter@v1.62.0" && GOSUMDB=off GOFLAGS=-mod=mod go build -o "$exe" .) \
    || { echo "could not build redis_exporter" >&2; exit 2; }
fi
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
redis-cli -p "$port" set k v >/dev/null
web=$((port + 10000))
"$exe" --redis.addr "redis://127.0.0.1:$port" --web.listen-address "127.0.0.1:$web" >"$work/exporter-$port.log" 2>&1 & epid=$!
for _ in $(seq 50); do curl -sf "127.0.0.1:$web/metrics" -o "$work/metrics-$port.txt" && break; sleep 0.2; done
grep '^redis_' "$work/metrics-$port.txt" | sed 's/[ {].*//' | sort -u
kill "$epid" "$pid"; wait "$pid" 2>/dev/null
