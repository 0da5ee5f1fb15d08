package dev.colossal.server;

import static dev.colossal.server.BigHashesTest.buckets;
import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SortingParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Bucketed sets ({@link StoredSet}) at the default {@code set-max-intset-entries} (512): grown a
 * member at a time through the conversion and many bucket splits, scanned while they split, drawn
 * from, combined with other sets, and through the commands that move, copy, dump, expire, evict,
 * watch, sort, script (Lua, MULTI) and persist them; the element map holds one entry a bucket and
 * a root, the collector keeps them, and what a removed set held is freed.
 */
class BigSetsTest {

    private static final int MEMBERS = 3000;

    @TempDir
    Path dir;

    @Test
    void aSetGrownMemberByMemberIsBucketedPastTheIntsetLimit() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 512; i++) {
                assertEquals(1, j.sadd("big", Integer.toString(i)));
            }
            assertEquals("intset", j.objectEncoding("big"));
            assertNull(s.context().dbs.opened(0).elements(false), "512 integers are one value");
            for (int i = 512; i < MEMBERS; i++) {
                assertEquals(1, j.sadd("big", Integer.toString(i)));
            }
            assertEquals(0, j.sadd("big", "7"), "a member added again");
            assertEquals(MEMBERS, j.scard("big"));
            assertEquals("hashtable", j.objectEncoding("big"));
            for (int i = 0; i < MEMBERS; i += 7) {
                assertTrue(j.sismember("big", Integer.toString(i)));
            }
            assertFalse(j.sismember("big", "nosuch"));
            assertEquals(List.of(true, false, true), j.smismember("big", "0", "-1", "2999"));
            assertEquals(MEMBERS, j.smembers("big").size());
            long buckets = buckets(s, 0, "big");
            assertTrue(buckets >= MEMBERS / HashBuckets.MAX_BUCKET_FIELDS && buckets <= 2 * MEMBERS / HashBuckets.MAX_BUCKET_FIELDS,
                    buckets + " buckets");
            ListElements e = s.context().dbs.opened(0).elements(false);
            assertEquals(buckets + 1, e.size(), "one entry a bucket, and the root");
            s.context().collector.walk(s.context().dbs.opened(0), e);
            assertEquals(buckets + 1, e.size(), "the collector keeps what the header holds");
            assertEquals(MEMBERS, j.smembers("big").size());

            for (int i = 0; i < MEMBERS; i += 2) {
                assertEquals(1, j.srem("big", Integer.toString(i), "nosuch"));
            }
            assertEquals(MEMBERS / 2, j.scard("big"));
            assertEquals("hashtable", j.objectEncoding("big"), "as in Redis, a hashtable never turns back");
            j.del("big");
            eventually(() -> e.size() == 0, "DEL to free the buckets: " + e.size() + " left");
        }
    }

    @Test
    void sscanWhileBucketsSplitReturnsEveryMemberPresentThroughout() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Set<String> all = IntStream.range(0, 1000).mapToObj(i -> "m" + i).collect(Collectors.toSet());
            j.sadd("big", all.toArray(String[]::new));
            Set<String> got = new HashSet<>();
            String cursor = "0";
            int steps = 0;
            int added = 0;
            do {
                ScanResult<String> page = j.sscan("big", cursor, new ScanParams().count(20));
                got.addAll(page.getResult());
                for (int k = 0; k < 40; k++) { // several splits a step
                    j.sadd("big", "new" + added++);
                }
                cursor = page.getCursor();
                steps++;
            } while (!cursor.equals("0"));
            assertTrue(steps > 10, "scanned in steps: " + steps);
            assertTrue(got.containsAll(all), "every member there all along");
            List<String> matched = j.sscan("big", "0", new ScanParams().count(100_000).match("m99*")).getResult()
                    .stream().sorted().toList();
            assertEquals(List.of("m99", "m990", "m991", "m992", "m993", "m994", "m995", "m996", "m997", "m998", "m999"), matched);
        }
    }

    @Test
    void randomDrawsAndPopsTakeDistinctMembersOfTheSet() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Set<String> all = IntStream.range(0, 2000).mapToObj(i -> "m" + i).collect(Collectors.toSet());
            j.sadd("big", all.toArray(String[]::new));
            assertTrue(all.contains(j.srandmember("big")));
            List<String> five = j.srandmember("big", 5);
            assertEquals(5, new HashSet<>(five).size(), "distinct: " + five);
            assertTrue(all.containsAll(five));
            List<String> repeated = j.srandmember("big", -50);
            assertEquals(50, repeated.size());
            assertTrue(all.containsAll(repeated));
            assertEquals(2000, j.srandmember("big", 5000).size(), "a count past the size: the whole set");
            assertEquals(1500, new HashSet<>(j.srandmember("big", 1500)).size(), "most of the set, distinct");

            Set<String> popped = j.spop("big", 7);
            assertEquals(7, popped.size());
            assertTrue(all.containsAll(popped));
            for (String m : popped) {
                assertFalse(j.sismember("big", m), m + " popped");
            }
            String one = j.spop("big");
            assertFalse(j.sismember("big", one));
            assertEquals(2000 - 8, j.scard("big"));
            Set<String> rest = j.spop("big", 5000);
            assertEquals(2000 - 8, rest.size());
            assertFalse(j.exists("big"), "SPOP of all deletes the key");
            ListElements e = s.context().dbs.opened(0).elements(false);
            eventually(() -> e.size() == 0, "the emptied set's buckets to be freed: " + e.size());
        }
    }

    @Test
    void setAlgebraSortAndSmoveMixBothEncodings() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.sadd("big", IntStream.range(0, 1000).mapToObj(Integer::toString).toArray(String[]::new));
            j.sadd("small", "5", "500", "5000", "x");
            j.sadd("big0", IntStream.range(0, 1000).mapToObj(Integer::toString).toArray(String[]::new));
            assertEquals(Set.of("5", "500"), j.sinter("big", "small"));
            assertEquals(Set.of("5", "500"), j.sinter("small", "big"));
            assertEquals(2, j.sintercard("big", "small"));
            assertEquals(Set.of("5000", "x"), j.sdiff("small", "big"));
            assertEquals(998, j.sdiff("big", "small").size());
            assertEquals(1002, j.sunion("big", "small").size());
            assertEquals(1002, j.sunionstore("u", "big", "small"));
            assertEquals("hashtable", j.objectEncoding("u"));
            assertEquals(2, j.sinterstore("big", "big", "small"), "the destination read, then replaced");
            assertEquals("intset", j.objectEncoding("big"));
            List<String> sorted = j.sort("u", new SortingParams().alpha().limit(0, 3));
            assertEquals(List.of("0", "1", "10"), sorted);
            assertEquals(List.of("999", "998"), j.sort("big0", new SortingParams().desc().limit(0, 2)));
            assertEquals(1, j.smove("u", "small", "999"));
            assertFalse(j.sismember("u", "999"));
            assertEquals(1, j.smove("small", "u", "x"));
            assertEquals(0, j.smove("u", "small", "nosuch"));
            assertEquals(1001, j.scard("u"));
            assertEquals(1001.0, j.zunionstore("z", "u"), 0.0);
        }
    }

    @Test
    void renameCopyMoveDumpExpireAndFlushKeepOrFreeTheBuckets() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Set<String> all = IntStream.range(0, 1000).mapToObj(i -> "m" + i).collect(Collectors.toSet());
            j.sadd("a", all.toArray(String[]::new));
            assertEquals("OK", j.rename("a", "b"));
            assertEquals(all, j.smembers("b"));
            assertTrue(j.copy("b", "c", false));
            j.srem("c", "m0");
            assertTrue(j.sismember("b", "m0"), "a copy is its own");
            byte[] dump = j.dump("b");
            assertEquals("OK", j.restore("d", 0, dump));
            assertEquals(all, j.smembers("d"));
            assertEquals("hashtable", j.objectEncoding("d"));
            assertArrayEquals(dump, j.dump("b"));
            j.del("d");
            assertEquals(1, j.move("c", 1));
            j.select(1);
            assertEquals(999, j.scard("c"));
            j.select(0);
            ListElements e = s.context().dbs.opened(0).elements(false);
            long bBuckets = buckets(s, 0, "b") + 1;
            eventually(() -> e.size() == bBuckets, "the moved and deleted sets' buckets to go from db 0: " + e.size());

            j.pexpire("b", 50);
            eventually(() -> e.size() == 0, "the expired set's buckets to be freed: " + e.size());
            j.select(1);
            j.flushDB();
            ListElements e1 = s.context().dbs.opened(1).elements(false);
            eventually(() -> e1.size() == 0, "FLUSHDB to free the buckets: " + e1.size());
        }
    }

    @Test
    void watchLuaMultiAndARestartSeeBucketedSets() throws Exception {
        Set<String> all = IntStream.range(0, 800).mapToObj(i -> "m" + i).collect(Collectors.toSet());
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis other = new Jedis("127.0.0.1", s.port())) {
            j.sadd("big", all.toArray(String[]::new));
            j.watch("big");
            other.sadd("big", "w");
            Transaction t = j.multi();
            t.scard("big");
            assertNull(t.exec(), "EXEC aborted by a write to the watched set");
            other.srem("big", "w");
            assertEquals(1L, j.eval("return redis.call('SISMEMBER', KEYS[1], ARGV[1])", List.of("big"), List.of("m5")));
            assertEquals(1602L, j.eval("redis.call('SADD', KEYS[1], 'lua'); return #redis.call('SMEMBERS', KEYS[1]) + redis.call('SCARD', KEYS[1])",
                    List.of("big"), List.of()));
            Transaction m = j.multi();
            m.sadd("big", "multi");
            m.smembers("big");
            m.srem("big", "multi", "lua");
            List<Object> done = m.exec();
            assertEquals(802, ((Set<?>) done.get(1)).size());
            assertEquals(2L, done.get(2));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(all, j.smembers("big"), "the set after a restart");
            assertEquals("hashtable", j.objectEncoding("big"));
            assertEquals(800, j.scard("big"));
        }
    }

    @Test
    void anEvictedSetHasItsBucketsFreed() throws Exception {
        BigHashesTest.evictionFreesTheBuckets(dir, j -> j.sadd("big", IntStream.range(0, 2000).mapToObj(i -> "m" + i).toArray(String[]::new)));
    }
}
