package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Lists through real clients: Jedis and Lettuce calls, a restart, SWAPDB's files, pushers and
 * poppers on many threads taking every element exactly once, the collector giving memory back
 * after DEL, SET and a TTL, and a queue of a million elements whose push and pop each change one
 * element entry. Replies byte for byte are {@code redis-compat.txt}'s and {@link RedisDifferentialTest}'s;
 * blocking is {@link BlockingListsTest}'s.
 */
class ListsTest {

    @TempDir
    Path dir;

    @Test
    void jedisListCallsReadBackWhatTheyWrote() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(3, j.rpush("q", "a", "b", "c"));
            assertEquals(5, j.lpush("q", "y", "x"));
            assertEquals(List.of("x", "y", "a", "b", "c"), j.lrange("q", 0, -1));
            assertEquals("list", j.type("q"));
            assertEquals("quicklist", j.objectEncoding("q"));
            assertEquals("x", j.lpop("q"));
            assertEquals(List.of("c", "b"), j.rpop("q", 2));
            assertEquals("a", j.lindex("q", -1));
            assertEquals("OK", j.lset("q", 0, "Y"));
            assertEquals(3, j.linsert("q", redis.clients.jedis.args.ListPosition.AFTER, "Y", "mid"));
            assertEquals(List.of("Y", "mid", "a"), j.lrange("q", 0, -1));
            assertEquals(1, j.lrem("q", 0, "mid"));
            assertEquals(1L, j.lpos("q", "a"));
            assertEquals("a", j.lmove("q", "r", redis.clients.jedis.args.ListDirection.RIGHT,
                    redis.clients.jedis.args.ListDirection.LEFT));
            assertEquals("Y", j.rpoplpush("q", "r"));
            assertEquals(0, j.exists("q") ? 1 : 0, "the last pop deletes the key");
            assertEquals(List.of("Y", "a"), j.lrange("r", 0, -1));
            assertEquals("OK", j.ltrim("r", 1, 1));
            assertEquals(List.of("a"), j.lrange("r", 0, -1));
            j.set("s", "v");
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.lpush("s", "x"));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
            assertThrows(JedisDataException.class, () -> j.get("r"));
            assertEquals("OK", j.rename("r", "r2"));
            assertEquals(List.of("a"), j.lrange("r2", 0, -1));
            assertTrue(j.copy("r2", "r3", false));
            j.rpush("r3", "b");
            assertEquals(List.of("a"), j.lrange("r2", 0, -1), "a copy has elements of its own");
            assertEquals(1, j.move("r3", 1));
            j.select(1);
            assertEquals(List.of("a", "b"), j.lrange("r3", 0, -1));
        }
    }

    @Test
    void lettuceListCallsIncludingLmpop() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", s.port()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> l = c.sync();
                assertEquals(4L, l.rpush("jobs", "1", "2", "3", "4"));
                assertEquals(List.of("2", "3"), l.lrange("jobs", 1, 2));
                assertEquals("1", l.lmove("jobs", "done", LMoveArgs.Builder.leftRight()));
                KeyValue<String, List<String>> popped = l.lmpop(io.lettuce.core.LMPopArgs.Builder.right().count(2), "none", "jobs");
                assertEquals("jobs", popped.getKey());
                assertEquals(List.of("4", "3"), popped.getValue());
                KeyValue<String, String> b = l.blpop(1, "none", "jobs");
                assertEquals(KeyValue.just("jobs", "2"), b);
                assertEquals(0L, l.llen("jobs"));
                assertNull(l.lpop("jobs"));
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void listsSurviveARestartWithTheirTtl() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 1000; i++) {
                j.rpush("log", "line " + i);
            }
            j.lpush("log", "head");
            j.expire("log", 1000);
            j.rpush("plain", "a", "b");
            j.lpop("plain");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(1001, j.llen("log"));
            assertEquals("head", j.lindex("log", 0));
            assertEquals("line 999", j.lindex("log", -1));
            long ttl = j.ttl("log");
            assertTrue(ttl > 990 && ttl <= 1000, "ttl " + ttl);
            assertEquals(List.of("b"), j.lrange("plain", 0, -1));
        }
    }

    @Test
    void swapdbMovesElementMapsWithTheirDatabasesAcrossARestart() throws Exception {
        String unpacked = "!".repeat(ListLayout.PACKED_BYTES);   // too big to pack: each list keeps its element map
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.rpush("zero", "in db 0", unpacked);
            j.select(1);
            j.rpush("one", "in db 1", unpacked);
            j.select(2);
            j.set("str", "db 2 has no lists");
            assertEquals("OK", j.swapDB(0, 1));
            assertEquals("OK", j.swapDB(1, 2));
            j.select(0);
            assertEquals(List.of("in db 1", unpacked), j.lrange("one", 0, -1));
        }
        assertTrue(Files.exists(dir.resolve("db2.elements.map")));
        assertTrue(Files.exists(dir.resolve("db0.elements.map")));
        assertTrue(!Files.exists(dir.resolve("db1.elements.map")), "db 1 now holds db 2's string only");
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(List.of("in db 1", unpacked), j.lrange("one", 0, -1));
            j.select(1);
            assertEquals("db 2 has no lists", j.get("str"));
            j.select(2);
            assertEquals(List.of("in db 0", unpacked), j.lrange("zero", 0, -1));
        }
    }

    @Test
    void aSwapACrashCutShortIsUndoneBeforeItsCommitAndFinishedAfter() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            String unpacked = "!".repeat(ListLayout.PACKED_BYTES);   // too big to pack: each list keeps its element map
            j.rpush("l", "zero", unpacked);
            j.ltrim("l", 0, 0);
            j.select(1);
            j.rpush("l", "one", unpacked);
            j.ltrim("l", 0, 0);
        }
        // As a crash leaves it before the commit file: every file in its temporary
        for (String f : List.of("db0.map", "db0.elements.map", "db1.map", "db1.elements.map")) {
            Files.move(dir.resolve(f), dir.resolve("swapdb-0-1." + f + ".tmp"));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(List.of("zero"), j.lrange("l", 0, -1), "undone");
        }
        // After the commit, with one file already at its new name
        Files.move(dir.resolve("db0.map"), dir.resolve("swapdb-0-1.db0.map.tmp"));
        Files.move(dir.resolve("db0.elements.map"), dir.resolve("swapdb-0-1.db0.elements.map.tmp"));
        Files.move(dir.resolve("db1.elements.map"), dir.resolve("swapdb-0-1.db1.elements.map.tmp"));
        Files.move(dir.resolve("db1.map"), dir.resolve("db0.map"));
        Files.createFile(dir.resolve("swapdb-0-1.commit"));
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(List.of("one"), j.lrange("l", 0, -1), "finished");
            j.select(1);
            assertEquals(List.of("zero"), j.lrange("l", 0, -1));
        }
        assertTrue(!Files.exists(dir.resolve("swapdb-0-1.commit")));
    }

    @Test
    void pushersAndPoppersOnManyThreadsTakeEveryElementExactlyOnce() throws Exception {
        int pushers = 4;
        int perPusher = 3000;
        try (ColossalServer s = TestServers.colossal(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(pushers + 4);
            ConcurrentLinkedQueue<String> taken = new ConcurrentLinkedQueue<>();
            List<Future<?>> all = new ArrayList<>();
            for (int p = 0; p < pushers; p++) {
                int id = p;
                all.add(pool.submit(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                        for (int i = 0; i < perPusher; i++) {
                            if (i % 2 == 0) {
                                j.rpush("q", id + ":" + i);
                            } else {
                                j.lpush("q", id + ":" + i);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (int c = 0; c < 4; c++) {
                int kind = c;
                all.add(pool.submit(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                        while (taken.size() < pushers * perPusher) {
                            switch (kind) {
                                case 0 -> {
                                    String v = j.lpop("q");
                                    if (v != null) {
                                        taken.add(v);
                                    }
                                }
                                case 1 -> {
                                    List<String> v = j.rpop("q", 3);
                                    if (v != null) {
                                        taken.addAll(v);
                                    }
                                }
                                case 2 -> {
                                    redis.clients.jedis.util.KeyValue<String, String> v = j.blpop(0.05, "q");
                                    if (v != null) {
                                        taken.add(v.getValue());
                                    }
                                }
                                default -> {
                                    String v = j.lmove("q", "moved", redis.clients.jedis.args.ListDirection.LEFT,
                                            redis.clients.jedis.args.ListDirection.RIGHT);
                                    if (v != null) {
                                        taken.add(j.lpop("moved"));
                                    }
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            Set<String> distinct = new HashSet<>(taken);
            assertEquals(pushers * perPusher, taken.size(), "taken");
            assertEquals(pushers * perPusher, distinct.size(), "no element twice");
            ListElements e = s.context().dbs.opened(0).elements(false);
            eventually(() -> e.size() == 0, "the element map empties as the lists do: " + e.size());
        }
    }

    @Test
    void theCollectorGivesBackTheElementsOfDeletedOverwrittenAndExpiredLists() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            ListElements[] e = new ListElements[1];
            for (String how : List.of("DEL", "SET", "EXPIRE", "RENAME over", "FLUSHDB")) {
                int other = ListLayout.PACKED_COUNT + 10;   // too many to pack: a big list too
                fill(j, "big", 200_000);
                fill(j, "other", other);
                e[0] = s.context().dbs.opened(0).elements(false);
                long bigEntries = entries(s, "big");
                long otherEntries = entries(s, "other");
                assertTrue(bigEntries > 200_000 / 50 && otherEntries > 1, "nodes: " + bigEntries + ", " + otherEntries);
                assertEquals(bigEntries + otherEntries, e[0].size(), "the nodes and a root per list");
                switch (how) {
                    case "DEL" -> j.del("big");
                    case "SET" -> j.set("big", "a string now");
                    case "EXPIRE" -> j.pexpire("big", 1);
                    case "RENAME over" -> j.rename("other", "big");
                    default -> j.flushDB();
                }
                long left = how.equals("FLUSHDB") ? 0 : otherEntries;
                eventually(() -> e[0].size() == left, how + " leaves " + e[0].size() + " entries, not " + left);
                j.del("big", "other");
                eventually(() -> e[0].size() == 0, how + ": then none");
            }
        }
    }

    @Test
    void theCollectorWalksOnlyWhenGarbageMayHaveAppeared() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            ListCollector c = s.context().collector;
            fill(j, "kept", 1000);
            fill(j, "dropped", 1000);
            long settled = ListCollector.MIN_QUIET_MILLIS + 2 * ListCollector.TICK_MILLIS;
            Thread.sleep(settled); // the first look walks; one more once the pushes are past
            long walks = c.walks();
            j.lrange("kept", 0, -1); // reads are no change
            Thread.sleep(settled);
            assertEquals(walks, c.walks(), "nothing written since the last walk: no walk");
            ListElements e = s.context().dbs.opened(0).elements(false);
            long kept = entries(s, "kept");
            long t0 = System.nanoTime();
            j.del("dropped");
            eventually(() -> e.size() == kept, "DEL of a list to free its elements");
            long took = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(took < ListCollector.MIN_QUIET_MILLIS, "freed " + took + " ms after DEL: at the next tick, not the next quiet walk");
            for (int i = 1; i <= 300; i++) {
                j.xadd("events", new redis.clients.jedis.StreamEntryID(i, 0), java.util.Map.of("n", Integer.toString(i)));
            }
            long withStream = e.size();
            assertTrue(withStream > kept, "the stream's nodes and root: " + withStream);
            t0 = System.nanoTime();
            j.del("events");
            eventually(() -> e.size() == kept, "DEL of a stream to free its nodes");
            took = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(took < ListCollector.MIN_QUIET_MILLIS, "a stream's nodes freed " + took + " ms after DEL");
        }
    }

    @Test
    void aQueueOfAMillionKeepsItsElementsInNodesThatPushesAndPopsFillAndEmpty() throws Exception {
        int n = 1_000_000;
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port(), 120_000)) {
            long t0 = System.nanoTime();
            fill(j, "backlog", n);
            System.out.println("ListsTest: RPUSH of " + n + " elements took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            ListElements e = s.context().dbs.opened(0).elements(false);
            MapStore db = s.context().dbs.opened(0);
            long filled = e.size();
            assertEquals(entries(s, "backlog"), filled);
            assertTrue(filled < n / 20, "a node per run of elements: " + filled + " entries");
            long keys = db.size();
            for (int i = 0; i < 1000; i++) {
                j.rpush("backlog", "new " + i);
                assertEquals(Integer.toString(i), j.lpop("backlog"));
                assertEquals(entries(s, "backlog"), e.size(), "nothing but its nodes and root");
                assertEquals(keys, db.size(), "the header stays one entry");
            }
            // 1000 pops emptied the nodes of the first 1000 elements, 1000 pushes filled new ones
            assertTrue(Math.abs(e.size() - filled) < 100, "about as many nodes as before: " + e.size() + " vs " + filled);
            assertEquals("new 999", j.lindex("backlog", -1));
            assertEquals(Integer.toString(1000), j.lindex("backlog", 0));
            assertEquals(n, j.llen("backlog"));
            assertEquals(List.of("500000", "500001"), j.lrange("backlog", n / 2 - 1000, n / 2 - 999));
        }
    }

    @Test
    void listsMoveBetweenRedisAndColossalBothWaysByDumpAndRestore() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir); Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                java.util.SplittableRandom random = new java.util.SplittableRandom(11);
                List<String> elements = new ArrayList<>();
                for (int i = 0; i < 5000; i++) {
                    int kind = random.nextInt(5);
                    elements.add(switch (kind) {
                        case 0 -> Long.toString(random.nextLong(-5_000_000_000L, 5_000_000_000L));
                        case 1 -> Integer.toString(random.nextInt(-200, 200));
                        case 2 -> "x".repeat(random.nextInt(0, 70));
                        case 3 -> "y".repeat(random.nextInt(4000, 10_000));
                        default -> "007 " + i;
                    });
                }
                for (Jedis j : List.of(redis, colossal)) {
                    for (int i = 0; i < elements.size(); i += 500) {
                        j.rpush("l", elements.subList(i, i + 500).toArray(String[]::new));
                    }
                    j.rpush("small", "a", "1", "-5", "hello world", "");
                }
                assertArrayEquals(redis.dump("small"), colossal.dump("small"), "a small list's payload is Redis's, byte for byte");
                redis.restore("from-colossal", 0, colossal.dump("l"));
                colossal.restore("from-redis", 0, redis.dump("l"));
                assertEquals(elements, redis.lrange("from-colossal", 0, -1));
                assertEquals(elements, colossal.lrange("from-redis", 0, -1));
                colossal.restore("ttl", 100_000, redis.dump("small"));
                assertTrue(colossal.pttl("ttl") > 90_000);
                assertEquals(List.of("a", "1", "-5", "hello world", ""), colossal.lrange("ttl", 0, -1));
            }
        });
    }

    @Test
    void watchSeesEveryListWriteLsetIncluded() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis other = new Jedis("127.0.0.1", s.port())) {
            j.rpush("w", "a", "b");
            for (Runnable write : List.<Runnable>of(() -> other.lset("w", 0, "changed"), () -> other.rpush("w", "c"),
                    () -> other.lrem("w", 1, "c"), () -> other.rpoplpush("w", "w"))) {
                j.watch("w");
                write.run();
                redis.clients.jedis.Transaction t = j.multi();
                t.llen("w");
                assertNull(t.exec(), "EXEC after a write to a watched list aborts");
            }
            j.watch("w");
            redis.clients.jedis.Transaction t = j.multi();
            t.lindex("w", 0);
            assertEquals(List.of("b"), t.exec(), "untouched: it runs");
        }
    }

    /** @return the element-map entries the list under {@code key} of database 0 has ({@link StoredList#elementEntries}) */
    private static long entries(ColossalServer s, String key) {
        return StoredList.read(s.context().dbs.opened(0), key.getBytes()).elementEntries();
    }

    /** RPUSHes 0 .. n-1 to {@code key}, a thousand a command, pipelined. */
    static void fill(Jedis j, String key, int n) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i += 1000) {
            String[] batch = new String[Math.min(1000, n - i)];
            for (int k = 0; k < batch.length; k++) {
                batch[k] = Integer.toString(i + k);
            }
            p.rpush(key, batch);
        }
        p.sync();
    }

    static void eventually(BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            Thread.sleep(20);
        }
    }
}
