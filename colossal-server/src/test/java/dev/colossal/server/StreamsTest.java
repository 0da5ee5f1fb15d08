package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * Streams through Jedis: entries read back in order, types kept apart, a stream of 100,000 entries
 * packed in about a thousand nodes whose XADD changes one of them, eight threads adding to one
 * stream with every entry there once and IDs strictly rising, the collector freeing a stream's
 * nodes after DEL, SET, a TTL and FLUSHDB, and what a restart keeps. Replies byte for byte are
 * {@code redis-compat.txt}'s and {@link StreamsDifferentialTest}'s; XREAD BLOCK is {@link BlockingStreamsTest}'s.
 */
class StreamsTest {

    @TempDir
    Path dir;

    private static Map<String, String> fields(String... kv) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static List<String> ids(List<StreamEntry> es) {
        List<String> out = new ArrayList<>();
        es.forEach(e -> out.add(e.getID().toString()));
        return out;
    }

    @Test
    void jedisStreamCallsReadBackWhatTheyWrote() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals("1-1", j.xadd("s", new StreamEntryID(1, 1), fields("a", "1", "b", "2")).toString());
            assertEquals("1-2", j.xadd("s", new StreamEntryID(1, 2), fields("a", "3")).toString());
            StreamEntryID auto = j.xadd("s", StreamEntryID.NEW_ENTRY, fields("c", "4"));
            assertTrue(auto.getTime() > 1_000_000_000_000L, "* takes the clock's milliseconds: " + auto);
            assertEquals(3, j.xlen("s"));
            List<StreamEntry> all = j.xrange("s", "-", "+");
            assertEquals(List.of("1-1", "1-2", auto.toString()), ids(all));
            assertEquals(fields("a", "1", "b", "2"), all.getFirst().getFields());
            assertEquals(List.of(auto.toString(), "1-2"), ids(j.xrevrange("s", "+", "(1-1")));
            assertEquals("stream", j.type("s"));
            assertEquals("stream", j.objectEncoding("s"));
            assertEquals(List.of("s"), j.scan("0", new ScanParams().count(100), "stream").getResult());
            j.set("str", "v");
            assertEquals(List.of(), j.scan("0", new ScanParams().count(100), "stream").getResult().stream()
                    .filter(k -> !k.equals("s")).toList(), "SCAN TYPE stream finds streams only");
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.xadd("str", StreamEntryID.NEW_ENTRY, fields("a", "b")));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            for (Runnable other : List.<Runnable>of(() -> j.get("s"), () -> j.lpush("s", "x"), () -> j.hset("s", "f", "v"),
                    () -> j.sadd("s", "m"), () -> j.zadd("s", 1, "m"), () -> j.incr("s"))) {
                assertThrows(JedisDataException.class, other::run);
            }
            assertEquals(3, j.xlen("s"), "WRONGTYPE changes nothing");
        }
    }

    @Test
    void aHundredThousandEntriesAreAboutAThousandNodesAndXaddChangesOne() throws Exception {
        int n = 100_000;
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Pipeline p = j.pipelined();
            for (int i = 1; i <= n; i++) {
                p.xadd("big", new StreamEntryID(i, 0), fields("n", Integer.toString(i)));
            }
            p.sync();
            assertEquals(n, j.xlen("big"));
            ListElements e = s.context().dbs.opened(0).elements(false);
            assertEquals(n / 100 + 1, e.size(), "a node per 100 entries and one root, not an entry per entry");
            j.xadd("big", new StreamEntryID(n + 1, 0), fields("n", "last"));
            assertEquals(n / 100 + 2, e.size(), "the 100,001st entry starts a node");
            List<StreamEntry> mid = j.xrange("big", "50000", "+", 3);
            assertEquals(List.of("50000-0", "50001-0", "50002-0"), ids(mid));
            assertEquals(fields("n", "50001"), mid.get(1).getFields());
            assertEquals(List.of("777-0", "776-0"), ids(j.xrevrange("big", "777", "-", 2)));
            assertEquals(List.of("100001-0"), ids(j.xrange("big", "(100000", "+")));
        }
    }

    @Test
    void eightThreadsAddEveryEntryOnceWithRisingIds() throws Exception {
        int threads = 8;
        int each = 2_000;
        try (ColossalServer s = TestServers.colossal(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int me = t;
                    fs.add(pool.submit(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            for (int i = 0; i < each; i++) {
                                j.xadd("shared", StreamEntryID.NEW_ENTRY, fields("w", me + ":" + i));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                List<StreamEntry> all = j.xrange("shared", "-", "+");
                assertEquals(threads * each, all.size());
                Set<String> seen = new HashSet<>();
                int[] next = new int[threads];
                StreamEntryID prev = null;
                for (StreamEntry en : all) {
                    assertTrue(prev == null || en.getID().compareTo(prev) > 0, en.getID() + " after " + prev);
                    prev = en.getID();
                    String w = en.getFields().get("w");
                    assertTrue(seen.add(w), "once: " + w);
                    String[] parts = w.split(":");
                    int t = Integer.parseInt(parts[0]);
                    assertEquals(next[t]++, Integer.parseInt(parts[1]), "each writer's entries in its order");
                }
            }
        }
    }

    @Test
    void theCollectorFreesAStreamsNodesAfterDelSetTtlAndFlushdb() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            ListElements[] e = new ListElements[1];
            for (String how : List.of("DEL", "SET", "PEXPIRE", "FLUSHDB", "XTRIM", "RENAME over")) {
                for (int i = 1; i <= 1000; i++) {
                    j.xadd("x", new StreamEntryID(i, 0), fields("f", "v"));
                }
                j.xadd("keep", new StreamEntryID(1, 0), fields("f", "v"));
                e[0] = s.context().dbs.opened(0).elements(false);
                assertEquals(10 + 1 + 1 + 1, e[0].size(), "10 nodes and a root, and the kept stream's node and root");
                switch (how) {
                    case "DEL" -> j.del("x");
                    case "SET" -> j.set("x", "v");
                    case "PEXPIRE" -> j.pexpire("x", 1);
                    case "FLUSHDB" -> j.flushDB();
                    case "XTRIM" -> j.xtrim("x", 0, false);
                    default -> {
                        j.xadd("y", new StreamEntryID(1, 0), fields("f", "v"));
                        j.rename("y", "x");
                    }
                }
                long left = how.equals("FLUSHDB") ? 0 : how.equals("XTRIM") ? 3 : how.equals("RENAME over") ? 4 : 2;
                eventually(() -> e[0].size() == left, how + " leaves " + e[0].size() + " entries, not " + left);
                j.flushDB();
                eventually(() -> e[0].size() == 0, how + ": then none");
            }
        }
    }

    @Test
    void renameCopyMoveAndARestartKeepTheEntries() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 1; i <= 250; i++) {
                j.xadd("a", new StreamEntryID(i, 0), fields("i", Integer.toString(i)));
            }
            j.xdel("a", new StreamEntryID(5, 0));
            j.xtrim("a", new redis.clients.jedis.params.XTrimParams().minId("3"));
            assertEquals("OK", j.rename("a", "b"));
            assertTrue(j.copy("b", "c", false));
            j.xadd("c", new StreamEntryID(300, 0), fields("i", "300"));
            assertEquals(247, j.xlen("b"), "a copy has nodes of its own");
            assertEquals(248, j.xlen("c"));
            assertEquals(1, j.move("c", 1));
            j.select(1);
            assertEquals(248, j.xlen("c"));
            assertEquals(List.of("3-0", "4-0", "6-0"), ids(j.xrange("c", "-", "+", 3)));
            j.select(0);
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(247, j.xlen("b"));
            assertEquals(List.of("250-0", "249-0"), ids(j.xrevrange("b", "+", "-", 2)));
            JedisDataException refused = assertThrows(JedisDataException.class,
                    () -> j.xadd("b", new StreamEntryID(250, 0), fields("f", "v")));
            assertEquals("ERR The ID specified in XADD is equal or smaller than the target stream top item", refused.getMessage());
            assertEquals("251-0", j.xadd("b", new StreamEntryID(251, 0), fields("f", "v")).toString());
        }
    }

    static void eventually(BooleanSupplier ok, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!ok.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what);
            }
            Thread.sleep(50);
        }
    }
}
