package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.rdb.RdbReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * A snapshot bigger than the server's heap and than a replica's output limit ({@link SnapshotFile}):
 * a server in a 64 MB heap holding 300 MB of values gives {@code redis-cli --rdb} the whole file and
 * a redis-server replica a full sync, then the stream after it; and every snapshot file it made is
 * let go once sent, or once its reader went away halfway.
 */
class BigSnapshotTest {

    private static final int KEYS = 300;
    private static final int VALUE = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void aSnapshotPastTheHeapAndTheReplicaLimitGoesFromDisk() throws Exception {
        Assumptions.assumeTrue(TestServers.onPath("redis-server") != null && TestServers.onPath("redis-cli") != null,
                "redis-server and redis-cli not installed");
        int port = TestServers.freePort();
        Path log = dir.resolve("server.log");
        Process server = TestServers.serveInChildJvm(List.of("-Xmx64m"), port, dir.resolve("data"), log);
        Process replica = null;
        try {
            try (Jedis j = new Jedis("127.0.0.1", port, 60_000)) {
                for (int i = 0; i < KEYS; i += 10) {
                    Pipeline p = j.pipelined();
                    for (int k = i; k < i + 10; k++) {
                        p.set(key(k), value(k));
                    }
                    p.sync();
                }

                // a reader that goes away halfway: its file is let go
                try (Socket half = new Socket("127.0.0.1", port)) {
                    half.getOutputStream().write(Wire.encode("REPLCONF", "rdb-only", "1"));
                    assertEquals("+OK\r\n", new String(half.getInputStream().readNBytes(5), StandardCharsets.US_ASCII));
                    half.getOutputStream().write(Wire.encode("SYNC"));
                    half.getInputStream().skipNBytes(50L << 20);
                }

                Path file = dir.resolve("dump.rdb");
                Process cli = new ProcessBuilder("redis-cli", "-p", Integer.toString(port), "--rdb", file.toString())
                        .redirectErrorStream(true).start();
                String said = new String(cli.getInputStream().readAllBytes());
                assertTrue(cli.waitFor(120, TimeUnit.SECONDS) && cli.exitValue() == 0, said);
                assertTrue(said.contains("Transfer finished with success"), said);
                assertTrue(Files.size(file) > (long) KEYS * VALUE, "the file holds every value: " + Files.size(file));
                assertEquals(KEYS, keysIn(file));

                int replicaPort = TestServers.freePort();
                replica = TestServers.redis(replicaPort, "--replicaof", "127.0.0.1", Integer.toString(port),
                        "--dir", Files.createDirectories(dir.resolve("replica")).toString());
                try (Jedis r = new Jedis("127.0.0.1", replicaPort, 60_000)) {
                    assertEquals("up", TestServers.await("up", 120_000, () -> PolyglotClientsTest.field(r.info("replication"), "master_link_status")), "the replica's link");
                    assertEquals(KEYS, r.dbSize());
                    assertEquals(value(123), r.get(key(123)));
                    j.set("after", "the stream goes on behind the file");
                    assertEquals("the stream goes on behind the file",
                            TestServers.await("the stream goes on behind the file", 20_000, () -> r.get("after")));
                }
                assertEquals(KEYS + 1, j.dbSize(), "the server goes on");
            }
            assertEquals(0L, TestServers.await(0L, 20_000, () -> snapshotFilesOpen(server)),
                    "every snapshot file is let go once sent or given up");
        } finally {
            if (replica != null) {
                replica.destroy();
                replica.waitFor();
            }
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String key(int i) {
        return "big:" + i;
    }

    /** A value of its own for each key: its number, then filler. */
    private static String value(int i) {
        String head = i + ":";
        return head + "v".repeat(VALUE - head.length());
    }

    /** @return the keys in the RDB file, checked whole (its CRC-64 too) */
    private static int keysIn(Path file) throws Exception {
        int[] keys = {0};
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment rdb = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            RdbReader.Result read = RdbReader.read(rdb, RdbReader.Mode.CHECK, new RdbReader.Visitor() {
                @Override
                public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {
                    keys[0]++;
                }

                @Override
                public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {
                    keys[0]++;
                }
            });
            assertEquals(RdbReader.ChecksumState.VERIFIED, read.checksum());
        }
        return keys[0];
    }

    /** @return the snapshot files {@code server} has open: unlinked, so only its descriptors name them */
    private static long snapshotFilesOpen(Process server) throws java.io.IOException {
        try (var fds = Files.list(Path.of("/proc", Long.toString(server.pid()), "fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().contains(".snapshot-");
                } catch (java.io.IOException e) {
                    return false; // closed meanwhile
                }
            }).count();
        }
    }
}
