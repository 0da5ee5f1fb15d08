package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import dev.colossal.codec.Codecs;
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

    @Test
    void expiredEntriesGiveTheirSpaceBeforeTheHeapGrows() throws IOException {
        // A table sized for many keys never fills, so only the heap's need of room can find the
        // expired entries: without that, every value ever written stayed in the file (a user
        // trial: 1 MB values living 20 ms, ten at a time, grew it past 600 MB).
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(dir.resolve("large.map"), MapOptions.DEFAULTS.withSegments(1).withExpectedEntries(10_000))) {
            long[] now = {1_000_000};
            map.file.clock = () -> now[0];
            MemorySegment key = arena.allocate(8);
            MemorySegment value = arena.allocate(16 << 10);
            for (long i = 0; i < 2_000; i++) {
                key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                map.put(key, value, Duration.ofMillis(8));
                now[0]++;   // about 8 live at any time: 128 KiB of values, where 2,000 are 32 MiB
            }
            long end = map.file.allocEnd();
            assertTrue(end < 2 << 20, "the file holds " + end + " bytes for 8 live values of 16 KiB");
            assertTrue(map.size() < 100, "expired entries were removed: " + map.size());
            // Every entry expired: the purge for this larger one finds none left that expires, and
            // must not forget that this one will.
            now[0] += 1_000;
            key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, -1L);
            map.put(key, arena.allocate(64 << 10), Duration.ofMillis(8));
            now[0] += 1_000;
            assertTrue(map.putIfAbsent(key, value), "the last entry expired too");
            MapChecks.assertSound(map);
        }
    }

    @Test
    void anUpdateOfAnEntryThatExpiresWhileTheHeapMakesRoomKeepsTheMapSound() throws IOException {
        try (ColossalMap<String, byte[]> map = ColossalMap.open(dir.resolve("update.map"), Codecs.string(), Codecs.bytes(),
                MapOptions.DEFAULTS.withSegments(1).withExpectedEntries(1_000))) {
            long[] now = {1_000_000};
            map.bytes().file.clock = () -> now[0];
            for (int i = 0; i < 50; i++) {
                map.set("other" + i, new byte[1000], Duration.ofMillis(10));
            }
            map.set("k", new byte[10], Duration.ofMillis(10));
            // The function runs after the key was found live; the larger value then needs the heap
            // to grow, and the purge that runs first must leave the entry being replaced alone.
            map.compute("k", (k, v) -> {
                now[0] += 100;
                return new byte[64 << 10];
            });
            assertNull(map.get("k"), "the update kept the expiry time, which has passed");
            assertEquals(1, map.size(), "the others were purged; the entry updated counts until removed");
            MapChecks.assertSound(map.bytes());
            assertEquals(1, map.purgeExpired());
            assertEquals(0, map.size());
            MapChecks.assertSound(map.bytes());
        }
    }
}
