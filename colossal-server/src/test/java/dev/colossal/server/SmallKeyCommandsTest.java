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
}
