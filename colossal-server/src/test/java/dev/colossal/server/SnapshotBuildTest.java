package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.rdb.RdbReader;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * A snapshot built while writes go on ({@link SnapshotBuild}): the file holds every key as it stood
 * at the start whichever side of the builder the writes fall, and a build no one waits for any
 * more stops.
 */
class SnapshotBuildTest {

    @TempDir
    Path dir;

    /**
     * Writes between the builder's first step and its second, to keys it has taken and keys it
     * has not, in the database it is in and in one it has not begun: overwrites, deletes, a
     * created key, a list grown, a key created then deleted. The file holds the start's keys with
     * the start's values, each once, and none of the created ones.
     */
    @Test
    void theFileHoldsTheStartWhateverTheWritesAfterIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis w = new Jedis("127.0.0.1", s.port())) {
            Map<String, String> want = new TreeMap<>();
            Pipeline p = j.pipelined();
            for (int i = 0; i < 5_000; i++) {
                p.set("s" + i, "v" + i);
                want.put("0:s" + i, "v" + i);
            }
            p.sync();
            j.rpush("list", "a", "b");
            want.put("0:list", "list");
            j.select(1);
            j.set("one", "before");
            want.put("1:one", "before");
            j.select(0);

            ServerContext ctx = s.context();
            SnapshotBuild b = new SnapshotBuild(ctx, false, false);
            boolean[] wrote = {false};
            SnapshotFile built = b.build(() -> {
                if (wrote[0]) {
                    return;
                }
                wrote[0] = true; // after the first step: some keys taken, most not
                for (int i = 0; i < 5_000; i++) {
                    b.beforeWrite(0, key("s" + i));
                    if (i % 3 == 0) {
                        w.del("s" + i);
                    } else {
                        w.set("s" + i, "after");
                    }
                }
                for (int i = 0; i < 100; i++) {
                    b.beforeWrite(0, key("new" + i));
                    w.set("new" + i, "x");
                }
                b.beforeWrite(0, key("gone"));
                w.set("gone", "x");
                b.beforeWrite(0, key("gone")); // kept already: keeps nothing more
                w.del("gone");
                b.beforeWrite(0, key("list"));
                w.rpush("list", "c");
                w.select(1);
                b.beforeWrite(1, key("one"));
                w.set("one", "after");
                b.beforeWrite(1, key("two"));
                w.set("two", "new");
                w.select(0);
            });
            assertTrue(wrote[0]);
            assertNotNull(built);
            java.nio.ByteBuffer file = java.nio.ByteBuffer.allocate((int) built.length());
            assertEquals(built.length(), built.read(file, 0));
            built.release();
            assertEquals(want, keys(file.array()));
        }
    }

    /**
     * Transfers between 20,000 accounts (MULTI, DECRBY one, INCRBY another, EXEC) on two other
     * connections throughout a slowed snapshot of many steps: every account is in the file once,
     * and they add up to what they held in all, whether a transfer fell behind the builder, ahead
     * of it, or across it.
     */
    @Test
    void manyStepsOfTransfersAddUp() throws Exception {
        int accounts = 20_000;
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong transfers = new java.util.concurrent.atomic.AtomicLong();
        java.util.List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        byte[] file;
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < accounts; i++) {
                p.set("acct:" + i, "1000");
            }
            p.sync();
            j.configSet("rdb-key-save-delay", "50"); // a second or more in all, some 40 steps
            java.util.List<Thread> writers = RdbSnapshotTest.transferring(s.port(), accounts, stop, transfers, failures);
            Thread.sleep(100);
            long before = transfers.get();
            try (Socket cli = new Socket("127.0.0.1", s.port())) {
                cli.setSoTimeout(60_000);
                cli.getOutputStream().write(Wire.encode("REPLCONF", "rdb-only", "1"));
                assertEquals("+OK\r\n", new String(cli.getInputStream().readNBytes(5), StandardCharsets.US_ASCII));
                cli.getOutputStream().write(Wire.encode("SYNC"));
                file = payload(cli.getInputStream());
            }
            long during = transfers.get() - before;
            stop.set(true);
            for (Thread t : writers) {
                t.join();
            }
            assertEquals(java.util.List.of(), failures);
            assertTrue(during > 100, "transfers went on while the snapshot was built: " + during);
        }
        Map<String, String> all = keys(file);
        assertEquals(accounts, all.size());
        long total = 0;
        for (String v : all.values()) {
            total += Long.parseLong(v);
        }
        assertEquals(1000L * accounts, total, "the accounts in the snapshot add up");
    }

    /** @return the RDB file of a SYNC reply: {@code $len}, CRLF, the bytes (newlines before it skipped) */
    private static byte[] payload(java.io.InputStream in) throws Exception {
        int c;
        while ((c = in.read()) == '\n') {
            // a newline while it is built
        }
        assertEquals('$', c);
        StringBuilder len = new StringBuilder();
        while ((c = in.read()) != '\r') {
            len.append((char) c);
        }
        assertEquals('\n', in.read());
        return in.readNBytes(Integer.parseInt(len.toString()));
    }

    /**
     * {@code redis-cli --rdb}'s client closes while its (slowed) snapshot is being built: the build
     * stops at once (INFO's rdb_bgsave_in_progress goes to 0) instead of running to its end for no
     * one, and writes after it keep nothing.
     */
    @Test
    void aSnapshotWhoseClientWentAwayStops() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j, 3_000);
            j.configSet("rdb-key-save-delay", "2000"); // 2 ms a key: 6 s in all
            try (Socket cli = new Socket("127.0.0.1", s.port())) {
                cli.setSoTimeout(10_000);
                cli.getOutputStream().write(Wire.encode("REPLCONF", "rdb-only", "1"));
                assertEquals("+OK\r\n", new String(cli.getInputStream().readNBytes(5), StandardCharsets.US_ASCII));
                cli.getOutputStream().write(Wire.encode("SYNC"));
                awaitBuilding(j, 1);
                Thread.sleep(200); // some keys in
            }
            long closed = System.nanoTime();
            awaitBuilding(j, 0);
            long millis = (System.nanoTime() - closed) / 1_000_000;
            assertTrue(millis < 2_000, "stopped " + millis + " ms after its client went, not at its end");
            j.set("k0", "after");
            assertEquals("after", j.get("k0"));
        }
    }

    /**
     * A snapshot for replicas is theirs together: one of two replicas going leaves it building for
     * the other, and the last one going stops it.
     */
    @Test
    void aReplicasSnapshotStopsWhenItsLastReplicaGoes() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j, 3_000);
            j.configSet("rdb-key-save-delay", "2000");
            Socket first = new Socket("127.0.0.1", s.port());
            try (Socket second = new Socket("127.0.0.1", s.port())) {
                psync(first);
                awaitBuilding(j, 1);
                psync(second);
                first.close();
                Thread.sleep(500);
                assertEquals("1", info(j, "rdb_bgsave_in_progress"), "the second replica still waits for it");
            }
            long closed = System.nanoTime();
            awaitBuilding(j, 0);
            long millis = (System.nanoTime() - closed) / 1_000_000;
            assertTrue(millis < 2_000, "stopped " + millis + " ms after its last replica went");
        }
    }

    private static byte[] key(String k) {
        return k.getBytes(StandardCharsets.US_ASCII);
    }

    private static void fill(Jedis j, int n) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i++) {
            p.set("k" + i, "v" + i);
        }
        p.sync();
    }

    private static void psync(Socket s) throws Exception {
        s.setSoTimeout(10_000);
        s.getOutputStream().write(Wire.encode("PSYNC", "?", "-1"));
        int c = s.getInputStream().read();
        assertEquals('+', c, "a +FULLRESYNC line");
    }

    private static void awaitBuilding(Jedis j, int want) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!info(j, "rdb_bgsave_in_progress").equals(Integer.toString(want)) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(Integer.toString(want), info(j, "rdb_bgsave_in_progress"));
    }

    private static String info(Jedis j, String field) {
        for (String line : j.info("persistence").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return "";
    }

    /** @return each key of the file as {@code db:key}, with its value if a string, else its type; a key twice fails */
    private static Map<String, String> keys(byte[] file) throws Exception {
        Map<String, String> out = new TreeMap<>();
        RdbReader.Visitor v = new RdbReader.Visitor() {
            @Override
            public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {
                add(db, key, new String(value, StandardCharsets.ISO_8859_1));
            }

            @Override
            public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {
                add(db, key, type);
            }

            private void add(int db, byte[] key, String value) {
                String k = db + ":" + new String(key, StandardCharsets.ISO_8859_1);
                assertEquals(null, out.put(k, value), "once: " + k);
            }
        };
        RdbReader.Visitor nothing = new RdbReader.Visitor() {
            @Override
            public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {}

            @Override
            public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {}
        };
        assertEquals(RdbReader.ChecksumState.VERIFIED, RdbReader.read(MemorySegment.ofArray(file), RdbReader.Mode.CHECK, nothing).checksum());
        RdbReader.read(MemorySegment.ofArray(file), RdbReader.Mode.LOAD, v);
        return out;
    }
}
