package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BytesMap#scan(long, int, java.util.function.BiPredicate, java.util.function.BiConsumer)}: a
 * scan in small steps visits every entry once, each step about as many as asked, and an entry
 * present for the whole scan exactly once while others come and go and tables grow under it.
 */
class ResumableScanTest {

    @TempDir
    Path dir;

    private static MemorySegment bytes(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void smallStepsShouldVisitEveryEntryOnceAndAboutCountEach() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("scan.map"), MapOptions.DEFAULTS.withSegments(8))) {
            int n = 20_000;
            for (int i = 0; i < n; i++) {
                map.put(bytes("key" + i), bytes("value" + i));
            }
            Map<String, String> seen = new HashMap<>();
            long cursor = 0;
            int steps = 0;
            do {
                int[] got = {0};
                cursor = map.scan(cursor, 50, (k, v) -> true, (k, v) -> {
                    got[0]++;
                    assertEquals(null, seen.put(text(k), text(v)), "visited twice: " + text(k));
                });
                steps++;
                assertTrue(got[0] <= 200, "a step of count 50 visited " + got[0]);
            } while (cursor != 0);
            assertEquals(n, seen.size());
            for (int i = 0; i < n; i += 997) {
                assertEquals("value" + i, seen.get("key" + i));
            }
            assertTrue(steps >= n / 100 && steps <= n / 25 + 8, "steps=" + steps + " for " + n + " entries, 50 a step");

            Set<String> passed = new HashSet<>();
            long c = 0;
            do {
                c = map.scan(c, 1000, (k, v) -> k.byteSize() == 4, (k, v) -> passed.add(text(k)));
            } while (c != 0);
            assertEquals(Set.of("key0", "key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8", "key9"), passed);
        }
    }

    @Test
    void entriesPresentThroughoutShouldBeVisitedExactlyOnceWhileTheMapChanges() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("changing.map"), MapOptions.DEFAULTS.withSegments(4))) {
            Random random = new Random(3);
            for (int i = 0; i < 2_000; i++) {
                map.put(bytes("stay" + i), bytes("v"));
                map.put(bytes("go" + i), bytes("v"));
            }
            Set<String> seen = new HashSet<>();
            long cursor = 0;
            int added = 0;
            do {
                cursor = map.scan(cursor, 20, (k, v) -> true, (k, v) -> assertTrue(seen.add(text(k)), "visited twice: " + text(k)));
                // Between steps: tables grow (ten times the entries by the end), others are removed.
                for (int j = 0; j < 100; j++) {
                    map.put(bytes("new" + added++), bytes("w"));
                }
                map.remove(bytes("go" + random.nextInt(2_000)));
            } while (cursor != 0);
            for (int i = 0; i < 2_000; i++) {
                assertTrue(seen.contains("stay" + i), "never visited: stay" + i);
            }
            assertTrue(added > 10_000, "the map grew under the scan: " + added);
        }
    }

    /**
     * A key's scan position is fixed before the key exists and through every growth, and a scan of
     * the range it lies in visits it: what lets an index of parts of the order (keys with a TTL,
     * say) stay true while the map grows.
     */
    @Test
    void aKeysScanPositionHoldsThroughGrowthAndARangeScanVisitsItsKeys() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("positions.map"), MapOptions.DEFAULTS.withSegments(4))) {
            int n = 30_000;
            long[] before = new long[n];
            for (int i = 0; i < n; i++) {
                before[i] = map.scanPosition(bytes("key" + i));
                assertTrue(before[i] >= 0 && before[i] < map.scanCursorLimit());
            }
            for (int i = 0; i < n; i++) {
                map.put(bytes("key" + i), bytes("value" + i)); // tables grow many times
            }
            long ranges = 1 << 12;
            long width = map.scanCursorLimit() / ranges;
            Map<String, Long> rangeOf = new HashMap<>();
            for (long r = 0; r < ranges; r++) {
                long from = r * width;
                long end = from + width;
                long range = r;
                for (long c = from; c != end; ) {
                    c = map.scan(c, end, 7, (k, v) -> true, (k, v) -> assertEquals(null, rangeOf.put(text(k), range), "twice: " + text(k)), null);
                }
            }
            assertEquals(n, rangeOf.size(), "the ranges together visit every key once");
            for (int i = 0; i < n; i++) {
                assertEquals(before[i], map.scanPosition(bytes("key" + i)), "moved by growth");
                assertEquals(before[i] / width, rangeOf.get("key" + i), "key" + i + " visited by the range its position lies in");
            }
            assertThrows(IllegalArgumentException.class, () -> map.scan(5, 5, 1, (k, v) -> true, (k, v) -> { }, null));
            assertThrows(IllegalArgumentException.class, () -> map.scan(0, map.scanCursorLimit() + 1, 1, (k, v) -> true, (k, v) -> { }, null));
        }
    }

    @Test
    void shouldSkipExpiredEntriesAndRefuseCursorsItNeverReturned() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("edges.map"))) {
            assertEquals(0, map.scan(0, 10, (k, v) -> true, (k, v) -> { throw new AssertionError("empty map"); }));
            map.put(bytes("lives"), bytes("v"));
            map.put(bytes("expires"), bytes("v"), Duration.ofMillis(1));
            Thread.sleep(5);
            Set<String> seen = new HashSet<>();
            long cursor = 0;
            do {
                cursor = map.scan(cursor, 1, (k, v) -> true, (k, v) -> seen.add(text(k)));
            } while (cursor != 0);
            assertEquals(Set.of("lives"), seen);
            long limit = map.scanCursorLimit();
            assertTrue(assertThrows(IllegalArgumentException.class, () -> map.scan(limit, 10, (k, v) -> true, (k, v) -> { }))
                    .getMessage().contains("cursor=" + limit));
            assertThrows(IllegalArgumentException.class, () -> map.scan(-1, 10, (k, v) -> true, (k, v) -> { }));
            assertThrows(IllegalArgumentException.class, () -> map.scan(0, 0, (k, v) -> true, (k, v) -> { }));
        }
    }
}
