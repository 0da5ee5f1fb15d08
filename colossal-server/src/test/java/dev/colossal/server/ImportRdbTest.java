package dev.colossal.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.cli.Cli;
import dev.colossal.map.BytesMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code colossal import-rdb} on a dump redis-server wrote: strings of every encoding, TTLs,
 * several databases and every other type, then served by Colossal and compared, key by key, with
 * what redis-server answered; and the dumps and directories it must refuse.
 */
class ImportRdbTest {

    /** A string under 21 bytes is saved as it is: the bytes a flip test changes. */
    private static final String FLIP_TARGET = "flip-target-0123";
    private static final byte[] V = "v".getBytes(UTF_8);
    @TempDir
    static Path redisDir;
    @TempDir
    Path tmp;
    private static Path dump;
    /** The string keys (as ISO-8859-1 text, so any byte is a char) per database, with the GET reply redis-server gave. */
    private static final Map<Integer, Map<String, byte[]>> EXPECTED = new TreeMap<>();
    /** Each key's deadline as redis-server answered it (now + PTTL), -1 for none. */
    private static final Map<String, Long> DEADLINES = new LinkedHashMap<>();
    private static long exactDeadline;
    private static Process redis;
    private static int selected;

    @BeforeAll
    static void dumpFromRedis() throws Exception {
        int port = TestServers.freePort();
        redis = TestServers.redis(port, "--dir", redisDir.toString(), "--rdbcompression", "yes");
        if (redis == null) {
            return;
        }
        Random random = new Random(7);
        byte[] incompressible = new byte[200_000];
        random.nextBytes(incompressible);
        try (Wire w = new Wire(port)) {
            // database 0: strings of every encoding
            set(w, "small", "hi".getBytes(UTF_8));
            set(w, "twenty", "abcdefghijklmnopqrst".getBytes(UTF_8));          // 20 bytes: saved as is
            set(w, "long", ("colossal ".repeat(30) + "end").getBytes(UTF_8));   // LZF
            set(w, "flip", FLIP_TARGET.getBytes(UTF_8));
            for (String n : List.of("0", "12", "-100", "127", "-128", "3000", "-32768", "32767", "70000", "2147483647",
                    "-2147483648", "2147483648", "9223372036854775807", "007", "+5", "1e3")) {
                set(w, "int:" + n, n.getBytes(UTF_8));
            }
            set(w, "empty", new byte[0]);
            w.call("FUNCTION", "LOAD", "#!lua name=imported\n"
                    + "redis.register_function('twice', function(keys, args) return args[1] .. args[1] end)");
            set(w, "bin", new byte[] {'a', '\r', '\n', 'b', 0, 'c', (byte) 0xff});
            set(w, new String(new byte[] {'k', '\r', '\n', 0, (byte) 0x80}, ISO_8859_1), "binary key".getBytes(UTF_8));
            set(w, "big-random", incompressible);
            set(w, "big-text", "0123456789abcdef".repeat(20_000).getBytes(UTF_8));
            set(w, "ttl-px", V, "PX", "5000000");
            set(w, "ttl-ex", V, "EX", "100000");
            set(w, "ttl-at", V);
            exactDeadline = System.currentTimeMillis() + 7_200_000 + 37;
            w.call("PEXPIREAT", "ttl-at", Long.toString(exactDeadline));
            w.call("SET", "soon", "gone", "PX", "1500");
            // other types, compact and full encodings
            w.call("RPUSH", "list-small", "a", "b", "c");
            w.call(args("RPUSH", "list-big", 3000, i -> "item-" + i));
            w.call("SADD", "set-ints", "1", "2", "3");
            w.call("SADD", "set-small", "a", "b");
            w.call(args("SADD", "set-big", 1000, i -> "member-" + i));
            w.call("ZADD", "zset-small", "1", "a", "2.5", "b");
            w.call("HSET", "hash-small", "f", "v");
            w.call("XADD", "stream-plain", "1-1", "f", "v", "n", "1");
            w.call(args("XADD", "stream-plain", 251, i -> i == 0 ? "MAXLEN" : i == 1 ? "1000" : i == 2 ? "5-*" : "k" + i));
            for (int i = 6; i < 400; i++) {
                w.call("XADD", "stream-plain", i + "-0", i % 2 == 0 ? "f" : "g", Integer.toString(i * 1000), "n", "x" + i);
            }
            w.call("XDEL", "stream-plain", "100-0");
            w.call("XSETID", "stream-plain", "500-5", "ENTRIESADDED", "999", "MAXDELETEDID", "450-0");
            w.call("RPUSH", "list-soon", "x");
            w.call("PEXPIRE", "list-soon", "1500");
            select(w, 3);
            set(w, "three", "in db 3".getBytes(UTF_8));
            set(w, "three-ttl", V, "PX", "9000000");
            w.call(args("ZADD", "zset-big", 300, i -> i % 2 == 0 ? Integer.toString(i) : "m" + i));
            w.call(args("HSET", "hash-big", 600, i -> "f" + (i / 2) + (i % 2 == 0 ? "" : "v" + "x".repeat(i % 90))));
            w.call("XADD", "stream", "*", "f", "v");
            w.call("XADD", "stream", "*", "f", "w");
            w.call("XGROUP", "CREATE", "stream", "g", "0");
            w.call("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "stream", ">");
            select(w, 15);
            set(w, "last", "db 15".getBytes(UTF_8));
            assertEquals("+OK\r\n", w.call("SAVE"));
            for (int db : List.of(0, 3, 15)) {
                select(w, db);
                for (var key : EXPECTED.get(db).entrySet()) {
                    key.setValue(w.call("GET".getBytes(UTF_8), key.getKey().getBytes(ISO_8859_1)));
                    DEADLINES.put(db + ":" + key.getKey(), deadline(w, key.getKey()));
                }
            }
        }
        dump = redisDir.resolve("dump.rdb");
        Thread.sleep(1600); // "soon" and "list-soon" expire: the import drops them, as Redis does loading a dump
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.destroyForcibly();
        }
    }

    /** SET, with the key kept as one redis-server's answers for it are compared on. */
    private static void set(Wire w, String key, byte[] value, String... options) throws IOException {
        byte[][] a = new byte[3 + options.length][];
        a[0] = "SET".getBytes(UTF_8);
        a[1] = key.getBytes(ISO_8859_1);
        a[2] = value;
        for (int i = 0; i < options.length; i++) {
            a[3 + i] = options[i].getBytes(UTF_8);
        }
        w.call(a);
        EXPECTED.computeIfAbsent(selected, d -> new TreeMap<>()).put(key, null);
    }

    private static void select(Wire w, int db) throws IOException {
        w.call("SELECT", Integer.toString(db));
        selected = db;
    }

    /** @return {@code command key} and {@code n} arguments made by {@code arg} */
    private static byte[][] args(String command, String key, int n, java.util.function.IntFunction<String> arg) {
        byte[][] a = new byte[n + 2][];
        a[0] = command.getBytes(UTF_8);
        a[1] = key.getBytes(UTF_8);
        for (int i = 0; i < n; i++) {
            a[i + 2] = arg.apply(i).getBytes(UTF_8);
        }
        return a;
    }

    private static long deadline(Wire w, String key) throws IOException {
        long now = System.currentTimeMillis();
        long pttl = Long.parseLong(new String(w.call("PTTL".getBytes(UTF_8), key.getBytes(ISO_8859_1)), UTF_8).substring(1).strip());
        return pttl < 0 ? pttl : now + pttl;
    }

    private static void needRedis() {
        Assumptions.assumeTrue(redis != null, "redis-server not installed: import-rdb tests SKIPPED");
    }

    private Cli.Run importInto(Path dir, String... more) {
        List<String> a = new ArrayList<>(List.of("import-rdb", dump.toString(), "--data", dir.toString()));
        a.addAll(List.of(more));
        return Cli.run(a.toArray(String[]::new));
    }

    @Test
    void servesEveryStringAndDeadlineRedisHad() throws Exception {
        needRedis();
        Path dir = tmp.resolve("data");
        Cli.Run run = importInto(dir);
        assertEquals(0, run.exit(), run.err());
        int db0 = EXPECTED.get(0).size();
        // the two hashes (hash-small in db 0, a listpack; hash-big in db 3, type 4), the three sets in db 0 (an
        // intset, type 11; a small and a large hashtable, type 2), the two lists in db 0 (quicklists of one and of
        // several listpack nodes) and the two sorted sets (zset-small in db 0, a listpack; zset-big in db 3, type 5)
        // are keys of their databases too
        for (String said : List.of("db0: " + (db0 + 8) + " keys imported", "db3: 5 keys imported", "db15: 1 key imported",
                "hashes among them: 2", "sets among them: 3", "lists among them: 2", "sorted sets among them: 2",
                "streams among them: 2", "2 already expired", "CRC-64 verified", "function libraries: 1")) {
            assertTrue(run.out().contains(said), said + " in:\n" + run.out());
        }
        String notImported = run.out().lines().filter(l -> l.contains("not imported")).findFirst().orElseThrow();
        assertFalse(notImported.replace("strings, hashes, sets, lists, sorted sets", "").contains("hash"), run.out());
        assertFalse(run.out().contains("zset"), run.out());
        try (ColossalServer server = TestServers.colossal(dir); Wire w = new Wire(server.port())) {
            assertEquals("$4\r\nabab\r\n", w.call("FCALL", "twice", "0", "ab"), "the dump's function library came too");
            for (var db : EXPECTED.entrySet()) {
                w.call("SELECT", Integer.toString(db.getKey()));
                int others = db.getKey() == 0 ? 8 : db.getKey() == 3 ? 3 : 0; // hashes, sets, lists, sorted sets, streams
                assertEquals(":" + (db.getValue().size() + others) + "\r\n", w.call("DBSIZE"), "db" + db.getKey());
                for (var key : db.getValue().entrySet()) {
                    assertArrayEquals(key.getValue(), w.call("GET".getBytes(UTF_8),
                            key.getKey().getBytes(ISO_8859_1)), key.getKey());
                }
                for (var key : db.getValue().entrySet()) {
                    long theirs = DEADLINES.get(db.getKey() + ":" + key.getKey());
                    long ours = deadline(w, key.getKey());
                    assertTrue(theirs < 0 ? ours == theirs : Math.abs(ours - theirs) < 1000,
                            key.getKey() + ": " + ours + " vs redis-server's " + theirs);
                }
            }
            w.call("SELECT", "0");
            assertEquals(":0\r\n", w.call("EXISTS", "soon", "list-soon"));
            assertEquals("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", w.call("LRANGE", "list-small", "0", "-1"));
            assertEquals(":3000\r\n", w.call("LLEN", "list-big"));
            for (int i : new int[] {0, 1, 1234, 2999}) {
                String v = "item-" + i;
                assertEquals("$" + v.length() + "\r\n" + v + "\r\n", w.call("LINDEX", "list-big", Integer.toString(i)));
            }
            assertEquals("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$3\r\n2.5\r\n",
                    w.call("ZRANGE", "zset-small", "0", "-1", "WITHSCORES"));
            assertEquals("$8\r\nlistpack\r\n", w.call("OBJECT", "ENCODING", "zset-small"));
            assertEquals("*2\r\n$1\r\nf\r\n$1\r\nv\r\n", w.call("HGETALL", "hash-small"));
            assertEquals("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", w.call("SMEMBERS", "set-ints"));
            assertEquals("$6\r\nintset\r\n", w.call("OBJECT", "ENCODING", "set-ints"));
            assertEquals(":2\r\n", w.call("SCARD", "set-small"));
            assertEquals("*2\r\n:1\r\n:1\r\n", w.call("SMISMEMBER", "set-small", "a", "b"));
            assertEquals(":1000\r\n", w.call("SCARD", "set-big"));
            for (int i = 0; i < 1000; i++) {
                assertEquals(":1\r\n", w.call("SISMEMBER", "set-big", "member-" + i), "member-" + i);
            }
            assertEquals("$9\r\nhashtable\r\n", w.call("OBJECT", "ENCODING", "set-big"));
            assertEquals("$8\r\nlistpack\r\n", w.call("OBJECT", "ENCODING", "hash-small"));
            // the stream: every entry, its fields in order, and the counters XSETID set
            assertEquals(":395\r\n", w.call("XLEN", "stream-plain"));
            assertEquals("*1\r\n*2\r\n$3\r\n1-1\r\n*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\nn\r\n$1\r\n1\r\n",
                    w.call("XRANGE", "stream-plain", "-", "+", "COUNT", "1"));
            assertEquals("*1\r\n*2\r\n$5\r\n399-0\r\n*4\r\n$1\r\ng\r\n$6\r\n399000\r\n$1\r\nn\r\n$4\r\nx399\r\n",
                    w.call("XREVRANGE", "stream-plain", "+", "-", "COUNT", "1"));
            assertEquals("*0\r\n", w.call("XRANGE", "stream-plain", "100", "100"));
            assertEquals("-ERR The ID specified in XADD is equal or smaller than the target stream top item\r\n",
                    w.call("XADD", "stream-plain", "500-5", "f", "v"));
            String info = w.call("XINFO", "STREAM", "stream-plain");
            assertTrue(info.contains("$13\r\nentries-added\r\n:999\r\n") && info.contains("450-0"), info);
            w.call("SELECT", "3");
            assertEquals(":300\r\n", w.call("HLEN", "hash-big"));
            for (int k = 0; k < 300; k++) {
                String v = "f" + k + "v" + "x".repeat((2 * k + 1) % 90);
                assertEquals("$" + v.length() + "\r\n" + v + "\r\n", w.call("HGET", "hash-big", "f" + k), "field f" + k);
            }
            assertEquals("$9\r\nhashtable\r\n", w.call("OBJECT", "ENCODING", "hash-big"));
            assertEquals(":150\r\n", w.call("ZCARD", "zset-big")); // ZADD's pairs: score 2k, member m(2k+1)
            assertEquals("*2\r\n$4\r\nm299\r\n$3\r\n298\r\n", w.call("ZRANGE", "zset-big", "-1", "-1", "WITHSCORES"));
            assertEquals("$8\r\nskiplist\r\n", w.call("OBJECT", "ENCODING", "zset-big"));
            // the grouped stream with its group: one entry delivered to c1 and pending, one left to read
            String pending = w.call("XPENDING", "stream", "g");
            assertTrue(pending.startsWith("*4\r\n:1\r\n") && pending.endsWith("*1\r\n*2\r\n$2\r\nc1\r\n$1\r\n1\r\n"),
                    pending);
            assertTrue(w.call("XINFO", "GROUPS", "stream").contains("$3\r\nlag\r\n:1\r\n"));
        }
        // the deadline to the millisecond, as PEXPIREAT set it
        try (BytesMap map = BytesMap.openReadOnly(dir.resolve("db0.map"))) {
            assertEquals(exactDeadline, StoredValue.expireAt(map.get("ttl-at".getBytes(UTF_8))));
        }
    }

    /** Runs import-rdb on a copy of the dump that {@code change} made from its bytes. */
    private Cli.Run importChanged(String name, java.util.function.UnaryOperator<byte[]> change) throws IOException {
        Path file = tmp.resolve(name);
        Files.write(file, change.apply(Files.readAllBytes(dump)));
        return Cli.run("import-rdb", file.toString(), "--data", tmp.resolve("data").toString());
    }

    @Test
    void aCutDumpIsRefusedAtItsOffsetAndNothingIsWritten() throws Exception {
        needRedis();
        Cli.Run run = importChanged("cut.rdb", all -> Arrays.copyOf(all, all.length / 2));
        assertEquals(1, run.exit(), run.err());
        assertTrue(run.err().contains("cut short at offset") && run.err().contains("nothing was imported"), run.err());
        assertFalse(Files.exists(tmp.resolve("data")), "the check pass refused it before the directory was made");
    }

    @Test
    void aChangedByteIsACrcMismatch() throws Exception {
        needRedis();
        long crcAt = Files.size(dump) - 8;
        Cli.Run run = importChanged("flipped.rdb", all -> {
            int at = indexOf(all, FLIP_TARGET.getBytes(UTF_8));
            assertTrue(at > 0, "the value is saved as it is");
            all[at] ^= 1;
            return all;
        });
        assertEquals(1, run.exit(), run.err());
        assertTrue(run.err().contains("CRC-64") && run.err().contains("offset " + crcAt), run.err());
    }

    @Test
    void aNewerVersionIsRefusedByNumber() throws Exception {
        needRedis();
        Cli.Run run = importChanged("newer.rdb", all -> {
            all[7] = '9';
            return all;
        });
        assertEquals(2, run.exit(), run.err());
        assertTrue(run.err().contains("RDB version 90"), run.err());
    }

    @Test
    void aServedDirectoryIsRefused() throws Exception {
        needRedis();
        Path dir = tmp.resolve("data");
        try (ColossalServer server = TestServers.colossal(dir)) {
            assertTrue(server.port() > 0);
            Cli.Run run = importInto(dir);
            assertEquals(2, run.exit(), run.err());
            assertTrue(run.err().contains("in use by another colossal serve"), run.err());
        }
    }

    @Test
    void aDatabaseWithKeysNeedsReplaceWhichKeepsTheOthers() throws Exception {
        needRedis();
        Path dir = tmp.resolve("data");
        assertEquals(0, importInto(dir).exit());
        try (ColossalServer server = TestServers.colossal(dir); Wire w = new Wire(server.port())) {
            w.call("SET", "mine", "kept");
            w.call("SET", "small", "changed");
        }
        Cli.Run refused = importInto(dir);
        assertEquals(2, refused.exit(), refused.err());
        assertTrue(refused.err().contains("holds") && refused.err().contains("--replace"), refused.err());
        Cli.Run replaced = importInto(dir, "--replace");
        assertEquals(0, replaced.exit(), replaced.err());
        try (ColossalServer server = TestServers.colossal(dir); Wire w = new Wire(server.port())) {
            assertEquals("$2\r\nhi\r\n", w.call("GET", "small"));
            assertEquals("$4\r\nkept\r\n", w.call("GET", "mine"));
        }
    }

    private static int indexOf(byte[] in, byte[] part) {
        for (int i = 0; i + part.length <= in.length; i++) {
            if (Arrays.equals(in, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }
}
