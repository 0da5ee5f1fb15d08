package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SortingParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Bucketed hashes ({@link StoredHash}) at the default {@code hash-max-listpack-entries}: grown a
 * field at a time through many bucket splits, scanned while they split, and through the commands
 * that move, copy, expire, evict, watch, sort by, script (Lua, MULTI) and persist them; the element
 * map holds one entry a bucket and a root, the collector keeps them, and what a removed hash held
 * is freed.
 */
class BigHashesTest {

    private static final int FIELDS = 3000;

    @TempDir
    Path dir;

    @Test
    void aHashGrownFieldByFieldKeepsOneBucketEntryPerSixtyFourFields() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < FIELDS; i++) {
                assertEquals(1, j.hset("big", "f" + i, "v" + i));
            }
            assertEquals(FIELDS, j.hlen("big"));
            assertEquals("hashtable", j.objectEncoding("big"));
            for (int i = 0; i < FIELDS; i += 7) {
                assertEquals("v" + i, j.hget("big", "f" + i));
            }
            assertNull(j.hget("big", "nosuch"));
            Map<String, String> all = j.hgetAll("big");
            assertEquals(FIELDS, all.size());
            assertEquals("v2999", all.get("f2999"));
            long buckets = buckets(s, 0, "big");
            assertTrue(buckets >= FIELDS / HashBuckets.MAX_BUCKET_FIELDS && buckets <= 2 * FIELDS / HashBuckets.MAX_BUCKET_FIELDS,
                    buckets + " buckets");
            ListElements e = s.context().dbs.opened(0).elements(false);
            assertEquals(buckets + 1, e.size(), "one entry a bucket, and the root");
            s.context().collector.walk(s.context().dbs.opened(0), e);
            assertEquals(buckets + 1, e.size(), "the collector keeps what the header holds");
            assertEquals(FIELDS, j.hgetAll("big").size());

            for (int i = 0; i < FIELDS; i += 2) {
                j.hdel("big", "f" + i);
            }
            assertEquals(FIELDS / 2, j.hlen("big"));
            assertEquals(FIELDS / 2, j.hkeys("big").size());
            assertEquals("hashtable", j.objectEncoding("big"), "as in Redis, a hashtable never turns back");
            j.del("big");
            eventually(() -> e.size() == 0, "DEL to free the buckets: " + e.size() + " left");
        }
    }

    @Test
    void hscanWhileBucketsSplitReturnsEveryFieldPresentThroughout() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, String> all = new HashMap<>();
            for (int i = 0; i < 1000; i++) {
                all.put("f" + i, "v" + i);
            }
            j.hset("big", all);
            Set<String> got = new HashSet<>();
            String cursor = "0";
            int steps = 0;
            int added = 0;
            do {
                ScanResult<Map.Entry<String, String>> page = j.hscan("big", cursor, new ScanParams().count(20));
                for (Map.Entry<String, String> e : page.getResult()) {
                    got.add(e.getKey());
                }
                for (int k = 0; k < 40; k++) { // several splits a step
                    j.hset("big", "new" + added++, "x");
                }
                cursor = page.getCursor();
                steps++;
            } while (!cursor.equals("0"));
            assertTrue(steps > 10, "scanned in steps: " + steps);
            assertTrue(got.containsAll(all.keySet()), "every field there all along");
            List<String> matched = j.hscan("big", "0", new ScanParams().count(100_000).match("f99*")).getResult()
                    .stream().map(Map.Entry::getKey).sorted().toList();
            assertEquals(List.of("f99", "f990", "f991", "f992", "f993", "f994", "f995", "f996", "f997", "f998", "f999"), matched);
            String picked = j.hrandfield("big");
            assertTrue(j.hexists("big", picked), picked);
            List<Map.Entry<String, String>> pairs = j.hrandfieldWithValues("big", 5);
            assertEquals(5, pairs.size());
            for (Map.Entry<String, String> p : pairs) {
                assertEquals(j.hget("big", p.getKey()), p.getValue());
            }
            assertEquals(5, pairs.stream().map(Map.Entry::getKey).distinct().count(), "a positive count: distinct fields");
            List<Map.Entry<String, String>> repeated = j.hrandfieldWithValues("big", -300);
            assertEquals(300, repeated.size(), "a negative count: that many picks, which may repeat");
            for (Map.Entry<String, String> p : repeated) {
                assertEquals(j.hget("big", p.getKey()), p.getValue());
            }
            long n = j.hlen("big");
            assertEquals(n / 2, j.hrandfield("big", n / 2).stream().distinct().count(), "half the hash: read whole, distinct");
            assertEquals(n, j.hrandfield("big", n + 10).size(), "more than it has: all of it");
        }
    }

    @Test
    void renameCopyMoveExpireAndFlushKeepOrFreeTheBuckets() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, String> all = new HashMap<>();
            for (int i = 0; i < 1000; i++) {
                all.put("f" + i, "v" + i);
            }
            j.hset("a", all);
            assertEquals("OK", j.rename("a", "b"));
            assertEquals(all, j.hgetAll("b"));
            assertTrue(j.copy("b", "c", false));
            j.hset("c", "f0", "changed");
            assertEquals("v0", j.hget("b", "f0"), "a copy is its own");
            assertEquals(1, j.move("c", 1));
            j.select(1);
            assertEquals("changed", j.hget("c", "f0"));
            assertEquals(1000, j.hlen("c"));
            j.select(0);
            ListElements e = s.context().dbs.opened(0).elements(false);
            long bBuckets = buckets(s, 0, "b") + 1;
            eventually(() -> e.size() == bBuckets, "the moved hash's buckets to go from db 0: " + e.size());

            j.pexpire("b", 50);
            eventually(() -> e.size() == 0, "the expired hash's buckets to be freed: " + e.size());
            j.select(1);
            j.flushDB();
            ListElements e1 = s.context().dbs.opened(1).elements(false);
            eventually(() -> e1.size() == 0, "FLUSHDB to free the buckets: " + e1.size());
        }
    }

    @Test
    void watchSortLuaAndARestartSeeBucketedHashes() throws Exception {
        Map<String, String> all = new HashMap<>();
        for (int i = 0; i < 800; i++) {
            all.put("f" + i, "v" + i);
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis other = new Jedis("127.0.0.1", s.port())) {
            j.hset("big", all);
            j.watch("big");
            other.hset("big", "f1", "v1"); // the same value: still a write WATCH must see
            Transaction t = j.multi();
            t.hget("big", "f1");
            assertNull(t.exec(), "EXEC aborted by a write to the watched hash");

            for (int k = 1; k <= 3; k++) {
                Map<String, String> o = new HashMap<>(all);
                o.put("weight", Integer.toString(10 - k));
                o.put("name", "obj" + k);
                j.hset("obj_" + k, o);
                j.rpush("ids", Integer.toString(k));
            }
            assertEquals(List.of("obj3", "obj2", "obj1"),
                    j.sort("ids", new SortingParams().by("obj_*->weight").get("obj_*->name")));
            assertEquals("v5", j.eval("return redis.call('HGET', KEYS[1], ARGV[1])", List.of("big"), List.of("f5")));
            // a flat HGETALL of 801 pairs, and HLEN
            assertEquals(2403L, j.eval("redis.call('HSET', KEYS[1], 'lua', 'x'); return #redis.call('HGETALL', KEYS[1]) + redis.call('HLEN', KEYS[1])",
                    List.of("big"), List.of()));
            Transaction m = j.multi();
            m.hset("big", "multi", "y");
            m.hgetAll("big");
            m.hdel("big", "multi", "lua");
            List<Object> done = m.exec();
            assertEquals(802, ((Map<?, ?>) done.get(1)).size());
            assertEquals(2L, done.get(2));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(all, j.hgetAll("big"), "the hash after a restart");
            assertEquals("hashtable", j.objectEncoding("big"));
        }
    }

    @Test
    void anEvictedHashHasItsBucketsFreed() throws Exception {
        evictionFreesTheBuckets(dir, j -> {
            Map<String, String> all = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                all.put("f" + i, "v" + i);
            }
            j.hset("big", all);
        });
    }

    /** {@code fill} makes "big" a bucketed value; LRU eviction of its header frees its buckets. */
    static void evictionFreesTheBuckets(Path dir, java.util.function.Consumer<Jedis> fill) throws Exception {
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1)
                .withMaxMemory(8L << 20, ServerConfig.ALLKEYS_LRU);
        try (ColossalServer s = ColossalServer.start(config); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill.accept(j);
            ListElements e = s.context().dbs.opened(0).elements(false);
            assertTrue(e.size() > 30, e.size() + " buckets and root");
            String value = "x".repeat(1000);
            for (int i = 0; i < 30_000; i++) {
                j.set("k" + i, value); // four times the bound: LRU evicts the header, read by no one
            }
            assertTrue(!j.exists("big"), "the hash or set was evicted");
            eventually(() -> e.size() == 0, "the evicted header's buckets to be freed: " + e.size());
        }
    }

    /**
     * @return the element-map entries the values under {@code keys} of database {@code db} hold: a
     *     bucketed one's buckets and root, none for a one-value one (a crash test's churned key may
     *     not have grown past the limit before the kill)
     */
    static long elementEntries(ColossalServer s, int db, String... keys) {
        long n = 0;
        for (String key : keys) {
            KeyValueStore.Entry e = s.context().dbs.opened(db).get(key.getBytes(StandardCharsets.UTF_8));
            n += e != null && HashBuckets.isBucketed(e) ? buckets(s, db, key) + 1 : 0;
        }
        return n;
    }

    /** @return how many buckets the bucketed hash or set under {@code key} of database {@code db} has */
    static long buckets(ColossalServer s, int db, String key) {
        KeyValueStore.Entry e = s.context().dbs.opened(db).get(key.getBytes(StandardCharsets.UTF_8));
        return HashBuckets.get(e, HashBuckets.BUCKETS_OFFSET);
    }
}
