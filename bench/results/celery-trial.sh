#!/usr/bin/env bash
# Celery 5.7.0 (kombu 5.7.0's Redis transport, redis-py 8.1.0; installed here into a venv in WORK) with
# its broker (database 0) and result backend (database 1) on one server, started here on PORT with fresh
# data. The script starts a worker (prefork, 2 processes) and a client that waits for the worker to answer
# a ping, then sends: plain tasks, a task that retries twice and then succeeds, one that exhausts its
# retries, one that raises, countdown and eta (checked not to run early), groups, chains, chords (also a
# chord of chains and a 100-task group), revoke of a waiting eta task and terminate of a running one,
# AsyncResult.forget, and inspect/control (registered, active_queues). Task ids are random, so only
# states, values and booleans are printed: the output must be the same on redis-server and on Colossal.
# The worker's tracebacks and its lines that speak of trouble with the transport are counted after.
# usage: bench/results/celery-trial.sh redis|ROOT PORT     (WORK, default /tmp/celery-trial, holds the worker's log)
set -u
server=$1; port=$2
work=${WORK:-/tmp/celery-trial}
mkdir -p "$work"
if [ ! -x "$work/venv/bin/celery" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q "celery[redis]==5.7.0" "kombu==5.7.0" "redis==8.1.0" \
    || { echo "pip install celery failed" >&2; exit 2; }
fi
cat > "$work/trialtasks.py" <<'PY'
"""The trial's Celery app: broker and result backend on the server under trial."""
import os
import time

from celery import Celery

url = f"redis://127.0.0.1:{os.environ['PORT']}"
app = Celery('trial', broker=f'{url}/0', backend=f'{url}/1')
app.conf.update(task_serializer='json', result_serializer='json', accept_content=['json'],
                task_track_started=True, worker_prefetch_multiplier=1, result_expires=3600,
                broker_connection_retry_on_startup=True, worker_hijack_root_logger=False)


@app.task
def add(x, y):
    return x + y


@app.task
def tsum(values):
    return sum(values)


@app.task(bind=True, max_retries=3)
def flaky(self, name):
    if self.request.retries < 2:
        raise self.retry(exc=ValueError(f'attempt {self.request.retries}'), countdown=0.2)
    return f'{name} after {self.request.retries} retries'


@app.task(bind=True, max_retries=1)
def hopeless(self):
    raise self.retry(exc=ValueError('never'), countdown=0.1)


@app.task
def fails():
    raise KeyError('missing')


@app.task
def stamp():
    return time.time()


@app.task
def slow(seconds):
    time.sleep(seconds)
    return seconds
PY
cat > "$work/trialclient.py" <<'PY'
"""Sends the trial's tasks and prints what comes back, one observable a line."""
import time
from datetime import datetime, timedelta, timezone

import redis
from celery import chain, chord, group
from celery.result import AsyncResult

from trialtasks import add, app, fails, flaky, hopeless, slow, stamp, tsum, url


def say(*parts):
    print(*parts, flush=True)


def failure(result):
    value = result.get(timeout=30, propagate=False)
    return f'{result.state} {type(value).__name__} {value}'


def until(what, pred, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    say('TIMEOUT', what)
    return False


until('worker ping', lambda: len(app.control.ping(timeout=1.0)) > 0, 60)
say('ping', len(app.control.ping(timeout=2.0)))
r = add.delay(2, 3)
say('add', r.get(timeout=30), r.state, r.successful())
say('apply_async kwargs', add.apply_async(kwargs={'x': 'a', 'y': 'b'}).get(timeout=30))
say('flaky', flaky.delay('f').get(timeout=30))
say('hopeless', failure(hopeless.delay()))
r = fails.delay()
say('fails', failure(r), 'traceback names it', 'KeyError' in (r.traceback or ''))
t0 = time.time()
say('countdown not early', stamp.apply_async(countdown=2).get(timeout=30) - t0 >= 1.9)
t0 = time.time()
say('eta not early', stamp.apply_async(eta=datetime.now(timezone.utc) + timedelta(seconds=2)).get(timeout=30) - t0 >= 1.9)
say('group', group(add.s(i, i) for i in range(10))().get(timeout=30))
say('chain', chain(add.s(1, 2), add.s(3), add.s(4))().get(timeout=30))
say('chord', chord(add.s(i, i) for i in range(5))(tsum.s()).get(timeout=30))
say('chord of chains', chord(chain(add.s(i, 1), add.s(10)) for i in range(4))(tsum.s()).get(timeout=30))
say('chain into chord', chain(add.s(1, 1), group(add.s(i) for i in range(3)), tsum.s())().get(timeout=30))
big = group(add.s(i, 1) for i in range(100))().get(timeout=60)
say('group of 100', len(big), sum(big))
waiting = slow.apply_async((0.1,), countdown=3)
time.sleep(0.5)
waiting.revoke()
say('revoked eta task', failure(waiting))
running = slow.delay(30)
until('slow task started', lambda: running.state == 'STARTED')
say('running state', running.state)
running.revoke(terminate=True, signal='SIGKILL')
until('terminated task revoked', lambda: running.state == 'REVOKED')
say('terminated state', running.state)
r = add.delay(5, 5)
r.get(timeout=30)
r.forget()
say('forgotten', AsyncResult(r.id, app=app).state)
i = app.control.inspect(timeout=2.0)
registered = sorted(t for ts in (i.registered() or {}).values() for t in ts)
say('registered', registered)
say('active_queues', sorted(q['name'] for qs in (i.active_queues() or {}).values() for q in qs))
say('after all', add.delay(20, 22).get(timeout=30))
broker = redis.Redis.from_url(f'{url}/0', decode_responses=True)
say('bindings', sorted((k, broker.type(k)) for k in broker.scan_iter('_kombu.binding.*')))
say('queue celery', broker.llen('celery'), 'unacked', broker.hlen('unacked'), broker.zcard('unacked_index'))
PY
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
log=$work/worker-$port.log
(cd "$work" && PORT=$port exec "$work/venv/bin/celery" -A trialtasks worker -l INFO -c 2 -P prefork -n "trial-$port@localhost" >"$log" 2>&1) &
worker=$!
(cd "$work" && PORT=$port timeout 300 "$work/venv/bin/python" trialclient.py 2>&1)
kill -TERM "$worker"; for _ in $(seq 50); do kill -0 "$worker" 2>/dev/null || break; sleep 0.2; done
kill -KILL "$worker" 2>/dev/null; wait "$worker" 2>/dev/null
# two tracebacks are the failing tasks' own (hopeless, fails)
echo "worker log: $(grep -c '^Traceback' "$log") tracebacks, $(grep -ciE 'ResponseError|ConnectionError|unrecoverable|consumer: Cannot' "$log") lines of transport trouble"
kill "$pid"; wait "$pid" 2>/dev/null
