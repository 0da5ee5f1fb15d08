package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Readers of a hash and a set that never take the key's lock for a one-value read, against
 * writers that keep turning the same keys from one value into buckets and back (DEL and
 * re-create, RENAME over them from a small or a big source, HSET/SADD of many fields, HDEL/SREM),
 * at {@code hash-max-listpack-entries 4} and {@code set-max-intset-entries 4} so that every few
 * writes convert. Field {@code fN} only ever holds {@code vN} and a key never holds more than
 * {@link #FIELDS} fields: any reply outside that, or any error, is a read that mixed two
 * encodings (a one-value read of a bucketed header, a bucket read of a set no longer there).
 * The two windows such a read had are also opened on purpose: a writer is made to land at the
 * read that fell in them, through a store that runs it just before that read.
 */
class HashEncodingRaceTest {

    private static final int FIELDS = 12;
    private static final long RUN_MILLIS = 8_000;
    private static final String[] ALL_FIELDS = new String[FIELDS];
    private static final String[] ALL_MEMBERS = new String[FIELDS];

    static {
        Arrays.setAll(ALL_FIELDS, i -> "f" + i);
        Arrays.setAll(ALL_MEMBERS, i -> "m" + i);
    }

    @TempDir
    Path dir;

    @Test
    void readersNeverSeeAHashOrSetHalfwayBetweenOneValueAndBuckets() throws Exception {
        ServerConfig d = ServerConfig.defaults();
        // An event loop per client, so that commands run at the same time (the default is half the cores: one here)
        ServerConfig config = new ServerConfig(d.bind(), 0, -1, dir, null, d.maxClients(), d.maxBulkBytes(), 0, 8,
                ServerConfig.DEFAULT_BUSY_POLL_MICROS);
        try (ColossalServer s = ColossalServer.start(config); Jedis admin = new Jedis("127.0.0.1", s.port())) {
            admin.configSet("hash-max-listpack-entries", "4");
            admin.configSet("set-max-intset-entries", "4");
            AtomicBoolean stop = new AtomicBoolean();
            Queue<String> wrong = new ConcurrentLinkedQueue<>();
            AtomicLong reads = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int seed = w;
                threads.add(client(s.port(), stop, wrong, j -> write(j, new SplittableRandom(seed), "src" + seed, stop)));
            }
            threads.add(client(s.port(), stop, wrong, j -> writeAllOrNothing(j, stop)));
            for (int r = 0; r < 3; r++) {
                int seed = 100 + r;
                threads.add(client(s.port(), stop, wrong, j -> read(j, new SplittableRandom(seed), stop, wrong, reads)));
            }
            threads.forEach(Thread::start);
            long until = System.currentTimeMillis() + RUN_MILLIS;
            while (System.currentTimeMillis() < until && wrong.isEmpty()) {
                Thread.sleep(50);
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(wrong.isEmpty(), reads.get() + " reads, wrong: " + wrong.stream().limit(5).toList());
            assertTrue(reads.get() > 1000, "the readers read: " + reads.get());
        }
    }

    @Test
    void aOneValueReadReadsWhatTheLockedReadFoundNotWhatAWriterMadeOfTheKeyAfterIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port(), 5_000)) {
            j.configSet("hash-max-listpack-entries", "4");
            j.hset("h", fields(0, 6));
            KeyValueStore db = s.context().dbs.opened(0);
            byte[] key = "h".getBytes(StandardCharsets.UTF_8);
            KeyValueStore.Entry first = HashCommands.hash(db, key);
            assertTrue(HashBuckets.isBucketed(first));
            // Between the reader's read without the lock and its read under the lock: one value now
            j.del("h");
            j.hset("h", "f0", "v0");
            // A writer waiting for the lock makes it bucketed again the moment the reader releases it
            KeyValueStore racing = landing(db, "get", 2, () -> j.hset("h", fields(1, 6)));
            KeyValueStore.Entry e = HashCommands.bucketed(racing, key, first, h -> fail("the key held one value under the lock"));
            HashCursor c = new HashCursor(e);
            assertEquals(1, c.count(), "HLEN of the one value the locked read found");
            assertTrue(c.find("f0".getBytes(StandardCharsets.UTF_8)));
            assertEquals("v0", new String(c.value(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aSetOperationWithoutLocksReadsEachSetOnceAndNeverItsBucketsUnlocked() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port(), 5_000)) {
            j.configSet("set-max-intset-entries", "4");
            j.sadd("s", "m0");
            KeyValueStore db = s.context().dbs.opened(0);
            // After the read that found one value, a writer makes the set bucketed; once its header
            // is read, another adds members, splitting the buckets the reader is about to read
            String[] more = new String[24];
            Arrays.setAll(more, i -> "m" + (6 + i));
            KeyValueStore racing = landing(landing(db, "get", 2, () -> j.sadd("s", "m1", "m2", "m3", "m4", "m5")),
                    "elements", 1, () -> j.sadd("s", more));
            List<String> members = new ArrayList<>();
            SetAlgebra.withOperands(racing, new byte[][] {"s".getBytes(StandardCharsets.UTF_8)}, 0, 1, sets -> {
                sets[0].walk().accept(m -> members.add(new String(m, StandardCharsets.UTF_8)));
                return null;
            });
            assertEquals(List.of("m0"), members, "the set as its one read found it");
        }
    }

    /** {@code db}, but {@code writer} runs once, just before the {@code at}-th call (from 1) of {@code method}: a writer that lands there. */
    private static KeyValueStore landing(KeyValueStore db, String method, int at, Runnable writer) {
        AtomicInteger calls = new AtomicInteger();
        return (KeyValueStore) Proxy.newProxyInstance(KeyValueStore.class.getClassLoader(), new Class<?>[] {KeyValueStore.class},
                (proxy, m, args) -> {
                    if (m.getName().equals(method) && calls.incrementAndGet() == at) {
                        writer.run();
                    }
                    try {
                        return m.invoke(db, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** @return fields {@code f<from>..f<to - 1>}, each with its value {@code v<i>} */
    private static Map<String, String> fields(int from, int to) {
        Map<String, String> m = new HashMap<>();
        for (int i = from; i < to; i++) {
            m.put("f" + i, "v" + i);
        }
        return m;
    }

    /** A client connection that runs {@code body} until stopped; what it throws is a wrong read. */
    private static Thread client(int port, AtomicBoolean stop, Queue<String> wrong, java.util.function.Consumer<Jedis> body) {
        return new Thread(() -> {
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                body.accept(j);
            } catch (RuntimeException e) {
                wrong.add(e.toString());
                stop.set(true);
            }
        });
    }

    private static void write(Jedis j, SplittableRandom random, String src, AtomicBoolean stop) {
        while (!stop.get()) {
            boolean hash = random.nextBoolean();
            String key = hash ? "h" : "s";
            int n = 1 + random.nextInt(FIELDS);
            switch (random.nextInt(5)) {
                case 0 -> j.del(key);
                case 1 -> fill(j, hash, key, random, n);
                case 2 -> {
                    j.del(src);
                    fill(j, hash, src, random, n);
                    j.rename(src, key);
                }
                case 3 -> {
                    if (hash) {
                        j.hdel(key, "f" + random.nextInt(FIELDS));
                    } else {
                        j.srem(key, "m" + random.nextInt(FIELDS));
                    }
                }
                default -> fill(j, hash, key, random, 1);
            }
        }
    }

    /**
     * Sets every field of hash {@code all} to one value and adds or removes every member but
     * {@code keep} of set {@code all-set}, in one command each: a read of several fields or
     * members must find them all the same.
     */
    private static void writeAllOrNothing(Jedis j, AtomicBoolean stop) {
        String[] members = new String[FIELDS];
        Arrays.setAll(members, i -> "m" + i);
        for (long n = 0; !stop.get(); n++) {
            Map<String, String> pairs = new HashMap<>();
            for (int i = 0; i < FIELDS; i++) {
                pairs.put("f" + i, "" + n);
            }
            j.hset("all", pairs);
            j.sadd("all-set", "keep");
            if (n % 2 == 0) {
                j.sadd("all-set", members);
            } else {
                j.srem("all-set", members);
            }
        }
    }

    /** Sets {@code n} of the {@link #FIELDS} fields (or members) in one command, so that it may convert. */
    private static void fill(Jedis j, boolean hash, String key, SplittableRandom random, int n) {
        Map<String, String> pairs = new HashMap<>();
        for (int i = 0; i < n; i++) {
            int f = random.nextInt(FIELDS);
            pairs.put("f" + f, "v" + f);
        }
        if (hash) {
            j.hset(key, pairs);
        } else {
            j.sadd(key, pairs.keySet().stream().map(f -> "m" + f.substring(1)).toArray(String[]::new));
        }
    }

    private static void read(Jedis j, SplittableRandom random, AtomicBoolean stop, Queue<String> wrong, AtomicLong reads) {
        while (!stop.get()) {
            String f = "" + random.nextInt(FIELDS);
            String bad = switch (random.nextInt(16)) {
                case 14 -> same("HMGET", j.hmget("all", ALL_FIELDS));
                case 15 -> same("SMISMEMBER", j.smismember("all-set", ALL_MEMBERS));
                case 0 -> value(f, j.hget("h", "f" + f));
                case 1 -> {
                    j.hexists("h", "f" + f);
                    yield null;
                }
                case 2 -> count(j.hlen("h"));
                case 3 -> pairs(j.hgetAll("h"));
                case 4 -> count(j.hkeys("h").size());
                case 5 -> {
                    ScanResult<Map.Entry<String, String>> page = j.hscan("h", ScanParams.SCAN_POINTER_START, new ScanParams().count(100));
                    Map<String, String> m = new HashMap<>();
                    page.getResult().forEach(p -> m.put(p.getKey(), p.getValue()));
                    yield pairs(m);
                }
                case 6 -> {
                    Map<String, String> m = new HashMap<>();
                    j.hrandfieldWithValues("h", 3).forEach(p -> m.put(p.getKey(), p.getValue()));
                    yield pairs(m);
                }
                case 7 -> {
                    long n = j.hstrlen("h", "f" + f);
                    yield n == 0 || n == f.length() + 1 ? null : "HSTRLEN of f" + f + " is " + n;
                }
                case 8 -> {
                    j.sismember("s", "m" + f);
                    yield null;
                }
                case 9 -> members(j.smembers("s"));
                case 10 -> count(j.scard("s"));
                case 11 -> members(new java.util.HashSet<>(j.srandmember("s", -3)));
                case 12 -> members(j.sinter("s", "s"));
                default -> {
                    j.dump("h");
                    yield members(new java.util.HashSet<>(j.sscan("s", ScanParams.SCAN_POINTER_START, new ScanParams().count(100)).getResult()));
                }
            };
            reads.incrementAndGet();
            if (bad != null) {
                wrong.add(bad);
                stop.set(true);
            }
        }
    }

    /** @return null if every item of {@code got} is the same, else what was read */
    private static String same(String read, List<?> got) {
        return got.stream().distinct().count() <= 1 ? null : read + " saw a write of them all half done: " + got;
    }

    private static String value(String f, String v) {
        return v == null || v.equals("v" + f) ? null : "f" + f + " held " + v;
    }

    private static String count(long n) {
        return n >= 0 && n <= FIELDS ? null : "a count or length of " + n;
    }

    private static String pairs(Map<String, String> m) {
        for (Map.Entry<String, String> p : m.entrySet()) {
            if (!p.getKey().startsWith("f") || !("v" + p.getKey().substring(1)).equals(p.getValue())) {
                return "pair " + p.getKey() + "=" + p.getValue();
            }
        }
        return count(m.size());
    }

    private static String members(java.util.Set<String> members) {
        for (String m : members) {
            if (!m.matches("m[0-9]+") || Integer.parseInt(m.substring(1)) >= FIELDS) {
                return "member " + m;
            }
        }
        return count(members.size());
    }
}
