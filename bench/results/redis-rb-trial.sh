#!/usr/bin/env bash
# redis-rb 4.8.0 (Debian's ruby-redis) side by side: bench/results/redis-rb-trial.rb's calls against
# one server, started here on PORT with fresh data and stopped after; compare two runs' outputs with
# diff. usage: bench/results/redis-rb-trial.sh redis|ROOT PORT   (WORK, default /tmp/redis-rb-trial)
set -u
server=$1; port=$2
work=${WORK:-/tmp/redis-rb-trial}
mkdir -p "$work"
ruby -e 'require "redis"; exit(Redis::VERSION == "4.8.0" ? 0 : 1)' 2>/dev/null \
  || apt-get install -y -q ruby ruby-redis >/dev/null || { echo "apt-get install ruby-redis failed" >&2; exit 2; }
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
name=$([ "$server" = redis ] && echo redis || echo colossal)
timeout 300 ruby "$(dirname "$0")/redis-rb-trial.rb" "$port" > "$work/$name.txt" 2>&1
echo "$server: exit $?, $(wc -l < "$work/$name.txt") lines in $work/$name.txt"
kill "$pid"; wait "$pid" 2>/dev/null
