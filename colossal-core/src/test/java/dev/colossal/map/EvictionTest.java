package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bounded maps (caches): the bound holds, and entries that are read survive those that are not. */
class EvictionTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void shouldKeepTheEntryBoundAndPreferEntriesThatAreRead() throws IOException {
        Path file = dir.resolve("cache.map");
        int bound = 2000;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4).withMaxEntries(bound))) {
            for (int h = 0; h < 500; h++) {
                map.put(b("hot" + h), new byte[40]);
            }
            Random rnd = new Random(1);
            int cold = 40_000;
            for (int c = 0; c < cold; c++) {
                map.put(b("cold" + c), new byte[40]);
                for (int r = 0; r < 4; r++) {
                    map.get(b("hot" + rnd.nextInt(500)));
                }
                assertTrue(map.size() <= bound, "size=" + map.size() + " after " + c);
            }
            int hot = 0;
            for (int h = 0; h < 500; h++) {
                hot += map.get(b("hot" + h)) != null ? 1 : 0;
            }
            long coldLeft = map.size() - hot;
            double hotRate = hot / 500.0;
            double coldRate = coldLeft / (double) cold;
            assertTrue(map.size() > bound * 0.9, "the cache stays nearly full: " + map.size());
            assertTrue(hotRate > 0.8 && hotRate > 10 * coldRate,
                    "read entries survive: hot " + hotRate + " vs cold " + coldRate);
            MapChecks.assertSound(map);
        }
        try (BytesMap map = BytesMap.open(file)) {
            map.put(b("after reopen"), new byte[1]);
            assertTrue(map.size() <= bound, "the bound is in the file");
        }
    }

    @Test
    void shouldKeepTheByteBound() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("bytes.map"), MapOptions.DEFAULTS.withSegments(2).withMaxBytes(64 << 10))) {
            for (int i = 0; i < 5000; i++) {
                map.put(b("k" + i), new byte[100 + i % 400]);
            }
            long[] used = {0};
            int shift = map.file.blockShift;
            map.forEach((k, v) -> used[0] += EntryLayout.blocks(k.length, v.length, 0, shift) << shift);
            assertTrue(used[0] <= 64 << 10, "entry bytes " + used[0]);
            assertTrue(used[0] > 40 << 10, "and the cache is used: " + used[0]);
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldRejectNegativeBounds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MapOptions.DEFAULTS.withMaxEntries(-1));
        assertTrue(e.getMessage().contains("maxEntries=-1"), e.getMessage());
        assertEquals(0, MapOptions.DEFAULTS.maxEntries());
    }
}
