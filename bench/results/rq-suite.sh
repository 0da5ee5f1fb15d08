#!/usr/bin/env bash
# python-rq 3.0.0's own test suite (the sdist's tests/: queues, jobs, workers and their forks, registries,
# scheduler, dependencies, retries, callbacks, groups, cron, the CLI) against one server, started here on
# PORT with fresh data and stopped after; bench/results/queue-clients.md compares.
# usage: bench/results/rq-suite.sh redis|ROOT PORT
#   redis: redis-server at its defaults; ROOT: the Colossal checkout whose built jar is served.
#   WORK (default /tmp/rq-suite) holds the sdist, its venv, the data and the logs.
# The suite reaches Redis as redis-py's default (localhost:6379) through Redis() in the tests and in the
# workers and CLI processes they start, so a .pth file in the venv moves that default to $RQ_TEST_PORT
# for every Python process of the venv, and the tests' literal redis://127.0.0.1:6379 URLs become PORT.
# The venv's bin/ goes first on PATH: some tests start `rqworker` as a command.
# Slow and SSL tests stay skipped, as the suite's defaults have them (RUN_SLOW_TESTS_TOO, RUN_SSL_TESTS).
set -u
server=$1; port=$2
work=${WORK:-/tmp/rq-suite}
mkdir -p "$work"
src=$work/rq-3.0.0
if [ ! -x "$work/venv/bin/pytest" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q "rq==3.0.0" "redis==8.1.0" "pytest==9.2.0" psutil \
    || { echo "pip install failed" >&2; exit 2; }
fi
if [ ! -f "$work/rq-3.0.0.tar.gz" ]; then
  (cd "$work" && "$work/venv/bin/pip" download -q --no-binary :all: --no-deps rq==3.0.0) \
    || { echo "could not download rq 3.0.0's sdist" >&2; exit 2; }
fi
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cat > "$site/rq_suite_port.py" <<'PY'
"""Moves redis-py's default port to $RQ_TEST_PORT in this process (imported from rq_suite_port.pth)."""
import os

port = os.environ.get('RQ_TEST_PORT')
if port:
    import redis
    import redis.connection

    def _moved(func):
        # Redis.__init__ is wrapped by deprecation decorators: the defaults live on the innermost function
        while hasattr(func, '__wrapped__'):
            func = func.__wrapped__
        if func.__defaults__:
            func.__defaults__ = tuple(int(port) if d == 6379 else d for d in func.__defaults__)
        if func.__kwdefaults__:
            func.__kwdefaults__ = {k: int(port) if v == 6379 else v for k, v in func.__kwdefaults__.items()}

    _moved(redis.Redis.__init__)
    _moved(redis.connection.Connection.__init__)
PY
echo "import rq_suite_port" > "$site/rq_suite_port.pth"
rm -rf "$src"; tar -xzf "$work/rq-3.0.0.tar.gz" -C "$work"
sed -i "s/127\.0\.0\.1:6379/127.0.0.1:$port/g" "$src"/tests/*.py
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
name=$([ "$server" = redis ] && echo redis || echo colossal)
# pytest runs in a process group of its own: a failed test can leave the workers it started running
# (test_worker_pool's when its timing is missed), and then pytest never exits, so the group is ended
# once the summary line is written.
(cd "$src" && PATH=$work/venv/bin:$PATH RQ_TEST_PORT=$port exec setsid "$work/venv/bin/python" -m pytest -q \
  -p no:cacheprovider -o addopts= -rfE --junitxml="$work/$name.xml" tests) > "$work/$name.log" 2>&1 &
suite=$!
for _ in $(seq 900); do
  kill -0 "$suite" 2>/dev/null || break
  grep -qE ' in [0-9.]+s( \(|$)' "$work/$name.log" && { sleep 5; break; }
  sleep 2
done
kill -- -"$suite" 2>/dev/null; sleep 1; kill -9 -- -"$suite" 2>/dev/null; wait "$suite" 2>/dev/null
grep -E ' in [0-9.]+s( \(|$)' "$work/$name.log" || echo "no summary line: the suite ran over 30 minutes"
grep -E '^(FAILED|ERROR) ' "$work/$name.log"
kill "$pid"; wait "$pid" 2>/dev/null
echo "log: $work/$name.log"
