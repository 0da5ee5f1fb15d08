package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection's buffers start small and give back what a burst grew once it is idle, as Redis's
 * do: with 16 KiB each from the start and no shrinking, 5,000 idle connections held 164 MB where
 * redis-server's held 32 MB. CLIENT LIST's {@code qbuf-free}, {@code rbs} and {@code tot-mem} show
 * the sizes, as in Redis.
 */
class ConnectionBuffersTest {

    @Test
    void buffersABurstGrewShrinkOnceTheConnectionIsIdle(@TempDir Path dir) throws Exception {
        try (ColossalServer server = TestServers.colossal(dir.resolve("data"));
             Wire bursty = new Wire(server.port()); Wire watcher = new Wire(server.port())) {
            bursty.call("CLIENT", "SETNAME", "bursty");
            assertEquals(4096, field(watcher, "qbuf-free"));
            assertEquals(4096, field(watcher, "rbs"));
            String value = "v".repeat(40_000);
            assertEquals("+OK\r\n", bursty.call("SET", "k", value));
            assertEquals("$40000\r\n" + value + "\r\n", bursty.call("GET", "k"));
            assertTrue(field(watcher, "qbuf-free") >= 40_000, "the input grew for the SET");
            // Grown once, to what the reply needs: its bulk header, longer than the one guessed,
            // once grew it a second time, to twice that, more than a connection keeps.
            long rbs = field(watcher, "rbs");
            assertTrue(rbs >= 40_000 && rbs < 41_000, "the reply grew for the GET, once: " + rbs);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (field(watcher, "tot-mem") != 8192 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertEquals(4096, field(watcher, "qbuf-free"));
            assertEquals(4096, field(watcher, "rbs"));
            // And it goes on serving: the buffers grow again.
            assertEquals("$40000\r\n" + value + "\r\n", bursty.call("GET", "k"));
        }
    }

    /** qbuf: the asking client's own request is in its query buffer while it runs, as in Redis (26 bytes here). */
    @Test
    void theAskingClientsQueryBufferHoldsItsRequest(@TempDir Path dir) throws Exception {
        try (ColossalServer server = TestServers.colossal(dir.resolve("data"));
             Wire asking = new Wire(server.port()); Wire idle = new Wire(server.port())) {
            idle.call("CLIENT", "SETNAME", "bursty");
            String info = asking.call("CLIENT", "INFO"); // *2 $6 CLIENT $4 INFO: 4 + 4 + 8 + 4 + 6 bytes
            assertTrue(info.contains(" qbuf=26 "), info);
            assertEquals(0, field(asking, "qbuf"), "an idle client's buffer holds nothing");
        }
    }

    /** @return the number {@code name=} in the CLIENT LIST line of the client named bursty */
    private static long field(Wire w, String name) throws Exception {
        String list = w.call("CLIENT", "LIST");
        Matcher m = Pattern.compile("name=bursty .*?\\b" + Pattern.quote(name) + "=(\\d+)").matcher(list);
        assertTrue(m.find(), list);
        return Long.parseLong(m.group(1));
    }
}
