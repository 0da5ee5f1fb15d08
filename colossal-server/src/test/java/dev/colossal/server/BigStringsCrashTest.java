package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A server in another JVM killed with SIGKILL while one client APPENDs 100-byte records to a log
 * and another SETBITs a 250 KB bitmap, both chunked: after a restart the log holds every
 * acknowledged record in order (the one in flight at most in addition) and nothing else, every
 * acknowledged bit is set and no other, and the collector frees what the kill left past the
 * headers while the strings still read the same.
 */
class BigStringsCrashTest {

    private static final int RECORD = 100;
    private static final long BITS = 2_000_000;

    @TempDir
    Path dir;

    @Test
    void aKillWhileAppendingAndSettingBitsLosesNothingAcknowledged() throws Exception {
        Path data = dir.resolve("data");
        Set<Long> bitsAcked = new HashSet<>();
        for (int round = 0; round < 3; round++) {
            int port = TestServers.freePort();
            Path log = dir.resolve("server" + round + ".log");
            Process server = TestServers.serveInChildJvm(port, data, log);
            long recordsBefore;
            long bitsBefore = bitsAcked.size();
            AtomicLong acked = new AtomicLong(-1);
            ConcurrentLinkedQueue<Long> bitsNow = new ConcurrentLinkedQueue<>();
            AtomicLong bitInFlight = new AtomicLong(-1);
            try {
                try (Jedis j = new Jedis("127.0.0.1", port, 30_000)) {
                    if (round == 0) {
                        j.setbit("bm", BITS - 1, false); // 250 KB of zeros: chunked, sparsely
                        redis.clients.jedis.Pipeline p = j.pipelined();
                        for (int i = 0; i < 1000; i++) { // 100 KB: chunked before the kill
                            p.append("log", record(i));
                        }
                        p.sync();
                    }
                    recordsBefore = j.strlen("log") / RECORD;
                }
                AtomicBoolean stop = new AtomicBoolean();
                Thread appender = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port, 30_000)) {
                        for (long i = recordsBefore; !stop.get(); i++) {
                            j.append("log", record(i));
                            acked.set(i);
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call: not acknowledged
                    }
                });
                Thread setter = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port, 30_000)) {
                        for (long i = bitsBefore * 7 + 1; !stop.get(); i++) {
                            long bit = i * 7919 % (BITS - 1);
                            bitInFlight.set(bit);
                            j.setbit("bm", bit, true);
                            bitsNow.add(bit);
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call
                    }
                });
                appender.start();
                setter.start();
                Thread.sleep(800 + 500L * round);
                TestServers.awaitAbove(acked, recordsBefore);
                server.destroyForcibly().waitFor();
                stop.set(true);
                appender.join();
                setter.join();
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(acked.get() > recordsBefore && !bitsNow.isEmpty(), "round " + round + ": writes were acknowledged");
            bitsAcked.addAll(bitsNow);
            try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
                MapStore m = s.context().dbs.opened(0);
                assertTrue(m.raw(bytes("log")).chunked() && m.raw(bytes("bm")).chunked(), "both strings are chunked");
                long records = j.strlen("log") / RECORD;
                assertEquals(0, j.strlen("log") % RECORD, "round " + round + ": whole records only");
                assertTrue(records == acked.get() + 1 || records == acked.get() + 2,
                        "round " + round + ": " + records + " records after " + (acked.get() + 1) + " acknowledged");
                checkLog(j, records);
                long inFlight = bitInFlight.get();
                long set = j.bitcount("bm");
                boolean extra = !bitsAcked.contains(inFlight) && j.getbit("bm", inFlight);
                if (extra) {
                    bitsAcked.add(inFlight); // it landed: later rounds expect it
                }
                assertEquals(bitsAcked.size(), set, "round " + round + ": every acknowledged bit and no other");
                for (long b : bitsAcked) {
                    assertTrue(j.getbit("bm", b), "round " + round + ": bit " + b);
                }
                assertEquals(BITS / 8, j.strlen("bm"));
                ListElements e = m.elements(false);
                long live = chunksHeld(m, "log") + chunksHeld(m, "bm");
                s.context().collector.walk(m, e);
                assertTrue(e.size() <= live + 2, "the collector freed what the kill left: " + e.size() + " entries for "
                        + live + " chunks and 2 roots");
                checkLog(j, records);
                assertEquals(bitsAcked.size(), j.bitcount("bm"), "the collector kept the bitmap's chunks");
            }
        }
    }

    private static void checkLog(Jedis j, long records) {
        byte[] all = j.get(bytes("log"));
        assertEquals(records * RECORD, all.length);
        for (long i = 0; i < records; i++) {
            String got = new String(all, (int) (i * RECORD), RECORD, StandardCharsets.US_ASCII);
            if (!got.equals(record(i))) {
                assertEquals(record(i), got, "record " + i + " of " + records);
            }
        }
        assertEquals(record(records - 1), j.getrange("log", (records - 1) * RECORD, -1));
    }

    /** @return the chunks the header of {@code key} spans: an upper bound on its live chunk entries */
    private static long chunksHeld(MapStore m, String key) {
        KeyValueStore.Entry h = m.raw(bytes(key));
        return BigStringLayout.chunks(BigStringLayout.get(h, BigStringLayout.LENGTH_OFFSET),
                BigStringLayout.get(h, BigStringLayout.CHUNK_OFFSET));
    }

    private static String record(long i) {
        return String.format("%0" + (RECORD - 1) + "d\n", i);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
