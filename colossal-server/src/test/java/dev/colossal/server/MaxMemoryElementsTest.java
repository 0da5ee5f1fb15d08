package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;

/**
 * {@code --maxmemory} counts the collections whose elements live in the element map (lists,
 * streams, big hashes, sets, sorted sets and strings): filled ten times past the bound with them,
 * the server evicts whole keys, frees their elements with them, and every key left reads whole.
 */
class MaxMemoryElementsTest {

    private static final long BOUND = 4L << 20;
    /** The bound, and the slack a look at the total leaves between two looks ({@link MemoryBudget}). */
    private static final long MOST = BOUND + BOUND / 32;

    @TempDir
    Path dir;

    private static ServerConfig cache(Path data) {
        return ServerConfig.defaults().withDataDir(data).withPorts(0, -1).withMaxMemory(BOUND, ServerConfig.ALLKEYS_LRU);
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    /** The element written at {@code i} of {@code key}: its own bytes, so that a mix-up shows. */
    private static String element(String key, int i, int length) {
        String head = key + "#" + i + ":";
        return head + "x".repeat(Math.max(0, length - head.length()));
    }

    /**
     * Writes {@code keys} keys with {@code fill}, each about 50 KB, and checks the bound held
     * throughout, keys were evicted, and each key left passes {@code whole}.
     */
    private void fillPastTheBound(String kind, BiConsumer<Pipeline, String> fill, BiPredicate<Jedis, String> whole)
            throws Exception {
        Path data = dir.resolve(kind);
        int keys = 800; // 40 MB, ten times the bound
        try (ColossalServer s = ColossalServer.start(cache(data)); Jedis j = new Jedis("127.0.0.1", s.port())) {
            long most = 0;
            for (int k = 0; k < keys; k++) {
                Pipeline p = j.pipelined();
                fill.accept(p, kind + ":" + k);
                p.sync();
                if (k % 50 == 49) {
                    most = Math.max(most, field(j.info("memory"), "used_memory"));
                }
            }
            String memory = j.info("memory");
            long used = field(memory, "used_memory");
            most = Math.max(most, used);
            assertTrue(most <= MOST, kind + ": used_memory reached " + most + " over a bound of " + BOUND);
            assertTrue(used > BOUND / 2, kind + ": filled to the bound, not " + used);
            long left = j.dbSize();
            long evicted = field(j.info("stats"), "evicted_keys");
            assertTrue(left > 0 && evicted > 0, kind + ": " + left + " keys left, " + evicted + " evicted");
            assertEquals(keys, left + evicted, kind + ": every key is there or was evicted");
            int checked = 0;
            for (int k = 0; k < keys; k++) {
                String key = kind + ":" + k;
                if (j.exists(key)) {
                    assertTrue(whole.test(j, key), key + " is whole");
                    checked++;
                }
            }
            assertEquals(left, checked);
            long elementFile = Files.size(ListElements.fileFor(data.resolve(MapStore.FILE_NAME)));
            assertTrue(elementFile < 4 * BOUND, kind + ": the element map file grew to " + elementFile);
        }
    }

    @Test
    void listsPastTheBoundAreEvictedWithTheirElements() throws Exception {
        fillPastTheBound("list", (p, key) -> {
            for (int i = 0; i < 50; i++) {
                p.rpush(key, element(key, i, 1000));
            }
        }, (j, key) -> {
            List<String> all = j.lrange(key, 0, -1);
            for (int i = 0; i < 50; i++) {
                if (!all.get(i).equals(element(key, i, 1000))) {
                    return false;
                }
            }
            return all.size() == 50;
        });
    }

    @Test
    void bigHashesAndSetsPastTheBoundAreEvictedWithTheirBuckets() throws Exception {
        fillPastTheBound("hash", (p, key) -> {
            Map<String, String> fields = new HashMap<>();
            for (int i = 0; i < 600; i++) {
                fields.put("f" + i, element(key, i, 80));
            }
            p.hset(key, fields);
        }, (j, key) -> j.hlen(key) == 600 && j.hget(key, "f599").equals(element(key, 599, 80)));
        fillPastTheBound("set", (p, key) -> {
            String[] members = new String[600];
            for (int i = 0; i < members.length; i++) {
                members[i] = element(key, i, 80);
            }
            p.sadd(key, members);
        }, (j, key) -> j.scard(key) == 600 && j.sismember(key, element(key, 17, 80)));
    }

    @Test
    void bigSortedSetsStreamsAndStringsPastTheBoundAreEvictedWithTheirElements() throws Exception {
        fillPastTheBound("zset", (p, key) -> {
            Map<String, Double> members = new HashMap<>();
            for (int i = 0; i < 800; i++) {
                members.put(element(key, i, 60), (double) i);
            }
            p.zadd(key, members);
        }, (j, key) -> j.zcard(key) == 800 && j.zscore(key, element(key, 799, 60)) == 799.0);
        fillPastTheBound("stream", (p, key) -> {
            for (int i = 0; i < 50; i++) {
                p.xadd(key, XAddParams.xAddParams().id(new StreamEntryID(1, i + 1)), Map.of("f", element(key, i, 1000)));
            }
        }, (j, key) -> j.xlen(key) == 50
                && j.xrange(key, "1-50", "1-50").get(0).getFields().get("f").equals(element(key, 49, 1000)));
        fillPastTheBound("string", (p, key) -> {
            for (int i = 0; i < 70; i++) {
                p.append(key, element(key, i, 1000)); // past 64 KiB: chunked
            }
        }, (j, key) -> j.strlen(key) == 70_000
                && j.getrange(key, 69_000, 69_999).equals(element(key, 69, 1000)));
    }

    /**
     * Lists deleted make room for the next ones at once, as in Redis: what DEL dropped is freed
     * before the bound sums, not counted until the collector's next look and evicted for.
     */
    @Test
    void whatDelDroppedIsNotEvictedFor() throws Exception {
        try (ColossalServer s = ColossalServer.start(cache(dir.resolve("del"))); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int round = 0; round < 3; round++) {
                for (int k = 0; k < 50; k++) {   // 2.5 MB of a 4 MiB bound
                    Pipeline p = j.pipelined();
                    String key = "r" + round + ":" + k;
                    for (int i = 0; i < 50; i++) {
                        p.rpush(key, element(key, i, 1000));
                    }
                    p.sync();
                }
                assertEquals(0, field(j.info("stats"), "evicted_keys"), "round " + round + " fits");
                assertEquals(50, j.dbSize());
                String[] keys = j.keys("r" + round + ":*").toArray(new String[0]);
                assertEquals(50, j.del(keys));
            }
        }
    }

    /**
     * Writers push to lists while the bound evicts them under their feet, and readers read them
     * whole: a list is absent or every element it has is the one pushed there, never a header
     * without its elements (an eviction that freed a list its writer was still writing).
     */
    @Test
    void listsEvictedWhileWrittenAndReadStayWholeOrGo() throws Exception {
        Path data = dir.resolve("busy");
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        try (ColossalServer s = ColossalServer.start(cache(data))) {
            long end = System.nanoTime() + 6_000_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                boolean writer = t < 2;
                threads.add(new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        while (System.nanoTime() < end) {
                            String key = "l:" + r.nextInt(300);
                            if (writer) {
                                Pipeline p = j.pipelined();
                                for (int i = 0; i < 20; i++) {
                                    p.rpush(key, key + ":" + "y".repeat(500));
                                }
                                p.sync();
                            } else {
                                for (String e : j.lrange(key, 0, -1)) {
                                    if (!e.startsWith(key + ":")) {
                                        failures.add(key + " holds " + e.substring(0, Math.min(40, e.length())));
                                    }
                                }
                            }
                        }
                    } catch (RuntimeException e) {
                        failures.add(e.toString());
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertTrue(field(j.info("stats"), "evicted_keys") > 0, "the bound evicted");
                assertTrue(field(j.info("memory"), "used_memory") <= MOST);
                for (String key : j.keys("l:*")) {
                    long n = j.llen(key);
                    List<String> all = j.lrange(key, 0, -1);
                    if (all.size() != n || !all.stream().allMatch(e -> e.startsWith(key + ":"))) {
                        failures.add(key + ": LLEN " + n + ", LRANGE " + all.size() + " elements");
                    }
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }
}
