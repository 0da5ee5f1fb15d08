package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RBucket;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RLock;
import org.redisson.api.RMap;
import org.redisson.api.RMapCache;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RSemaphore;
import org.redisson.api.RStream;
import org.redisson.api.RTopic;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.stream.StreamAddArgs;
import org.redisson.api.stream.StreamCreateGroupArgs;
import org.redisson.api.stream.StreamReadGroupArgs;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson, the Java client most applications reach Redis through for more than GET and SET:
 * its objects are Lua scripts, pub/sub and blocking commands over plain keys. The same trial runs
 * against redis-server 7.0 and against Colossal, and what the application sees must be the same:
 * buckets and counters, maps with per-entry TTLs (RMapCache), locks contended by two threads (the
 * waiter woken through pub/sub), read-write locks, semaphores, latches, blocking and delayed
 * queues, sorted sets, topics, Bloom filters, rate limiters and streams with groups.
 */
class RedissonTrialTest {

    @TempDir
    Path dir;

    @Test
    void redissonObjectsBehaveAsOnRedis() throws Exception {
        sameOnBoth(RedissonTrialTest::trial);
    }

    /** The same over RESP3 (HELLO 3), in database 3: batches, transactions, local caches kept fresh by pub/sub, and more objects. */
    @Test
    void moreObjectsOverResp3InAnotherDatabase() throws Exception {
        sameOnBoth(RedissonTrialTest::more);
    }

    /** A trial: what the application saw, step by step. */
    @FunctionalInterface
    private interface Trial {
        List<String> run(int port) throws Exception;
    }

    private void sameOnBoth(Trial trial) throws Exception {
        List<String> theirs = new ArrayList<>();
        TestServers.onRedis(port -> theirs.addAll(trial.run(port)));
        List<String> ours;
        try (ColossalServer s = TestServers.colossal(dir)) {
            ours = trial.run(s.port());
        }
        assertTrue(ours.size() > 10, String.join("\n", ours));
        if (!theirs.isEmpty()) {
            assertEquals(String.join("\n", theirs), String.join("\n", ours));
        }
    }

    private static RedissonClient client(int port, boolean resp3, int db) {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        if (resp3) {
            config.setProtocol(org.redisson.config.Protocol.RESP3);
        }
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setDatabase(db).setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(8).setSubscriptionConnectionMinimumIdleSize(1).setTimeout(5000);
        return Redisson.create(config);
    }

    private static List<String> trial(int port) throws Exception {
        RedissonClient r = client(port, false, 0);
        List<String> seen = new ArrayList<>();
        try {
            buckets(r, seen);
            maps(r, seen);
            locks(r, seen);
            coordination(r, seen);
            queues(r, seen);
            others(r, seen);
        } finally {
            r.shutdown();
        }
        return seen;
    }

    private static List<String> more(int port) throws Exception {
        RedissonClient r = client(port, true, 3);
        RedissonClient second = client(port, true, 3);
        List<String> seen = new ArrayList<>();
        try {
            org.redisson.api.RBatch batch = r.createBatch();
            batch.getBucket("b1").setAsync("v1");
            batch.getAtomicLong("n1").incrementAndGetAsync();
            batch.getMap("m1").fastPutAsync("f", "v");
            seen.add("batch " + batch.execute().getResponses());
            org.redisson.api.RTransaction tx = r.createTransaction(org.redisson.api.TransactionOptions.defaults());
            tx.getBucket("tb").set("t");
            tx.getMap("tm").put("k", "v");
            tx.commit();
            seen.add("transaction " + r.getBucket("tb").get() + " " + r.getMap("tm").get("k"));
            org.redisson.api.RLocalCachedMap<String, String> local = r.getLocalCachedMap(
                    org.redisson.api.options.LocalCachedMapOptions.<String, String>name("local"));
            org.redisson.api.RLocalCachedMap<String, String> other = second.getLocalCachedMap(
                    org.redisson.api.options.LocalCachedMapOptions.<String, String>name("local"));
            local.put("k", "first");
            seen.add("local cache other reads " + other.get("k"));
            local.put("k", "second");
            String fresh = TestServers.await("second", 10_000, () -> other.get("k")); // invalidated through pub/sub
            seen.add("local cache other sees the change " + fresh);
            org.redisson.api.RSetCache<String> setCache = r.getSetCache("setcache");
            setCache.add("short", 300, TimeUnit.MILLISECONDS);
            setCache.add("long", 100, TimeUnit.SECONDS);
            Thread.sleep(600);
            seen.add("set cache " + new java.util.TreeSet<>(setCache.readAll()));
            org.redisson.api.RListMultimap<String, String> multi = r.getListMultimap("multi");
            multi.put("a", "1");
            multi.put("a", "2");
            multi.put("b", "3");
            seen.add("multimap " + multi.get("a") + " " + multi.size() + " " + new java.util.TreeSet<>(multi.keySet()));
            org.redisson.api.RTimeSeries<String, Object> series = r.getTimeSeries("series");
            series.add(1000, "a");
            series.add(2000, "b");
            series.add(3000, "c");
            seen.add("time series " + series.range(1500, 3500) + " " + series.size());
            org.redisson.api.RGeo<String> geo = r.getGeo("geo");
            geo.add(new org.redisson.api.GeoEntry(13.361389, 38.115556, "Palermo"), new org.redisson.api.GeoEntry(15.087269, 37.502669, "Catania"));
            seen.add("geo " + Math.round(geo.dist("Palermo", "Catania", org.redisson.api.GeoUnit.KILOMETERS)) + " km");
            org.redisson.api.RHyperLogLog<String> hll = r.getHyperLogLog("hll");
            hll.addAll(List.of("a", "b", "c", "a"));
            seen.add("hyperloglog " + hll.count());
            org.redisson.api.RBitSet bits = r.getBitSet("bits");
            bits.set(3);
            bits.set(10);
            seen.add("bitset " + bits.cardinality() + " " + bits.get(10) + " " + bits.length());
            org.redisson.api.RIdGenerator ids = r.getIdGenerator("ids");
            ids.tryInit(100, 10);
            seen.add("id generator " + ids.nextId() + " " + ids.nextId());
            org.redisson.api.RBinaryStream blob = r.getBinaryStream("blob");
            blob.set("bytes in a stream".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            seen.add("binary stream " + new String(blob.get(), java.nio.charset.StandardCharsets.UTF_8));
            Object evaluated = r.getScript(StringCodec.INSTANCE).eval(org.redisson.api.RScript.Mode.READ_WRITE,
                    "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])", org.redisson.api.RScript.ReturnType.VALUE,
                    List.of("scripted"), "value");
            seen.add("script " + evaluated);
            org.redisson.api.RKeys keys = r.getKeys();
            seen.add("keys " + keys.countExists("b1", "tb", "nosuch") + " deleted " + keys.deleteByPattern("b*") + " count "
                    + keys.count());
        } finally {
            second.shutdown();
            r.shutdown();
        }
        return seen;
    }

    private static void buckets(RedissonClient r, List<String> seen) {
        RBucket<String> b = r.getBucket("bucket");
        b.set("one");
        seen.add("bucket " + b.get() + " " + b.setIfAbsent("two") + " " + b.getAndSet("three") + " " + b.get());
        b.set("ttl", java.time.Duration.ofSeconds(100));
        seen.add("bucket ttl " + (b.remainTimeToLive() > 90_000));
        RAtomicLong n = r.getAtomicLong("counter");
        seen.add("atomic " + n.incrementAndGet() + " " + n.addAndGet(10) + " " + n.compareAndSet(11, 5) + " " + n.get());
    }

    private static void maps(RedissonClient r, List<String> seen) throws Exception {
        RMap<String, String> m = r.getMap("map");
        m.put("a", "1");
        m.fastPut("b", "2");
        seen.add("map " + m.putIfAbsent("a", "9") + " " + m.replace("b", "7") + " " + m.fastRemove("nosuch") + " " + new TreeMap<>(m.readAllMap()));
        RMapCache<String, String> c = r.getMapCache("cache");
        c.put("short", "x", 300, TimeUnit.MILLISECONDS);
        c.put("long", "y", 100, TimeUnit.SECONDS);
        c.put("idle", "z", 0, TimeUnit.SECONDS, 100, TimeUnit.SECONDS);
        seen.add("cache " + c.get("short") + " " + c.get("long") + " " + c.get("idle") + " " + c.size());
        Thread.sleep(600);
        seen.add("cache after 600 ms " + c.get("short") + " " + c.get("long") + " " + new TreeMap<>(c.getAll(java.util.Set.of("short", "long", "idle"))));
        seen.add("cache remove " + c.remove("long") + " " + c.containsKey("long"));
    }

    private static void locks(RedissonClient r, List<String> seen) throws Exception {
        RLock lock = r.getLock("lock");
        lock.lock();
        AtomicInteger order = new AtomicInteger();
        CountDownLatch tried = new CountDownLatch(1);
        List<String> other = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread t = new Thread(() -> {
            RLock same = r.getLock("lock");
            other.add("other tryLock at once " + same.tryLock());
            tried.countDown();
            try {
                // waits on the lock's channel until the holder's unlock publishes
                boolean got = same.tryLock(10, 30, TimeUnit.SECONDS);
                other.add("other got it " + got + " after the holder " + (order.get() == 1));
                same.unlock();
            } catch (InterruptedException e) {
                other.add("interrupted");
            }
        });
        t.start();
        tried.await();
        Thread.sleep(200);
        seen.add("lock held " + lock.isLocked() + " by me " + lock.isHeldByCurrentThread() + " count " + lock.getHoldCount());
        lock.lock(); // reentrant
        seen.add("lock again count " + lock.getHoldCount());
        lock.unlock();
        order.set(1);
        lock.unlock();
        t.join(20_000);
        seen.addAll(other);
        seen.add("lock free " + !lock.isLocked());
        RLock leased = r.getLock("leased");
        leased.lock(300, TimeUnit.MILLISECONDS);
        Thread.sleep(700);
        seen.add("lease ran out " + !leased.isLocked());
        RReadWriteLock rw = r.getReadWriteLock("rw");
        rw.readLock().lock();
        boolean writeWhileRead = new java.util.concurrent.CompletableFuture<Boolean>().completeAsync(() -> rw.writeLock().tryLock()).get();
        seen.add("rw: write while read held " + writeWhileRead);
        rw.readLock().unlock();
        boolean writeAfter = new java.util.concurrent.CompletableFuture<Boolean>().completeAsync(() -> {
            boolean got = rw.writeLock().tryLock();
            if (got) {
                rw.writeLock().unlock();
            }
            return got;
        }).get();
        seen.add("rw: write after read released " + writeAfter);
        RLock fair = r.getFairLock("fair");
        fair.lock();
        seen.add("fair " + fair.isLocked());
        fair.unlock();
    }

    private static void coordination(RedissonClient r, List<String> seen) throws Exception {
        RSemaphore s = r.getSemaphore("sem");
        seen.add("semaphore set " + s.trySetPermits(2) + " " + s.tryAcquire() + " " + s.tryAcquire() + " " + s.tryAcquire()
                + " " + s.availablePermits());
        s.release();
        seen.add("semaphore after release " + s.availablePermits());
        RCountDownLatch latch = r.getCountDownLatch("latch");
        latch.trySetCount(2);
        Thread t = new Thread(() -> {
            latch.countDown();
            latch.countDown();
        });
        t.start();
        seen.add("latch reached " + latch.await(10, TimeUnit.SECONDS) + " count " + latch.getCount());
        t.join();
    }

    @SuppressWarnings("deprecation") // RDelayedQueue: deprecated in 3.5x, and what applications written before use
    private static void queues(RedissonClient r, List<String> seen) throws Exception {
        RBlockingQueue<String> q = r.getBlockingQueue("queue");
        Thread producer = new Thread(() -> {
            try {
                Thread.sleep(200);
                q.offer("job1");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        producer.start();
        seen.add("blocking take " + q.poll(10, TimeUnit.SECONDS));
        producer.join();
        RBlockingQueue<String> target = r.getBlockingQueue("later");
        RDelayedQueue<String> delayed = r.getDelayedQueue(target);
        delayed.offer("in 300 ms", 300, TimeUnit.MILLISECONDS);
        seen.add("delayed at once " + target.poll());
        seen.add("delayed arrives " + target.poll(10, TimeUnit.SECONDS));
        delayed.destroy();
        RScoredSortedSet<String> z = r.getScoredSortedSet("scores");
        z.add(3, "c");
        z.add(1, "a");
        z.add(2, "b");
        seen.add("zset rank " + z.rank("c") + " first " + z.first() + " range " + z.valueRange(0, -1) + " score " + z.getScore("b"));
    }

    private static void others(RedissonClient r, List<String> seen) throws Exception {
        RTopic topic = r.getTopic("news");
        CountDownLatch got = new CountDownLatch(1);
        List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
        int id = topic.addListener(String.class, (channel, msg) -> {
            messages.add(channel + ":" + msg);
            got.countDown();
        });
        seen.add("topic receivers " + topic.publish("hello"));
        seen.add("topic delivered " + got.await(10, TimeUnit.SECONDS) + " " + messages);
        topic.removeListener(id);
        RBloomFilter<String> bloom = r.getBloomFilter("bloom");
        seen.add("bloom init " + bloom.tryInit(1000, 0.01));
        bloom.add("alpha");
        seen.add("bloom " + bloom.contains("alpha") + " " + bloom.contains("beta") + " count " + bloom.count());
        RRateLimiter limiter = r.getRateLimiter("limiter");
        seen.add("limiter " + limiter.trySetRate(RateType.OVERALL, 2, java.time.Duration.ofSeconds(10)) + " " + limiter.tryAcquire()
                + " " + limiter.tryAcquire() + " " + limiter.tryAcquire());
        RStream<String, String> stream = r.getStream("events");
        stream.createGroup(StreamCreateGroupArgs.name("workers").makeStream());
        stream.add(StreamAddArgs.entries(Map.of("type", "signup")));
        stream.add(StreamAddArgs.entries(Map.of("type", "login")));
        var read = stream.readGroup("workers", "w1", StreamReadGroupArgs.neverDelivered().count(10));
        List<String> types = new ArrayList<>();
        read.values().forEach(v -> types.add(v.get("type")));
        seen.add("stream read " + types + " acked " + stream.ack("workers", read.keySet().toArray(new org.redisson.api.StreamMessageId[0]))
                + " size " + stream.size());
        assertTrue(seen.size() > 20);
    }
}
