package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Hashes through real clients: Jedis's hash calls, Lettuce's RESP3 maps, HRANDFIELD's count rules,
 * HSCAN of a large hash while it changes, persistence across a restart, DUMP and RESTORE with
 * redis-server both ways, a TTL, and HINCRBY from several threads. Replies byte for byte are
 * {@code redis-compat.txt}'s and {@link RedisDifferentialTest}'s.
 */
class HashesTest {

    @TempDir
    Path dir;

    @Test
    void jedisHashCallsReadBackWhatTheyWrote() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("name", "ann");
            fields.put("age", "42");
            fields.put("empty", "");
            assertEquals(3, j.hset("user:1", fields));
            assertEquals(0, j.hset("user:1", "age", "43"));
            assertEquals("43", j.hget("user:1", "age"));
            assertEquals(Map.of("name", "ann", "age", "43", "empty", ""), j.hgetAll("user:1"));
            assertEquals(List.of("name", "age", "empty"), new ArrayList<>(j.hkeys("user:1")), "insertion order");
            assertEquals(List.of("ann", "43", ""), j.hvals("user:1"));
            assertEquals(Arrays.asList("ann", null), j.hmget("user:1", "name", "nosuch"));
            assertTrue(j.hexists("user:1", "name"));
            assertEquals(3, j.hlen("user:1"));
            assertEquals(3, j.hstrlen("user:1", "name"));
            assertEquals(0, j.hsetnx("user:1", "name", "bob"));
            assertEquals(1, j.hsetnx("user:1", "city", "Oslo"));
            assertEquals(50, j.hincrBy("user:1", "age", 7));
            assertEquals(1.5, j.hincrByFloat("user:1", "score", 1.5));
            assertEquals("hash", j.type("user:1"));
            long small = j.memoryUsage("user:1");
            j.hset("user:1", "bio", "x".repeat(1000));
            assertTrue(j.memoryUsage("user:1") >= small + 1000, "MEMORY USAGE counts the hash's bytes");
            j.hdel("user:1", "bio");
            assertEquals(2, j.hdel("user:1", "city", "score", "nosuch"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.get("user:1"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            j.set("str", "v");
            assertThrows(JedisDataException.class, () -> j.hget("str", "f"));
            assertEquals("OK", j.set("user:1", "now a string"), "SET overwrites a hash");
            assertEquals("now a string", j.get("user:1"));
            j.hset("gone", "f", "v");
            assertEquals(1, j.hdel("gone", "f"));
            assertFalse(j.exists("gone"), "HDEL of the last field deletes the key");
        }
    }

    @Test
    void hrandfieldCountsFollowRedisRules() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, String> all = new HashMap<>();
            for (int i = 0; i < 20; i++) {
                all.put("f" + i, "v" + i);
            }
            j.hset("h", all);
            Set<String> picked = new HashSet<>();
            for (int round = 0; round < 50; round++) {
                List<String> some = j.hrandfield("h", 5);
                assertEquals(5, some.size());
                assertEquals(5, new HashSet<>(some).size(), "a positive count gives distinct fields: " + some);
                assertTrue(all.keySet().containsAll(some));
                picked.addAll(some);
            }
            assertEquals(all.keySet(), picked, "positive counts pick at random too, not the first fields");
            assertEquals(all.keySet(), new HashSet<>(j.hrandfield("h", 100)), "a count past the size gives every field once");
            assertEquals(20, j.hrandfield("h", 100).size());
            Set<String> seen = new HashSet<>();
            boolean repeated = false;
            for (int round = 0; round < 20; round++) {
                List<String> many = j.hrandfield("h", -30);
                assertEquals(30, many.size(), "a negative count gives exactly that many");
                assertTrue(all.keySet().containsAll(many));
                repeated |= new HashSet<>(many).size() < many.size();
                seen.addAll(many);
            }
            assertTrue(repeated, "a negative count may repeat fields (30 of 20 must)");
            assertEquals(all.keySet(), seen, "every field gets picked some time");
            List<Map.Entry<String, String>> pairs = j.hrandfieldWithValues("h", -7);
            assertEquals(7, pairs.size());
            for (Map.Entry<String, String> p : pairs) {
                assertEquals(all.get(p.getKey()), p.getValue(), "WITHVALUES pairs each field with its value");
            }
            assertTrue(all.containsKey(j.hrandfield("h")));
            assertNull(j.hrandfield("nosuch"));
        }
    }

    @Test
    void lettuceReadsHgetallAsAResp3Map() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", s.port()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> l = c.sync();
                l.hset("h", "a", "1");
                l.hset("h", "b", "2"); // in this order: the raw RESP3 reply below has it
                assertEquals(Map.of("a", "1", "b", "2"), l.hgetall("h"));
                assertEquals(Map.of(), l.hgetall("nosuch"));
                List<KeyValue<String, String>> pairs = l.hrandfieldWithvalues("h", 2);
                assertEquals(2, pairs.size());
                for (KeyValue<String, String> p : pairs) {
                    assertEquals(p.getKey().equals("a") ? "1" : "2", p.getValue());
                }
                assertEquals(3L, l.hincrby("h", "a", 2));
            } finally {
                client.shutdown();
            }
        }
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            w.call("HELLO", "3");
            assertEquals("%2\r\n$1\r\na\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n", w.call("HGETALL", "h"));
            String pair = w.call("HRANDFIELD", "h", "-1", "WITHVALUES");
            assertTrue(Set.of("*1\r\n*2\r\n$1\r\na\r\n$1\r\n3\r\n", "*1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n").contains(pair),
                    "RESP3 WITHVALUES: an array of [field, value] pairs, " + pair);
        }
    }

    @Test
    void hscanOfALargeHashReturnsEveryFieldPresentThroughoutExactlyOnce() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Map<String, String> all = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                all.put("f" + i, "v" + i);
            }
            j.hset("big", all);
            assertEquals("hashtable", j.objectEncoding("big"));
            List<String> got = new ArrayList<>();
            String cursor = "0";
            int steps = 0;
            do {
                ScanResult<Map.Entry<String, String>> page = j.hscan("big", cursor, new ScanParams().count(50));
                for (Map.Entry<String, String> e : page.getResult()) {
                    got.add(e.getKey());
                    if (e.getKey().startsWith("f")) {
                        assertEquals(all.get(e.getKey()), e.getValue());
                    }
                }
                // Meanwhile fields come and go: the ones there all along must still come once each
                j.hset("big", "new" + steps, "x");
                j.hdel("big", "new" + (steps - 1));
                cursor = page.getCursor();
                steps++;
            } while (!cursor.equals("0"));
            assertTrue(steps > 30, "a large hash is scanned in steps: " + steps);
            List<String> original = got.stream().filter(f -> f.startsWith("f")).toList();
            assertEquals(all.size(), original.size(), "no field twice");
            assertEquals(all.keySet(), new HashSet<>(original));

            j.hset("small", "a", "1");
            ScanResult<Map.Entry<String, String>> whole = j.hscan("small", "0");
            assertEquals("0", whole.getCursor(), "a small hash comes whole in one call");
            assertEquals(1, whole.getResult().size());
        }
    }

    @Test
    void aHashSurvivesARestartWithItsTtl() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 600; i++) {
                j.hset("session:1", "attr" + i, "value " + i);
            }
            j.expire("session:1", 1000);
            j.hset("plain", "f", "v");
            j.hset("plain", "g", "w");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Wire w = new Wire(s.port())) {
            assertEquals(600, j.hlen("session:1"));
            assertEquals("value 599", j.hget("session:1", "attr599"));
            long ttl = j.ttl("session:1");
            assertTrue(ttl > 990 && ttl <= 1000, "ttl " + ttl);
            assertEquals("hashtable", j.objectEncoding("session:1"));
            assertEquals("*2\r\n$1\r\nf\r\n$1\r\ng\r\n", w.call("HKEYS", "plain"), "insertion order kept");
            assertEquals("listpack", j.objectEncoding("plain"));
        }
    }

    @Test
    void aTtlOnAHashExpiresItAndWritesKeepIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.hset("h", "a", "1");
            assertEquals(1, j.pexpire("h", 300));
            j.hset("h", "b", "2");
            j.hincrBy("h", "a", 1);
            j.hdel("h", "b");
            long left = j.pttl("h");
            assertTrue(left > 0 && left <= 300, "hash writes keep the TTL: " + left);
            Thread.sleep(400);
            assertFalse(j.exists("h"));
            assertNull(j.hget("h", "a"));
            assertEquals(0, j.hlen("h"));
        }
    }

    @Test
    void hincrbyFromManyThreadsCountsExactly() throws Exception {
        int threads = 8;
        int each = 400;
        // Four event loops, so that the connections' commands run at the same time even on two cores
        ServerConfig d = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        ServerConfig four = new ServerConfig(d.bind(), d.port(), d.httpPort(), d.dataDir(), d.requirePass(), d.maxClients(),
                d.maxBulkBytes(), d.idleTimeoutSeconds(), 4, d.busyPollMicros());
        try (ColossalServer s = ColossalServer.start(four)) {
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                // A large hash makes each read-modify-write long: without the key's lock, updates get lost
                Map<String, String> filler = new HashMap<>();
                for (int i = 0; i < 3000; i++) {
                    filler.put("filler" + i, "x");
                }
                j.hset("counters", filler);
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    done.add(pool.submit(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            for (int i = 0; i < each; i++) {
                                j.hincrBy("counters", "hits", 1);
                                if (i % 100 == 0) {
                                    j.hset("counters", "t" + id, Integer.toString(i)); // other fields change meanwhile
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
                assertEquals(Integer.toString(threads * each), j.hget("counters", "hits"));
                assertEquals(3000 + threads + 1, j.hlen("counters"));
            }
        }
    }

    @Test
    void hashesMoveBetweenRedisAndColossalBothWaysByDumpAndRestore() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                Map<String, Map<String, String>> hashes = new LinkedHashMap<>();
                Map<String, String> ints = new LinkedHashMap<>();
                for (String v : List.of("0", "127", "128", "-1", "4095", "-4096", "32767", "-32768", "8388607",
                        "-8388608", "2147483647", "-2147483648", "9223372036854775807", "-9223372036854775808", "007")) {
                    ints.put("i" + v, v);
                }
                hashes.put("ints", ints); // every listpack integer width
                hashes.put("strings", Map.of("a", "", "b", "x".repeat(63), "c", "y".repeat(64), "d", "caf\u00e9"));
                Map<String, String> big = new LinkedHashMap<>();
                for (int i = 0; i < 700; i++) {
                    big.put("field" + i, "value" + "z".repeat(i % 80)); // a hashtable in Redis: type 4, LZF strings
                }
                hashes.put("big", big);
                for (Map.Entry<String, Map<String, String>> h : hashes.entrySet()) {
                    String key = h.getKey();
                    redis.hset(key, h.getValue());
                    byte[] payload = redis.dump(key);
                    assertEquals(key.equals("big") ? 4 : 16, payload[0], "Redis's RDB type for " + key);
                    assertEquals("OK", colossal.restore(key, 0, payload));
                    assertEquals(h.getValue(), colossal.hgetAll(key), "Redis to Colossal: " + key);
                    assertEquals(redis.objectEncoding(key), colossal.objectEncoding(key), key);
                    if (!key.equals("big")) {
                        assertEquals(redis.hkeys(key), colossal.hkeys(key), "a listpack's order: " + key);
                        assertEquals(new ArrayList<>(redis.hkeys(key)), new ArrayList<>(colossal.hkeys(key)));
                    }
                    String back = key + ":back";
                    assertEquals("OK", redis.restore(back, 0, colossal.dump(key)));
                    assertEquals(h.getValue(), redis.hgetAll(back), "Colossal to Redis: " + key);
                    assertEquals(redis.objectEncoding(key), redis.objectEncoding(back));
                }
                redis.hset("ttl", "f", "v");
                colossal.restore("ttl", 100_000, redis.dump("ttl"));
                long left = colossal.pttl("ttl");
                assertTrue(left > 90_000 && left <= 100_000, "pttl " + left);
                assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), colossal.hget("ttl".getBytes(StandardCharsets.UTF_8),
                        "f".getBytes(StandardCharsets.UTF_8)));
            }
        });
    }

    @Test
    void theHttpApiRefusesToServeAHashAsBytes() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.hset("h", "f", "v");
            HttpResponse<String> got = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/h")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(409, got.statusCode());
            assertTrue(got.body().contains("WRONGTYPE"), got.body());
        }
    }
}
