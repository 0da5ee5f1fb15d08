#!/usr/bin/env bash
# django-redis 5.2.0's own test suite (the sdist's tests/: the cache backend, its client options,
# serializers, compressors, sharding, Unix socket, sessions) against one server, started here on PORT
# with fresh data and a Unix socket, and stopped after; bench/results/django-redis-suite.md compares.
# usage: bench/results/django-redis-suite.sh redis|ROOT PORT
#   redis: redis-server at its defaults; ROOT: the Colossal checkout whose built jar is served.
#   WORK (default /tmp/django-redis-suite) holds the sdist, its venv, the data and the results.
# The suite runs once per settings module, as its tox.ini does; settings.sqlite_sentinel is left out
# (it needs Redis Sentinel, which neither server here is).
set -u
server=$1; port=$2
work=${WORK:-/tmp/django-redis-suite}
mkdir -p "$work"
src=$work/django-redis-5.2.0
if [ ! -x "$work/venv/bin/pytest" ]; then
  python3 -m venv "$work/venv"
  # Django 4.1, redis-py 4.3 and pytest-django 4.5 (the tests import its SettingsWrapper): releases of
  # django-redis 5.2.0's time (2022) that run on Python 3.11
  "$work/venv/bin/pip" install -q "Django==4.1.13" "redis==4.3.4" "pytest==7.2.0" "pytest-django==4.5.2" "pytest-mock==3.10.0" \
    msgpack lz4 pyzstd \
    || { echo "pip install failed" >&2; exit 2; }
fi
if [ ! -f "$work/django-redis-5.2.0.tar.gz" ]; then
  (cd "$work" && "$work/venv/bin/pip" download -q --no-binary :all: --no-deps django-redis==5.2.0) \
    || { echo "could not download django-redis 5.2.0's sdist" >&2; exit 2; }
fi
# Fresh settings every run: the suite's fixed addresses (6379, the unreachable 56379, /tmp/redis.sock)
# become this run's port, the unused port beside it, and a socket in WORK.
tar -xzf "$work/django-redis-5.2.0.tar.gz" -C "$work"
sock=$work/redis-$port.sock
sed -i -e "s/127\.0\.0\.1:6379/127.0.0.1:$port/g" -e "s/127\.0\.0\.1:56379/127.0.0.1:$((port + 1))/g" \
  -e "s#/tmp/redis\.sock#$sock#g" "$src"/tests/settings/*.py
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" --unixsocket "$sock" || exit 2
name=$([ "$server" = redis ] && echo redis || echo colossal)
for settings in sqlite sqlite_herd sqlite_json sqlite_lz4 sqlite_msgpack sqlite_sharding sqlite_usock sqlite_zlib sqlite_zstd; do
  (cd "$src" && timeout 600 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider -o addopts= -o pythonpath=tests \
    --ds="settings.$settings" -rfE --junitxml="$work/$name-$settings.xml" tests) > "$work/$name-$settings.log" 2>&1
  echo "$settings: $(tail -1 "$work/$name-$settings.log")"
  grep -E '^(FAILED|ERROR) ' "$work/$name-$settings.log" | sed 's/^/  /'
done
kill "$pid"; wait "$pid" 2>/dev/null
echo "results: $work/$name-*.xml"
