package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * Redis's sampling policies ({@link SampledEviction}) under a 2 MiB bound: what each may evict,
 * what it spares, and the refusal when nothing may go.
 */
class SampledEvictionTest {

    private static final long BOUND = 2L << 20;
    private static final String VALUE = "v".repeat(1000);
    /** A pipelined fill answers once a whole read's commands have run: on a loaded machine, seconds. */
    private static final int TIMEOUT_MS = 15_000;

    @TempDir
    Path dir;

    private ColossalServer start(String policy) throws Exception {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve(policy)).withPorts(0, -1)
                .withMaxMemory(BOUND, policy));
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    /** Sets {@code prefix0..} with a TTL of {@code ttl} seconds each (none if 0), or a rising one if {@code rising}. */
    private static void fill(Jedis j, String prefix, int n, long ttl, boolean rising) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i++) {
            long t = rising ? 1000 + i : ttl;
            p.set(prefix + i, VALUE, t == 0 ? new SetParams() : new SetParams().ex(t));
        }
        p.sync();
    }

    private static int present(Jedis j, String prefix, int n) {
        int found = 0;
        for (int i = 0; i < n; i++) {
            found += j.exists(prefix + i) ? 1 : 0;
        }
        return found;
    }

    private static void assertWithinBound(Jedis j) {
        long used = field(j.info("memory"), "used_memory");
        assertTrue(used <= BOUND + BOUND / 32, "used_memory " + used + " over a bound of " + BOUND);
    }

    @Test
    void allkeysRandomEvictsAnyKeyAndKeepsTheBound() throws Exception {
        try (ColossalServer s = start("allkeys-random"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "k", 20_000, 0, false); // ten times the bound
            assertWithinBound(j);
            long left = j.dbSize();
            assertTrue(left > 1000, left + " keys left");
            assertEquals(20_000 - left, field(j.info("stats"), "evicted_keys"));
            assertEquals("allkeys-random", j.configGet("maxmemory-policy").get("maxmemory-policy"));
        }
    }

    /**
     * volatile-lru: keys without a TTL are never evicted; keys with one are, the longest idle
     * first; and with none left to evict, writes are refused as under noeviction.
     */
    @Test
    void volatileLruEvictsOnlyKeysWithATtlTheIdlestFirstAndThenRefuses() throws Exception {
        try (ColossalServer s = start("volatile-lru"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "keep", 500, 0, false);      // a quarter of the bound, no TTL
            fill(j, "old", 500, 1000, false);    // with a TTL, then left idle
            Thread.sleep(2100);                  // idle times are kept in seconds, as Redis's LRU clock
            fill(j, "new", 5_000, 1000, false);  // past the bound: the old ones should go first
            assertWithinBound(j);
            assertEquals(500, present(j, "keep", 500), "no key without a TTL is evicted");
            int old = present(j, "old", 500);
            int fresh = present(j, "new", 5_000);
            assertTrue(old < 100, old + " of 500 idle keys kept");
            assertTrue(fresh > 300, fresh + " of 5,000 new keys kept");
            // Only keys without a TTL: nothing may go, so writes are refused
            fill(j, "more", 3_000, 0, false);
            JedisDataException e = assertThrows(JedisDataException.class, () -> {
                for (int i = 0; i < 10_000; i++) {
                    j.set("later" + i, VALUE);
                }
            });
            assertEquals(OomRefusal.ERROR, e.getMessage());
            assertEquals(500, present(j, "keep", 500));
        }
    }

    /**
     * The idlest key with a TTL is in use (its lock held elsewhere): the sample that finds it again
     * does not put it back, so the next one goes; before, the few keys with a TTL being all every
     * sample found, the same refused key came back first each round and the write never ended.
     */
    @Test
    void aKeyInUseIsPassedOverAndTheNextOneEvicted() throws Exception {
        try (ColossalServer s = start("volatile-lru"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            j.set("old", VALUE, new SetParams().ex(1000));
            Thread.sleep(2_100); // OBJECT IDLETIME's seconds: "old" is the idlest
            j.set("new", VALUE, new SetParams().ex(1000));
            java.util.concurrent.locks.Lock held = s.context().dbs.opened(0).locks("old".getBytes())[0];
            java.util.concurrent.CountDownLatch locked = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
            Thread holder = Thread.ofPlatform().start(() -> {
                held.lock();
                locked.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    held.unlock();
                }
            });
            locked.await();
            try {
                int written = 0;
                for (int i = 0; written < 5_000; i++) {
                    if (s.context().dbs.opened(0).locks(("k" + i).getBytes())[0] == held) {
                        continue; // its write would wait for the holder
                    }
                    try {
                        j.set("k" + i, VALUE);
                        written++;
                    } catch (JedisDataException e) {
                        assertTrue(e.getMessage().startsWith("OOM"), e.getMessage());
                        break;
                    }
                }
                assertTrue(written < 5_000, "five times the bound was refused at some point");
                assertEquals(0, j.exists("new") ? 1 : 0, "the next idlest key with a TTL went");
            } finally {
                done.countDown();
                holder.join();
            }
            assertTrue(j.exists("old"), "the key in use stayed");
        }
    }

    /** volatile-ttl: of the sampled keys, the one to expire first goes: the longest TTLs are kept. */
    @Test
    void volatileTtlEvictsTheKeysDueFirst() throws Exception {
        try (ColossalServer s = start("volatile-ttl"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "t", 6_000, 0, true);        // TTLs 1000..6999 s, three times the bound
            assertWithinBound(j);
            int early = present(j, "t", 3_000);
            int late = 0;
            for (int i = 3_000; i < 6_000; i++) {
                late += j.exists("t" + i) ? 1 : 0;
            }
            assertTrue(late > 2 * early, "kept " + early + " of the earlier half, " + late + " of the later");
        }
    }

    /**
     * allkeys-lfu: keys read often are kept, keys never read go first, and keys read once go before
     * keys read many times; OBJECT FREQ says the counts, and OBJECT IDLETIME is refused, as in Redis.
     */
    @Test
    void allkeysLfuKeepsTheKeysUsedMost() throws Exception {
        try (ColossalServer s = start("allkeys-lfu"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "hot", 200, 0, false);
            fill(j, "cold", 800, 0, false);      // together half the bound
            Pipeline p = j.pipelined();
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < 200; i++) {
                    p.get("hot" + i);
                }
            }
            p.sync();
            assertTrue(j.objectFreq("hot7") > AccessClock.LFU_INIT, "hot7 read 40 times: " + j.objectFreq("hot7"));
            assertEquals(AccessClock.LFU_INIT, j.objectFreq("cold7"), "cold7 never read");
            fill(j, "new", 3_000, 0, false);     // past the bound: the cold keys should go first
            assertWithinBound(j);
            int hot = present(j, "hot", 200);
            int cold = present(j, "cold", 800);
            assertTrue(hot >= 190, hot + " of 200 hot keys kept, " + cold + " of 800 cold ones");
            assertTrue(cold < 400, cold + " of 800 cold keys kept");
            assertTrue(field(j.info("stats"), "evicted_keys") > 1000);
            JedisDataException idle = assertThrows(JedisDataException.class, () -> j.objectIdletime("hot7"));
            assertTrue(idle.getMessage().startsWith("ERR An LFU maxmemory policy is selected, idle time not tracked."),
                    idle.getMessage());
        }
    }

    /** volatile-lfu: the least used keys with a TTL go; keys without one stay whatever their use. */
    @Test
    void volatileLfuEvictsTheLeastUsedKeysWithATtl() throws Exception {
        try (ColossalServer s = start("volatile-lfu"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "keep", 400, 0, false);       // never read, no TTL
            fill(j, "hot", 200, 1000, false);
            Pipeline p = j.pipelined();
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < 200; i++) {
                    p.get("hot" + i);
                }
            }
            p.sync();
            fill(j, "new", 3_000, 1000, false);
            assertWithinBound(j);
            assertEquals(400, present(j, "keep", 400), "no key without a TTL is evicted");
            int hot = present(j, "hot", 200);
            assertTrue(hot >= 190, hot + " of 200 hot keys kept");
        }
    }

    /**
     * The counts grow as Redis's do, logarithmically by lfu-log-factor: after 1,000 reads a key
     * new at 5 stands near 18 at Redis's factor 10 (its documentation's table), and at factor 0
     * every read counts; RESTORE ... FREQ sets one.
     */
    @Test
    void useCountsGrowLogarithmicallyAsRedisDoes() throws Exception {
        try (ColossalServer s = start("allkeys-lfu"); Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            j.set("k", "v");
            assertEquals(AccessClock.LFU_INIT, j.objectFreq("k"));
            j.get("k");
            assertEquals(AccessClock.LFU_INIT + 1, j.objectFreq("k"), "the first read past the initial count always counts");
            Pipeline p = j.pipelined();
            for (int i = 0; i < 999; i++) {
                p.get("k");
            }
            p.sync();
            long after1000 = j.objectFreq("k");
            assertTrue(after1000 >= 12 && after1000 <= 30, "1,000 reads counted " + after1000);
            assertEquals("OK", j.configSet("lfu-log-factor", "0"));
            j.set("f", "v");
            for (int i = 0; i < 100; i++) {
                p.get("f");
            }
            p.sync();
            assertEquals(AccessClock.LFU_INIT + 100, j.objectFreq("f"));
            assertEquals("OK", j.restore("r", 0, j.dump("f"), new redis.clients.jedis.params.RestoreParams().frequency(200)));
            assertEquals(200, j.objectFreq("r"));
            assertEquals("0", j.configGet("lfu-log-factor").get("lfu-log-factor"));
            assertEquals("1", j.configGet("lfu-decay-time").get("lfu-decay-time"));
            assertEquals("OK", j.configSet("maxmemory-policy", "allkeys-random"));
            assertTrue(assertThrows(JedisDataException.class, () -> j.objectFreq("k")).getMessage()
                    .startsWith("ERR An LFU maxmemory policy is not selected"));
        }
    }

    /** The bound and the policies without one in the map files change at run time. */
    @Test
    void configSetChangesThePolicyAndTheBoundAtRunTime() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("rt")).withPorts(0, -1));
             Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "persist", 300, 0, false);
            assertEquals("OK", j.configSet("maxmemory", "1mb"));
            assertEquals("OK", j.configSet("maxmemory-policy", "ALLKEYS-RANDOM"));
            assertEquals("allkeys-random", j.configGet("maxmemory-policy").get("maxmemory-policy"));
            fill(j, "k", 3_000, 0, false);
            assertTrue(field(j.info("stats"), "evicted_keys") > 0);
            assertTrue(j.info("memory").contains("\r\nmaxmemory_policy:allkeys-random\r\n"));
            assertEquals("OK", j.configSet("maxmemory-policy", "noeviction"));
            assertEquals(OomRefusal.ERROR, assertThrows(JedisDataException.class, () -> {
                for (int i = 0; i < 3_000; i++) {
                    j.set("n" + i, VALUE);
                }
            }).getMessage());
            assertEquals("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one"
                    + " of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu,"
                    + " allkeys-random, noeviction",
                    assertThrows(JedisDataException.class, () -> j.configSet("maxmemory-policy", "lru")).getMessage());
            assertEquals("noeviction", j.configGet("maxmemory-policy").get("maxmemory-policy"), "nothing set");
            assertEquals("OK", j.configSet("maxmemory", "0"));
            fill(j, "k", 3_000, 0, false);
        }
    }

    /**
     * allkeys-lru chosen by CONFIG SET on a server started without it (its maps keep no bound) is
     * sampled by the last uses kept all along: keys idle since before the switch go first, keys
     * without a TTL too, and each is told as an {@code evicted} event. It was refused, which ended
     * Redis's own dump and pubsub test units ({@code RESTORE can set LRU}, {@code Keyspace
     * notifications: evicted events}).
     */
    @Test
    void allkeysLruChosenAtRunTimeEvictsAnyKeyTheIdlestFirst() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("lru")).withPorts(0, -1));
             Jedis j = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
            fill(j, "old", 500, 0, false);
            Thread.sleep(2100);                  // idle times are kept in seconds
            assertEquals("OK", j.configSet("maxmemory-policy", "allkeys-lru"));
            assertEquals("OK", j.configSet("maxmemory", "2mb"));
            assertEquals("allkeys-lru", j.configGet("maxmemory-policy").get("maxmemory-policy"));
            fill(j, "new", 5_000, 0, false);
            assertWithinBound(j);
            int old = present(j, "old", 500);
            int fresh = present(j, "new", 5_000);
            assertTrue(old < 100, old + " of 500 idle keys kept");
            assertTrue(fresh > 300, fresh + " of 5,000 new keys kept");
            assertEquals(5_500 - old - fresh, field(j.info("stats"), "evicted_keys"));
            // a bound below what is held evicts at once, each key told as evicted (pubsub.tcl's steps)
            assertEquals("OK", j.configSet("maxmemory", "0"));
            assertEquals("OK", j.flushDB());
            assertEquals("OK", j.configSet("notify-keyspace-events", "Ee"));
            java.util.concurrent.BlockingQueue<String> events = new java.util.concurrent.LinkedBlockingQueue<>();
            try (Jedis sub = new Jedis("127.0.0.1", s.port(), TIMEOUT_MS)) {
                redis.clients.jedis.JedisPubSub listener = new redis.clients.jedis.JedisPubSub() {
                    @Override
                    public void onPMessage(String pattern, String channel, String message) {
                        events.add(channel + " " + message);
                    }
                };
                Thread t = Thread.ofVirtual().start(() -> sub.psubscribe(listener, "*"));
                while (listener.getSubscribedChannels() == 0) {
                    Thread.sleep(10);
                }
                assertEquals("OK", j.set("foo", "bar"));
                assertEquals("OK", j.configSet("maxmemory", "1"));
                assertEquals("__keyevent@0__:evicted foo", events.poll(10, java.util.concurrent.TimeUnit.SECONDS));
                listener.punsubscribe();
                t.join();
            }
            assertEquals("OK", j.configSet("maxmemory", "0"));
            assertEquals("OK", j.configSet("maxmemory-policy", "noeviction"));
        }
    }
}
