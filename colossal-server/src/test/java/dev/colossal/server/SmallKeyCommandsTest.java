package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What redis-compat.txt cannot say: replies that differ from redis-server's by design (MEMORY
 * USAGE's estimate, RANDOMKEY's pick) and keys that expire between two commands.
 */
class SmallKeyCommandsTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void randomKeyShouldPickOnlyLiveKeysAndSeveralOfThem() throws Exception {
        long[] now = {1_000};
        try (MapStore store = MapStore.open(dir, () -> now[0])) {
            assertNull(store.randomKey(), "empty");
            store.set(b("dead"), b("v"), 2_000);
            now[0] = 3_000;
            assertNull(store.randomKey(), "only an expired key, not yet purged");
            for (int i = 0; i < 1_000; i++) {
                store.set(b("k" + i), b("v"), i % 2 == 0 ? 2_000 : StoredValue.NO_EXPIRY);
            }
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                String k = new String(store.randomKey(), StandardCharsets.US_ASCII);
                assertTrue(k.startsWith("k") && Integer.parseInt(k.substring(1)) % 2 == 1, k);
                seen.add(k);
            }
            assertTrue(seen.size() > 20, "picks spread over the keys: " + seen.size());
        }
    }

    @Test
    void touchShouldNotCountAKeyThatExpiredAndMemoryUsageShouldEstimateTheEntry() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir);
             Wire w = new Wire(server.port())) {
            w.call("SET", "short", "v", "PX", "50");
            w.call("SET", "long", "v");
            assertEquals(":2\r\n", w.call("TOUCH", "short", "long"));
            assertEquals(":1\r\n", TestServers.await(":1\r\n", 5_000, () -> w.call("TOUCH", "short", "long")));
            assertEquals("$-1\r\n", w.call("MEMORY", "USAGE", "short"));
            // key 4 + header 1 + value 1 + entry 16 = 22, to 24, + slot 8
            assertEquals(":32\r\n", w.call("MEMORY", "USAGE", "long"));
            w.call("SET", "long", "v", "EX", "100");
            assertEquals(":40\r\n", w.call("MEMORY", "USAGE", "long", "SAMPLES", "0"), "8 bytes more with a deadline");
            assertEquals("$4\r\nlong\r\n", w.call("RANDOMKEY"));
        }
    }

    @Test
    void memoryUsageOfAListAStreamAndABigHashCountsTheirElementsNotOnlyTheirHeaders() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir);
             Wire w = new Wire(server.port())) {
            String hundred = "x".repeat(100);
            for (int i = 0; i < 10; i++) {
                String[] push = new String[102];
                push[0] = "RPUSH";
                push[1] = "list";
                java.util.Arrays.fill(push, 2, push.length, hundred);
                w.call(push);
                String[] pairs = new String[202];
                pairs[0] = "HSET";
                pairs[1] = "hash";
                for (int j = 0; j < 100; j++) {
                    pairs[2 + 2 * j] = "field" + (i * 100 + j);
                    pairs[3 + 2 * j] = hundred;
                }
                w.call(pairs);
            }
            for (int i = 0; i < 1_000; i++) {
                w.call("XADD", "stream", "*", "f", hundred);
            }
            // a node of two elements: key 16 + value 2 x (4 + 100) + entry 16 = 240, + slot 8; 500 of
            // them, and two entries of their counts
            long exact = usage(w, "list", "SAMPLES", "0");
            assertTrue(exact - 124_000 >= 0 && exact - 124_000 < 1000, "header + 500 nodes of 248 bytes: " + exact);
            assertEquals(exact, usage(w, "list"), "5 samples of equal elements estimate them exactly");
            assertTrue(usage(w, "hash") > 1_000 * 100, "1,000 values of 100 bytes: " + usage(w, "hash"));
            assertTrue(usage(w, "stream", "SAMPLES", "0") > 1_000 * 100, "1,000 entries: " + usage(w, "stream", "SAMPLES", "0"));
            long sampled = usage(w, "stream");
            long all = usage(w, "stream", "SAMPLES", "0");
            assertTrue(Math.abs(sampled - all) < all / 2, "sampled " + sampled + " against all " + all);
        }
    }

    private static long usage(Wire w, String... keyAndOptions) throws Exception {
        String[] command = new String[keyAndOptions.length + 2];
        command[0] = "MEMORY";
        command[1] = "USAGE";
        System.arraycopy(keyAndOptions, 0, command, 2, keyAndOptions.length);
        String reply = w.call(command);
        assertTrue(reply.startsWith(":"), reply);
        return Long.parseLong(reply.substring(1).trim());
    }
}
