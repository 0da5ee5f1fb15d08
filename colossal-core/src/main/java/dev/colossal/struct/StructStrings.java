package dev.colossal.struct;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Fixed-length string fields: UTF-8 bytes, zero-padded to the field's length. Writing ASCII
 * allocates nothing; reading makes a {@code String}, and so allocates.
 */
final class StructStrings {

    private StructStrings() {}

    static String get(MemorySegment s, long off, int length) {
        int n = 0;
        while (n < length && s.get(ValueLayout.JAVA_BYTE, off + n) != 0) {
            n++;
        }
        byte[] bytes = new byte[n];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, off, bytes, 0, n);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static void set(MemorySegment s, long off, int length, String value, String field) {
        int chars = value.length();
        boolean ascii = chars <= length;
        for (int i = 0; ascii && i < chars; i++) {
            ascii = value.charAt(i) < 0x80;
        }
        if (ascii) {
            for (int i = 0; i < chars; i++) {
                s.set(ValueLayout.JAVA_BYTE, off + i, (byte) value.charAt(i));
            }
            zero(s, off + chars, length - chars);
            return;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > length) {
            throw new IllegalArgumentException("field=" + field + " holds " + length + " bytes but value=\""
                    + value + "\" takes " + bytes.length + " in UTF-8; shorten it or raise @Length");
        }
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, off, bytes.length);
        zero(s, off + bytes.length, length - bytes.length);
    }

    /** A loop rather than {@code asSlice().fill()}, which would allocate a slice on every write. */
    private static void zero(MemorySegment s, long off, int n) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) 0);
        }
    }
}
