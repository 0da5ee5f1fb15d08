package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A value rewritten at its size: its old run goes back to the free lists whole, not joined with a
 * free neighbour, and the next rewrite at that size takes it back (see
 * {@link SegmentHeap#allocateReplacing}).
 */
class SameSizeReplaceTest {

    @TempDir
    Path dir;

    @Test
    void aRunARewriteGaveBackIsNotJoinedWithItsFreeNeighbourAndIsTakenBackByTheNextRewrite() throws IOException {
        Path file = dir.resolve("m.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(1))) {
            put(map, "k", 300, 1);
            put(map, "j", 40, 2);
            put(map, "x", 40, 3);
            long k0 = entryOf(map, "k");
            long j0 = entryOf(map, "j");
            assertTrue(j0 > k0, "j's entry lies behind k's: k0=" + k0 + ", j0=" + j0);
            map.remove(key("j"));   // a free run right behind k's entry

            put(map, "k", 300, 4);
            long k1 = entryOf(map, "k");
            assertNotEquals(k0, k1);
            put(map, "y", 40, 5);
            assertEquals(j0, entryOf(map, "y"), "j's run, left apart from k's old one, is the exact fit of an entry of its size");

            put(map, "k", 300, 6);
            assertEquals(k0, entryOf(map, "k"), "the next rewrite at that size takes k's first run back");
            put(map, "k", 300, 7);
            assertEquals(k1, entryOf(map, "k"), "and the one after, the run the last gave back");
            assertArrayEquals(value(300, 7), map.get("k".getBytes(UTF_8)));
            assertArrayEquals(value(40, 5), map.get("y".getBytes(UTF_8)));
            assertArrayEquals(value(40, 3), map.get("x".getBytes(UTF_8)));
        }
        assertTrue(MapVerifier.verify(file, null).isSound(), "free lists and entries agree");
    }

    private static void put(BytesMap map, String k, int length, int fill) {
        map.put(key(k), MemorySegment.ofArray(value(length, fill)));
    }

    private static MemorySegment key(String k) {
        return MemorySegment.ofArray(k.getBytes(UTF_8));
    }

    private static byte[] value(int length, int fill) {
        byte[] v = new byte[length];
        Arrays.fill(v, (byte) fill);
        return v;
    }

    /** Position of the entry of {@code k} in the file. */
    private static long entryOf(BytesMap map, String k) {
        MemorySegment key = key(k);
        long h = BytesMap.hash(key);
        Segment s = map.segmentFor(h);
        s.lockForRead();
        try {
            return s.entryAt(s.find(key, h));
        } finally {
            s.unlockForRead();
        }
    }
}
