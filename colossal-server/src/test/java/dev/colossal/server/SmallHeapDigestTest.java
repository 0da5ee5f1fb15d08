package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DEBUG DIGEST of a million keys in a 32 MB heap: the keys are taken a scan step at a time
 * ({@link DatasetDigest}). Listing them all first, as it did, took ~50 MB and failed with
 * OutOfMemoryError, which a check after a full sync of a big dataset (bench/results/fullsync-digest.sh) met.
 */
class SmallHeapDigestTest {

    @TempDir
    Path dir;

    @Test
    void theDigestOfAMillionKeysFitsInASmallHeap() throws Exception {
        int port = TestServers.freePort();
        Path log = dir.resolve("server.log");
        Process server = TestServers.serveInChildJvm(List.of("-Xmx32m"), port, dir.resolve("data"), log,
                "--enable-debug-command", "yes");
        try {
            try (Wire w = new Wire(port)) {
                w.socket.setSoTimeout(120_000);
                assertEquals("+OK\r\n", w.call("DEBUG", "POPULATE", "1000000"));
                String digest = w.call("DEBUG", "DIGEST");
                assertTrue(digest.matches("\\+[0-9a-f]{40}\r\n") && !digest.startsWith("+0000000000"), digest);
                assertEquals(digest, w.call("DEBUG", "DIGEST"), "the same data, the same digest");
                assertEquals("+OK\r\n", w.call("SET", "key:1", "changed"));
                assertTrue(!w.call("DEBUG", "DIGEST").equals(digest), "a changed value changes it");
            }
        } finally {
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
