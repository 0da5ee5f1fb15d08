#!/usr/bin/env bash
# BullMQ (npm bullmq with ioredis, installed here into WORK) against one server, started here on PORT
# with fresh data: a Queue fed by add and addBulk, a Worker of concurrency 4 reporting progress, logs
# and return values, QueueEvents reading the events stream from its start, priorities, delayed and
# promoted jobs, retries with fixed and exponential backoff, an unrecoverable error, a retried failed
# job, a two-level FlowProducer flow (and one whose failing child fails its parent), job schedulers
# (every N ms with a limit, and a cron pattern), a worker rate limiter, global concurrency and rate
# limit, deduplication, pause/resume, getMetrics, getWorkers, Prometheus export, clean, drain,
# remove and obliterate. Each observable is printed on one line, sorted where the order is not
# deterministic, so the output can be diffed between redis-server and Colossal.
# With a third argument `throughput` it instead times JOBS (default 20000) jobs added with addBulk
# (1,000 a call) and then processed by one Worker of concurrency 50, printing jobs/s and the server's
# CPU seconds (utime+stime from /proc/PID/stat) for each phase.
# With `restart` it adds 3,000 jobs, and once a worker (concurrency 20) has done 1,000 of them stops
# the server with SIGTERM and starts it again on the same data; the worker goes on by itself.
# With `latency` five idle workers (concurrency 10 each) wait on the queue while 500 jobs are added one
# at a time, 5 ms apart: every job must wake one of them (BZPOPMIN on BullMQ's marker key); it prints
# how many ran, how many twice, and the time from add to start.
# usage: bench/results/bullmq-trial.sh redis|ROOT PORT [throughput|restart|latency]     (WORK, default /tmp/bullmq-trial;
#        PROTOCOL=2 for RESP2, ioredis 6's default being RESP3; ACL_USER=bull to connect as an ACL user
#        limited to bull:* keys and channels, as a managed Redis would hand out, with ACL_RULES its
#        command rules, +@all by default)
set -u
server=$1; port=$2; mode=${3:-trial}
work=${WORK:-/tmp/bullmq-trial}
mkdir -p "$work"
if [ ! -d "$work/node_modules/bullmq" ] || [ ! -d "$work/node_modules/ioredis" ]; then
  (cd "$work" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install -s bullmq ioredis >/dev/null 2>&1) \
    || { echo "npm install bullmq ioredis failed" >&2; exit 2; }
fi
cat > "$work/trial.js" <<'JS'
'use strict';
const { Queue, Worker, QueueEvents, QueueEventsProducer, FlowProducer, MetricsTime, UnrecoverableError,
        DelayedError, WaitingChildrenError, Relay } = require('bullmq');
const IORedis = require('ioredis');
// ioredis 6 speaks RESP3 unless PROTOCOL=2 is given
const connection = { host: '127.0.0.1', port: Number(process.env.PORT), maxRetriesPerRequest: null,
                     protocol: Number(process.env.PROTOCOL || 3),
                     ...(process.env.ACL_USER ? { username: process.env.ACL_USER, password: 'trial-secret' } : {}) };
const say = (...parts) => console.log(parts.join(' '));
const json = JSON.stringify;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const byNumber = (a, b) => parseInt(a) - parseInt(b) || (a < b ? -1 : a > b ? 1 : 0);
const counts = c => json(Object.fromEntries(Object.entries(c).sort()));
const open = [];
const keep = x => { open.push(x); return x; };
process.on('unhandledRejection', e => say('UNHANDLED', e && e.message));

/** Waits until pred() holds, printing a TIMEOUT line (which makes the outputs differ) if it never does. */
async function until(what, pred, ms = 20000) {
  const start = Date.now();
  while (!(await pred())) {
    if (Date.now() - start > ms) { say('TIMEOUT', what); return false; }
    await sleep(20);
  }
  return true;
}

/** QueueEvents reading the queue's stream from its first entry, so no event is lost to a late XREAD. */
async function listen(name, types) {
  const events = keep(new QueueEvents(name, { connection, lastEventId: '0-0' }));
  const seen = {};
  for (const type of types) {
    seen[type] = [];
    events.on(type, (args, id) => seen[type].push(args));
  }
  events.on('error', e => say('queue events error', name, e.message));
  await events.waitUntilReady();
  return { events, seen };
}

function worker(name, processor, opts = {}) {
  const w = keep(new Worker(name, processor, { connection, ...opts }));
  w.on('error', e => say('worker error', name, e.message));
  return w;
}

async function basic() {
  const { seen } = await listen('basic', ['added', 'waiting', 'active', 'progress', 'completed']);
  const q = keep(new Queue('basic', { connection }));
  const first = await q.add('single', { n: 0 });
  say('basic add', first.id, first.name, json(first.data));
  const bulk = await q.addBulk(Array.from({ length: 9 }, (_, i) => ({ name: 'bulk', data: { n: i + 1 } })));
  say('basic addBulk', bulk.map(job => job.id).join(','));
  say('basic counts before', counts(await q.getJobCounts()));
  say('basic count', await q.count(), 'waiting', (await q.getWaiting()).map(job => job.id).join(','));
  say('basic state of 1', await (await q.getJob('1')).getState(), await q.getJobState('2'));
  const w = worker('basic', async job => {
    await job.updateProgress(50);
    await job.log(`log of ${job.id}`);
    await job.updateProgress({ step: 'done', id: job.id });
    return { double: job.data.n * 2 };
  }, { concurrency: 4, metrics: { maxDataPoints: MetricsTime.ONE_WEEK } });
  await w.waitUntilReady();
  await until('basic completed events', () => seen.completed.length >= 10);
  const workers = await q.getWorkers();
  say('basic workers', workers.length, await q.getWorkersCount(), workers.every(c => typeof c.name === 'string'));
  say('basic queue events readers', (await q.getQueueEvents()).length);
  await w.close();
  say('basic events', Object.entries(seen).map(([type, list]) => `${type}=${list.length}`).join(' '));
  say('basic completed', seen.completed.map(e => `${e.jobId}:${json(e.returnvalue)}`).sort(byNumber).join(' '));
  say('basic progress', seen.progress.map(e => `${e.jobId}:${json(e.data)}`).sort(byNumber).join(' '));
  say('basic counts after', counts(await q.getJobCounts()));
  const done = await q.getJobs(['completed'], 0, -1, true);
  say('basic getJobs completed', done.map(job => job.id).sort(byNumber).join(','));
  for (const id of ['1', '5', '10']) {
    const job = await q.getJob(id);
    const logs = await q.getJobLogs(id);
    say('basic job', id, job.name, json(job.data), json(job.returnvalue), json(job.progress),
        'attempts', job.attemptsMade, 'finished after processed', job.finishedOn >= job.processedOn,
        'state', await job.getState(), 'logs', json(logs));
  }
  say('basic getJob missing', json(await q.getJob('999')));
  const metrics = await q.getMetrics('completed');
  say('basic metrics completed', metrics.meta.count);
  say('basic metrics failed', (await q.getMetrics('failed')).meta.count);
  const prom = await q.exportPrometheusMetrics();
  say('basic prometheus', prom.split('\n').filter(line => line && !line.startsWith('#')).sort().join(' | '));
}

async function priorities() {
  const q = keep(new Queue('prio', { connection }));
  await q.add('plain', {});
  await q.add('low', {}, { priority: 10 });
  await q.add('high', {}, { priority: 1 });
  await q.add('mid', {}, { priority: 5 });
  const promoted = await q.add('promoted', {}, { delay: 60000 });
  const moved = await q.add('moved', { v: 1 }, { delay: 60000 });
  say('prio states', await promoted.getState(), await moved.getState(), await (await q.getJob('2')).getState());
  say('prio prioritized', (await q.getPrioritized()).map(job => job.name).join(','),
      'per priority', json(await q.getCountsPerPriority([0, 1, 5, 10])));
  say('prio delayed', (await q.getDelayed()).map(job => job.name).join(','), await q.getDelayedCount());
  await promoted.promote();
  await (await q.getJob('2')).changePriority({ priority: 3 });
  await moved.updateData({ v: 2 });
  say('prio after promote', await promoted.getState(), 'per priority', json(await q.getCountsPerPriority([0, 1, 3, 5, 10])));
  const later = await q.add('later', {}, { delay: 1500, priority: 1 });
  await moved.changeDelay(1000);
  const t0 = Date.now();
  const order = [];
  const w = worker('prio', async job => {
    order.push(`${job.name}${json(job.data)}`);
    if (process.env.DEBUG) console.error('prio', job.name, Date.now() - t0);
  }, { concurrency: 1 });
  await until('prio processed', () => order.length >= 7);
  await w.close();
  // where the two delayed jobs fall among the ready ones depends on the machine's speed, so they are
  // printed apart: once due, the plain one (in the wait list) still goes before the prioritized one
  const delayedNames = ['moved{"v":2}', 'later{}'];
  say('prio order', order.filter(n => !delayedNames.includes(n)).join(' '), 'then', order.filter(n => delayedNames.includes(n)).join(' '));
  const laterDone = await q.getJob(later.id);
  say('prio delayed waited', laterDone.processedOn - laterDone.timestamp >= 1500, await laterDone.getState());
  say('prio counts', counts(await q.getJobCounts()));
}

async function failures() {
  const { events, seen } = await listen('fail', ['failed', 'retries-exhausted', 'completed', 'delayed']);
  const q = keep(new Queue('fail', { connection }));
  const failedOnce = new Set();
  const w = worker('fail', async job => {
    if (job.name === 'flaky' && job.attemptsMade < 2) throw new Error(`flaky attempt ${job.attemptsMade + 1}`);
    if (job.name === 'doomed') throw new Error('doomed always');
    if (job.name === 'fatal') throw new UnrecoverableError('no point retrying');
    if (job.name === 'once' && !failedOnce.has(job.id)) { failedOnce.add(job.id); throw new Error('once only'); }
    return `${job.name} ok`;
  }, { concurrency: 3 });
  const flaky = await q.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
  const doomed = await q.add('doomed', {}, { attempts: 2, backoff: { type: 'exponential', delay: 100 } });
  const fatal = await q.add('fatal', {}, { attempts: 5, backoff: 100 });
  const once = await q.add('once', {});
  say('fail flaky result', await flaky.waitUntilFinished(events, 20000));
  await until('fail failures', async () => (await q.getFailedCount()) >= 3);
  for (const job of [flaky, doomed, fatal, once]) {
    const now = await q.getJob(job.id);
    say('fail job', now.name, await now.getState(), 'attempts', now.attemptsMade, 'reason', now.failedReason,
        'stack lines', now.stacktrace.length, 'return', json(now.returnvalue));
  }
  say('fail failed ids', (await q.getFailed()).map(job => job.id).sort(byNumber).join(','));
  await (await q.getJob(once.id)).retry('failed');
  await until('fail retried', async () => (await q.getJob(once.id)).finishedOn && await q.getJobState(once.id) === 'completed');
  say('fail once after retry', await q.getJobState(once.id), json((await q.getJob(once.id)).returnvalue));
  await until('fail events', () => seen.completed.length >= 2);
  await w.close();
  say('fail failed events', seen.failed.map(e => `${e.jobId}:${e.failedReason}`).sort(byNumber).join(' | '));
  say('fail exhausted events', seen['retries-exhausted'].map(e => `${e.jobId}:${e.attemptsMade}`).sort(byNumber).join(' '));
  say('fail delayed events', seen.delayed.length);
  say('fail metrics', (await q.getMetrics('failed')).meta.count, counts(await q.getJobCounts()));
}

async function flows() {
  const flow = keep(new FlowProducer({ connection }));
  const tree = await flow.add({
    name: 'parent', queueName: 'flow', data: { kind: 'sum' }, children: [
      { name: 'c1', queueName: 'flow-kids', data: { v: 1 } },
      { name: 'c2', queueName: 'flow-kids', data: { v: 2 }, children: [
        { name: 'g1', queueName: 'flow-kids', data: { v: 3 } },
        { name: 'g2', queueName: 'flow-kids', data: { v: 4 } }] }] });
  say('flow ids', tree.job.id !== undefined, tree.children.length, tree.children.map(c => c.job.name).sort().join(','));
  say('flow parent state', await tree.job.getState(), json(await tree.job.getDependenciesCount()));
  const parentQ = keep(new Queue('flow', { connection }));
  const kidsQ = keep(new Queue('flow-kids', { connection }));
  say('flow counts before', counts(await parentQ.getJobCounts()), counts(await kidsQ.getJobCounts()));
  const got = await flow.getFlow({ id: tree.job.id, queueName: 'flow' });
  const names = node => node.job.name + (node.children && node.children.length
    ? '(' + node.children.map(names).sort().join(',') + ')' : '');
  say('flow tree', names(got));
  const sum = async job => Object.values(await job.getChildrenValues()).reduce((a, b) => a + b, 0);
  const kids = worker('flow-kids', async job => job.data.v * 10 + await sum(job), { concurrency: 2 });
  const parents = worker('flow', async job => {
    if (job.name === 'doomed-parent') return 'must not run';
    return sum(job);
  }, { concurrency: 2 });
  await until('flow parent done', async () => (await tree.job.getState()) === 'completed');
  const parent = await parentQ.getJob(tree.job.id);
  say('flow parent', await parent.getState(), 'return', parent.returnvalue,
      'children values', Object.values(await parent.getChildrenValues()).sort(byNumber).join(','));
  say('flow parent dependencies', json(await parent.getDependenciesCount()));
  const failing = await flow.add({
    name: 'doomed-parent', queueName: 'flow', data: {}, children: [
      { name: 'bad', queueName: 'flow-bad', data: {}, opts: { failParentOnFailure: true } }] });
  const bad = worker('flow-bad', async () => { throw new Error('child broke'); });
  await until('flow parent failed', async () => (await failing.job.getState()) === 'failed');
  const doomedParent = await parentQ.getJob(failing.job.id);
  say('flow doomed parent', await doomedParent.getState(), 'reason', doomedParent.failedReason.replace(/bull:flow-bad:[\w-]+/, 'bull:flow-bad:ID'));
  await Promise.all([kids.close(), parents.close(), bad.close()]);
  say('flow counts after', counts(await parentQ.getJobCounts()), counts(await kidsQ.getJobCounts()));
}

async function schedulers() {
  const q = keep(new Queue('repeat', { connection }));
  const runs = [];
  const w = worker('repeat', async job => { runs.push(job); return job.data.tick; }, { concurrency: 2 });
  await q.upsertJobScheduler('tick', { every: 150, limit: 3 }, { name: 'tick-job', data: { tick: true } });
  await q.upsertJobScheduler('nightly', { pattern: '0 3 * * *', tz: 'UTC' }, { name: 'cron-job', data: {} });
  const tick = await q.getJobScheduler('tick');
  say('scheduler tick', tick.key, tick.name, tick.every, tick.limit, json(tick.template));
  const nightly = await q.getJobScheduler('nightly');
  say('scheduler nightly', nightly.key, nightly.name, nightly.pattern, nightly.tz, 'next in future', nightly.next > Date.now());
  say('scheduler count', await q.getJobSchedulersCount(), (await q.getJobSchedulers(0, -1, true)).map(s => s.key).join(','));
  await until('scheduler runs', () => runs.length >= 3);
  await sleep(600);
  say('scheduler runs', runs.length, runs.map(job => job.name).join(','), 'distinct ids', new Set(runs.map(job => job.id)).size);
  say('scheduler removed', await q.removeJobScheduler('tick'), await q.removeJobScheduler('nightly'), await q.removeJobScheduler('none'));
  say('scheduler after', await q.getJobSchedulersCount(), 'delayed', await q.getDelayedCount());
  await w.close();
}

async function limits() {
  const q = keep(new Queue('limited', { connection }));
  await q.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'l', data: { i } })));
  const starts = [];
  // processedOn is the time the worker asked for the job, so a pause of either process after the
  // limiter let the job through does not move it
  const w = worker('limited', async job => { starts.push(job.processedOn); return job.data.i; },
                   { concurrency: 3, limiter: { max: 2, duration: 400 } });
  await until('limited done', async () => (await q.getCompletedCount()) >= 6);
  await w.close();
  starts.sort((a, b) => a - b);
  const crowded = starts.some((t, i) => i + 2 < starts.length && starts[i + 2] - t < 300);
  if (process.env.DEBUG) say('deltas', starts.map(t => t - starts[0]).join(','));
  say('limiter processed', starts.length, 'spread over >= 700 ms', starts[5] - starts[0] >= 700, 'never 3 in a window', !crowded);
  await q.setGlobalConcurrency(2);
  await q.setGlobalRateLimit(10, 1000);
  say('global concurrency', await q.getGlobalConcurrency(), 'rate limit', json(await q.getGlobalRateLimit()));
  await q.removeGlobalConcurrency();
  await q.removeGlobalRateLimit();
  say('global removed', await q.getGlobalConcurrency(), json(await q.getGlobalRateLimit()));
  await q.rateLimit(5000);
  say('rate limit ttl', (await q.getRateLimitTtl()) > 4000, 'maxed', await q.isMaxed());
  await q.removeRateLimitKey();
  say('rate limit ttl after removal', await q.getRateLimitTtl());
}

async function dedupAndPause() {
  const { seen } = await listen('pausable', ['paused', 'resumed', 'deduplicated', 'completed']);
  const q = keep(new Queue('pausable', { connection }));
  const a = await q.add('d', { v: 1 }, { deduplication: { id: 'same' } });
  const b = await q.add('d', { v: 2 }, { deduplication: { id: 'same' } });
  say('dedup ids', a.id, b.id, 'owner', await q.getDeduplicationJobId('same'));
  await q.pause();
  say('paused', await q.isPaused());
  const done = [];
  const w = worker('pausable', async job => { done.push(job.id); return json(job.data); }, { concurrency: 2 });
  await w.waitUntilReady();
  await q.addBulk([{ name: 'p', data: { v: 3 } }, { name: 'p', data: { v: 4 } }]);
  await sleep(400);
  say('while paused processed', done.length, counts(await q.getJobCounts('wait', 'paused', 'completed', 'active')));
  await q.resume();
  await until('resumed', () => done.length >= 3);
  await w.close();
  say('after resume', await q.isPaused(), done.sort(byNumber).join(','), counts(await q.getJobCounts('wait', 'paused', 'completed')));
  await until('pause events', () => seen.resumed.length >= 1 && seen.completed.length >= 3);
  say('pause events', `paused=${seen.paused.length} resumed=${seen.resumed.length} deduplicated=${seen.deduplicated.map(e => e.jobId + '/' + e.deduplicationId).join(',')}`);
  say('dedup after completion', json(await q.getDeduplicationJobId('same')));
}

async function cleanDrain() {
  const q = keep(new Queue('cleanup', { connection }));
  await q.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: 'c', data: { i } })));
  const w = worker('cleanup', async job => job.data.i, { concurrency: 5 });
  await until('cleanup processed', async () => (await q.getCompletedCount()) >= 5);
  await w.close();
  await q.addBulk(Array.from({ length: 3 }, (_, i) => ({ name: 'w', data: { i } })));
  await q.add('later', {}, { delay: 60000 });
  await q.add('later', {}, { delay: 60000 });
  await q.add('ranked', {}, { priority: 2 });
  say('cleanup counts', counts(await q.getJobCounts()));
  say('cleanup clean completed', (await q.clean(0, 100, 'completed')).sort(byNumber).join(','));
  say('cleanup remove 6', await q.remove('6'), await q.getJobState('6'));
  await q.drain();
  say('cleanup after drain', counts(await q.getJobCounts()));
  await q.drain(true);
  say('cleanup after drain delayed', counts(await q.getJobCounts()));
  say('cleanup trim events', typeof (await q.trimEvents(2)));
}

async function stalled() {
  const { seen } = await listen('stall', ['stalled', 'completed']);
  const q = keep(new Queue('stall', { connection }));
  await q.add('lost', { v: 1 });
  // a worker that takes the job and dies without completing it: its lock lapses
  const dead = new Worker('stall', null, { connection, lockDuration: 300, skipStalledCheck: true });
  const job = await dead.getNextJob('dead-token');
  say('stall taken', job.name, await job.getState());
  await dead.close(true);
  const w = worker('stall', async job => `recovered ${job.data.v}`, { stalledInterval: 200, lockDuration: 300 });
  await until('stall recovered', async () => (await q.getJobState(job.id)) === 'completed');
  await w.close();
  const after = await q.getJob(job.id);
  say('stall after', await after.getState(), json(after.returnvalue), 'stalled events', seen.stalled.map(e => e.jobId).join(','));
}

async function manual() {
  const q = keep(new Queue('manual', { connection }));
  await q.addBulk([{ name: 'm1', data: {} }, { name: 'm2', data: {} }, { name: 'm3', data: {} }]);
  const w = keep(new Worker('manual', null, { connection, lockDuration: 5000 }));
  const token = 'manual-token';
  const a = await w.getNextJob(token);
  say('manual first', a.name, await a.getState(), 'lock owner', await (await keep(new IORedis(connection))).get(`bull:manual:${a.id}:lock`) === token);
  say('manual extend', await a.extendLock(token, 10000));
  await a.moveToCompleted('done by hand', token, false);
  const b = await w.getNextJob(token);
  await b.moveToFailed(new Error('failed by hand'), token, false);
  const c = await w.getNextJob(token);
  await c.moveToDelayed(Date.now() + 60000, token);
  say('manual states', await q.getJobState(a.id), await q.getJobState(b.id), await q.getJobState(c.id),
      json((await q.getJob(a.id)).returnvalue), (await q.getJob(b.id)).failedReason);
  say('manual next when empty', json(await w.getNextJob(token, { block: false })));
  await q.promoteJobs();
  await q.retryJobs({ state: 'failed' });
  say('manual after promote/retry', counts(await q.getJobCounts('wait', 'delayed', 'failed', 'completed')));
  await w.close();
}

async function extras() {
  const { seen } = await listen('extras', ['duplicated', 'removed', 'my-event', 'debounced', 'deduplicated']);
  const q = keep(new Queue('extras', { connection }));
  const producer = keep(new QueueEventsProducer('extras', { connection }));
  await producer.publishEvent({ eventName: 'my-event', answer: '42' });
  const first = await q.add('custom', { v: 1 }, { jobId: 'my-id' });
  const again = await q.add('custom', { v: 2 }, { jobId: 'my-id' });
  say('extras custom ids', first.id, again.id, json((await q.getJob('my-id')).data));
  await q.add('fifo1', {});
  await q.add('fifo2', {});
  await q.add('lifo', {}, { lifo: true });
  say('extras wait order', (await q.getWaiting()).map(job => job.name).join(','));
  say('extras ranges', (await q.getRanges(['wait'], 0, -1, true)).join(','));
  const t = await q.add('ttl', {}, { deduplication: { id: 'short', ttl: 300 } });
  const t2 = await q.add('ttl', {}, { deduplication: { id: 'short', ttl: 300 } });
  await sleep(400);
  const t3 = await q.add('ttl', {}, { deduplication: { id: 'short', ttl: 300 } });
  say('extras dedup ttl', t.id === t2.id, t.id !== t3.id);
  const kept = [];
  const w = worker('extras', async job => {
    await job.log('one'); await job.log('two'); await job.log('three');
    if (job.name === 'fifo2') throw new Error('drop me');
    if (job.name === 'wait-kids') {
      const step = job.data.step || 'spawn';
      if (step === 'spawn') {
        await q.add('kid', { v: 5 }, { parent: { id: job.id, queue: job.queueQualifiedName } });
        await q.add('kid', { v: 6 }, { parent: { id: job.id, queue: job.queueQualifiedName } });
        await job.updateData({ step: 'wait' });
        if (await job.moveToWaitingChildren(job.token)) throw new WaitingChildrenError();
      }
      return Object.values(await job.getChildrenValues()).reduce((x, y) => x + y, 0);
    }
    if (job.name === 'kid') return job.data.v;
    if (job.name === 'snooze' && !job.data.slept) {
      await job.updateData({ slept: true });
      await job.moveToDelayed(Date.now() + 200, job.token);
      throw new DelayedError();
    }
    kept.push(job.name);
    return job.name;
  }, { concurrency: 2, removeOnComplete: { count: 2 }, removeOnFail: { count: 0 } });
  const waiter = await q.add('wait-kids', {}, { keepLogs: 2 });
  const snooze = await q.add('snooze', {});
  await until('extras waiter', async () => (await q.getJobState(waiter.id)) === 'completed', 10000);
  await until('extras snooze', async () => kept.includes('snooze'));
  await until('extras idle', async () => (await q.getWaitingCount()) + (await q.getActiveCount()) + (await q.getDelayedCount()) === 0);
  await w.close();
  say('extras processed', kept.sort().join(','));
  say('extras kept completed', (await q.getCompletedCount()), 'failed (removed)', await q.getFailedCount());
  const waiterNow = await q.getJob(waiter.id);
  say('extras waiter', waiterNow ? `${await waiterNow.getState()} ${waiterNow.returnvalue}` : 'removed');
  say('extras snooze', await q.getJobState(snooze.id));
  say('extras events', `duplicated=${seen.duplicated.length} my-event=${seen['my-event'].map(e => e.answer)} deduplicated=${seen.deduplicated.length}`);
  say('extras meta', json(Object.keys(await q.getMeta()).sort()), 'version', typeof (await q.getVersion()));
  const removable = await q.add('gone', {});
  await q.remove(removable.id);
  await until('extras removed event', () => seen.removed.length >= 1);
  say('extras removed', seen.removed.map(e => e.prev).join(','), json(await q.getJob(removable.id)));
  say('extras orphans', await q.removeOrphanedJobs());
}

async function flowOptions() {
  const flow = keep(new FlowProducer({ connection }));
  const tree = await flow.add({ name: 'top', queueName: 'opts', children: [
    { name: 'ignored', queueName: 'opts', opts: { ignoreDependencyOnFailure: true } },
    { name: 'dropped', queueName: 'opts', opts: { removeDependencyOnFailure: true } },
    ...Array.from({ length: 12 }, (_, i) => ({ name: 'fine', queueName: 'opts', data: { i } }))] });
  const q = keep(new Queue('opts', { connection }));
  const parent = await q.getJob(tree.job.id);
  const page = await parent.getDependencies({ unprocessed: { cursor: 0, count: 5 } });
  say('opts unprocessed first page', page.unprocessed.length >= 5, 'next cursor given', page.nextUnprocessedCursor !== undefined);
  const w = worker('opts', async job => {
    if (job.name === 'ignored' || job.name === 'dropped') throw new Error(`${job.name} failed`);
    if (job.name === 'top') return `children ${Object.keys(await job.getChildrenValues()).length}`;
    return job.data.i;
  }, { concurrency: 4 });
  await until('opts top', async () => (await q.getJobState(tree.job.id)) === 'completed');
  await w.close();
  const top = await q.getJob(tree.job.id);
  say('opts top', top.returnvalue, 'ignored failures', Object.values(await top.getIgnoredChildrenFailures()).join(','));
  say('opts dependencies', json(await top.getDependenciesCount()));
  const deps = await top.getDependencies({ processed: { cursor: 0, count: 20 } });
  say('opts processed values', Object.values(deps.processed).map(Number).sort((a, b) => a - b).join(','));
  const parentOnly = await flow.add({ name: 'orphaned', queueName: 'opts', children: [
    { name: 'a', queueName: 'opts' }, { name: 'b', queueName: 'opts' }] });
  await parentOnly.job.remove({ removeChildren: true });
  say('opts removed with children', counts(await q.getJobCounts('wait', 'waiting-children')));
}

async function relay(redis) {
  const r1 = keep(new Relay({ connection, namespace: 'trial', nodeId: 'node1' }));
  const r2 = keep(new Relay({ connection, namespace: 'trial', nodeId: 'node2' }));
  await r1.waitUntilReady(); await r2.waitUntilReady();
  const got = [];
  await r2.subscribe('jobs.*.done', m => { got.push(`exact:${m.topic}:${json(m.data)}`); });
  await r2.subscribe('jobs.>', m => { got.push(`tail:${m.topic}:${json(m.data)}:${m.retained}`); });
  await r1.publish('jobs.1.done', { ok: true });
  await r1.publish('jobs.2.progress', 50, { retain: 60000 });
  await r1.publish('other.topic', 'nobody');
  await until('relay messages', () => got.length >= 3, 10000);
  await sleep(200);
  say('relay got', got.sort().join(' '));
  say('relay retained', (await r1.getRetained()).map(m => `${m.topic}:${json(m.data)}`).join(' '),
      'deleted', await r1.deleteRetained('jobs.2.progress'), await r1.deleteRetained('jobs.2.progress'));
  say('relay namespaces', json(await r1.getNamespaces()), 'nodes', (await r1.getNodes()).map(n => n.nodeId || n.id).sort().join(','));
  say('relay counts', json(await r1.getCounts()));
  await r1.close(); await r2.close();
}

async function obliterate(redis) {
  const names = ['basic', 'prio', 'fail', 'flow', 'flow-kids', 'flow-bad', 'repeat', 'limited', 'pausable', 'cleanup',
                 'stall', 'manual', 'extras', 'opts'];
  const before = [];
  for (const name of names) before.push(`${name}=${(await redis.keys(`bull:${name}:*`)).length > 0}`);
  say('obliterate has keys', before.join(' '));
  for (const name of names) {
    const q = keep(new Queue(name, { connection }));
    await q.obliterate({ force: true });
  }
  say('obliterate left', json((await redis.keys('*')).sort()));
}

async function main() {
  const redis = keep(new IORedis(connection));
  const steps = { basic, priorities, failures, flows, schedulers, limits, dedupAndPause, cleanDrain, stalled, manual,
                  extras, flowOptions, relay: () => relay(redis) };
  for (const [name, step] of Object.entries(steps)) {
    const start = Date.now();
    try { await step(); } catch (e) { say('FAILED', name, e.message); }
    if (process.env.DEBUG) console.error(`${name} took ${Date.now() - start} ms`);
  }
  try { await obliterate(redis); } catch (e) { say('FAILED obliterate', e.message); }
  for (const x of open.reverse()) {
    try { await (x.quit ? x.quit() : x.close()); } catch (e) { say('close failed', e.message); }
  }
}
main().then(() => process.exit(0), e => { say('FAILED', e.stack); process.exit(1); });
JS
cat > "$work/throughput.js" <<'JS'
'use strict';
const fs = require('fs');
const { Queue, Worker } = require('bullmq');
const connection = { host: '127.0.0.1', port: Number(process.env.PORT), maxRetriesPerRequest: null };
const jobs = Number(process.env.JOBS || 20000);
const ticks = Number(process.env.CLK_TCK || 100);
/** The server's user+system CPU seconds so far, fields 14 and 15 of /proc/PID/stat. */
function serverCpu() {
  const stat = fs.readFileSync(`/proc/${process.env.SERVER_PID}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}
function report(phase, startMs, startCpu) {
  const seconds = (Date.now() - startMs) / 1000;
  const cpu = serverCpu() - startCpu;
  console.log(`${phase}: ${jobs} jobs in ${seconds.toFixed(2)} s = ${Math.round(jobs / seconds)} jobs/s, ` +
              `server CPU ${cpu.toFixed(2)} s = ${Math.round(jobs / cpu)} jobs per CPU-second`);
}
async function round(name) {
  const q = new Queue(name, { connection });
  await q.waitUntilReady();
  let t = Date.now(), cpu = serverCpu();
  for (let i = 0; i < jobs; i += 1000) {
    await q.addBulk(Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({ name: 'n', data: { i: i + k } })));
  }
  report(`${name} addBulk`, t, cpu);
  let done = 0;
  let finished;
  const allDone = new Promise(resolve => { finished = resolve; });
  t = Date.now(); cpu = serverCpu();
  const w = new Worker(name, async job => job.data.i, { connection, concurrency: 50 });
  w.on('completed', () => { if (++done === jobs) finished(); });
  await allDone;
  report(`${name} worker`, t, cpu);
  await w.close();
  console.log(`${name} completed count`, await q.getCompletedCount());
  await q.close();
}
/** The commands that took the server most time in the last round, from INFO commandstats. */
async function commandStats(admin) {
  const rows = (await admin.info('commandstats')).split('\n')
    .map(line => /^cmdstat_(\S+):calls=(\d+),usec=(\d+)/.exec(line)).filter(Boolean)
    .map(([, name, calls, usec]) => ({ name, calls: Number(calls), usec: Number(usec) }))
    .sort((a, b) => b.usec - a.usec).slice(0, 12);
  for (const r of rows) {
    console.log(`  ${r.name} calls=${r.calls} usec=${r.usec} per call=${(r.usec / r.calls).toFixed(2)}`);
  }
}
(async () => {
  // the first round on a fresh server also pays for its warm-up (script compiles; the JIT on Colossal)
  const rounds = Number(process.env.ROUNDS || 3);
  const admin = new (require('ioredis'))(connection);
  for (let i = 1; i <= rounds; i++) {
    if (i === rounds) await admin.config('RESETSTAT');
    await round(`bench${i}`);
  }
  console.log(`INFO commandstats of round ${rounds} (inner redis.call commands are counted too):`);
  await commandStats(admin);
  admin.disconnect();
  process.exit(0);
})();
JS
cat > "$work/latency.js" <<'JS'
'use strict';
const { Queue, Worker } = require('bullmq');
const connection = { host: '127.0.0.1', port: Number(process.env.PORT), maxRetriesPerRequest: null };
const jobs = 500;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
(async () => {
  const q = new Queue('trickle', { connection });
  const runs = new Map();
  const waits = [];
  // five idle workers blocked on the queue's marker key: each job added must wake one of them
  const workers = Array.from({ length: 5 }, () => new Worker('trickle', async job => {
    runs.set(job.id, (runs.get(job.id) || 0) + 1);
    waits.push(Date.now() - job.timestamp);
  }, { connection, concurrency: 10 }));
  await Promise.all(workers.map(w => w.waitUntilReady()));
  await sleep(1000);
  for (let i = 0; i < jobs; i++) {
    await q.add('t', { i });
    await sleep(5);
  }
  const start = Date.now();
  while (runs.size < jobs && Date.now() - start < 30000) await sleep(50);
  waits.sort((a, b) => a - b);
  const at = p => waits[Math.min(waits.length - 1, Math.floor(p * waits.length))];
  console.log(`trickle: ${runs.size} of ${jobs} run, ${[...runs.values()].filter(n => n > 1).length} more than once; ` +
              `add-to-start ms p50 ${at(0.5)} p90 ${at(0.9)} p99 ${at(0.99)} max ${waits[waits.length - 1]}`);
  await Promise.all(workers.map(w => w.close())); await q.close();
  process.exit(0);
})();
JS
cat > "$work/restart.js" <<'JS'
'use strict';
const fs = require('fs');
const { Queue, Worker } = require('bullmq');
const connection = { host: '127.0.0.1', port: Number(process.env.PORT), maxRetriesPerRequest: null };
const jobs = 3000;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
(async () => {
  const q = new Queue('survivor', { connection });
  q.on('error', () => {}); // while the server restarts
  for (let i = 0; i < jobs; i += 500) {
    await q.addBulk(Array.from({ length: 500 }, (_, k) => ({ name: 'r', data: { i: i + k } })));
  }
  const runs = new Map();
  let errors = 0;
  const w = new Worker('survivor', async job => {
    runs.set(job.data.i, (runs.get(job.data.i) || 0) + 1);
    await sleep(2);
    return job.data.i;
  }, { connection, concurrency: 20, stalledInterval: 1000 });
  w.on('error', () => { errors++; });
  let asked = false;
  const start = Date.now();
  for (;;) {
    let completed = -1;
    try { completed = await q.getCompletedCount(); } catch (e) { /* the server is restarting */ }
    if (!asked && completed >= 1000) { fs.writeFileSync(process.env.RESTART_MARK, 'now'); asked = true; }
    if (completed >= jobs || Date.now() - start > 120000) break;
    await sleep(100);
  }
  await sleep(500);
  const counts = await q.getJobCounts('completed', 'failed', 'active', 'wait', 'delayed');
  const twice = [...runs.values()].filter(n => n > 1).length;
  console.log(`restart: counts ${JSON.stringify(counts)}, ${runs.size} distinct jobs run, ${twice} run more than once, ` +
              `sum of return values right: ${(await q.getCompleted(0, -1)).reduce((a, j) => a + j.returnvalue, 0) === jobs * (jobs - 1) / 2}, ` +
              `${errors} worker errors while the server was away`);
  await w.close(); await q.close();
  process.exit(0);
})();
JS
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
if [ -n "${ACL_USER:-}" ]; then
  # shellcheck disable=SC2086
  redis-cli -p "$port" ACL SETUSER "$ACL_USER" on '>trial-secret' '~bull:*' '&bull:*' ${ACL_RULES:-+@all} >/dev/null
fi
if [ "$mode" = restart ]; then
  # SIGTERM and start again on the same data once 1,000 of 3,000 jobs are done, the worker still running
  # (only Colossal keeps its data: redis-server is started here without persistence)
  mark=$work/restart-mark-$port; rm -f "$mark"
  (cd "$work" && PORT=$port RESTART_MARK=$mark timeout 180 node restart.js 2>&1) & node_pid=$!
  for _ in $(seq 600); do [ -f "$mark" ] && break; sleep 0.1; done
  kill "$pid"; wait "$pid" 2>/dev/null
  if [ "$server" = redis ]; then
    redis-server --port "$port" --save "" --appendonly no --bind 127.0.0.1 --dir "$work/data-$port" >>"$work/data-$port.log" 2>&1 & pid=$!
  else
    java -cp "$server/colossal-server/target/colossal-server.jar:$server/colossal-server/target/lib/*" \
      dev.colossal.cli.Main serve --port "$port" --http-port -1 --data "$work/data-$port" >>"$work/data-$port.log" 2>&1 & pid=$!
  fi
  wait "$node_pid"
elif [ "$mode" = latency ]; then
  (cd "$work" && PORT=$port timeout 120 node latency.js 2>&1)
elif [ "$mode" = throughput ]; then
  (cd "$work" && PORT=$port SERVER_PID=$pid CLK_TCK=$(getconf CLK_TCK) timeout 600 node throughput.js 2>&1)
else
  (cd "$work" && PORT=$port PROTOCOL=${PROTOCOL:-3} ACL_USER=${ACL_USER:-} timeout 180 node trial.js 2>&1 | head -n 1000)
  # (a worker that cannot fetch jobs logs its error in a tight loop: head keeps that from filling the disk)
fi
kill "$pid"; wait "$pid" 2>/dev/null
