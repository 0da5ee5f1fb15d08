package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A server in another JVM killed with SIGKILL while one client SADDs new members to a bucketed
 * set, pipelined, and another SADDs and SREMs members of a second one, with
 * {@code set-max-intset-entries 4} so that buckets split every few members: after a restart every
 * acknowledged SADD is there, every acknowledged SREM gone, SCARD equals what SMEMBERS returns, and
 * the collector frees what the kill left half-written.
 */
class SetsCrashTest {

    /** The members the churned set keeps: each SADD past them SREMs the oldest. */
    private static final int WINDOW = 40;
    private static final int BATCH = 64;

    @TempDir
    Path dir;

    @Test
    void aKillWhileAddingAndRemovingMembersOfBigSetsLosesNothingAcknowledged() throws Exception {
        Path data = dir.resolve("data");
        AtomicLong grown = new AtomicLong(-1);
        AtomicLong churnAdded = new AtomicLong(-1);
        AtomicLong churnRemoved = new AtomicLong(-1);
        for (int round = 0; round < 3; round++) {
            int port = TestServers.freePort();
            Process server = TestServers.serveInChildJvm(port, data, dir.resolve("server" + round + ".log"));
            long grownBefore = grown.get();
            try {
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    j.configSet("set-max-intset-entries", "4");
                }
                AtomicBoolean stop = new AtomicBoolean();
                Thread grower = new Thread(() -> grow(port, grown, stop));
                Thread churner = new Thread(() -> churn(port, churnAdded, churnRemoved, stop));
                grower.start();
                churner.start();
                Thread.sleep(700 + 400L * round);
                TestServers.awaitAbove(grown, grownBefore);
                server.destroyForcibly().waitFor();
                stop.set(true);
                grower.join();
                churner.join();
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(grown.get() > grownBefore, "round " + round + ": some SADDs were acknowledged");
            try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
                String where = "round " + round;
                Set<String> big = j.smembers("grown");
                assertEquals(big.size(), j.scard("grown"), where + ": SCARD agrees with SMEMBERS");
                long acknowledged = grown.get() + 1;
                assertTrue(big.size() >= acknowledged && big.size() <= acknowledged + BATCH,
                        where + ": " + big.size() + " members after " + acknowledged + " acknowledged SADDs");
                for (long i = 0; i < big.size(); i++) {
                    assertTrue(big.contains("m" + i), where + ": member m" + i + " of " + big.size());
                }
                grown.set(big.size() - 1); // SADDs that landed unacknowledged are kept
                Set<String> churned = j.smembers("churned");
                assertEquals(churned.size(), j.scard("churned"), where + ": SCARD agrees with SMEMBERS");
                for (long i = 0; i <= churnRemoved.get(); i++) {
                    assertFalse(churned.contains("c" + i), where + ": acknowledged SREM of c" + i);
                }
                for (long i = Math.max(0, churnRemoved.get() + 2); i <= churnAdded.get(); i++) {
                    assertTrue(churned.contains("c" + i), where + ": acknowledged SADD of c" + i);
                    assertTrue(j.sismember("churned", "c" + i), where + ": SISMEMBER c" + i);
                }
                assertEquals("hashtable", j.objectEncoding("grown"));
                long entries = BigHashesTest.elementEntries(s, 0, "grown", "churned");
                ListElements e = s.context().dbs.opened(0).elements(false);
                eventually(() -> e.size() == entries, "the collector to free what the kill left: "
                        + e.size() + " entries for " + entries + " buckets and roots");
                // Where the churner goes on from: past whatever landed, its SREMs caught up
                churnAdded.set(Math.max(churnAdded.get(), churned.stream().mapToLong(m -> Long.parseLong(m.substring(1)))
                        .max().orElse(-1)));
                for (long i = Math.max(0, churnRemoved.get() + 1); i <= churnAdded.get() - WINDOW; i++) {
                    j.srem("churned", "c" + i);
                }
                churnRemoved.set(churnAdded.get() - WINDOW);
            }
        }
    }

    /** SADDs m0, m1, ... in pipelined batches until the server dies, noting the last acknowledged. */
    private static void grow(int port, AtomicLong grown, AtomicBoolean stop) {
        try (Wire w = new Wire(port)) {
            for (long from = grown.get() + 1; !stop.get(); from += BATCH) {
                ByteArrayOutputStream batch = new ByteArrayOutputStream();
                for (long i = from; i < from + BATCH; i++) {
                    batch.writeBytes(Wire.encode("SADD", "grown", "m" + i));
                }
                w.send(batch.toByteArray());
                for (long i = from; i < from + BATCH; i++) {
                    if (!w.reply().equals(":1\r\n")) {
                        throw new IllegalStateException("SADD of a new member answered otherwise");
                    }
                    grown.set(i);
                }
            }
        } catch (java.io.IOException | RuntimeException killed) {
            // the server died under the call: not acknowledged
        }
    }

    /** SADDs c0, c1, ... one at a time, each past the window SREMming the oldest. */
    private static void churn(int port, AtomicLong added, AtomicLong removed, AtomicBoolean stop) {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            for (long i = added.get() + 1; !stop.get(); i++) {
                j.sadd("churned", "c" + i);
                added.set(i);
                if (i >= WINDOW) {
                    j.srem("churned", "c" + (i - WINDOW));
                    removed.set(i - WINDOW);
                }
            }
        } catch (RuntimeException killed) {
            // the server died under the call
        }
    }
}
