#!/usr/bin/env bash
# ioredis (npm, installed here into WORK) against one server, started here on PORT with fresh data:
# pipelines (with a failing command), MULTI/EXEC (queued error, EXECABORT, WATCH lost), auto-pipelining,
# keyPrefix, defineCommand's EVALSHA with its EVAL fallback after SCRIPT FLUSH, Lua with cjson and
# cmsgpack, scan/hscan/sscan/zscan streams, Buffers of all 256 byte values, pub/sub (channels,
# patterns, shard channels, PUBSUB counts, resubscription after CLIENT KILL), MONITOR, blocking pops,
# streams with a consumer group, CLIENT SETNAME/LIST, and error replies. Each observable is printed
# on one line so the output can be diffed between redis-server and Colossal.
# usage: bench/results/ioredis-trial.sh redis|ROOT PORT     (WORK, default /tmp/bullmq-trial; PROTOCOL=2 for
#        RESP2, REPLY_MAPPING=resp3 for RESP3's maps and doubles as such)
set -u
server=$1; port=$2
work=${WORK:-/tmp/bullmq-trial}
mkdir -p "$work"
if [ ! -d "$work/node_modules/ioredis" ]; then
  (cd "$work" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install -s ioredis >/dev/null 2>&1) \
    || { echo "npm install ioredis failed" >&2; exit 2; }
fi
cat > "$work/ioredis-trial.js" <<'JS'
'use strict';
const Redis = require('ioredis');
// ioredis 6 speaks RESP3 (replies shaped as RESP2's) unless PROTOCOL=2; REPLY_MAPPING=resp3 keeps maps and doubles
const opts = { host: '127.0.0.1', port: Number(process.env.PORT), maxRetriesPerRequest: 3,
               protocol: Number(process.env.PROTOCOL || 3), replyMapping: process.env.REPLY_MAPPING || 'legacy' };
const say = (...parts) => console.log(parts.join(' '));
const json = JSON.stringify;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const open = [];
const client = (extra = {}) => { const r = new Redis({ ...opts, ...extra }); open.push(r); return r; };
const errorOf = async p => { try { return `ok ${json(await p)}`; } catch (e) { return `error ${e.message}`; } };
const pairs = results => results.map(([err, value]) => err ? `E:${err.message}` : json(value)).join(' ');
async function until(what, pred, ms = 10000) {
  const start = Date.now();
  while (!(await pred())) {
    if (Date.now() - start > ms) { say('TIMEOUT', what); return false; }
    await sleep(20);
  }
  return true;
}

async function pipelines(r) {
  const results = await r.pipeline().set('p:a', '1').incr('p:a').set('p:s', 'text').incr('p:s')
    .hset('p:h', { f1: 'v1', f2: 'v2' }).hgetall('p:h').mget('p:a', 'p:none').exec();
  say('pipeline', pairs(results));
  const tx = await r.multi().set('m:a', '5').incrby('m:a', 10).lpush('m:l', 'x', 'y').lrange('m:l', 0, -1).exec();
  say('multi', pairs(tx));
  const runtime = await r.multi().set('m:s', 'v').lpush('m:s', 'x').get('m:s').exec();
  say('multi runtime error', pairs(runtime));
  say('multi queue error', await errorOf(r.multi().set('m:q', '1').call('NOSUCHCOMMAND').exec()));
  say('multi arity error', await errorOf(r.multi().set('m:q', '1').call('GET').exec()), json(await r.get('m:q')));
  const other = client();
  await r.set('w:k', '1');
  await r.watch('w:k');
  await other.set('w:k', '2');
  say('watch lost', json(await r.multi().set('w:k', '3').exec()), await r.get('w:k'));
  await r.watch('w:k');
  say('watch kept', json(await r.multi().set('w:k', '4').exec()), await r.get('w:k'));
  const auto = client({ enableAutoPipelining: true });
  const incrs = await Promise.all(Array.from({ length: 200 }, () => auto.incr('auto:n')));
  say('auto pipelining', incrs.length, Math.max(...incrs), 'distinct', new Set(incrs).size);
  const prefixed = client({ keyPrefix: 'pre:' });
  await prefixed.set('one', '1');
  await prefixed.mset({ two: '2', three: '3' });
  await prefixed.hset('h', 'f', 'v');
  say('keyPrefix', json((await r.keys('pre:*')).sort()), json(await prefixed.mget('one', 'two', 'three')));
}

async function scripts(r) {
  r.defineCommand('addAndGet', { numberOfKeys: 1, lua: 'redis.call("INCRBY", KEYS[1], ARGV[1]) return redis.call("GET", KEYS[1])' });
  say('defineCommand', await r.addAndGet('s:n', 5), await r.addAndGet('s:n', 7));
  await r.script('FLUSH');
  say('after SCRIPT FLUSH', await r.addAndGet('s:n', 1));
  const table = await r.eval(`
    local t = cjson.decode(ARGV[1])
    local packed = cmsgpack.pack(t)
    local back = cmsgpack.unpack(packed)
    return {cjson.encode(back.list), #packed, back.n * 2, tostring(back.flag), {1, 2, {3}}, redis.status_reply("FINE")}`,
    0, json({ list: [1, 'two', 3.5], n: 21, flag: true }));
  say('lua tables', json(table));
  say('lua error_reply', await errorOf(r.eval('return redis.error_reply("MY custom")', 0)));
  say('lua pcall', json(await r.eval('local ok = redis.pcall("INCR", KEYS[1]) return ok.err', 1, 'p:s')));
  say('lua call error', (await errorOf(r.eval('return redis.call("INCR", KEYS[1])', 1, 'p:s'))).replace(/user_script:\d+/, 'user_script:N').replace(/f_[0-9a-f]+/, 'f_SHA'));
  say('lua float and nil', json(await r.eval('return {1.9, nil, 3}', 0)), json(await r.eval('return false', 0)));
  say('evalsha missing', await errorOf(r.evalsha('0000000000000000000000000000000000000000', 0)));
}

async function scans(r) {
  await r.mset(Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`scan:${i}`, `${i}`])));
  await r.hset('scan:h', Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, `${i}`])));
  await r.sadd('scan:s', ...Array.from({ length: 300 }, (_, i) => `m${i}`));
  await r.zadd('scan:z', ...Array.from({ length: 300 }, (_, i) => [i, `z${i}`]).flat());
  const collect = stream => new Promise((resolve, reject) => {
    const all = [];
    stream.on('data', batch => all.push(...batch));
    stream.on('end', () => resolve(all));
    stream.on('error', reject);
  });
  const keys = await collect(r.scanStream({ match: 'scan:*', count: 17 }));
  say('scanStream', keys.length, new Set(keys).size);
  const typed = await collect(r.scanStream({ match: 'scan:*', type: 'hash' }));
  say('scanStream type', json(typed));
  const fields = await collect(r.hscanStream('scan:h', { count: 50 }));
  say('hscanStream', fields.length, new Set(fields.filter((_, i) => i % 2 === 0)).size);
  const members = await collect(r.sscanStream('scan:s', { match: 'm1*' }));
  say('sscanStream', new Set(members).size);
  const scored = await collect(r.zscanStream('scan:z', { count: 20 }));
  say('zscanStream', scored.length, scored.slice(-2).length);
}

async function buffers(r) {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  await r.set('bin', all);
  const back = await r.getBuffer('bin');
  say('buffer roundtrip', back.equals(all), back.length);
  await r.hset('bin:h', all, all);
  const h = await r.hgetallBuffer('bin:h');
  say('buffer hash', Object.keys(h).length, (await r.hgetBuffer('bin:h', all)).equals(all));
  say('buffer strlen/getrange', await r.strlen('bin'), json([...(await r.getrangeBuffer('bin', 250, -1))]));
}

async function pubsub(r) {
  const sub = client({ connectionName: 'trial-sub' });
  const got = [];
  sub.on('message', (channel, message) => got.push(`message ${channel} ${message}`));
  sub.on('pmessage', (pattern, channel, message) => got.push(`pmessage ${pattern} ${channel} ${message}`));
  sub.on('smessage', (channel, message) => got.push(`smessage ${channel} ${message}`));
  say('subscribe', await sub.subscribe('news', 'sport'), await sub.psubscribe('n*'));
  say('ssubscribe', json(await errorOf(sub.ssubscribe('shard1'))));
  say('publish', await r.publish('news', 'hello'), await r.publish('sport', 'goal'), await r.publish('none', 'x'));
  say('spublish', json(await errorOf(r.spublish('shard1', 'sharded'))));
  await until('messages', () => got.length >= 4);
  await sleep(100);
  say('pubsub numsub', json(await r.pubsub('NUMSUB', 'news', 'sport', 'none')), 'numpat', await r.pubsub('NUMPAT'),
      'channels', json((await r.pubsub('CHANNELS')).sort()), 'shardchannels', json(await r.pubsub('SHARDCHANNELS')));
  const list = await r.client('LIST');
  const line = list.split('\n').find(l => l.includes('name=trial-sub'));
  say('client list of subscriber', /sub=2 psub=1/.test(line), /ssub=1/.test(line), /flags=P/.test(line), /cmd=ssubscribe|cmd=psubscribe/.test(line));
  const id = /id=(\d+)/.exec(line)[1];
  say('client kill', await r.client('KILL', 'ID', id));
  await until('resubscribed', async () => (await r.pubsub('NUMSUB', 'news'))[1] === 1);
  await sleep(100);
  await r.publish('news', 'again');
  await until('after resubscribe', () => got.some(m => m.includes('again') && m.startsWith('message')));
  await sleep(100);
  say('pubsub got', got.sort().join(' | '));
  const sub2 = client();
  await sub2.subscribe('a', 'b');
  await sub2.psubscribe('p*');
  say('unsubscribe', await sub2.unsubscribe('a'), await sub2.punsubscribe('p*'), await sub2.unsubscribe('b'));
}

async function monitor(r) {
  const m = await r.monitor();
  open.push(m);
  const seen = [];
  m.on('monitor', (time, args, source, database) => seen.push(`${database} ${json(args)} ${typeof time} ${/:\d+$/.test(source)}`));
  const other = client({ db: 2 });
  await other.set('mon:k', 'v w');
  await other.eval('return redis.call("GET", KEYS[1])', 1, 'mon:k');
  await other.hset('mon:h', 'f', 'a"b\\c');
  await until('monitor lines', () => seen.length >= 4);
  await sleep(100);
  say('monitor', seen.join(' | '));
  m.disconnect();
}

async function blocking(r) {
  const waiter = client();
  const pending = waiter.blpop('b:list', 5);
  await sleep(100);
  await r.rpush('b:list', 'a', 'b');
  say('blpop', json(await pending), json(await r.lrange('b:list', 0, -1)));
  say('brpop timeout', json(await waiter.brpop('b:none', 0.1)));
  const moving = waiter.blmove('b:src', 'b:dst', 'LEFT', 'RIGHT', 5);
  await sleep(50);
  await r.rpush('b:src', 'm');
  say('blmove', await moving, json(await r.lrange('b:dst', 0, -1)));
  const zpop = waiter.bzpopmin('b:z', 5);
  await sleep(50);
  await r.zadd('b:z', 2, 'two', 1, 'one');
  say('bzpopmin', json(await zpop));
  const reading = waiter.xread('BLOCK', 5000, 'STREAMS', 'b:stream', '$');
  await sleep(50);
  await r.xadd('b:stream', '5-1', 'f', 'v');
  say('xread block', json(await reading));
}

async function streams(r) {
  for (let i = 1; i <= 5; i++) await r.xadd('st', `${i}-0`, 'n', `${i}`);
  say('xgroup', await r.xgroup('CREATE', 'st', 'g', '0'), await errorOf(r.xgroup('CREATE', 'st', 'g', '0')));
  say('xreadgroup', json(await r.xreadgroup('GROUP', 'g', 'c1', 'COUNT', 2, 'STREAMS', 'st', '>')));
  say('xack', await r.xack('st', 'g', '1-0'), 'xpending', json(await r.xpending('st', 'g')));
  const claimed = await r.xautoclaim('st', 'g', 'c2', 0, '0-0', 'COUNT', 10);
  say('xautoclaim', json(claimed));
  const info = await r.xinfo('STREAM', 'st');
  const asMap = Object.fromEntries(Array.from({ length: info.length / 2 }, (_, i) => [info[2 * i], info[2 * i + 1]]));
  say('xinfo stream', asMap.length, json(asMap['last-generated-id']), json(asMap['first-entry']), asMap.groups);
  say('xrevrange', json(await r.xrevrange('st', '+', '-', 'COUNT', 2)), 'xlen', await r.xlen('st'));
  say('xtrim', await r.xtrim('st', 'MAXLEN', 3), json(await r.xrange('st', '-', '+')));
}

async function connections(r) {
  await r.client('SETNAME', 'trial-main');
  say('client getname', await r.client('GETNAME'));
  const named = client({ connectionName: 'trial-named', db: 3 });
  await named.ping();
  const lines = (await r.client('LIST')).trim().split('\n');
  const info = lines.find(l => l.includes('name=trial-named'));
  say('client list named', /db=3/.test(info), /cmd=(ping|select|client|info)/.test(info));
  say('info server parsed', /redis_version:\d+\.\d+\.\d+/.test(await r.info('server')), 'loading field', /loading:0/.test(await r.info('persistence')));
  say('errors', await errorOf(r.call('NOSUCH', 'a')), '|', await errorOf(r.lpush('p:a', 'x')), '|', await errorOf(r.call('SET', 'a')));
  say('select', await named.select(5), await named.set('db5', 'x'), await named.dbsize());
  const dup = named.duplicate();
  open.push(dup);
  say('duplicate keeps db', await dup.get('db5'), json(await dup.get('db5x')));
}

async function main() {
  const r = client();
  const steps = { pipelines, scripts, scans, buffers, pubsub, monitor, blocking, streams, connections };
  for (const [name, step] of Object.entries(steps)) {
    try { await step(r); } catch (e) { say('FAILED', name, e.message); }
  }
  for (const c of open.reverse()) c.disconnect();
}
main().then(() => process.exit(0), e => { say('FAILED', e.stack); process.exit(1); });
JS
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
(cd "$work" && PORT=$port PROTOCOL=${PROTOCOL:-3} REPLY_MAPPING=${REPLY_MAPPING:-legacy} timeout 120 node ioredis-trial.js 2>&1)
kill "$pid"; wait "$pid" 2>/dev/null
