package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class SegmentBytesTest {

    @Test
    void copiesAWholeNativeSegmentAsToArrayDoes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(37);
            for (int i = 0; i < 37; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            assertArrayEquals(s.toArray(ValueLayout.JAVA_BYTE), SegmentBytes.toArray(s));
        }
    }

    @Test
    void copiesARangeAndTheCopyIsIndependentOfTheSource() {
        byte[] source = {10, 11, 12, 13, 14, 15};
        MemorySegment s = MemorySegment.ofArray(source);
        byte[] copy = SegmentBytes.toArray(s, 2, 3);
        assertArrayEquals(new byte[] {12, 13, 14}, copy);
        source[3] = 99;
        assertEquals(13, copy[1]);
        assertNotSame(source, SegmentBytes.toArray(s));
    }

    @Test
    void anEmptySegmentGivesAnEmptyArray() {
        assertEquals(0, SegmentBytes.toArray(MemorySegment.ofArray(new byte[4]), 4, 0).length);
    }

    @Test
    void aRangeOutsideTheSegmentIsRefused() {
        MemorySegment s = MemorySegment.ofArray(new byte[8]);
        assertThrows(IndexOutOfBoundsException.class, () -> SegmentBytes.toArray(s, 6, 3));
    }
}
