#!/usr/bin/env bash
# Bull 4 (npm bull, the package BullMQ replaced; its own ioredis 5, installed here into WORK) against
# one server, started here on PORT with fresh data: add and addBulk, process with concurrency 4,
# progress, logs and return values, global events (Bull sends them over pub/sub, not streams),
# priorities, delayed and promoted jobs, retries with backoff then failure, a retried failed job,
# a repeatable job, the queue's rate limiter, pause/resume, stalled-job recovery, getWorkers
# (CLIENT LIST), getMetrics, clean, empty, removeRepeatable and obliterate. Each observable is printed
# on one line, sorted where the order is not deterministic, for a diff between redis-server and Colossal.
# usage: bench/results/bull-trial.sh redis|ROOT PORT     (WORK, default /tmp/bull-trial)
set -u
server=$1; port=$2
work=${WORK:-/tmp/bull-trial}
mkdir -p "$work"
if [ ! -d "$work/node_modules/bull" ]; then
  (cd "$work" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install -s bull >/dev/null 2>&1) \
    || { echo "npm install bull failed" >&2; exit 2; }
fi
cat > "$work/bull-trial.js" <<'JS'
'use strict';
const Queue = require('bull');
const redis = { host: '127.0.0.1', port: Number(process.env.PORT) };
const say = (...parts) => console.log(parts.join(' '));
const json = JSON.stringify;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const byNumber = (a, b) => parseInt(a) - parseInt(b) || (a < b ? -1 : a > b ? 1 : 0);
const counts = c => json(Object.fromEntries(Object.entries(c).sort()));
const open = [];
const queue = (name, opts = {}) => {
  const q = new Queue(name, { redis, ...opts });
  q.on('error', e => say('queue error', name, e.message));
  open.push(q);
  return q;
};
process.on('unhandledRejection', e => say('UNHANDLED', e && e.message));
async function until(what, pred, ms = 20000) {
  const start = Date.now();
  while (!(await pred())) {
    if (Date.now() - start > ms) { say('TIMEOUT', what); return false; }
    await sleep(20);
  }
  return true;
}

async function basic() {
  const q = queue('basic', { metrics: { maxDataPoints: 60 } });
  const events = queue('basic');
  const seen = { completed: [], progress: [] };
  events.on('global:completed', (id, result) => seen.completed.push(`${id}:${result}`));
  events.on('global:progress', (id, progress) => seen.progress.push(`${id}:${json(progress)}`));
  await events.isReady();
  await sleep(200); // the pub/sub subscription is made after isReady
  const first = await q.add({ n: 0 });
  const bulk = await q.addBulk(Array.from({ length: 9 }, (_, i) => ({ data: { n: i + 1 } })));
  say('basic ids', first.id, bulk.map(job => job.id).join(','));
  say('basic counts before', counts(await q.getJobCounts()), 'count', await q.count());
  say('basic waiting', (await q.getWaiting()).map(job => job.id).join(','), await (await q.getJob(3)).getState());
  q.process(4, async job => {
    await job.progress(50);
    await job.log(`log of ${job.id}`);
    await job.progress({ done: job.id });
    return { double: job.data.n * 2 };
  });
  await until('basic completed', () => seen.completed.length >= 10);
  const workers = await q.getWorkers();
  say('basic workers', workers.length >= 1, workers.every(w => typeof w.name === 'string'));
  say('basic completed events', seen.completed.sort(byNumber).join(' '));
  say('basic progress events', seen.progress.sort(byNumber).join(' '));
  say('basic counts after', counts(await q.getJobCounts()));
  for (const id of [1, 5, 10]) {
    const job = await q.getJob(id);
    say('basic job', id, json(job.data), json(job.returnvalue), json(job._progress), job.attemptsMade,
        await job.getState(), json(await q.getJobLogs(id)));
  }
  say('basic metrics', (await q.getMetrics('completed')).meta.count, (await q.getMetrics('failed')).meta.count);
  say('basic getJobs', (await q.getJobs(['completed'], 0, -1, true)).map(job => job.id).sort(byNumber).join(','));
}

async function priorities() {
  const q = queue('prio');
  await q.add('x', { name: 'plain' });
  await q.add('x', { name: 'low' }, { priority: 10 });
  await q.add('x', { name: 'high' }, { priority: 1 });
  await q.add('x', { name: 'mid' }, { priority: 5 });
  const promoted = await q.add('x', { name: 'promoted' }, { delay: 60000 });
  say('prio states', await promoted.getState(), json(await q.getCountsPerPriority([1, 5, 10])));
  await promoted.promote();
  say('prio promoted', await promoted.getState(), 'delayed', await q.getDelayedCount());
  const later = await q.add('x', { name: 'later' }, { delay: 1500 });
  const order = [];
  q.process('x', 1, async job => { order.push(job.data.name); });
  await until('prio processed', () => order.length >= 6);
  say('prio order', order.join(' '));
  const done = await q.getJob(later.id);
  say('prio later waited', done.processedOn - done.timestamp >= 1500, await done.getState());
}

async function failures() {
  const q = queue('fail');
  const failedOnce = new Set();
  const seen = [];
  q.on('global:failed', (id, reason) => seen.push(`${id}:${reason}`));
  await q.isReady();
  await sleep(200);
  q.process(3, async job => {
    if (job.data.kind === 'flaky' && job.attemptsMade < 2) throw new Error(`flaky attempt ${job.attemptsMade + 1}`);
    if (job.data.kind === 'doomed') throw new Error('doomed always');
    if (job.data.kind === 'once' && !failedOnce.has(job.id)) { failedOnce.add(job.id); throw new Error('once only'); }
    return `${job.data.kind} ok`;
  });
  const flaky = await q.add({ kind: 'flaky' }, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
  const doomed = await q.add({ kind: 'doomed' }, { attempts: 2, backoff: { type: 'exponential', delay: 100 } });
  const once = await q.add({ kind: 'once' });
  say('fail flaky finished', await flaky.finished());
  await until('fail failures', async () => (await q.getFailedCount()) >= 2);
  for (const job of [flaky, doomed, once]) {
    const now = await q.getJob(job.id);
    say('fail job', now.data.kind, await now.getState(), now.attemptsMade, now.failedReason, now.stacktrace.length, json(now.returnvalue));
  }
  await (await q.getJob(once.id)).retry();
  await until('fail retried', async () => (await (await q.getJob(once.id)).getState()) === 'completed');
  say('fail once after retry', json((await q.getJob(once.id)).returnvalue));
  await until('fail events', () => seen.length >= 2); // a failed attempt that is retried publishes nothing
  say('fail events', seen.sort(byNumber).join(' | '));
  say('fail counts', counts(await q.getJobCounts()));
}

async function repeatable() {
  const q = queue('repeat');
  const runs = [];
  q.process('tick', 2, async job => { runs.push(job.data.tick); });
  await q.add('tick', { tick: 1 }, { repeat: { every: 200, limit: 3 } });
  await q.add('nightly', {}, { repeat: { cron: '0 3 * * *', tz: 'UTC' } });
  const reps = await q.getRepeatableJobs();
  say('repeatable jobs', reps.map(r => `${r.name}:${r.every || r.cron}:${r.tz}`).sort().join(' '), await q.getRepeatableCount());
  await until('repeat runs', () => runs.length >= 3);
  await sleep(600);
  say('repeat runs', runs.length);
  await q.removeRepeatable('tick', { every: 200, limit: 3 });
  await q.removeRepeatable('nightly', { cron: '0 3 * * *', tz: 'UTC' });
  say('repeat removed', await q.getRepeatableCount(), 'delayed', await q.getDelayedCount());
}

async function limiter() {
  const q = queue('limited', { limiter: { max: 2, duration: 400 } });
  await q.addBulk(Array.from({ length: 6 }, (_, i) => ({ data: { i } })));
  q.process(3, async job => job.data.i);
  await until('limited', async () => (await q.getCompletedCount()) >= 6);
  const jobs = await q.getCompleted();
  const starts = jobs.map(job => job.processedOn).sort((a, b) => a - b);
  const crowded = starts.some((t, i) => i + 2 < starts.length && starts[i + 2] - t < 300);
  say('limiter processed', starts.length, 'spread >= 700 ms', starts[5] - starts[0] >= 700, 'never 3 in a window', !crowded);
}

async function pauseAndStall() {
  const q = queue('pausable');
  const events = queue('pausable');
  const seen = [];
  events.on('global:paused', () => seen.push('paused'));
  events.on('global:resumed', () => seen.push('resumed'));
  await events.isReady();
  await sleep(200);
  const done = [];
  q.process(2, async job => { done.push(job.id); });
  await q.pause();
  say('paused', await q.isPaused());
  await q.addBulk([{ data: {} }, { data: {} }]);
  await sleep(300);
  say('while paused', done.length, counts(await q.getJobCounts()));
  await q.resume();
  await until('resumed', () => done.length >= 2);
  await until('pause events', () => seen.length >= 2);
  say('after resume', await q.isPaused(), done.sort(byNumber).join(','), seen.join(','));

  const s = queue('stall', { settings: { lockDuration: 300, stalledInterval: 200, maxStalledCount: 1 } });
  await s.add({ v: 1 });
  const job = await s.getNextJob();
  say('stall taken', await job.getState());
  // the job's lock is left to lapse, as by a crashed worker
  await sleep(500);
  const recovered = [];
  s.on('stalled', j => recovered.push(`stalled ${j.id}`));
  s.process(async j => { recovered.push(`processed ${j.id}`); return 'recovered'; });
  await until('stall recovered', async () => (await (await s.getJob(job.id)).getState()) === 'completed');
  say('stall', recovered.sort().join(','), json((await s.getJob(job.id)).returnvalue));
}

async function cleanup() {
  const q = queue('cleanup');
  await q.addBulk(Array.from({ length: 5 }, (_, i) => ({ data: { i } })));
  q.process(5, async job => job.data.i);
  await until('cleanup processed', async () => (await q.getCompletedCount()) >= 5);
  await q.close();
  const c = queue('cleanup');
  await c.addBulk(Array.from({ length: 3 }, () => ({ data: {} })));
  await c.add({}, { delay: 60000 });
  say('cleanup counts', counts(await c.getJobCounts()));
  say('cleanup clean', (await c.clean(0, 'completed')).sort(byNumber).join(','));
  await c.empty();
  say('cleanup after empty', counts(await c.getJobCounts()));
  const removable = await c.add({});
  await removable.remove();
  say('cleanup removed', json(await c.getJob(removable.id)));
}

async function obliterate() {
  const names = ['basic', 'prio', 'fail', 'repeat', 'limited', 'pausable', 'stall', 'cleanup'];
  const probe = new (require('ioredis'))(redis);
  say('keys before', (await probe.keys('bull:*')).length > 0);
  for (const name of names) {
    const q = queue(name);
    await q.pause(true, true);
    await q.obliterate({ force: true });
  }
  say('obliterate left', json((await probe.keys('*')).sort()));
  probe.disconnect();
}

async function main() {
  const steps = { basic, priorities, failures, repeatable, limiter, pauseAndStall, cleanup, obliterate };
  for (const [name, step] of Object.entries(steps)) {
    try { await step(); } catch (e) { say('FAILED', name, e.message); }
  }
  for (const q of open.reverse()) { try { await q.close(); } catch (e) { /* closed above */ } }
}
main().then(() => process.exit(0), e => { say('FAILED', e.stack); process.exit(1); });
JS
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
(cd "$work" && PORT=$port timeout 180 node bull-trial.js 2>&1)
kill "$pid"; wait "$pid" 2>/dev/null
