package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Tuple;

/**
 * A server in another JVM killed with SIGKILL while clients ZADD new members into a big sorted set
 * and ZADD and ZREM members of another, with {@code zset-max-listpack-entries 4} so that nodes split
 * and merge every few members: after a restart every acknowledged ZADD is there at its rank, every
 * acknowledged ZREM gone, ZCARD equals the entries ZRANGE returns, and the collector frees what the
 * kill left half-written.
 */
class ZSetsCrashTest {

    private static final int KEEP = 50;
    private static final int PIPELINE = 64;

    @TempDir
    Path dir;

    @Test
    void aKillWhileAddingAndRemovingMembersOfBigSortedSetsLosesNothingAcknowledged() throws Exception {
        Path data = dir.resolve("data");
        AtomicLong added = new AtomicLong(-1);
        AtomicLong churned = new AtomicLong(-1);
        AtomicLong removed = new AtomicLong(-1);
        for (int round = 0; round < 3; round++) {
            int port = TestServers.freePort();
            Path log = dir.resolve("server" + round + ".log");
            Process server = TestServers.serveInChildJvm(port, data, log);
            long addedBefore = added.get();
            try {
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    j.configSet("zset-max-listpack-entries", "4");
                }
                AtomicBoolean stop = new AtomicBoolean();
                long fromAdd = added.get() + 1;
                long fromChurn = churned.get() + 1;
                // Pipelined, so that the server is busy writing, and a kill lands mid-write, most of the time;
                // scores fall as members are added, so each lands first, and ranks say whether any was lost
                Thread adder = PipelinedWrites.thread(port, stop, fromAdd, PIPELINE,
                        k -> Wire.encode("ZADD", "big", Long.toString(-k), "m" + k), ":1\r\n", added);
                Thread churner = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port)) {
                        for (long i = fromChurn; !stop.get(); i++) {
                            j.zadd("churn", i, "m" + i);
                            churned.set(i);
                            if (i >= KEEP) {
                                j.zrem("churn", "m" + (i - KEEP));
                                removed.set(i - KEEP);
                            }
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call
                    }
                });
                adder.start();
                churner.start();
                PipelinedWrites.awaitAcknowledged(added, fromAdd + 2 * PIPELINE);
                Thread.sleep(300 + 400L * round);
                TestServers.awaitAbove(added, addedBefore);
                server.destroyForcibly().waitFor();
                stop.set(true);
                adder.join();
                churner.join();
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(added.get() > addedBefore, "round " + round + ": some ZADDs were acknowledged");
            try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
                List<Tuple> big = j.zrangeWithScores("big", 0, -1);
                long n = big.size();
                assertEquals(n, j.zcard("big"), "round " + round + ": ZCARD agrees with ZRANGE");
                assertTrue(n >= added.get() + 1 && n <= added.get() + 1 + PIPELINE,
                        "round " + round + ": " + n + " members after " + (added.get() + 1) + " acknowledged ZADDs");
                for (int r = 0; r < n; r++) {
                    long i = n - 1 - r; // the highest member added scores lowest
                    assertEquals("m" + i, big.get(r).getElement(), "round " + round + ": rank " + r);
                    assertEquals(-i, big.get(r).getScore());
                }
                for (long i = 0; i < n; i += 97) {
                    assertEquals(n - 1 - i, j.zrank("big", "m" + i), "round " + round + ": ZRANK of m" + i);
                    assertEquals((double) -i, j.zscore("big", "m" + i));
                }
                added.set(n - 1); // ZADDs that landed unacknowledged are kept
                List<String> churn = j.zrange("churn", 0, -1);
                assertEquals(churn.size(), j.zcard("churn"), "round " + round + ": ZCARD agrees with ZRANGE");
                for (long i = Math.max(0, removed.get() - 200); i <= removed.get(); i++) {
                    assertNull(j.zscore("churn", "m" + i), "round " + round + ": acknowledged ZREM of m" + i);
                }
                for (long i = Math.max(0, removed.get() + 2); i <= churned.get(); i++) {
                    assertEquals((double) i, j.zscore("churn", "m" + i), "round " + round + ": member m" + i + " of churn");
                }
                assertEquals("skiplist", j.objectEncoding("big"));
                KeyValueStore db = s.context().dbs.opened(0);
                long entries = nodesAndRoot(db, "big") + nodesAndRoot(db, "churn");
                ListElements e = db.elements(false);
                eventually(() -> e.size() == entries, "the collector to free what the kill left: "
                        + e.size() + " entries for " + entries + " nodes and roots");
                churned.set(Math.max(churned.get(), churn.stream().mapToLong(m -> Long.parseLong(m.substring(1))).max().orElse(-1)));
                for (long i = Math.max(0, removed.get() + 1); i <= churned.get() - KEEP; i++) {
                    j.zrem("churn", "m" + i); // the ZREM the kill cut short: the next round removes from past it
                }
                removed.set(Math.max(removed.get(), churned.get() - KEEP));
            }
        }
    }

    /** @return the element map's entries of the set under {@code key}: its nodes and root, none if it is one value */
    private static long nodesAndRoot(KeyValueStore db, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        KeyValueStore.Entry e = db.get(k);
        return e == null || !ZSetTreeLayout.isTree(e) ? 0 : StoredZSet.read(db, k, e, 4).nodeCount() + 1;
    }
}
