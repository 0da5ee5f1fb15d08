package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot requests allocate nothing on the heap: pipelined GETs (the value goes from the map into
 * the native reply buffer) and SETs (the value goes from the request buffer into the map), as the
 * JVM counts the event loops' allocations.
 */
class ServerAllocationTest {

    /** Requests per pipelined burst: a few dozen KiB either way, like redis-benchmark -P 16 with 1 KiB values. */
    private static final int BATCH = 32;

    @TempDir
    Path dir;

    private static long loopAllocatedBytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("colossal-io-"))
                .mapToLong(t -> threads.getThreadAllocatedBytes(t.threadId())).sum();
    }

    /**
     * Bytes the event loops allocate per request of {@code burst}, in the quietest of several
     * windows after warming up: a JIT recompilation may allocate once, a path that allocates per
     * request allocates in every window.
     */
    private static double bytesPerRequest(Wire w, byte[] burst, String reply) throws Exception {
        for (int round = 0; round < 10_000; round++) {
            roundTrip(w, burst, reply);
        }
        long fewest = Long.MAX_VALUE;
        for (int window = 0; window < 5; window++) {
            long before = loopAllocatedBytes();
            for (int round = 0; round < 500; round++) {
                roundTrip(w, burst, reply);
            }
            fewest = Math.min(fewest, loopAllocatedBytes() - before);
        }
        return (double) fewest / (500 * BATCH);
    }

    private static void roundTrip(Wire w, byte[] burst, String reply) throws Exception {
        w.send(burst);
        for (int i = 0; i < BATCH; i++) {
            assertEquals(reply, w.reply());
        }
    }

    private static byte[] repeat(byte[] request) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < BATCH; i++) {
            b.writeBytes(request);
        }
        return b.toByteArray();
    }

    @Test
    void pipelinedGetsAndSetsAllocateNothing() throws Exception {
        byte[] value = new byte[1024];
        Arrays.fill(value, (byte) 'v');
        String v = new String(value, java.nio.charset.StandardCharsets.US_ASCII);
        try (ColossalServer server = TestServers.colossal(dir); Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("SET", "key:1", v));
            double get = bytesPerRequest(w, repeat(Wire.encode("GET", "key:1")), "$1024\r\n" + v + "\r\n");
            double miss = bytesPerRequest(w, repeat(Wire.encode("GET", "absent")), "$-1\r\n");
            double set = bytesPerRequest(w, repeat(Wire.encode("SET", "key:1", v)), "+OK\r\n");
            System.out.printf("event-loop bytes per request: GET %.2f, GET miss %.2f, SET %.2f%n", get, miss, set);
            assertEquals(0, get, "bytes allocated per GET");
            assertEquals(0, miss, "bytes allocated per GET of an absent key");
            assertEquals(0, set, "bytes allocated per SET (the value goes from the request buffer into the map)");
        }
    }
}
