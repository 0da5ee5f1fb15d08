package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * Sorted sets through real clients: Jedis's calls, Lettuce's RESP3 doubles, persistence across a
 * restart, a TTL, ZINCRBY from several threads, a Sidekiq-like schedule drained by several
 * consumers, and ZSCAN of a large set while it changes. Replies byte for byte are
 * {@code redis-compat.txt}'s and {@link RedisDifferentialTest}'s.
 */
class SortedSetsTest {

    @TempDir
    Path dir;

    /**
     * BZPOPMIN waits for a ZADD from another connection (and a ZUNIONSTORE, a ZINCRBY), first blocked
     * first served; a RESP3 client gets the score as a double; the wait ends at its timeout with a null.
     */
    @Test
    void bzpopminWaitsForAWriteFromAnotherConnection() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis writer = new Jedis("127.0.0.1", s.port())) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<List<Object>> first = pool.submit(() -> {
                    try (Wire w = new Wire(s.port())) {
                        w.send(Wire.encode("BZPOPMIN", "jobs", "other", "10"));
                        return List.of(w.reply());
                    }
                });
                Future<List<Object>> second = pool.submit(() -> {
                    try (Wire w = new Wire(s.port())) {
                        w.call("HELLO", "3");
                        Thread.sleep(300); // blocked after the first
                        w.send(Wire.encode("BZPOPMAX", "jobs", "10"));
                        return List.of(w.reply());
                    }
                });
                TestServers.await(2L, 5000, () -> Long.valueOf(writer.info("clients").lines()
                        .filter(l -> l.startsWith("blocked_clients:")).findFirst().orElseThrow().substring(16).trim()));
                writer.zadd("jobs", 7, "due");
                assertEquals(List.of("*3\r\n$4\r\njobs\r\n$3\r\ndue\r\n$1\r\n7\r\n"), first.get());
                writer.zincrby("other", 1.5, "x"); // not the second waiter's key
                writer.zadd("src", 2.5, "late");
                writer.zunionstore("jobs", "src");
                assertEquals(List.of("*3\r\n$4\r\njobs\r\n$4\r\nlate\r\n,2.5\r\n"), second.get());
                assertEquals(0, writer.exists("jobs") ? 1 : 0, "the last member taken, the key is gone");
            } finally {
                pool.shutdownNow();
            }
            long start = System.nanoTime();
            try (Wire w = new Wire(s.port())) {
                assertEquals("*-1\r\n", w.call("BZPOPMIN", "nothing", "0.2"));
            }
            assertTrue(System.nanoTime() - start >= 150_000_000L, "waited out its timeout");
        }
    }

    /**
     * BZMPOP waits as BZPOPMIN does and takes up to COUNT members of the first key a write fills; a
     * RESP3 client gets pairs with double scores; a SET of another type to its key does not wake it.
     */
    @Test
    void bzmpopWaitsAndTakesUpToItsCount() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis writer = new Jedis("127.0.0.1", s.port())) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<String> resp2 = pool.submit(() -> {
                    try (Wire w = new Wire(s.port())) {
                        w.send(Wire.encode("BZMPOP", "10", "2", "a", "b", "MIN", "COUNT", "2"));
                        return w.reply();
                    }
                });
                Future<String> resp3 = pool.submit(() -> {
                    try (Wire w = new Wire(s.port())) {
                        w.call("HELLO", "3");
                        Thread.sleep(300); // blocked after the first
                        w.send(Wire.encode("BZMPOP", "10", "1", "b", "MAX", "COUNT", "5"));
                        return w.reply();
                    }
                });
                TestServers.await(2L, 5000, () -> Long.valueOf(writer.info("clients").lines()
                        .filter(l -> l.startsWith("blocked_clients:")).findFirst().orElseThrow().substring(16).trim()));
                writer.set("a", "a string serves no one");
                writer.del("a");
                writer.zadd("b", Map.of("one", 1.0, "two", 2.0, "three", 3.0));
                assertEquals("*2\r\n$1\r\nb\r\n*2\r\n*2\r\n$3\r\none\r\n$1\r\n1\r\n*2\r\n$3\r\ntwo\r\n$1\r\n2\r\n",
                        resp2.get());
                assertEquals("*2\r\n$1\r\nb\r\n*1\r\n*2\r\n$5\r\nthree\r\n,3\r\n", resp3.get());
                assertEquals(0, writer.exists("b") ? 1 : 0, "every member taken, the key is gone");
            } finally {
                pool.shutdownNow();
            }
            try (Wire w = new Wire(s.port())) {
                assertEquals("*-1\r\n", w.call("BZMPOP", "0.1", "1", "nothing", "MIN"));
            }
        }
    }

    @Test
    void jedisSortedSetCallsReadBackWhatTheyWrote() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(3, j.zadd("board", Map.of("ann", 10.0, "bob", 20.5, "cy", -3.0)));
            assertEquals(0, j.zadd("board", 11.0, "ann"));
            assertEquals(11.0, j.zscore("board", "ann"));
            assertNull(j.zscore("board", "nosuch"));
            assertEquals(List.of("cy", "ann", "bob"), j.zrange("board", 0, -1));
            assertEquals(List.of("bob", "ann"), j.zrevrange("board", 0, 1));
            assertEquals(List.of("ann"), j.zrangeByScore("board", "(0", "+inf", 0, 1));
            assertEquals(1L, j.zrank("board", "ann"));
            assertEquals(0L, j.zrevrank("board", "bob"));
            assertEquals(13.5, j.zincrby("board", 2.5, "ann"));
            assertEquals(0, j.zadd("board", 1.0, "ann", ZAddParams.zAddParams().gt()), "GT keeps the higher score");
            assertEquals(13.5, j.zscore("board", "ann"));
            List<Tuple> top = j.zrevrangeWithScores("board", 0, 0);
            assertEquals(new Tuple("bob", 20.5), top.get(0));
            assertEquals(2, j.zcount("board", "0", "100"));
            assertEquals(3, j.zunionstore("copy", "board"));
            assertEquals(j.zrangeWithScores("board", 0, -1), j.zrangeWithScores("copy", 0, -1));
            assertEquals("zset", j.type("board"));
            long small = j.memoryUsage("board");
            j.zadd("board", 1, "x".repeat(1000));
            assertTrue(j.memoryUsage("board") >= small + 1000, "MEMORY USAGE counts the set's bytes");
            j.zrem("board", "x".repeat(1000));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.get("board"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            j.set("str", "v");
            assertThrows(JedisDataException.class, () -> j.zadd("str", 1, "m"));
            assertEquals(2, j.zrem("board", "ann", "cy", "nosuch"));
            assertEquals(1, j.zcard("board"));
            assertEquals(1, j.zrem("board", "bob"));
            assertFalse(j.exists("board"), "ZREM of the last member deletes the key");
            assertEquals("OK", j.set("copy", "now a string"), "SET overwrites a sorted set");
        }
    }

    @Test
    void lettuceReadsScoresAsResp3Doubles() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", s.port()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> l = c.sync();
                l.zadd("z", 0.1, "a", 2.0, "b", Double.POSITIVE_INFINITY, "c");
                assertEquals(0.1, l.zscore("z", "a"));
                assertEquals(Double.POSITIVE_INFINITY, l.zscore("z", "c"));
                assertEquals(List.of(ScoredValue.just(0.1, "a"), ScoredValue.just(2.0, "b"),
                        ScoredValue.just(Double.POSITIVE_INFINITY, "c")), l.zrangeWithScores("z", 0, -1));
                assertEquals(List.of("b"), l.zrangebyscore("z", Range.create(1, 3), Limit.create(0, 10)));
                assertEquals(2.5, l.zincrby("z", 0.5, "b"));
                assertEquals(ScoredValue.just(0.1, "a"), l.zpopmin("z"));
                assertEquals(List.of(ScoredValue.just(Double.POSITIVE_INFINITY, "c")), l.zpopmax("z", 1));
            } finally {
                client.shutdown();
            }
        }
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            w.call("HELLO", "3");
            assertEquals(",2.5\r\n", w.call("ZSCORE", "z", "b"));
            assertEquals("*1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n", w.call("ZRANGE", "z", "0", "-1", "WITHSCORES"));
            w.call("HELLO", "2");
            assertEquals("$3\r\n2.5\r\n", w.call("ZSCORE", "z", "b"));
        }
    }

    @Test
    void aSortedSetSurvivesARestartWithItsTtl() throws Exception {
        Map<String, Double> members = new HashMap<>();
        for (int i = 0; i < 500; i++) {
            members.put("player" + i, i * 0.5);
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.zadd("scores", members);
            j.expire("scores", 1000);
            j.zadd("small", Map.of("x", 1.0, "y", 2.0));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(500, j.zcard("scores"));
            assertEquals(249.5, j.zscore("scores", "player499"));
            assertEquals(List.of("player499", "player498"), j.zrevrange("scores", 0, 1));
            long ttl = j.ttl("scores");
            assertTrue(ttl > 990 && ttl <= 1000, "ttl " + ttl);
            assertEquals("skiplist", j.objectEncoding("scores"));
            assertEquals("listpack", j.objectEncoding("small"));
            assertEquals(List.of("x", "y"), j.zrange("small", 0, -1));
        }
    }

    @Test
    void aTtlOnASortedSetExpiresItAndWritesKeepIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.zadd("z", 1, "a");
            assertEquals(1, j.pexpire("z", 300));
            j.zadd("z", 2, "b");
            j.zincrby("z", 1, "a");
            j.zrem("z", "b");
            j.zpopmax("z", 0);
            long left = j.pttl("z");
            assertTrue(left > 0 && left <= 300, "sorted set writes keep the TTL: " + left);
            j.zunionstore("dst", "z");
            assertEquals(-1, j.pttl("dst"), "a STORE destination has no TTL");
            Thread.sleep(400);
            assertFalse(j.exists("z"));
            assertNull(j.zscore("z", "a"));
            assertEquals(0, j.zcard("z"));
        }
    }

    @Test
    void zincrbyFromManyThreadsCountsExactly() throws Exception {
        int threads = 8;
        int each = 300;
        try (ColossalServer s = ColossalServer.start(fourEventLoops())) {
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                // A large set makes each read-modify-write long: without the key's lock, increments get lost
                Map<String, Double> filler = new HashMap<>();
                for (int i = 0; i < 3000; i++) {
                    filler.put("filler" + i, (double) i);
                }
                j.zadd("ranks", filler);
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    done.add(pool.submit(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            for (int i = 0; i < each; i++) {
                                j.zincrby("ranks", 1, "hits");
                                if (i % 100 == 0) {
                                    j.zadd("ranks", i, "t" + id); // other members move meanwhile
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals(threads * each, j.zscore("ranks", "hits"));
                assertEquals(3000 + threads + 1, j.zcard("ranks"));
            }
        }
    }

    /**
     * Sidekiq's scheduled set: jobs added with their due time as score, consumers polling for the
     * due ones ({@code ZRANGEBYSCORE -inf now LIMIT 0 n}) and claiming each with ZREM, which only
     * one of them wins. Every due job is taken exactly once; none that is not due yet.
     */
    @Test
    void aScheduledSetHandsEachDueJobToExactlyOneConsumer() throws Exception {
        int jobs = 600;
        int consumers = 4;
        long now = System.currentTimeMillis();
        try (ColossalServer s = ColossalServer.start(fourEventLoops())) {
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                for (int i = 0; i < jobs; i++) {
                    j.zadd("schedule", now - 10_000 + i, "job" + i); // due
                    j.zadd("schedule", now + 3_600_000 + i, "later" + i); // due in an hour
                }
            }
            Map<String, Integer> takenBy = new ConcurrentHashMap<>();
            AtomicInteger twice = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(consumers);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < consumers; t++) {
                    int id = t;
                    done.add(pool.submit(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            while (true) {
                                List<String> due = j.zrangeByScore("schedule", "-inf", Long.toString(now), 0, 10);
                                if (due.isEmpty()) {
                                    return null;
                                }
                                for (String job : due) {
                                    if (j.zrem("schedule", job) == 1 && takenBy.put(job, id) != null) {
                                        twice.incrementAndGet();
                                    }
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
            assertEquals(0, twice.get(), "a job claimed twice");
            assertEquals(jobs, takenBy.size());
            assertTrue(takenBy.keySet().stream().allMatch(k -> k.startsWith("job")), "only due jobs are taken");
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals(jobs, j.zcard("schedule"), "the later jobs wait");
                assertEquals(List.of("later0"), j.zrange("schedule", 0, 0));
            }
        }
    }

    /**
     * DUMP and RESTORE with redis-server both ways: a small set (RDB type 17, a listpack: integer
     * members and scores of every kind) and large ones (type 5), byte for byte as Redis writes them
     * when it does not compress; and the encodings Redis gives what it loads.
     */
    @Test
    void sortedSetsMoveBetweenRedisAndColossalBothWaysByDumpAndRestore() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                redis.configSet("rdbcompression", "no"); // so that its payloads are comparable byte for byte
                Map<String, Map<String, Double>> sets = new java.util.LinkedHashMap<>();
                Map<String, Double> small = new HashMap<>();
                double[] scores = {0, 0.1, -1.5, 1e20, 1.5e-7, 4611686018427387904.0, 9007199254740993.0, -4096, 127, 128,
                    32767, -8388608, 2147483648.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 3};
                String[] members = {"0", "127", "-1", "4095", "-4096", "32767", "8388607", "2147483647", "-9223372036854775808",
                    "007", "", "caf\u00e9", "x".repeat(63), "y".repeat(64), "plain", "12"};
                for (int i = 0; i < scores.length; i++) {
                    small.put(members[i], scores[i]);
                }
                sets.put("small", small);
                Map<String, Double> big = new HashMap<>();
                for (int i = 0; i < 300; i++) {
                    big.put(i % 3 == 0 ? Integer.toString(i * 1000) : "member" + i, i * 0.25 - 20);
                }
                sets.put("big", big);
                sets.put("longmember", Map.of("z".repeat(65), 1.0, "a", 2.0));
                for (Map.Entry<String, Map<String, Double>> z : sets.entrySet()) {
                    String key = z.getKey();
                    redis.zadd(key, z.getValue());
                    byte[] payload = redis.dump(key);
                    assertEquals(key.equals("small") ? 17 : 5, payload[0], "Redis's RDB type for " + key);
                    assertEquals("OK", colossal.restore(key, 0, payload));
                    assertEquals(redis.zrangeWithScores(key, 0, -1), colossal.zrangeWithScores(key, 0, -1), "Redis to Colossal: " + key);
                    assertEquals(redis.objectEncoding(key), colossal.objectEncoding(key), key);
                    assertEquals(java.util.HexFormat.of().formatHex(payload), java.util.HexFormat.of().formatHex(colossal.dump(key)),
                            "DUMP of " + key + " byte for byte");
                    String back = key + ":back";
                    assertEquals("OK", redis.restore(back, 0, colossal.dump(key)));
                    assertEquals(redis.zrangeWithScores(key, 0, -1), redis.zrangeWithScores(back, 0, -1), "Colossal to Redis: " + key);
                    assertEquals(redis.objectEncoding(key), redis.objectEncoding(back));
                }
                redis.zadd("ttl", 1, "m");
                colossal.restore("ttl", 100_000, redis.dump("ttl"));
                long left = colossal.pttl("ttl");
                assertTrue(left > 90_000 && left <= 100_000, "pttl " + left);
            }
        });
    }

    @Test
    void theHttpApiRefusesToServeASortedSetAsBytes() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.zadd("z", 1, "m");
            java.net.http.HttpResponse<String> got = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/z")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(409, got.statusCode());
            assertTrue(got.body().contains("WRONGTYPE"), got.body());
        }
    }

    /** Four event loops, so that the connections' commands run at the same time even on two cores. */
    private ServerConfig fourEventLoops() {
        ServerConfig d = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        return new ServerConfig(d.bind(), d.port(), d.httpPort(), d.dataDir(), d.requirePass(), d.maxClients(),
                d.maxBulkBytes(), d.idleTimeoutSeconds(), 4, d.busyPollMicros());
    }

    @Test
    void zscanOfALargeSetReturnsEveryMemberPresentThroughoutExactlyOnce() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, Double> all = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                all.put("m" + i, i / 4.0);
            }
            j.zadd("big", all);
            assertEquals("skiplist", j.objectEncoding("big"));
            List<String> got = new ArrayList<>();
            String cursor = "0";
            int steps = 0;
            do {
                ScanResult<Tuple> page = j.zscan("big", cursor, new ScanParams().count(50));
                for (Tuple t : page.getResult()) {
                    got.add(t.getElement());
                    if (t.getElement().startsWith("m")) {
                        assertEquals(all.get(t.getElement()), t.getScore());
                    }
                }
                // Meanwhile members come and go: the ones there all along must still come once each
                j.zadd("big", steps, "new" + steps);
                j.zrem("big", "new" + (steps - 1));
                cursor = page.getCursor();
                steps++;
            } while (!cursor.equals("0"));
            assertTrue(steps > 30, "a large set is scanned in steps: " + steps);
            List<String> original = got.stream().filter(m -> m.startsWith("m")).toList();
            assertEquals(all.size(), original.size(), "no member twice");
            assertEquals(all.keySet(), new HashSet<>(original));
            Set<String> distinct = new HashSet<>(j.zrandmember("big", 100));
            assertEquals(100, distinct.size(), "a positive count gives distinct members");
        }
    }
}
