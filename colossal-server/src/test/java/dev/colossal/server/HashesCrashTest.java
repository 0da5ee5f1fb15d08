package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A server in another JVM killed with SIGKILL while clients HSET new fields into a bucketed hash
 * and HSET and HDEL fields of another, with {@code hash-max-listpack-entries 4} so that buckets
 * split every few fields: after a restart every acknowledged HSET is there, every acknowledged
 * HDEL gone, HLEN equals the fields HGETALL returns, and the collector frees what the kill left
 * half-written.
 */
class HashesCrashTest {

    private static final int KEEP = 50;
    private static final int PIPELINE = 64;

    @TempDir
    Path dir;

    @Test
    void aKillWhileSettingAndDeletingFieldsOfBigHashesLosesNothingAcknowledged() throws Exception {
        Path data = dir.resolve("data");
        AtomicLong added = new AtomicLong(-1);
        AtomicLong churned = new AtomicLong(-1);
        AtomicLong deleted = new AtomicLong(-1);
        for (int round = 0; round < 3; round++) {
            int port = TestServers.freePort();
            Path log = dir.resolve("server" + round + ".log");
            Process server = TestServers.serveInChildJvm(port, data, log);
            long addedBefore = added.get();
            try {
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    j.configSet("hash-max-listpack-entries", "4");
                }
                AtomicBoolean stop = new AtomicBoolean();
                long fromAdd = added.get() + 1;
                long fromChurn = churned.get() + 1;
                // Pipelined, so that the server is busy writing, and a kill lands mid-write, most of the time
                Thread adder = PipelinedWrites.thread(port, stop, fromAdd, PIPELINE,
                        k -> Wire.encode("HSET", "big", "f" + k, "v" + k), ":1\r\n", added);
                Thread churner = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port)) {
                        for (long i = fromChurn; !stop.get(); i++) {
                            j.hset("churn", "f" + i, "v" + i);
                            churned.set(i);
                            if (i >= KEEP) {
                                j.hdel("churn", "f" + (i - KEEP));
                                deleted.set(i - KEEP);
                            }
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call
                    }
                });
                adder.start();
                churner.start();
                PipelinedWrites.awaitAcknowledged(added, fromAdd + 2 * PIPELINE);
                Thread.sleep(300 + 500L * round);
                // On a loaded machine the pipelined adder can starve the churner: the kill waits
                // (up to 20 s) for it to have churned past KEEP, so that every round checks deletions
                long waitUntil = System.nanoTime() + 20_000_000_000L;
                while (churned.get() < fromChurn + KEEP && System.nanoTime() < waitUntil) {
                    Thread.sleep(20);
                }
                server.destroyForcibly().waitFor();
                stop.set(true);
                adder.join();
                churner.join();
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(added.get() > addedBefore, "round " + round + ": some HSETs were acknowledged");
            try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
                Map<String, String> big = j.hgetAll("big");
                assertEquals(big.size(), j.hlen("big"), "round " + round + ": HLEN agrees with HGETALL");
                assertTrue(big.size() >= added.get() + 1 && big.size() <= added.get() + 1 + PIPELINE,
                        "round " + round + ": " + big.size() + " fields after " + (added.get() + 1) + " acknowledged HSETs");
                for (long i = 0; i <= added.get(); i++) {
                    assertEquals("v" + i, big.get("f" + i), "round " + round + ": field f" + i);
                }
                for (long i = added.get() + 1; i < big.size(); i++) {
                    assertEquals("v" + i, big.get("f" + i), "round " + round + ": unacknowledged field f" + i);
                }
                added.set(big.size() - 1); // HSETs that landed unacknowledged are kept
                Map<String, String> churn = j.hgetAll("churn");
                assertEquals(churn.size(), j.hlen("churn"), "round " + round + ": HLEN agrees with HGETALL");
                for (long i = 0; i <= deleted.get(); i++) {
                    assertFalse(churn.containsKey("f" + i), "round " + round + ": acknowledged HDEL of f" + i);
                }
                for (long i = Math.max(0, deleted.get() + 2); i <= churned.get(); i++) {
                    assertEquals("v" + i, churn.get("f" + i), "round " + round + ": field f" + i + " of churn");
                }
                assertEquals("hashtable", j.objectEncoding("big"));
                KeyValueStore db = s.context().dbs.opened(0);
                long entries = BigHashesTest.elementEntries(s, 0, "big", "churn");
                ListElements e = db.elements(false);
                eventually(() -> e.size() == entries, "the collector to free what the kill left: "
                        + e.size() + " entries for " + entries + " buckets and roots");
                churned.set(Math.max(churned.get(), churn.keySet().stream()
                        .mapToLong(f -> Long.parseLong(f.substring(1))).max().orElse(-1)));
                for (long i = Math.max(0, deleted.get() + 1); i <= churned.get() - KEEP; i++) {
                    j.hdel("churn", "f" + i); // the HDEL the kill cut short: the next round deletes from past it
                }
                deleted.set(Math.max(deleted.get(), churned.get() - KEEP));
            }
        }
    }
}
