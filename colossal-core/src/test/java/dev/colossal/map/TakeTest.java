package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link BytesMap#take}: a get and a remove in one step, which leaves a value that does not fit in place. */
class TakeTest {

    @TempDir
    Path dir;

    private static MemorySegment s(String v) {
        return MemorySegment.ofArray(v.getBytes(UTF_8));
    }

    @Test
    void takeCopiesTheValueAtTheOffsetAndRemovesTheKey() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("t.map"))) {
            map.put(s("k"), s("value"));
            map.put(s("other"), s("stays"));
            MemorySegment dst = MemorySegment.ofArray(new byte[12]);
            assertEquals(5, map.take(s("k"), dst, 3));
            assertEquals("value", new String(dst.asSlice(3, 5).toArray(ValueLayout.JAVA_BYTE), UTF_8));
            assertNull(map.get("k".getBytes(UTF_8)));
            assertEquals(1, map.size());
            assertEquals(-1, map.take(s("k"), dst, 0), "gone after the take");
            assertArrayEquals("stays".getBytes(UTF_8), map.get("other".getBytes(UTF_8)));
        }
    }

    @Test
    void aValueLongerThanTheRoomIsNeitherCopiedNorRemoved() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("t.map"))) {
            map.put(s("k"), s("a longer value"));
            byte[] small = new byte[8];
            MemorySegment dst = MemorySegment.ofArray(small);
            assertEquals(14, map.take(s("k"), dst, 2));
            assertArrayEquals(new byte[8], small, "nothing copied");
            assertArrayEquals("a longer value".getBytes(UTF_8), map.get("k".getBytes(UTF_8)), "nothing removed");
            MemorySegment room = MemorySegment.ofArray(new byte[14]);
            assertEquals(14, map.take(s("k"), room, 0));
            assertNull(map.get("k".getBytes(UTF_8)));
        }
    }

    @Test
    void aBadDestinationIsTheCallersMistake() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("t.map"))) {
            map.put(s("k"), s("v"));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> map.take(s("k"), MemorySegment.ofArray(new byte[4]).asReadOnly(), 0));
            assertTrue(e.getMessage().contains("dst is read-only"), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> map.take(s("k"), MemorySegment.ofArray(new byte[4]), 5));
            assertArrayEquals("v".getBytes(UTF_8), map.get("k".getBytes(UTF_8)), "nothing removed");
        }
    }
}
