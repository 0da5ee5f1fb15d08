#!/usr/bin/env bash
# hiredis's own test program (test.c of Debian's hiredis 0.14.1 source: the reply reader, blocking
# connections over TCP, a Unix socket and an inherited fd, timeouts, I/O errors, and pipelined
# throughput) against one server, started here on PORT with fresh data, a Unix socket and
# DEBUG allowed from local connections (its timeout test sends DEBUG SLEEP), and stopped after;
# bench/results/hiredis-suite.md has the comparison.
# usage: bench/results/hiredis-suite.sh redis|ROOT PORT
#   redis: redis-server at its defaults; ROOT: the Colossal checkout whose built jar is served.
#   WORK (default /tmp/hiredis-suite) holds the source, the data and the output (WORK/out-PORT.txt).
# Needs gcc and make.
set -u
server=$1; port=$2
work=${WORK:-/tmp/hiredis-suite}
mkdir -p "$work"
src=$work/hiredis-0.14.1
if [ ! -x "$src/hiredis-test" ]; then
  curl -sfL -o "$work/hiredis.orig.tar.gz" "http://deb.debian.org/debian/pool/main/h/hiredis/hiredis_0.14.1.orig.tar.gz" \
    || { echo "could not download hiredis's source from deb.debian.org" >&2; exit 2; }
  tar -xzf "$work/hiredis.orig.tar.gz" -C "$work"
  make -s -C "$src" hiredis-test >/dev/null || { echo "building hiredis-test failed" >&2; exit 2; }
fi
. "$(dirname "$0")/start-server.sh"
sock=$work/$port.sock
start_server "$server" "$port" "$work/data-$port" --unixsocket "$sock" --enable-debug-command local || exit 2
out=$work/out-$port.txt
(cd "$work" && timeout 600 stdbuf -oL "$src/hiredis-test" -p "$port" -s "$sock") >"$out" 2>&1
rc=$?
kill "$pid"; wait "$pid" 2>/dev/null
echo "$server: passed $(grep -c 'PASSED' "$out"), failed $(grep -c 'FAILED' "$out"), exit $rc ($out)"
grep 'FAILED' "$out" | sed 's/\x1b\[[0-9;]*m//g; s/^/  /'
grep -A7 'Throughput' "$out" | grep '^\s*(' | sed 's/^\s*/  /'
