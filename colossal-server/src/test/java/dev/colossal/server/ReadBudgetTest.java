package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A client pipelining megabytes shares its event loop ({@link Connection#READ_BUDGET} bytes a turn):
 * another client on the loop is answered while the big pipeline runs, not after it, and the big
 * one's replies flow from its first requests on. Before, the loop read all a socket had and ran it
 * before anything else: a PING waited 180-540 ms behind 30 MB of SETs here, most of their run.
 */
class ReadBudgetTest {

    @TempDir
    Path dir;

    private static final int SETS = 30_000;

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    @Test
    void anotherClientIsAnsweredWhileABigPipelineRuns() throws Exception {
        // one event loop, so both clients share it, as on a 2-core machine by default
        ServerConfig config = new ServerConfig("127.0.0.1", 0, -1, dir, null, 100, 512L << 20, 0, 1, 0);
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        String value = "v".repeat(1000);
        for (int i = 0; i < SETS; i++) {
            burst.writeBytes(Wire.encode("SET", "k" + i, value));
        }
        byte[] bytes = burst.toByteArray();
        try (ColossalServer s = ColossalServer.start(config); Jedis admin = new Jedis("127.0.0.1", s.port(), 30_000);
             Socket big = new Socket("127.0.0.1", s.port()); Socket small = new Socket("127.0.0.1", s.port())) {
            long readsBefore = field(admin.info("stats"), "total_reads_processed");
            long writesBefore = field(admin.info("stats"), "total_writes_processed");
            AtomicLong slowestPing = new AtomicLong();
            Thread sender = Thread.ofPlatform().start(() -> {
                try {
                    big.getOutputStream().write(bytes);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread pinger = Thread.ofPlatform().start(() -> {
                try {
                    InputStream in = small.getInputStream();
                    for (int i = 0; i < 40; i++) {
                        long t = System.nanoTime();
                        small.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("+PONG\r\n", new String(in.readNBytes(7), StandardCharsets.US_ASCII));
                        slowestPing.accumulateAndGet(System.nanoTime() - t, Math::max);
                        Thread.sleep(2);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            long start = System.nanoTime();
            InputStream in = big.getInputStream();
            byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < SETS; i++) {
                assertEquals("+OK\r\n", new String(in.readNBytes(ok.length), StandardCharsets.US_ASCII));
            }
            long took = System.nanoTime() - start;
            sender.join();
            pinger.join();
            // Without the budget the PING waited for most of the burst (0.7-0.9 of it measured); with it, a small share
            assertTrue(slowestPing.get() < took / 4, "slowest PING " + slowestPing.get() / 1_000_000 + " ms during a "
                    + took / 1_000_000 + " ms burst");
            String stats = admin.info("stats");
            assertTrue(field(stats, "total_reads_processed") - readsBefore >= bytes.length / Connection.READ_BUDGET,
                    "at most " + Connection.READ_BUDGET + " bytes a read: " + stats);
            assertTrue(field(stats, "total_writes_processed") - writesBefore >= 40, stats);
        }
    }
}
