#!/usr/bin/env bash
# phpredis's own test suite (tests/TestRedis.php of Debian's php-redis 5.3.7 source, class Redis: every
# command wrapper, pipelines, MULTI, SCAN iterators, serializers, and PHP sessions kept in the server with
# their locks) against one server, started here on PORT with fresh data and stopped after;
# bench/results/phpredis-suite.md has the comparison.
# usage: bench/results/phpredis-suite.sh redis|ROOT PORT
#   redis: redis-server at its defaults; ROOT: the Colossal checkout whose built jar is served.
#   WORK (default /tmp/phpredis-suite) holds the source, the data and the output (WORK/out-PORT.txt).
# Needs php-cli and php-redis (Debian packages; installed here with apt-get if missing).
set -u
server=$1; port=$2
work=${WORK:-/tmp/phpredis-suite}
mkdir -p "$work"
if ! php -m 2>/dev/null | grep -qx redis; then
  apt-get install -y -q php-cli php-redis >/dev/null || { echo "apt-get install php-cli php-redis failed" >&2; exit 2; }
fi
src=$work/redis-5.3.7
if [ ! -d "$src/tests" ]; then
  # Debian's source package of php-redis: its orig tarball holds phpredis 5.3.7 with its tests
  curl -sfL -o "$work/php-redis.orig.tar.xz" \
    "http://deb.debian.org/debian/pool/main/p/php-redis/php-redis_5.3.7+4.3.0.orig.tar.xz" \
    || { echo "could not download php-redis's source from deb.debian.org" >&2; exit 2; }
  tar -xf "$work/php-redis.orig.tar.xz" -C "$work"
fi
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
out=$work/out-$port.txt
# TEST_PHP_ARGS: the session tests start PHP processes; with it set they load the installed php.ini
# (which loads redis) instead of --no-php-ini with extensions Debian does not have (igbinary, msgpack).
(cd "$src/tests" && TEST_PHP_ARGS="-d error_reporting=0" timeout 900 \
  php -d 'error_reporting=E_ALL & ~E_DEPRECATED' TestRedis.php --class Redis --host 127.0.0.1 --port "$port" --nocolors) >"$out" 2>&1
rc=$?
kill "$pid"; wait "$pid" 2>/dev/null
echo "$server: passed $(grep -c '\[PASSED\]' "$out"), failed $(grep -c '\[FAILED\]' "$out"), skipped $(grep -c '\[SKIPPED\]' "$out"), exit $rc ($out)"
awk '/^test[A-Za-z0-9_]/ { name = $1 } /\[FAILED\]/ { print "  failed: " name } /\[SKIPPED\]/ { print "  skipped: " name }' "$out"
