package dev.colossal.struct;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Fixed-length string fields: UTF-8 bytes, zero-padded to the field's length. Writing ASCII
 * allocates nothing; reading makes a {@code String}, and so allocates.
 */
final class StructStrings {

    /** Eight string bytes, first byte lowest: the order in memory whatever the platform. */
    private static final ValueLayout.OfLong WORD =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

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
        if (value.length() > length || !setAscii(s, off, length, value)) {
            setUtf8(s, off, length, value, field);
        }
    }

    /**
     * Writes ASCII eight bytes at a time, zero padding included, in one pass over the chars; returns
     * false (having written part of the field, which the caller then rewrites) on the first non-ASCII
     * char. The caller has checked that the chars fit.
     */
    private static boolean setAscii(MemorySegment s, long off, int length, String value) {
        int chars = value.length();
        int w = 0;
        for (; w + 8 <= chars; w += 8) {
            long word = 0;
            int any = 0; // OR of the chars: one test per word instead of one branch per char
            for (int k = 0; k < 8; k++) {
                char c = value.charAt(w + k);
                any |= c;
                word |= (long) c << (k << 3);
            }
            if (any >= 0x80) {
                return false;
            }
            s.set(WORD, off + w, word);
        }
        long word = 0;
        int any = 0;
        for (int k = 0; w + k < chars; k++) {
            char c = value.charAt(w + k);
            any |= c;
            word |= (long) c << (k << 3);
        }
        if (any >= 0x80) {
            return false;
        }
        if (w + 8 <= length) {
            s.set(WORD, off + w, word);
            for (w += 8; w + 8 <= length; w += 8) {
                s.set(WORD, off + w, 0L);
            }
            word = 0;
        }
        for (; w < length; w++, word >>>= 8) {
            s.set(ValueLayout.JAVA_BYTE, off + w, (byte) word);
        }
        return true;
    }

    private static void setUtf8(MemorySegment s, long off, int length, String value, String field) {
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
