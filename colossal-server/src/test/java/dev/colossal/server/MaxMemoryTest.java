package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.map.MapInspector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * {@code --maxmemory} with {@code allkeys-lru}: the server as a Redis cache, filled ten times past
 * its bound by Jedis, with the map file inspected after.
 */
class MaxMemoryTest {

    private static final long BOUND = 4L << 20;
    private static final String VALUE = "v".repeat(1000);
    /** Ten times the bound in keys and values. */
    private static final int COLD_KEYS = 40_000;
    private static final int HOT_KEYS = 500;

    @TempDir
    Path dir;

    private static ServerConfig cache(Path data, long bound) {
        return ServerConfig.defaults().withDataDir(data).withPorts(0, 0).withMaxMemory(bound, ServerConfig.ALLKEYS_LRU);
    }

    /** SETs {@code n} keys {@code prefix0..}, and GETs the hot keys after every 1,000 of them (if there are any). */
    private static void fill(Jedis j, String prefix, int n, int hot) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i++) {
            p.set(prefix + i, VALUE);
            if (i % 1000 == 999) {
                for (int h = 0; h < hot; h++) {
                    p.get("hot:" + h);
                }
                p.sync();
            }
        }
        p.sync();
    }

    /** How many of {@code prefix0..prefix(n-1)} exist, asked without GET (which marks them read). */
    private static int present(Jedis j, String prefix, int n) {
        Pipeline p = j.pipelined();
        List<Response<Boolean>> rs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rs.add(p.exists(prefix + i));
        }
        p.sync();
        return (int) rs.stream().filter(Response::get).count();
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    /**
     * The map's entries stay within the bound (rounded up to whole blocks per segment), and the file
     * within 3x (tables and free space are not counted; measured 1.5x), where 40 MB were written.
     */
    private static void assertBounded(Path data) throws Exception {
        MapInspector.Summary s = MapInspector.inspect(data.resolve(MapStore.FILE_NAME));
        assertTrue(s.usedBytes() <= BOUND + (long) s.segments() * s.blockSize(), s.toString());
        assertTrue(s.usedBytes() > BOUND / 2, "filled to the bound: " + s);
        assertTrue(s.fileBytes() < 3 * BOUND, s.toString());
    }

    @Test
    void fillingFarPastTheBoundEvictsAndCountsEveryKeyEvicted() throws Exception {
        Path data = dir.resolve("data");
        try (ColossalServer s = ColossalServer.start(cache(data, BOUND)); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j, "cold:", COLD_KEYS, 0);
            long keys = j.dbSize();
            long evicted = field(j.info("stats"), "evicted_keys");
            assertTrue(keys > 1000 && keys < 5000, "a 4 MiB bound holds ~4,000 1 KB values, not " + keys);
            assertEquals(COLD_KEYS - keys, evicted);
            assertEquals(COLD_KEYS - present(j, "cold:", COLD_KEYS), evicted, "the keys missing are the keys evicted");
            String memory = j.info("memory");
            assertEquals(BOUND, field(memory, "maxmemory"));
            assertTrue(memory.contains("\r\nmaxmemory_policy:allkeys-lru\r\n"), memory);
            // Redis zeroes evicted_keys on CONFIG RESETSTAT
            assertEquals("OK", j.configResetStat());
            assertEquals(0, field(j.info("stats"), "evicted_keys"));
        }
        assertBounded(data);
    }

    /**
     * Each key the bound evicts is published as Redis's {@code evicted} event (class {@code e}) and,
     * if a tracking client read it, invalidated in that client's cache: without this, a client-side
     * cache kept serving a value the server no longer had.
     */
    @Test
    void evictedKeysArePublishedAndInvalidatedForTrackingClients() throws Exception {
        try (ColossalServer s = ColossalServer.start(cache(dir.resolve("data"), BOUND));
             Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis sub = new Jedis("127.0.0.1", s.port());
             Jedis reader = new Jedis("127.0.0.1", s.port())) {
            j.configSet("notify-keyspace-events", "Ee");
            java.util.Set<String> evicted = java.util.concurrent.ConcurrentHashMap.newKeySet();
            java.util.Set<String> invalidated = java.util.concurrent.ConcurrentHashMap.newKeySet();
            long subscriberId = sub.clientId();
            redis.clients.jedis.JedisPubSub listener = new redis.clients.jedis.JedisPubSub() {
                @Override
                public void onMessage(String channel, String message) {
                    (channel.equals("__redis__:invalidate") ? invalidated : evicted).add(message);
                }
            };
            Thread subscriber = new Thread(() -> sub.subscribe(listener, "__keyevent@0__:evicted", "__redis__:invalidate"));
            subscriber.start();
            StreamsTest.eventually(() -> listener.getSubscribedChannels() == 2, "the subscription");
            int tracked = 200;
            for (int i = 0; i < tracked; i++) {
                j.set("tracked:" + i, VALUE);
            }
            reader.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "TRACKING", "ON", "REDIRECT",
                    Long.toString(subscriberId));
            for (int i = 0; i < tracked; i++) {
                assertEquals(VALUE, reader.get("tracked:" + i));
            }
            fill(j, "cold:", COLD_KEYS, 0);
            long count = field(j.info("stats"), "evicted_keys");
            assertTrue(count > COLD_KEYS / 2, "the bound evicted: " + count);
            StreamsTest.eventually(() -> evicted.size() == count, "an evicted event per key evicted: " + evicted.size() + " of " + count);
            int gone = 0;
            for (int i = 0; i < tracked; i++) {
                if (!j.exists("tracked:" + i)) {
                    gone++;
                    assertTrue(evicted.contains("tracked:" + i));
                    String key = "tracked:" + i;
                    StreamsTest.eventually(() -> invalidated.contains(key), "the invalidation of " + key);
                }
            }
            assertTrue(gone > tracked / 2, "most of the tracked keys were evicted: " + gone);
            for (String key : evicted) {
                assertTrue(!key.startsWith("cold:") || !j.exists(key), key + " was published evicted and is there");
            }
            listener.unsubscribe();
            subscriber.join(10_000);
        }
    }

    /**
     * INFO's used_memory is what maxmemory bounds, as in Redis, where dashboards and eviction alerts
     * divide the one by the other: filled past the bound, both servers are at it. It was the Java
     * heap, tens of MB against a 4 MiB bound, and nothing the bound moved.
     */
    @Test
    void usedMemoryIsWhatMaxmemoryBoundsAsInRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort, "--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru");
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        Path data = dir.resolve("data");
        long used;
        try (ColossalServer s = ColossalServer.start(cache(data, BOUND)); Jedis ours = new Jedis("127.0.0.1", s.port());
             Jedis theirs = new Jedis("127.0.0.1", redisPort)) {
            for (Jedis j : List.of(theirs, ours)) {
                fill(j, "cold:", COLD_KEYS, 0);
                String memory = j.info("memory");
                double full = field(memory, "used_memory") / (double) field(memory, "maxmemory");
                assertTrue(full > 0.75 && full <= 1.01, "used_memory / maxmemory = " + full + " in " + memory);
                for (String name : List.of("used_memory_human", "used_memory_rss", "used_memory_rss_human")) {
                    assertTrue(memory.contains("\r\n" + name + ":"), name + " missing from " + memory);
                }
            }
            String memory = ours.info("memory");
            used = field(memory, "used_memory");
            assertTrue(memory.contains(String.format(Locale.ROOT, "\r\nused_memory_human:%.2fM\r\n", used / 1048576.0)), memory);
            assertTrue(field(memory, "colossal_heap_used_bytes") > 0, "the heap has a field of its own: " + memory);
        } finally {
            redis.destroy();
            redis.waitFor();
        }
        assertEquals(MapInspector.inspect(data.resolve(MapStore.FILE_NAME)).usedBytes(), used, "colossal inspect's count");
        try (ColossalServer s = ColossalServer.start(cache(data, BOUND)); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(used, field(j.info("memory"), "used_memory"), "kept in the map file over a restart");
            j.flushAll();
            assertEquals(0, field(j.info("memory"), "used_memory"));
        }
    }

    @Test
    void keysReadOftenSurviveKeysNeverRead() throws Exception {
        try (ColossalServer s = ColossalServer.start(cache(dir.resolve("data"), BOUND));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j, "hot:", HOT_KEYS, 0);
            fill(j, "cold:", COLD_KEYS, HOT_KEYS);
            double hot = present(j, "hot:", HOT_KEYS) / (double) HOT_KEYS;
            double cold = present(j, "cold:", COLD_KEYS) / (double) COLD_KEYS;
            // Without reads marking them, the hot keys, written first, would be the first evicted.
            assertTrue(hot >= 0.9 && cold <= 0.15, "hot keys kept " + hot + ", cold keys " + cold);
        }
    }

    @Test
    void aRestartWithTheSameBoundKeepsItAndOneWithAnotherIsRefused() throws Exception {
        Path data = dir.resolve("data");
        long before;
        try (ColossalServer s = ColossalServer.start(cache(data, BOUND)); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j, "first:", COLD_KEYS, 0);
            before = j.dbSize();
        }
        for (ServerConfig other : List.of(cache(data, 2 * BOUND), ServerConfig.defaults().withDataDir(data).withPorts(0, -1))) {
            MaxMemoryMismatchException e = assertThrows(MaxMemoryMismatchException.class, () -> ColossalServer.start(other));
            String asked = other.maxMemoryBytes() == 0 ? "no bound in the map file (no --maxmemory, or --maxmemory-policy"
                    + " noeviction, whose bound is the server's)" : "--maxmemory 8mb --maxmemory-policy allkeys-lru";
            assertTrue(e.getMessage().startsWith("data directory " + data.toAbsolutePath() + " holds a map created with"
                    + " --maxmemory 4mb --maxmemory-policy allkeys-lru (" + data.resolve("db0.map") + " keeps its bound),"
                    + " but this start asks for " + asked + "; a map's bound cannot change: start with --maxmemory 4mb"
                    + " --maxmemory-policy allkeys-lru, or copy the map"), e.getMessage());
        }
        try (ColossalServer s = ColossalServer.start(cache(data, BOUND)); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(before, j.dbSize(), "the refused starts changed nothing");
            assertEquals(BOUND, field(j.info("memory"), "maxmemory"));
            fill(j, "second:", COLD_KEYS, 0);
            long keys = j.dbSize();
            // This process's evictions: the second fill's keys and the first's, less what is left
            assertEquals(before + COLD_KEYS - keys, field(j.info("stats"), "evicted_keys"));
            assertEquals(before + COLD_KEYS - keys,
                    before - present(j, "first:", COLD_KEYS) + COLD_KEYS - present(j, "second:", COLD_KEYS));
        }
        assertBounded(data);
    }

    @Test
    void aValueLargerThanASegmentsShareIsRefusedWithOomAndNothingStored() throws Exception {
        try (ColossalServer s = ColossalServer.start(cache(dir.resolve("data"), BOUND)); Wire w = new Wire(s.port())) {
            // 4 MiB over 64 segments: 64 KiB each, less the headers and the key
            String large = "x".repeat(70_000);
            String refused = "-OOM value of 70000 bytes is larger than maxmemory allows: at most 65523 bytes with this key"
                    + " (the bound, 4194304 bytes, is split over 64 segments that evict on their own, and a key and its"
                    + " value must fit in one); store smaller values, or serve a new data directory with a larger"
                    + " --maxmemory\r\n";
            assertEquals(refused, w.call("SET", "big", large));
            assertEquals("$-1\r\n", w.call("GET", "big"));
            assertEquals("+OK\r\n", w.call("SET", "big", "x".repeat(65_523)), "the largest value fits");
            assertEquals(refused.replace("70000", "65524"), w.call("APPEND", "big", "x"));
            assertEquals(65_523, w.call("GET", "big").length() - "$65523\r\n\r\n".length(), "APPEND stored nothing");
            // MSET stores all or nothing: the small value before the large one is not stored either
            assertTrue(w.call("MSET", "small", "s", "big2", large).startsWith("-OOM value of 70000 bytes"));
            assertEquals("*2\r\n$-1\r\n$-1\r\n", w.call("MGET", "small", "big2"));
            assertEquals("+PONG\r\n", w.call("PING"), "the connection goes on");

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort()
                    + "/v1/keys/web")).PUT(HttpRequest.BodyPublishers.ofString(large)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(413, put.statusCode());
            assertEquals("{\"error\":\"value of 70000 bytes is longer than 65523 bytes, the longest this key takes with"
                    + " --maxmemory 4194304 (the bound is kept per segment of the map, and a key and its value must fit in"
                    + " one)\"}", put.body());
            assertEquals("$-1\r\n", w.call("GET", "web"));
        }
    }

    /** INFO's and CONFIG GET's fields as redis-server gives them for the same flags; CONFIG SET keeps the bound. */
    @Test
    void infoAndConfigTellTheBoundAsRedisDoes() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort, "--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru");
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer s = ColossalServer.start(cache(dir.resolve("data"), BOUND))) {
            for (String[] c : new String[][] {{"INFO", "memory"}, {"INFO", "stats"}}) {
                List<String> theirs = fields(redisPort, c);
                List<String> ours = fields(s.port(), c);
                assertTrue(ours.containsAll(theirs), "redis: " + theirs + ", ours: " + ours);
            }
            try (Wire w = new Wire(s.port()); Wire r = new Wire(redisPort)) {
                assertEquals(r.call("CONFIG", "GET", "maxmemory"), w.call("CONFIG", "GET", "maxmemory"));
                assertEquals(r.call("CONFIG", "GET", "maxmemory-policy"), w.call("CONFIG", "GET", "maxmemory-policy"));
                // What it is: OK, as a client setting its cache's policy on connect expects
                assertEquals("+OK\r\n", w.call("CONFIG", "SET", "maxmemory", "4mb", "maxmemory-policy", "allkeys-lru"));
                assertEquals("+OK\r\n", w.call("CONFIG", "SET", "maxmemory", "4194304"));
                String kept = " is not supported by this server: allkeys-lru's bound (4194304 bytes) is kept in the map"
                        + " files, with the policy; to change them, stop the server and 'colossal copy' the maps into a new"
                        + " data directory with --max-bytes (0 for none), and serve that\r\n";
                assertEquals("-ERR CONFIG SET maxmemory 8mb" + kept, w.call("CONFIG", "SET", "maxmemory", "8mb"));
                assertEquals("-ERR CONFIG SET maxmemory-policy volatile-lru" + kept,
                        w.call("CONFIG", "SET", "maxmemory-policy", "volatile-lru"));
                assertEquals("-ERR CONFIG SET lazyfree-lazy-eviction is not supported by this server: it has no"
                        + " counterpart here\r\n", w.call("CONFIG", "SET", "maxmemory", "4mb", "lazyfree-lazy-eviction", "yes"));
                assertEquals("*2\r\n$9\r\nmaxmemory\r\n$7\r\n4194304\r\n", w.call("CONFIG", "GET", "maxmemory"));
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** The maxmemory lines of INFO, and evicted_keys (a fresh server's 0). */
    private static List<String> fields(int port, String... command) throws Exception {
        try (Wire w = new Wire(port)) {
            return Arrays.stream(w.call(command).split("\r\n"))
                    .filter(l -> l.startsWith("maxmemory:") || l.startsWith("maxmemory_human:")
                            || l.startsWith("maxmemory_policy:") || l.startsWith("evicted_keys:"))
                    .toList();
        }
    }

    @Test
    void anUnboundedServerSaysSo() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Wire w = new Wire(s.port())) {
            String memory = w.call("INFO", "memory");
            assertTrue(memory.contains("\r\nmaxmemory:0\r\nmaxmemory_human:0B\r\nmaxmemory_policy:noeviction\r\n"), memory);
            assertTrue(w.call("INFO", "stats").contains("\r\nevicted_keys:0\r\n"));
            assertEquals("+OK\r\n", w.call("SET", "big", "x".repeat(1 << 20)), "no bound, no limit but the map's");
        }
    }
}
