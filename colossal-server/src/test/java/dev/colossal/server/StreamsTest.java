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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * Streams through Jedis: entries read back in order, types kept apart, a stream of 100,000 entries
 * packed in about a thousand nodes whose XADD changes one of them, eight threads adding to one
 * stream with every entry there once and IDs strictly rising, the collector freeing a stream's
 * nodes after DEL, SET, a TTL and FLUSHDB, what RENAME, COPY, MOVE and a restart keep, and XREAD
 * BLOCK woken by XADD, RENAME and RESTORE from other connections, timed out and unblocked. Replies
 * byte for byte are {@code redis-compat.txt}'s and {@link StreamsDifferentialTest}'s; kills are
 * {@link StreamsCrashTest}'s.
 */
class StreamsTest {

    @TempDir
    Path dir;

    /** A client with a 30 s timeout: on a loaded machine a first use of a database's files can take over Jedis's 2 s. */
    static Jedis jedis(int port) {
        return new Jedis("127.0.0.1", port, 30_000);
    }

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
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
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
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
            Pipeline p = j.pipelined();
            for (int i = 1; i <= n; i++) {
                p.xadd("big", new StreamEntryID(i, 0), fields("n", Integer.toString(i)));
                if (i % 1000 == 0) {
                    p.sync(); // read the replies: a client that only writes would stop the server reading it
                }
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
                        try (Jedis j = jedis(s.port())) {
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
            try (Jedis j = jedis(s.port())) {
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
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
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
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
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
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
            assertEquals(247, j.xlen("b"));
            assertEquals(List.of("250-0", "249-0"), ids(j.xrevrange("b", "+", "-", 2)));
            JedisDataException refused = assertThrows(JedisDataException.class,
                    () -> j.xadd("b", new StreamEntryID(250, 0), fields("f", "v")));
            assertEquals("ERR The ID specified in XADD is equal or smaller than the target stream top item", refused.getMessage());
            assertEquals("251-0", j.xadd("b", new StreamEntryID(251, 0), fields("f", "v")).toString());
        }
    }

    @Test
    void swapdbAndUnlinkAndEvictionAsForLists() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
            j.xadd("zero", new StreamEntryID(1, 0), fields("in", "db 0"));
            j.select(1);
            j.xadd("one", new StreamEntryID(1, 0), fields("in", "db 1"));
            j.xadd("gone", new StreamEntryID(1, 0), fields("f", "v"));
            assertEquals(1, j.unlink("gone"));
            ListElements e1 = s.context().dbs.opened(1).elements(false);
            eventually(() -> e1.size() == 2, "UNLINK frees the node and root: " + e1.size());
            assertEquals("OK", j.swapDB(0, 1));
            j.select(0);
            assertEquals(List.of("1-0"), ids(j.xrange("one", "-", "+")));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port())) {
            assertEquals(fields("in", "db 1"), j.xrange("one", "-", "+").getFirst().getFields(), "the swap kept across a restart");
            j.select(1);
            assertEquals(fields("in", "db 0"), j.xrange("zero", "-", "+").getFirst().getFields());
        }
        Path data = dir.resolve("cache");
        ServerConfig cache = ServerConfig.defaults().withDataDir(data).withPorts(0, -1).withMaxMemory(4L << 20,
                ServerConfig.ALLKEYS_LRU);
        try (ColossalServer s = ColossalServer.start(cache); Jedis j = jedis(s.port())) {
            int streams = 200;
            Pipeline p = j.pipelined();
            // a reply read every 1,000 commands: a client that only writes would stop the server reading it
            for (int k = 0; k < streams; k++) {
                for (int i = 1; i <= 300; i++) {
                    p.xadd("stream:" + k, new StreamEntryID(i, 0), fields("f", "v"));
                }
                p.sync();
            }
            for (int i = 0; i < 40_000; i++) {
                p.set("cold:" + i, "v".repeat(1000));
                if (i % 1000 == 999) {
                    p.sync();
                }
            }
            p.sync();
            List<Integer> kept = new ArrayList<>();
            for (int k = 0; k < streams; k++) {
                if (j.exists("stream:" + k)) {
                    kept.add(k);
                }
            }
            assertTrue(kept.size() < streams, "some stream headers were evicted: " + kept.size() + " kept");
            ListElements e = s.context().dbs.opened(0).elements(false);
            long want = 4L * kept.size(); // three nodes and a root each
            eventually(() -> e.size() == want, "the collector frees evicted streams' nodes: " + e.size() + " for " + want);
            for (int k : kept) {
                assertEquals(300, j.xlen("stream:" + k));
            }
        }
    }

    static long blocked(Jedis j) {
        for (String line : j.info("clients").split("\r\n")) {
            if (line.startsWith("blocked_clients:")) {
                return Long.parseLong(line.substring("blocked_clients:".length()));
            }
        }
        throw new AssertionError("no blocked_clients");
    }

    private static Object xread(Jedis j, String... args) {
        return j.sendCommand(Protocol.Command.XREAD, args);
    }

    /** A reply as text: bulk strings as they are, arrays in brackets, null as "null". */
    static String show(Object reply) {
        if (reply == null) {
            return "null";
        }
        if (reply instanceof byte[] b) {
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            l.forEach(x -> parts.add(show(x)));
            return parts.toString();
        }
        return String.valueOf(reply);
    }

    @Test
    void xreadBlockIsWokenByAnXaddFromAnotherConnectionWithThatStreamOnly() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port());
             Jedis w1 = jedis(s.port()); Jedis w2 = jedis(s.port());
             Jedis w3 = jedis(s.port())) {
            j.xadd("a", new StreamEntryID(5, 0), fields("old", "1"));
            Future<Object> first = pool.submit(() -> xread(w1, "BLOCK", "0", "STREAMS", "a", "b", "$", "$"));
            eventually(() -> blocked(j) == 1, "XREAD to block");
            Future<Object> later = pool.submit(() -> xread(w2, "BLOCK", "0", "STREAMS", "b", "100-0"));
            Future<Object> second = pool.submit(() -> xread(w3, "COUNT", "1", "BLOCK", "0", "STREAMS", "b", "0"));
            eventually(() -> blocked(j) == 3, "three waiters");
            assertTrue(j.clientList().contains("flags=b"), j.clientList());
            j.xadd("b", new StreamEntryID(7, 0), fields("f", "v"));
            j.xadd("b", new StreamEntryID(8, 0), fields("f", "w"));
            assertEquals("[[b, [[7-0, [f, v]]]]]", show(first.get(10, TimeUnit.SECONDS)), "the stream that got the entry");
            assertEquals("[[b, [[7-0, [f, v]]]]]", show(second.get(10, TimeUnit.SECONDS)),
                    "a waiter after one that wanted later entries is served too, and reads do not take");
            assertEquals(1, blocked(j), "the waiter for entries above 100-0 still waits");
            j.xadd("b", new StreamEntryID(101, 0), fields("f", "x"));
            assertEquals("[[b, [[101-0, [f, x]]]]]", show(later.get(10, TimeUnit.SECONDS)));
            assertEquals(0, blocked(j));
            assertEquals(3, j.xlen("b"), "XREAD takes nothing");
            assertEquals("PONG", w1.ping());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void xreadBlockTimesOutIsUnblockedAndWakesOnRenameAndRestore() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port());
             Jedis waiter = jedis(s.port())) {
            long t0 = System.nanoTime();
            assertEquals("null", show(xread(waiter, "BLOCK", "300", "STREAMS", "none", "$")));
            long took = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(took >= 290 && took < 5000, "BLOCK 300 took " + took + " ms");
            long id = waiter.clientId();
            Future<Object> got = pool.submit(() -> xread(waiter, "BLOCK", "0", "STREAMS", "none", "$"));
            eventually(() -> blocked(j) == 1, "XREAD to block");
            assertEquals(1, j.clientUnblock(id));
            assertEquals("null", show(got.get(10, TimeUnit.SECONDS)), "TIMEOUT: a timeout's reply");
            Future<Object> failed = pool.submit(() -> xread(waiter, "BLOCK", "0", "STREAMS", "none", "$"));
            eventually(() -> blocked(j) == 1, "XREAD to block");
            assertEquals(1, j.clientUnblock(id, redis.clients.jedis.args.UnblockType.ERROR));
            Exception e = assertThrows(Exception.class, () -> failed.get(10, TimeUnit.SECONDS));
            assertEquals("UNBLOCKED client unblocked via CLIENT UNBLOCK", e.getCause().getMessage());

            Future<Object> renamed = pool.submit(() -> xread(waiter, "BLOCK", "0", "STREAMS", "target", "$"));
            eventually(() -> blocked(j) == 1, "XREAD to block");
            j.set("target", "a string: not a stream, the waiter waits on");
            j.xadd("src", new StreamEntryID(1, 0), fields("f", "v"));
            j.rename("src", "target");
            assertEquals("[[target, [[1-0, [f, v]]]]]", show(renamed.get(10, TimeUnit.SECONDS)));

            byte[] dump = j.dump("target");
            Future<Object> restored = pool.submit(() -> xread(waiter, "BLOCK", "0", "STREAMS", "copy", "0"));
            eventually(() -> blocked(j) == 1, "XREAD to block");
            j.restore("copy", 0, dump);
            assertEquals("[[copy, [[1-0, [f, v]]]]]", show(restored.get(10, TimeUnit.SECONDS)));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWokenXreadAnswersInResp3AsAMap() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = jedis(s.port());
             Wire w = new Wire(s.port())) {
            w.call("HELLO", "3");
            Future<String> got = pool.submit(() -> w.call("XREAD", "BLOCK", "0", "STREAMS", "r3", "$"));
            eventually(() -> blocked(j) == 1, "XREAD to block");
            j.xadd("r3", new StreamEntryID(1, 0), fields("f", "v"));
            assertEquals("%1\r\n$2\r\nr3\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n",
                    got.get(10, TimeUnit.SECONDS));
            assertEquals("_\r\n", w.call("XREAD", "BLOCK", "10", "STREAMS", "r3", "$"), "RESP3's null on a timeout");
        } finally {
            pool.shutdownNow();
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
