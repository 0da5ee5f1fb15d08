package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * PFADD, PFCOUNT and PFMERGE through Jedis: counts within HyperLogLog's error, the same bytes as
 * redis-server after the same adds (sparse and dense), kept over a restart, and exact under
 * concurrent adds. {@code redis-compat.txt} holds the byte-for-byte replies and errors.
 */
class HyperLogLogTest {

    @TempDir
    Path dir;

    @Test
    void countsStayWithinTheEstimatorsErrorAndSurviveARestart() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int batch = 0; batch < 100; batch++) {
                String[] elements = new String[1000];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = "user:" + (batch * 1000 + i);
                }
                j.pfadd("visitors", elements);
            }
            long n = j.pfcount("visitors");
            assertTrue(Math.abs(n - 100_000) < 100_000 * 0.0081 * 3, "within three standard errors of 100,000: " + n);
            j.pfadd("other", "user:1", "someone-new");
            long union = j.pfcount("visitors", "other");
            assertTrue(union >= n && union <= n + 2, "the union adds at most about the one element not seen: " + union);
            j.pfmerge("all", "visitors", "other");
            assertEquals(union, j.pfcount("all"), "the merged value counts what the union did");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(j.pfcount("visitors", "other"), j.pfcount("all"));
            assertEquals("dense", new String((byte[]) j.sendCommand(() -> "PFDEBUG".getBytes(), "ENCODING", "all")));
        }
    }

    @Test
    void theValuesBytesAreRedissAfterTheSameAdds() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer s = TestServers.colossal(dir);
                Jedis ours = new Jedis("127.0.0.1", s.port());
                Jedis theirs = new Jedis("127.0.0.1", redisPort)) {
            java.util.Random random = new java.util.Random(7);
            // Sparse while small, then past 3000 bytes dense: every step compared
            for (int step = 0; step < 400; step++) {
                String[] batch = new String[1 + random.nextInt(8)];
                for (int i = 0; i < batch.length; i++) {
                    batch[i] = Long.toString(random.nextLong(), 36);
                }
                assertEquals(theirs.pfadd("h", batch), ours.pfadd("h", batch), "step " + step);
                if (step % 7 == 0) {
                    assertEquals(theirs.pfcount("h"), ours.pfcount("h"));
                }
                assertArrayEquals(theirs.get("h".getBytes()), ours.get("h".getBytes()), "bytes after step " + step);
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    @Test
    void concurrentAddsLoseNoRegister() throws Exception {
        // Four event loops, so that the connections' commands run at the same time even on two cores
        ServerConfig d = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        ServerConfig four = new ServerConfig(d.bind(), d.port(), d.httpPort(), d.dataDir(), d.requirePass(), d.maxClients(),
                d.maxBulkBytes(), d.idleTimeoutSeconds(), 4, d.busyPollMicros());
        try (ColossalServer s = ColossalServer.start(four)) {
            int threads = 8;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                        for (int i = 0; i < 2000; i++) {
                            j.pfadd("shared", "t" + id + ":" + i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                for (int t = 0; t < threads; t++) {
                    for (int i = 0; i < 2000; i++) {
                        j.pfadd("alone", "t" + t + ":" + i);
                    }
                }
                // A lost update would leave a register lower than one add alone makes it
                assertEquals(registers(j, "alone"), registers(j, "shared"));
                assertEquals(j.pfcount("alone"), j.pfcount("shared"));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Long> registers(Jedis j, String key) {
        return (List<Long>) j.sendCommand(() -> "PFDEBUG".getBytes(), "GETREG", key);
    }
}
