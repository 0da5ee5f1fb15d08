package dev.colossal.struct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Fixed string fields against the reference (the value's UTF-8 bytes, zero-padded): the short-field
 * path reads chars in 16-bit lanes, so a char whose low byte alone looks like ASCII must still be
 * caught, at every position and for every field length.
 */
class StructStringsTest {

    /** ASCII, Latin-1, chars whose low byte is ASCII ('Ł' is 0x141), other BMP, a surrogate pair. */
    private static final String[] PIECES = {"a", "Z", "0", "\u007f", "\u0000", "é", "\u0080", "\u00ff", "\u0141",
        "\u4e41", "\uff21", "\u7f41", "🙂"};

    @Test
    void everyShortValueWritesItsUtf8BytesOrIsRefusedLeavingTheFieldAsItWas() {
        SplittableRandom random = new SplittableRandom(42);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(32);
            for (int length = 1; length <= 19; length++) {
                for (int round = 0; round < 3_000; round++) {
                    StringBuilder b = new StringBuilder();
                    int pieces = random.nextInt(length + 3);
                    boolean ascii = random.nextInt(3) == 0; // most values hit the fast path
                    for (int i = 0; i < pieces; i++) {
                        b.append(ascii && i != pieces - 1 ? "x" : PIECES[random.nextInt(PIECES.length)]);
                    }
                    check(s, length, b.toString());
                }
            }
        }
    }

    @Test
    void anUnpairedSurrogateIsRefusedNamingItsIndexInsteadOfBecomingAQuestionMark() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(32);
            for (int length : new int[] {4, 8, 19}) {
                StructStrings.set(s, 0, length, "ok", "T.f");
                String[] bad = {"\uD800", "a\uDC00", "🙂\uD83D", "\uDE00🙂"};
                int[] index = {0, 1, 2, 0};
                for (int i = 0; i < bad.length; i++) {
                    String value = bad[i];
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> StructStrings.set(s, 0, length, value, "T.f"));
                    int at = index[i];
                    assertTrue(e.getMessage().contains("field=T.f") && e.getMessage().contains("unpaired surrogate")
                            && e.getMessage().contains("at index " + at), e.getMessage());
                    assertEquals("ok", StructStrings.get(s, 0, length), "a refused write leaves the field as it was");
                }
            }
        }
    }

    /** null was a bare NullPointerException from inside the setter; it names the field now. */
    @Test
    void nullIsRefusedNamingTheFieldAndLeavingItAsItWas() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(32);
            for (int length : new int[] {4, 8, 19}) {
                StructStrings.set(s, 0, length, "ok", "T.f");
                NullPointerException e = assertThrows(NullPointerException.class,
                        () -> StructStrings.set(s, 0, length, null, "T.f"));
                assertEquals("string field 'T.f' cannot hold null (an empty field reads back as \"\")", e.getMessage());
                assertEquals("ok", StructStrings.get(s, 0, length));
            }
        }
    }

    @Test
    void aNonAsciiCharIsSeenAtEveryPositionOfEveryFieldLength() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(32);
            for (int length = 1; length <= 8; length++) {
                for (int chars = 1; chars <= length; chars++) {
                    for (int at = 0; at < chars; at++) {
                        for (String odd : new String[] {"\u0141", "\u00e9", "\u0080", "\u7f41"}) {
                            char[] value = new char[chars];
                            Arrays.fill(value, 'q');
                            value[at] = odd.charAt(0);
                            check(s, length, new String(value));
                        }
                    }
                }
            }
        }
    }

    @Test
    void aNulIsRefusedAtEveryPositionOfEveryFieldLength() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(32);
            for (int length = 1; length <= 19; length++) {
                for (int chars = 1; chars <= length + 1; chars++) {
                    for (int at = 0; at < chars; at++) {
                        for (String other : new String[] {"q", "\u00e9"}) { // the ASCII path and the UTF-8 one
                            char[] value = new char[chars];
                            Arrays.fill(value, other.charAt(0));
                            value[at] = '\u0000';
                            check(s, length, new String(value));
                        }
                    }
                }
            }
        }
    }

    private static void check(MemorySegment s, int length, String value) {
        s.fill((byte) 0x55); // sentinels around the field, and stale bytes inside it
        s.asSlice(4, length).fill((byte) 'w');
        byte[] before = s.toArray(ValueLayout.JAVA_BYTE);
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        if (value.indexOf('\u0000') >= 0) { // it would read back cut short at its NUL
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StructStrings.set(s, 4, length, value, "T.f"), value);
            assertTrue(e.getMessage().contains("field=T.f cannot hold") && e.getMessage().contains("NUL"),
                    e.getMessage());
            assertArrayEquals(before, s.toArray(ValueLayout.JAVA_BYTE), "a refused write changes nothing: " + value);
            return;
        }
        if (utf8.length > length) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StructStrings.set(s, 4, length, value, "T.f"), value);
            assertTrue(e.getMessage().contains("field=T.f holds " + length + " bytes"), e.getMessage());
            assertArrayEquals(before, s.toArray(ValueLayout.JAVA_BYTE), "a refused write changes nothing: " + value);
            return;
        }
        StructStrings.set(s, 4, length, value, "T.f");
        byte[] expected = before.clone();
        Arrays.fill(expected, 4, 4 + length, (byte) 0);
        System.arraycopy(utf8, 0, expected, 4, utf8.length);
        assertArrayEquals(expected, s.toArray(ValueLayout.JAVA_BYTE), "length=" + length + " value=" + value);
        assertEquals(value, StructStrings.get(s, 4, length), "what is written reads back whole");
    }
}
