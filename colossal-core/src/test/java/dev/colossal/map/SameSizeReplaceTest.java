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
 * A value rewritten at its size into the run heading its size's free list gives its old run back
 * whole, not joined with a free neighbour, and the next rewrite at that size takes it back (see
 * {@link SegmentHeap#takeReplacing}); one that finds no such run frees as any other.
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
            put(map, "z", 300, 4);
            put(map, "w", 40, 5);
            long k0 = entryOf(map, "k");
            long j0 = entryOf(map, "j");
            long z0 = entryOf(map, "z");
            assertTrue(k0 < j0 && j0 < z0, "entries in the order written: k0=" + k0 + ", j0=" + j0 + ", z0=" + z0);
            map.remove(key("z"));   // a free run of k's size, heading its class's list
            map.remove(key("j"));   // a free run right behind k's entry

            put(map, "k", 300, 6);
            assertEquals(z0, entryOf(map, "k"), "a rewrite at k's size takes the run of its size at the head of its list");
            put(map, "y", 40, 7);
            assertEquals(j0, entryOf(map, "y"), "j's run, left apart from k's old one, is the exact fit of an entry of its size");

            put(map, "k", 300, 8);
            assertEquals(k0, entryOf(map, "k"), "the next rewrite at that size takes k's first run back");
            put(map, "k", 300, 9);
            assertEquals(z0, entryOf(map, "k"), "and the one after, the run the last gave back");
            assertArrayEquals(value(300, 9), map.get("k".getBytes(UTF_8)));
            assertArrayEquals(value(40, 7), map.get("y".getBytes(UTF_8)));
            assertArrayEquals(value(40, 3), map.get("x".getBytes(UTF_8)));
            assertArrayEquals(value(40, 5), map.get("w".getBytes(UTF_8)));
        }
        assertTrue(MapVerifier.verify(file, null).isSound(), "free lists and entries agree");
    }

    @Test
    void aRewriteThatFindsNoRunOfItsSizeGivesItsOldRunBackJoined() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map"), MapOptions.DEFAULTS.withSegments(1))) {
            put(map, "k", 300, 1);
            put(map, "j", 40, 2);
            put(map, "x", 40, 3);
            long j0 = entryOf(map, "j");
            map.remove(key("j"));
            put(map, "k", 300, 4);   // no run of its size is free: taken as any other, the old one joined
            put(map, "y", 40, 5);
            assertNotEquals(j0, entryOf(map, "y"), "j's run went into the join with k's old one");
        }
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
