package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colossal.Interrupts;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread interrupted while it grows the map (a pool's shutdownNow, Future.cancel(true)) must not
 * break the map for every other thread: the JDK closes a FileChannel for good when a thread doing
 * I/O on it is interrupted.
 */
class InterruptTest {

    @TempDir
    Path dir;

    @Test
    void interruptingAWriterWhileTheFileGrowsLeavesTheMapUsable() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("interrupted.map"))) {
            AtomicInteger written = new AtomicInteger();
            Throwable failure = Interrupts.interruptedThroughout(() -> {
                for (int i = 0; i < 200_000; i++) {
                    map.put(("w" + i).getBytes(), new byte[200]);
                    written.incrementAndGet();
                }
            });
            assertEquals(null, failure, "an interrupt is no reason for a put to fail");
            assertEquals(200_000, written.get());
            for (int i = 0; i < 100_000; i++) { // grows the file further, from another thread
                map.put(("m" + i).getBytes(), new byte[200]);
            }
            assertArrayEquals(new byte[200], map.get("w199999".getBytes()));
            assertEquals(300_000, map.size());
        }
    }
}
