#!/usr/bin/env bash
# node-redis 5.9.0 (npm `redis`, the official Node client; installed here into WORK) against one server,
# started here on PORT with fresh data: strings, hashes, lists, sets, sorted sets, streams with a consumer
# group (XREADGROUP, XPENDING, XAUTOCLAIM; RESP3 with unstableResp3, which v5 asks for there), pub/sub on its own connection (channels, patterns, shard
# channels, PUBSUB counts), MULTI/EXEC (queued and runtime errors) and WATCH (kept and lost), EVAL,
# EVALSHA with a NOSCRIPT fallback, FUNCTION LOAD/FCALL/FUNCTION LIST, scanIterator and
# hScan/sScan/zScanIterator, sendCommand, blocking pops and XREAD BLOCK on a duplicate() client and on a
# client pool, and errors. The whole program runs twice, with RESP: 2 and with RESP: 3; under RESP3 it also
# has pub/sub on the command connection and client-side caching (CLIENT TRACKING and its invalidation
# pushes), counted by the cache's own hits and misses. Each observable is one printed line, so the
# output can be diffed between redis-server and Colossal.
# usage: bench/results/node-redis-trial.sh redis|ROOT PORT     (WORK, default /tmp/node-redis-trial)
set -u
server=$1; port=$2
work=${WORK:-/tmp/node-redis-trial}
mkdir -p "$work"
if [ ! -f "$work/node_modules/redis/package.json" ] || ! grep -q '"version": "5.9.0"' "$work/node_modules/redis/package.json"; then
  (cd "$work" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install -s redis@5.9.0 >/dev/null 2>&1) \
    || { echo "npm install redis@5.9.0 failed" >&2; exit 2; }
fi
cat > "$work/node-redis-trial.js" <<'JS'
'use strict';
const { createClient, createClientPool, BasicClientSideCache } = require('redis');
const RESP = Number(process.env.RESP);
const url = `redis://127.0.0.1:${process.env.PORT}`;
const say = (...parts) => console.log(`resp${RESP}`, ...parts);
// Maps (RESP3 replies to sendCommand) print as their sorted entries, Buffers as text
const json = v => JSON.stringify(v, (k, x) => x instanceof Map ? [...x.entries()].sort() : x);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const open = [];
const connect = async (extra = {}) => { const c = createClient({ url, RESP, unstableResp3: true, ...extra }); c.on('error', () => {}); open.push(c); await c.connect(); return c; };
const errorOf = async p => { try { return `ok ${json(await p)}`; } catch (e) { return `error ${e.constructor.name} ${e.message}`; } };
async function until(what, pred, ms = 5000) {
  const start = Date.now();
  while (!(await pred())) {
    if (Date.now() - start > ms) { say('TIMEOUT', what); return false; }
    await sleep(10);
  }
  return true;
}
const collect = async iter => { const all = []; for await (const batch of iter) all.push(...batch); return all; };
const sortBy = (list, key) => list.sort((a, b) => String(key(a)).localeCompare(String(key(b))));

async function types(c) {
  say('set/get', await c.set('s:a', 'hello'), await c.get('s:a'), json(await c.get('s:none')));
  say('set options', json(await c.set('s:a', 'x', { condition: 'NX' })), await c.set('s:b', 'v', { expiration: { type: 'PX', value: 100000 } }), (await c.pTTL('s:b')) > 90000);
  say('set GET', json(await c.set('s:a', 'world', { GET: true })), 'append', await c.append('s:a', '!'), await c.getRange('s:a', 0, 2));
  say('incr', await c.incr('s:n'), await c.incrBy('s:n', 41), await c.incrByFloat('s:f', 2.5), await c.decr('s:n'));
  say('mset/mget', await c.mSet({ 'm:1': 'a', 'm:2': 'b' }), json(await c.mGet(['m:1', 'm:2', 'm:3'])), await c.mSetNX({ 'm:2': 'x', 'm:4': 'y' }));
  say('getdel/getex', await c.getDel('m:1'), await c.getEx('m:2', { type: 'EX', value: 100 }), await c.ttl('m:2'), 'strlen', await c.strLen('s:a'));
  say('hset', await c.hSet('h', { f1: 'v1', f2: 'v2', n: '1' }), json(await c.hGetAll('h')), await c.hIncrBy('h', 'n', 5), await c.hIncrByFloat('h', 'x', 1.5));
  say('hash more', json(await c.hmGet('h', ['f1', 'nope'])), await c.hExists('h', 'f2'), await c.hDel('h', 'f2'), await c.hLen('h'), json((await c.hKeys('h')).sort()), json(await c.hGetAll('h:none')));
  say('hrandfield count', (await c.hRandField('h')) !== null, await c.hSetNX('h', 'f1', 'z'), await c.hStrLen('h', 'f1'));
  say('lists', await c.rPush('l', ['a', 'b', 'c']), await c.lPush('l', 'z'), json(await c.lRange('l', 0, -1)), await c.lPop('l'), json(await c.rPopCount('l', 2)));
  say('lists more', await c.rPush('l', ['c', 'd', 'c']), await c.lPos('l', 'c'), json(await c.lPosCount('l', 'c', 0)), await c.lInsert('l', 'BEFORE', 'd', 'x'), await c.lSet('l', 0, 'A'), json(await c.lRange('l', 0, -1)));
  say('lmove/lrem/ltrim', await c.lMove('l', 'l2', 'LEFT', 'RIGHT'), await c.lRem('l', 0, 'c'), await c.lTrim('l', 0, 0), json(await c.lRange('l', 0, -1)), await c.lLen('l2'), json(await c.lmPop(['l:none', 'l2'], 'LEFT')));
  say('sets', await c.sAdd('set1', ['a', 'b', 'c']), await c.sAdd('set2', ['b', 'c', 'd']), json((await c.sInter(['set1', 'set2'])).sort()), json((await c.sUnion(['set1', 'set2'])).sort()), json(await c.sDiff(['set1', 'set2'])));
  say('sets more', await c.sIsMember('set1', 'a'), json(await c.smIsMember('set1', ['a', 'z'])), await c.sCard('set1'), await c.sMove('set1', 'set2', 'a'), await c.sInterCard(['set1', 'set2']), await c.sInterStore('set3', ['set1', 'set2']), json((await c.sMembers('set3')).sort()));
  say('zadd', await c.zAdd('z', [{ score: 1, value: 'one' }, { score: 2, value: 'two' }, { score: 3.5, value: 'three' }]), await c.zAdd('z', { score: 5, value: 'one' }, { GT: true, CH: true }));
  say('zrange', json(await c.zRange('z', 0, -1)), json(await c.zRangeWithScores('z', 0, -1)), json(await c.zRange('z', '+inf', 2, { BY: 'SCORE', REV: true })));
  say('zscore', json(await c.zScore('z', 'three')), json(await c.zScore('z', 'none')), await c.zIncrBy('z', 0.25, 'two'), await c.zRank('z', 'two'), json(await c.zmScore('z', ['one', 'x'])));
  say('zpop', json(await c.zPopMin('z')), json(await c.zPopMaxCount('z', 2)), await c.zCard('z'));
  await c.zAdd('za', [{ score: 1, value: 'a' }, { score: 2, value: 'b' }]); await c.zAdd('zb', [{ score: 10, value: 'b' }, { score: 20, value: 'c' }]);
  say('zunion/zinter', json(await c.zUnionWithScores(['za', 'zb'])), json(await c.zInterWithScores([{ key: 'za', weight: 2 }, { key: 'zb', weight: 1 }])), await c.zUnionStore('zu', ['za', 'zb'], { AGGREGATE: 'MAX' }), json(await c.zRangeWithScores('zu', 0, -1)));
  say('zlex', await c.zAdd('zl', ['a', 'b', 'c', 'd'].map(value => ({ score: 0, value }))), json(await c.zRangeByLex('zl', '[b', '(d')), await c.zLexCount('zl', '-', '+'), json(await c.zmPop(['zl'], 'MIN', { COUNT: 2 })));
  say('keys', await c.exists(['s:a', 's:b', 'nope']), await c.type('z'), await c.type('h'), await c.rename('s:b', 's:c'), await c.expire('s:c', 50), await c.ttl('s:c'), await c.persist('s:c'), await c.ttl('s:c'));
  say('copy/del/unlink', await c.copy('h', 'h2'), json(await c.hGetAll('h2')), await c.del(['h2', 'nope']), await c.unlink('s:c'), await c.objectEncoding('set1'));
}

async function streams(c) {
  for (let i = 1; i <= 5; i++) await c.xAdd('st', `${i}-0`, { n: `${i}`, sq: `${i * i}` });
  say('xlen', await c.xLen('st'), 'xrange', json(await c.xRange('st', '2', '3')), json(await c.xRevRange('st', '+', '-', { COUNT: 1 })));
  say('xgroup', await c.xGroupCreate('st', 'g', '0'), await errorOf(c.xGroupCreate('st', 'g', '0')), await c.xGroupCreate('st2', 'g2', '$', { MKSTREAM: true }));
  say('xreadgroup', json(await c.xReadGroup('g', 'c1', { key: 'st', id: '>' }, { COUNT: 2 })));
  say('xreadgroup pending', json(await c.xReadGroup('g', 'c1', { key: 'st', id: '0' })));
  say('xack', await c.xAck('st', 'g', '1-0'), 'xpending', json(await c.xPending('st', 'g')));
  say('xpending range', json((await c.xPendingRange('st', 'g', '-', '+', 10)).map(p => [p.id, p.consumer, p.deliveriesCounter])));
  say('xautoclaim', json(await c.xAutoClaim('st', 'g', 'c2', 0, '0-0', { COUNT: 10 })));
  say('xclaim', json(await c.xClaimJustId('st', 'g', 'c1', 0, ['2-0'])));
  const info = await c.xInfoStream('st');
  say('xinfo stream', info.length, info['last-generated-id'] ?? info.lastGeneratedId, info.groups, json(info['first-entry'] ?? info.firstEntry));
  say('xinfo groups', json((await c.xInfoGroups('st')).map(g => [g.name, g.consumers, g.pending, g['last-delivered-id'] ?? g.lastDeliveredId])));
  say('xinfo consumers', json((await c.xInfoConsumers('st', 'g')).map(x => [x.name, x.pending])));
  say('xdel/xtrim', await c.xDel('st', '5-0'), await c.xTrim('st', 'MAXLEN', 2), json(await c.xRange('st', '-', '+')));
  say('xadd errors', await errorOf(c.xAdd('st', '1-0', { a: 'b' })), '|', await errorOf(c.xAdd('h', '*', { a: 'b' })));
}

async function transactions(c) {
  say('multi', json(await c.multi().set('t:a', '5').incrBy('t:a', 10).lPush('t:l', ['x', 'y']).lRange('t:l', 0, -1).hSet('t:h', 'f', 'v').hGetAll('t:h').exec()));
  say('multi runtime error', await errorOf(c.multi().set('t:s', 'v').lPush('t:s', 'x').get('t:s').exec()));
  say('multi queue error', await errorOf(c.multi().set('t:q', '1').addCommand(['NOSUCHCOMMAND']).exec()), json(await c.get('t:q')));
  say('multi typed', json(await c.multi().zAdd('t:z', { score: 1.5, value: 'm' }).zScore('t:z', 'm').zRangeWithScores('t:z', 0, -1).exists('t:z').exec()));
  say('pipeline', json(await c.multi().set('p:1', 'a').get('p:1').incr('p:1').get('p:2').execAsPipeline().catch(e => e.message)));
  const other = await connect();
  const watcher = await connect();
  await c.set('w:k', '1');
  await watcher.watch('w:k');
  await other.set('w:k', '2');
  say('watch lost', await errorOf(watcher.multi().set('w:k', '3').exec()), await c.get('w:k'));
  await watcher.watch('w:k');
  say('watch kept', await errorOf(watcher.multi().set('w:k', '4').exec()), await c.get('w:k'));
  await watcher.watch(['w:k', 'w:other']);
  await watcher.unwatch();
  await other.set('w:k', '5');
  say('unwatch', await errorOf(watcher.multi().get('w:k').exec()));
  await watcher.watch('w:exp');
  await other.set('w:exp', 'v', { PX: 1 });
  await sleep(20);
  say('watch touched by expiry', await errorOf(watcher.multi().get('w:exp').exec()));
}

async function scripts(c) {
  const body = 'redis.call("INCRBY", KEYS[1], ARGV[1]) return {redis.call("GET", KEYS[1]), ARGV[2], 3}';
  say('eval', json(await c.eval(body, { keys: ['sc:n'], arguments: ['5', 'x'] })));
  const sha = await c.scriptLoad(body);
  say('scriptLoad', sha, json(await c.scriptExists([sha, '0'.repeat(40)])));
  say('evalSha', json(await c.evalSha(sha, { keys: ['sc:n'], arguments: ['7', 'y'] })));
  await c.scriptFlush();
  say('evalSha after flush', await errorOf(c.evalSha(sha, { keys: ['sc:n'], arguments: ['1', 'z'] })));
  say('eval types', json(await c.eval('return {1, 2.9, "s", true, false, {err="E oops"}}', { keys: [] })).replace(/"E oops"/, '"E oops"'));
  say('eval errors', await errorOf(c.eval('return redis.call("NOSUCH")', { keys: [] })), '|', await errorOf(c.eval('return redis.error_reply("MY fail")')), '|', await errorOf(c.eval('syntax error here')));
  say('evalRo', json(await c.evalRo('return redis.call("GET", KEYS[1])', { keys: ['sc:n'] })), await errorOf(c.evalRo('return redis.call("SET", KEYS[1], "x")', { keys: ['sc:n'] })));
  const lib = '#!lua name=triallib\nredis.register_function("addget", function(keys, args) redis.call("INCRBY", keys[1], args[1]) return redis.call("GET", keys[1]) end)\n' +
    'redis.register_function{function_name="peek", callback=function(keys) return redis.call("GET", keys[1]) end, flags={"no-writes"}}';
  say('functionLoad', await c.functionLoad(lib), await errorOf(c.functionLoad(lib)), await c.functionLoad(lib, { REPLACE: true }));
  say('fCall', json(await c.fCall('addget', { keys: ['fn:n'], arguments: ['4'] })), json(await c.fCallRo('peek', { keys: ['fn:n'] })), await errorOf(c.fCallRo('addget', { keys: ['fn:n'], arguments: ['1'] })));
  const list = await c.functionList({ LIBRARYNAMEPATTERN: 'trial*' });
  say('functionList', json(list.map(l => [l.library_name, l.engine, l.functions.map(f => [f.name, f.flags]).sort()])));
  say('functionDelete', await c.functionDelete('triallib'), await errorOf(c.fCall('addget', { keys: ['fn:n'], arguments: ['1'] })));
}

async function scans(c) {
  for (let i = 0; i < 120; i++) await c.set(`scan:${i}`, `${i}`);
  await c.hSet('scan:h', Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, `v${i}`])));
  await c.sAdd('scan:s', Array.from({ length: 200 }, (_, i) => `m${i}`));
  await c.zAdd('scan:z', Array.from({ length: 150 }, (_, i) => ({ score: i / 2, value: `z${i}` })));
  const keys = await collect(c.scanIterator({ MATCH: 'scan:*', COUNT: 10 }));
  say('scanIterator', keys.length, new Set(keys).size, keys.filter(k => /^scan:\d+$/.test(k)).map(k => Number(k.slice(5))).reduce((a, b) => a + b, 0));
  say('scanIterator TYPE', json((await collect(c.scanIterator({ TYPE: 'hash' }))).sort()), json((await collect(c.scanIterator({ TYPE: 'zset', MATCH: 'scan:*' }))).sort()));
  const fields = await collect(c.hScanIterator('scan:h', { COUNT: 7 }));
  say('hScanIterator', fields.length, new Set(fields.map(f => f.field)).size, fields.every(f => f.value === `v${f.field.slice(1)}`));
  const matched = await collect(c.hScanIterator('scan:h', { MATCH: 'f2?' }));
  say('hScanIterator MATCH', json(sortBy(matched, f => f.field).map(f => f.field)));
  const members = await collect(c.sScanIterator('scan:s', { COUNT: 13 }));
  say('sScanIterator', members.length, new Set(members).size);
  const zmembers = await collect(c.zScanIterator('scan:z', { MATCH: 'z1?' }));
  say('zScanIterator', json(sortBy(zmembers, m => m.value).map(m => `${m.value}:${m.score}`)));
}

async function pubsub(c) {
  const sub = c.duplicate(); sub.on('error', () => {}); open.push(sub); await sub.connect();
  const got = [];
  await sub.subscribe(['ch:a', 'ch:b'], (message, channel) => got.push(`sub ${channel} ${message}`));
  await sub.pSubscribe('pat:*', (message, channel) => got.push(`psub ${channel} ${message}`));
  await sub.sSubscribe('sch:1', (message, channel) => got.push(`ssub ${channel} ${message}`));
  await sub.subscribe('ch:buf', message => got.push(`buf ${Buffer.isBuffer(message)} ${message.toString('hex')}`), true);
  say('pubsub numsub', json(await c.pubSubNumSub(['ch:a', 'ch:none'])), 'numpat', await c.pubSubNumPat(), 'channels', json((await c.pubSubChannels('ch:*')).sort()), 'shardchannels', json(await c.pubSubShardChannels()), 'shardnumsub', json(await c.pubSubShardNumSub(['sch:1'])));
  say('publish', await c.publish('ch:a', 'one'), await c.publish('pat:x', 'two'), await c.sPublish('sch:1', 'three'), await c.publish('ch:b', 'four'), await c.publish('ch:buf', Buffer.from([0, 255, 10])), await c.publish('ch:none', 'x'));
  await until('pubsub messages', () => got.length >= 5);
  say('received', json(got));
  await sub.unsubscribe('ch:a'); await sub.pUnsubscribe('pat:*'); await sub.sUnsubscribe('sch:1');
  say('after unsubscribe', await c.publish('ch:a', 'lost'), await c.publish('pat:y', 'lost'), await c.sPublish('sch:1', 'lost'), await c.publish('ch:b', 'kept'));
  await until('kept message', () => got.length >= 6);
  say('received after', json(got.slice(5)));
  if (RESP === 3) {
    // RESP3: the same connection carries commands and pushes
    const both = await connect();
    const pushed = [];
    await both.subscribe('r3:ch', message => pushed.push(message));
    await c.publish('r3:ch', 'pushed');
    await until('resp3 push', () => pushed.length >= 1);
    say('resp3 same connection', json(pushed), await both.set('r3:k', 'v'), await both.get('r3:k'), await both.ping());
  }
}

async function blocking(c) {
  const waiter = c.duplicate(); waiter.on('error', () => {}); open.push(waiter); await waiter.connect();
  const pending = waiter.blPop('b:list', 5);
  await sleep(100);
  await c.rPush('b:list', ['a', 'b']);
  say('blPop', json(await pending), json(await c.lRange('b:list', 0, -1)));
  say('brPop timeout', json(await waiter.brPop('b:none', 0.1)));
  const moving = waiter.blMove('b:src', 'b:dst', 'LEFT', 'RIGHT', 5);
  await sleep(50);
  await c.rPush('b:src', 'm');
  say('blMove', await moving, json(await c.lRange('b:dst', 0, -1)));
  const zpop = waiter.bzPopMin('b:z', 5);
  await sleep(50);
  await c.zAdd('b:z', [{ score: 2, value: 'two' }, { score: 1, value: 'one' }]);
  say('bzPopMin', json(await zpop));
  const reading = waiter.xRead({ key: 'b:stream', id: '$' }, { BLOCK: 5000 });
  await sleep(50);
  await c.xAdd('b:stream', '5-1', { f: 'v' });
  say('xRead BLOCK', json(await reading));
  await c.xGroupCreate('b:stream', 'bg', '$');
  const grouped = waiter.xReadGroup('bg', 'w', { key: 'b:stream', id: '>' }, { BLOCK: 5000, COUNT: 1 });
  await sleep(50);
  await c.xAdd('b:stream', '6-1', { g: 'w' });
  say('xReadGroup BLOCK', json(await grouped));
  const pool = createClientPool({ url, RESP, unstableResp3: true }, { minimum: 1, maximum: 3 }); pool.on('error', () => {}); await pool.connect();
  const pops = [pool.blPop('b:pool', 5), pool.blPop('b:pool', 5), pool.brPop('b:pool2', 5)];
  await sleep(150);
  await c.rPush('b:pool', ['p1', 'p2']); await c.rPush('b:pool2', 'q');
  say('pool pops', json((await Promise.all(pops)).map(r => r && r.element).sort()), 'pool set/get', await pool.set('pool:k', 'v'), await pool.get('pool:k'));
  await pool.close();
}

async function sendCommands(c) {
  say('sendCommand', json(await c.sendCommand(['SET', 'sc:raw', 'v'])), json(await c.sendCommand(['GET', 'sc:raw'])), json(await c.sendCommand(['HSET', 'sc:h', 'a', '1', 'b', '2'])));
  say('sendCommand hgetall', json(await c.sendCommand(['HGETALL', 'sc:h'])), json(await c.sendCommand(['ZADD', 'sc:z', '1.5', 'x'])), json(await c.sendCommand(['ZSCORE', 'sc:z', 'x'])));
  say('sendCommand nested', json(await c.sendCommand(['ZRANGE', 'sc:z', '0', '-1', 'WITHSCORES'])), json(await c.sendCommand(['SMEMBERS', 'sc:none'])), json(await c.sendCommand(['EXISTS', 'sc:raw'])));
  say('sendCommand errors', await errorOf(c.sendCommand(['NOSUCH', 'a'])), '|', await errorOf(c.sendCommand(['GET'])), '|', await errorOf(c.sendCommand(['LPUSH', 'sc:raw', 'x'])));
  say('sendCommand buffers', json((await c.sendCommand(['GET', 'sc:raw'], { typeMapping: { 36: Buffer } })).toString('hex')), json(await c.sendCommand(['SET', Buffer.from([0, 1, 255]), Buffer.from([254])])), json((await c.withTypeMapping({ 36: Buffer }).get(Buffer.from([0, 1, 255]))).toString('hex')));
  await c.clientSetName('trial-main');
  say('client', await c.clientGetName(), (await c.clientList()).some(x => x.name === 'trial-main'), typeof await c.clientId());
  say('hello', json(Object.entries(await c.hello(RESP)).filter(([k]) => ['proto', 'role', 'server'].includes(k))));
  say('info', /redis_version:\d+\.\d+\.\d+/.test(await c.info('server')), 'select', await errorOf(c.select(3)), await c.dbSize());
}

async function caching() {
  if (RESP !== 3) return;
  const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0, evictPolicy: 'LRU' });
  const cached = await connect({ clientSideCache: cache });
  const writer = await connect();
  await writer.set('csc:a', '1'); await writer.hSet('csc:h', { f: 'x' });
  const reads = [await cached.get('csc:a'), await cached.get('csc:a'), json(await cached.hGetAll('csc:h')), json(await cached.hGetAll('csc:h'))];
  let stats = cache.stats();
  say('csc first reads', json(reads), 'hits', stats.hitCount, 'misses', stats.missCount, 'size', cache.size());
  await writer.set('csc:a', '2');
  await until('invalidation of csc:a', () => cache.size() === 1);
  say('csc after write elsewhere', await cached.get('csc:a'), await cached.get('csc:a'), 'size', cache.size());
  await cached.set('csc:a', '3');
  await until('invalidation by own write', () => cache.size() === 1);
  say('csc after own write', await cached.get('csc:a'));
  await writer.hSet('csc:h', 'g', 'y');
  await until('invalidation of csc:h', () => cache.size() === 1);
  say('csc hash', json(await cached.hGetAll('csc:h')));
  await writer.flushAll();
  await until('flushall invalidates all', () => cache.size() === 0);
  say('csc after flushall', json(await cached.get('csc:a')), 'size', cache.size());
  stats = cache.stats();
  say('csc stats', 'hits', stats.hitCount, 'misses', stats.missCount);
}

async function main() {
  const c = await connect();
  await c.flushAll();
  const steps = { types, streams, transactions, scripts, scans, pubsub, blocking, sendCommands, caching };
  for (const [name, step] of Object.entries(steps)) {
    try { await step(c); } catch (e) { say('FAILED', name, e.stack.split('\n').slice(0, 3).join(' / ')); }
  }
  for (const x of open.reverse()) { try { x.destroy(); } catch (e) { /* already closed */ } }
}
main().then(() => process.exit(0), e => { say('FAILED', e.stack); process.exit(1); });
JS
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
for resp in 2 3; do
  (cd "$work" && PORT=$port RESP=$resp timeout 120 node node-redis-trial.js 2>&1)
done
kill "$pid"; wait "$pid" 2>/dev/null
