package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Overwriting keys with values of changing sizes must reuse the space it frees: the file levels
 * off instead of growing with every overwrite. Both shapes grew the file without end before free
 * runs joined their neighbours (two sizes in one size class: ~290 bytes lost per overwrite, a
 * 500-byte entry splitting a free 1000-byte one and leaving a remainder nothing used; sizes at
 * random: ~50 bytes per overwrite even then, from holes side by side that no list knew were one).
 */
class FragmentationTest {

    private static final int KEYS = 4_000;
    private static final int SEGMENTS = 4;

    @TempDir
    Path dir;

    @Test
    void valuesOfTwoSizesOverwrittenAtRandomReuseTheirSpace() throws IOException {
        SplittableRandom sizes = new SplittableRandom(1);
        assertLevelsOff("two.map", () -> sizes.nextBoolean() ? 500 : 1000);
    }

    @Test
    void valuesOfRandomSizesOverwrittenAtRandomReuseTheirSpace() throws IOException {
        SplittableRandom sizes = new SplittableRandom(2);
        assertLevelsOff("random.map", () -> sizes.nextInt(100, 2001));
    }

    private void assertLevelsOff(String name, IntSupplier valueSize) throws IOException {
        Path file = dir.resolve(name);
        SplittableRandom keys = new SplittableRandom(3);
        long[] live = new long[KEYS];
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(SEGMENTS))) {
            MemorySegment key = arena.allocate(4);
            MemorySegment value = arena.allocate(2000);
            long settled = 0;
            for (int round = 1; round <= 600_000; round++) {
                int k = keys.nextInt(KEYS);
                int size = valueSize.getAsInt();
                key.set(ValueLayout.JAVA_INT_UNALIGNED, 0, k);
                value.set(ValueLayout.JAVA_INT_UNALIGNED, 0, round);
                map.put(key, value.asSlice(0, size));
                live[k] = size;
                if (round == 300_000) {
                    settled = Files.size(file);
                }
            }
            long grown = Files.size(file);
            long liveBytes = 0;
            for (long bytes : live) {
                liveBytes += bytes;
            }
            assertTrue(grown <= settled + settled / 8, "the file grew from " + settled + " to " + grown
                    + " bytes over the last 300k overwrites of " + KEYS + " keys holding " + liveBytes + " bytes");
            assertEquals(KEYS, map.size());
        }
        // Free runs are merged before the heap grows once they are as big as the entries; holes
        // between live entries too small for the next value still let it grow a little past twice
        // them (random sizes: 2.25x after 150 overwrites a key; without the merging 50x and rising)
        MapInspector.Summary heap = MapInspector.inspect(file);
        long slack = SEGMENTS * (64L << 10);
        assertTrue(heap.heapBytes() <= 5 * heap.usedBytes() / 2 + slack, "heap=" + heap.heapBytes() + " bytes for "
                + heap.usedBytes() + " used: free runs are not reused");
        MapVerifier.Result verified = MapVerifier.verify(file, null);
        assertTrue(verified.isSound(), verified.problems().toString());
    }
}
