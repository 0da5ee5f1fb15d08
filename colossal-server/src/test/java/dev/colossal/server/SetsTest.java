package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Sets through real clients: Jedis's set calls, Lettuce over RESP3, the RESP3 bytes of every set
 * reply against redis-server's, SRANDMEMBER's and SPOP's count rules, SSCAN of a large set while
 * it changes, persistence across a restart, a TTL, and SADD/SREM/SPOP from several threads under
 * the key's lock. Replies byte for byte are {@code redis-compat.txt}'s and {@link SetsDifferentialTest}'s.
 */
class SetsTest {

    @TempDir
    Path dir;

    @Test
    void jedisSetCallsReadBackWhatTheyWrote() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(3, j.sadd("tags", "red", "green", "blue"));
            assertEquals(1, j.sadd("tags", "red", "pink"));
            assertEquals(Set.of("red", "green", "blue", "pink"), j.smembers("tags"));
            assertTrue(j.sismember("tags", "red"));
            assertFalse(j.sismember("tags", "black"));
            assertEquals(List.of(true, false, true), j.smismember("tags", "green", "black", "pink"));
            assertEquals(4, j.scard("tags"));
            assertEquals(2, j.srem("tags", "pink", "black", "blue"));
            assertEquals("set", j.type("tags"));
            assertEquals("hashtable", j.objectEncoding("tags"));
            j.sadd("other", "green", "white");
            assertEquals(Set.of("green"), j.sinter("tags", "other"));
            assertEquals(Set.of("red", "green", "white"), j.sunion("tags", "other"));
            assertEquals(Set.of("red"), j.sdiff("tags", "other"));
            assertEquals(1, j.sintercard("tags", "other"));
            assertEquals(3, j.sunionstore("both", "tags", "other"));
            assertEquals(1, j.smove("other", "tags", "white"));
            assertEquals(Set.of("red", "green", "white"), j.smembers("tags"));
            assertEquals(1, j.sadd("ids", "3"));
            assertEquals("intset", j.objectEncoding("ids"));
            long small = j.memoryUsage("tags");
            j.sadd("tags", "x".repeat(1000));
            assertTrue(j.memoryUsage("tags") >= small + 1000, "MEMORY USAGE counts the set's bytes");
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.get("tags"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            j.set("str", "v");
            assertThrows(JedisDataException.class, () -> j.sadd("str", "a"));
            assertEquals(1, j.srem("other", "green"));
            assertFalse(j.exists("other"), "the last member's removal deletes the key");
        }
    }

    @Test
    void srandmemberAndSpopFollowRedisCountRules() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 20; i++) {
                j.sadd("s", "m" + i);
            }
            Set<String> all = j.smembers("s");
            assertEquals(20, j.srandmember("s", 100).size(), "a count past the size gives the whole set");
            assertEquals(all, new HashSet<>(j.srandmember("s", 100)));
            List<String> repeated = j.srandmember("s", -200);
            assertEquals(200, repeated.size(), "a negative count repeats members");
            assertTrue(all.containsAll(repeated));
            Set<String> seen = new HashSet<>();
            for (int round = 0; round < 50; round++) {
                List<String> five = j.srandmember("s", 5);
                assertEquals(5, new HashSet<>(five).size(), "a positive count: distinct members");
                seen.addAll(five);
            }
            assertEquals(all, seen, "every member gets picked over 50 rounds");
            assertEquals(20, j.scard("s"), "SRANDMEMBER changes nothing");
            Set<String> popped = j.spop("s", 7);
            assertEquals(7, popped.size());
            assertEquals(13, j.scard("s"));
            for (String m : popped) {
                assertFalse(j.sismember("s", m));
            }
            assertEquals(13, j.spop("s", 100).size());
            assertFalse(j.exists("s"));
            assertNull(j.spop("s"));
            assertNull(j.srandmember("s"));
            j.sadd("x", "1");
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.srandmember("x", -(1 << 25)));
            assertTrue(e.getMessage().contains("several calls"), e.getMessage());
        }
    }

    @Test
    void lettuceOverResp3ReadsSetsAsSets() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", s.port()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> l = c.sync();
                assertEquals(3L, l.sadd("s", "a", "b", "c"));
                assertEquals(Set.of("a", "b", "c"), l.smembers("s"));
                assertEquals(Set.of("a", "b", "c"), l.sinter("s", "s"));
                assertEquals(Set.of("a", "b", "c"), l.sunion("s", "nosuch"));
                assertEquals(List.of(true, false), l.smismember("s", "a", "z"));
                assertEquals(2, l.spop("s", 2).size());
                assertEquals(1L, l.scard("s"));
            } finally {
                client.shutdown();
            }
        }
    }

    /** Every set reply in RESP3, byte for byte against redis-server (HELLO's own reply holds the client id, so it is not compared). */
    @Test
    void resp3RepliesMatchRedisByteForByte() throws Exception {
        String[][] commands = {
            {"SADD", "s", "3", "1", "2"}, {"SMEMBERS", "s"}, {"SMEMBERS", "nosuch"}, {"SINTER", "s", "s"},
            {"SINTER", "s", "nosuch"}, {"SUNION", "s", "nosuch"}, {"SDIFF", "s", "nosuch"}, {"SDIFF", "nosuch", "s"},
            {"SRANDMEMBER", "s", "10"}, {"SRANDMEMBER", "nosuch", "10"}, {"SRANDMEMBER", "nosuch"},
            {"SMISMEMBER", "s", "1", "9"}, {"SSCAN", "s", "0"}, {"SPOP", "nosuch"}, {"SPOP", "nosuch", "1"},
            {"SPOP", "s", "0"}, {"SINTERCARD", "1", "s"}, {"SISMEMBER", "s", "1"}, {"SPOP", "s", "10"},
            {"SADD", "one", "x"}, {"SPOP", "one"}, {"SPOP", "one"}
        };
        List<String> want = new ArrayList<>();
        TestServers.onRedis(port -> want.addAll(replies(port, commands)));
        if (want.isEmpty()) {
            return;
        }
        try (ColossalServer s = TestServers.colossal(dir)) {
            List<String> got = replies(s.port(), commands);
            for (int i = 0; i < commands.length; i++) {
                assertEquals(want.get(i).replace("\r\n", "\\r\\n"), got.get(i).replace("\r\n", "\\r\\n"),
                        String.join(" ", commands[i]));
            }
        }
    }

    private static List<String> replies(int port, String[][] commands) throws Exception {
        List<String> out = new ArrayList<>();
        try (Wire w = new Wire(port)) {
            w.call("HELLO", "3");
            for (String[] c : commands) {
                out.add(w.call(c));
            }
        }
        return out;
    }

    @Test
    void sscanOfALargeSetReturnsEveryMemberPresentThroughoutExactlyOnce() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            // One value, not bucketed (BigSetsTest scans those): its scan's order is each member's hash
            j.configSet("set-max-intset-entries", "5000");
            Set<String> all = new HashSet<>();
            for (int i = 0; i < 2000; i++) {
                all.add("m" + i);
            }
            j.sadd("big", all.toArray(String[]::new));
            assertEquals("hashtable", j.objectEncoding("big"));
            List<String> got = new ArrayList<>();
            String cursor = "0";
            int steps = 0;
            do {
                ScanResult<String> page = j.sscan("big", cursor, new ScanParams().count(50));
                got.addAll(page.getResult());
                // Meanwhile members come and go: the ones there all along must still come once each
                j.sadd("big", "new" + steps);
                j.srem("big", "new" + (steps - 1));
                cursor = page.getCursor();
                steps++;
            } while (!cursor.equals("0"));
            assertTrue(steps > 30, "a large set is scanned in steps: " + steps);
            List<String> original = got.stream().filter(m -> m.startsWith("m")).toList();
            assertEquals(all.size(), original.size(), "no member twice");
            assertEquals(all, new HashSet<>(original));
            j.sadd("ints", "5", "1");
            ScanResult<String> whole = j.sscan("ints", "0", new ScanParams().count(1));
            assertEquals("0", whole.getCursor(), "an intset comes whole in one call");
            assertEquals(List.of("1", "5"), whole.getResult());
        }
    }

    @Test
    void aSetSurvivesARestartWithItsTtlAndEncoding() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 600; i++) {
                j.sadd("session:1:attrs", "attr" + i);
            }
            j.expire("session:1:attrs", 1000);
            j.sadd("ints", "10", "-2", "7");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Wire w = new Wire(s.port())) {
            assertEquals(600, j.scard("session:1:attrs"));
            assertTrue(j.sismember("session:1:attrs", "attr599"));
            long ttl = j.ttl("session:1:attrs");
            assertTrue(ttl > 990 && ttl <= 1000, "ttl " + ttl);
            assertEquals("hashtable", j.objectEncoding("session:1:attrs"));
            assertEquals("*3\r\n$2\r\n-2\r\n$1\r\n7\r\n$2\r\n10\r\n", w.call("SMEMBERS", "ints"), "an intset's order");
            assertEquals("intset", j.objectEncoding("ints"));
        }
    }

    @Test
    void aTtlOnASetExpiresItAndWritesKeepIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.sadd("s", "a", "b", "c", "d");
            assertEquals(1, j.pexpire("s", 300));
            j.sadd("s", "e");
            j.srem("s", "a");
            assertEquals(1, j.smove("s", "elsewhere", "e"));
            j.spop("s");
            j.spop("s", 1);
            long left = j.pttl("s");
            assertTrue(left > 0 && left <= 300, "set writes keep the TTL: " + left);
            assertEquals(-1, j.pttl("elsewhere"), "SMOVE's new destination has no TTL");
            j.set("dst", "v");
            j.expire("dst", 100);
            j.sunionstore("dst", "s");
            assertEquals(-1, j.ttl("dst"), "a STORE replaces its destination, deadline included");
            Thread.sleep(400);
            assertFalse(j.exists("s"));
            assertFalse(j.sismember("s", "b"));
            assertEquals(0, j.scard("s"));
        }
    }

    /** Four event loops, so that the connections' commands run at the same time even on two cores. */
    private ColossalServer fourLoops() throws Exception {
        ServerConfig d = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        return ColossalServer.start(new ServerConfig(d.bind(), d.port(), d.httpPort(), d.dataDir(), d.requirePass(),
                d.maxClients(), d.maxBulkBytes(), d.idleTimeoutSeconds(), 4, d.busyPollMicros()));
    }

    @Test
    void eightThreadsSpoppingATenThousandSetPopEachMemberExactlyOnce() throws Exception {
        int threads = 8;
        int members = 10_000;
        try (ColossalServer s = fourLoops()) {
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                String[] all = new String[members];
                for (int i = 0; i < members; i++) {
                    all[i] = "member:" + i;
                }
                j.sadd("pool", all);
            }
            Set<String> popped = ConcurrentHashMap.newKeySet();
            List<String> twice = new java.util.concurrent.CopyOnWriteArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    done.add(pool.submit(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            for (int i = 0; ; i++) {
                                // Single pops and counted ones, while others add and remove other members
                                List<String> got = new ArrayList<>();
                                if (i % 3 == 0) {
                                    got.addAll(j.spop("pool", 5));
                                } else {
                                    String m = j.spop("pool");
                                    if (m != null) {
                                        got.add(m);
                                    }
                                }
                                if (got.isEmpty()) {
                                    return null;
                                }
                                for (String m : got) {
                                    if (!popped.add(m)) {
                                        twice.add(m);
                                    }
                                }
                                if (i % 50 == 0) {
                                    j.sadd("pool", "extra:" + id + ":" + i);
                                    j.srem("pool", "extra:" + id + ":" + i);
                                }
                            }
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            assertEquals(0, twice.size(), "members popped twice, e.g. " + twice.subList(0, Math.min(5, twice.size())));
            Set<String> original = new HashSet<>(popped);
            original.removeIf(m -> m.startsWith("extra:"));
            assertEquals(members, original.size(), "every member popped");
        }
    }

    @Test
    void saddAndSremFromManyThreadsCountExactly() throws Exception {
        int threads = 8;
        int each = 300;
        try (ColossalServer s = fourLoops()) {
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                String[] filler = new String[3000];
                for (int i = 0; i < filler.length; i++) {
                    filler[i] = "filler" + i;
                }
                j.sadd("s", filler); // a large set makes each read-modify-write long: without the lock, adds get lost
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Long>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    done.add(pool.submit(() -> {
                        long answered = 0;
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            for (int i = 0; i < each; i++) {
                                answered += j.sadd("s", "t" + id + ":" + i, "shared" + i);
                                if (i % 2 == 0) {
                                    answered -= j.srem("s", "t" + id + ":" + i);
                                }
                            }
                        }
                        return answered;
                    }));
                }
                long total = 0;
                for (Future<Long> f : done) {
                    total += f.get();
                }
                try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                    long expected = 3000 + threads * each / 2 + each;
                    assertEquals(expected, j.scard("s"));
                    assertEquals(expected - 3000, total, "the replies add up to what the set holds");
                }
            } finally {
                pool.shutdown();
            }
        }
    }

    @Test
    void setsMoveBetweenRedisAndColossalBothWaysByDumpAndRestore() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                java.util.Map<String, List<String>> sets = new java.util.LinkedHashMap<>();
                sets.put("int16", List.of("1", "-5", "32767", "-32768"));
                sets.put("int32", List.of("1", "70000", "-2147483648"));
                sets.put("int64", List.of("1", "9223372036854775807", "-9223372036854775808"));
                List<String> wide = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    wide.add(Integer.toString(i * 3)); // an intset Redis LZF-compresses
                }
                sets.put("wide", wide);
                sets.put("text", List.of("a", "", "caf\u00e9", "x".repeat(100), "12", "-0", "007"));
                List<String> many = new ArrayList<>();
                for (int i = 0; i < 600; i++) {
                    many.add(Integer.toString(i)); // integers past the intset's 512: a hashtable, type 2
                }
                sets.put("many", many);
                for (java.util.Map.Entry<String, List<String>> e : sets.entrySet()) {
                    String key = e.getKey();
                    redis.sadd(key, e.getValue().toArray(String[]::new));
                    byte[] payload = redis.dump(key);
                    boolean intset = redis.objectEncoding(key).equals("intset");
                    assertEquals(intset ? 11 : 2, payload[0], "Redis's RDB type for " + key);
                    assertEquals("OK", colossal.restore(key, 0, payload));
                    assertEquals(redis.smembers(key), colossal.smembers(key), "Redis to Colossal: " + key);
                    assertEquals(redis.objectEncoding(key), colossal.objectEncoding(key), key);
                    String back = key + ":back";
                    assertEquals("OK", redis.restore(back, 0, colossal.dump(key)));
                    assertEquals(redis.smembers(key), redis.smembers(back), "Colossal to Redis: " + key);
                    assertEquals(redis.objectEncoding(key), redis.objectEncoding(back));
                    if (intset && (payload[1] & 0xC0) != 0xC0) { // the intset's string is not LZF's (encoding 0xC3)
                        assertArrayEquals(payload, colossal.dump(key), "an intset Redis does not compress: " + key);
                    }
                }
            }
        });
    }

    /** Redis 7.2 dumps a small set as a listpack (RDB type 20): RESTORE takes it. */
    @Test
    void restoreTakesRedis72sListpackSets() throws Exception {
        // A listpack of "a" and 7: total bytes, entry count, then each entry and its back-length, then the end byte
        byte[] listpack = {13, 0, 0, 0, 2, 0, (byte) 0x81, 'a', 2, 7, 1, (byte) 0xFF};
        listpack[0] = (byte) listpack.length;
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.write(20);
        b.write(listpack.length);
        b.writeBytes(listpack);
        b.writeBytes(new byte[] {11, 0}); // RDB version 11, Redis 7.2's
        long crc = dev.colossal.rdb.Crc64.update(0, java.lang.foreign.MemorySegment.ofArray(b.toByteArray()), 0, b.size());
        for (int i = 0; i < Long.BYTES; i++) {
            b.write((int) (crc >>> (8 * i)));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals("OK", j.restore("lp", 0, b.toByteArray()));
            assertEquals(Set.of("a", "7"), j.smembers("lp"));
            assertEquals("hashtable", j.objectEncoding("lp"));
        }
    }

    /** Spring Session's indexed repository keeps a principal's session ids in a set: SADD, SMEMBERS, SREM. */
    @Test
    void springSessionsIndexOfSessionsByPrincipalWorks() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            String index = "spring:session:index:org.springframework.session.FindByIndexNameSessionRepository"
                    + ".PRINCIPAL_NAME_INDEX_NAME:alice";
            for (String id : List.of("8c3a-1", "8c3a-2", "8c3a-3")) {
                j.hset("spring:session:sessions:" + id, "lastAccessedTime", "1700000000000");
                j.sadd(index, id);
            }
            assertEquals(Set.of("8c3a-1", "8c3a-2", "8c3a-3"), j.smembers(index));
            assertEquals(1, j.srem(index, "8c3a-2"));
            assertEquals(Set.of("8c3a-1", "8c3a-3"), j.smembers(index));
            j.srem(index, "8c3a-1", "8c3a-3");
            assertEquals(Set.of(), j.smembers(index));
            assertFalse(j.exists(index));
        }
    }
}
