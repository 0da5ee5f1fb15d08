package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys that come and go while their number stays the same (a sliding window, a TTL cache) keep
 * a file of a steady size. Each segment rebuilds its table at the same size whenever tombstones
 * fill it; the old table used to become free heap that entries of a steady number never needed, so
 * the file grew by a table each time, without end (a user trial: 23 MiB per 1M keys for a window
 * of 40k).
 */
class SlidingWindowTest {

    private static final int WINDOW = 5_000;

    @TempDir
    Path dir;

    @Test
    void aWindowOfKeysThatComeAndGoKeepsTheFileItsSize() throws IOException {
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(dir.resolve("window.map"), MapOptions.DEFAULTS.withSegments(8))) {
            MemorySegment key = arena.allocate(8);
            MemorySegment value = arena.allocate(200);
            long settled = 0;
            for (long i = 0; i < 600_000; i++) {
                key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                map.put(key, value);
                if (i >= WINDOW) {
                    key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i - WINDOW);
                    map.remove(key);
                }
                if (i == 100_000) {
                    settled = map.file.allocEnd();
                }
            }
            assertEquals(WINDOW, map.size());
            long end = map.file.allocEnd();
            assertTrue(end < settled + settled / 10, "grew from " + settled + " to " + end + " for a window of " + WINDOW);
            MapChecks.assertSound(map);
        }
    }

    @Test
    void aCacheOfExpiringKeysKeepsTheFileItsSize() throws IOException {
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(dir.resolve("ttl.map"), MapOptions.DEFAULTS.withSegments(8))) {
            long[] now = {1_000_000};
            map.file.clock = () -> now[0];
            MemorySegment key = arena.allocate(8);
            MemorySegment value = arena.allocate(200);
            long settled = 0;
            for (long i = 0; i < 600_000; i++) {
                key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                map.put(key, value, Duration.ofMillis(WINDOW));
                now[0]++;   // a key a millisecond: about WINDOW live at any time
                if (i == 100_000) {
                    settled = map.file.allocEnd();
                }
            }
            long end = map.file.allocEnd();
            assertTrue(end < settled + settled / 10, "grew from " + settled + " to " + end);
            MapChecks.assertSound(map);
        }
    }
}
