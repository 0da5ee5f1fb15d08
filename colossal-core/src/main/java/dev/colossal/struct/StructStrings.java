package dev.colossal.struct;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Fixed-length string fields: UTF-8 bytes, zero-padded to the field's length. Writing ASCII
 * allocates nothing; reading makes a {@code String}, and so allocates. A field ends at its first
 * zero byte, so a value holding U+0000 (whose UTF-8 is a zero byte) would read back cut short:
 * it is refused on write, as a value too long is, and as an unpaired surrogate is, which UTF-8
 * cannot carry.
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

    /**
     * Writes ASCII as one word (chars packed low byte first, zero padding included); anything else,
     * or a value too long, goes to {@link #setUtf8}. Fields of up to eight bytes, the common case
     * (symbols, codes), take straight code small enough for C2 to inline into the generated setter
     * and, with it, a whole struct write into its caller's loop. The chars are gathered in 16-bit
     * lanes and tested with one mask, so a char above 0xFF cannot pass for ASCII by its low byte;
     * a loop over the chars cost twice the instructions (callgrind, {@code struct-cost.sh}). The
     * field length is a constant there, so the branch between the paths folds away.
     */
    @SuppressWarnings("fallthrough") // straight code, one case per length: no loop to enter or leave
    static void set(MemorySegment s, long off, int length, String value, String field) {
        if (value == null) {
            throw nullValue(field);
        }
        if (length > 8) {
            setLong(s, off, length, value, field);
            return;
        }
        int chars = value.length();
        long low = 0; // chars 0-3, 16 bits each, so a char above 0xFF cannot hide in a neighbour's byte
        long high = 0; // chars 4-7
        switch (chars > length ? 0 : chars) {
            case 8: high |= (long) value.charAt(7) << 48;
            case 7: high |= (long) value.charAt(6) << 32;
            case 6: high |= (long) value.charAt(5) << 16;
            case 5: high |= value.charAt(4);
            case 4: low |= (long) value.charAt(3) << 48;
            case 3: low |= (long) value.charAt(2) << 32;
            case 2: low |= (long) value.charAt(1) << 16;
            case 1: low |= value.charAt(0);
            default:
        }
        if (chars > length || ((low | high) & 0xFF80_FF80_FF80_FF80L) != 0
                || Long.bitCount(nonZero(low) | nonZero(high) >>> 1) != chars) { // not ASCII, or a NUL among it
            setUtf8(s, off, length, value, field);
            return;
        }
        long word = narrow(low) | narrow(high) << 32;
        if (length == 8) {
            s.set(WORD, off, word);
        } else {
            tail(s, off, length, word);
        }
    }

    /** A field reads back "" when empty, never null, so null is refused rather than stored as "". */
    private static NullPointerException nullValue(String field) {
        return new NullPointerException("string field '" + field + "' cannot hold null (an empty field reads back as \"\")");
    }

    /**
     * Bit 15 of each 16-bit lane whose char is not zero, for lanes that hold ASCII (up to 0x7F: adding
     * 0x7FFF then carries into no neighbour). The lanes past the value are zero, so the bits count
     * the value's chars exactly when none of them is NUL.
     */
    private static long nonZero(long lanes) {
        return (lanes + 0x7FFF_7FFF_7FFF_7FFFL) & 0x8000_8000_8000_8000L;
    }

    /** Four 16-bit lanes holding bytes to four bytes, lowest lane first. */
    private static long narrow(long lanes) {
        long pairs = (lanes | lanes >>> 8) & 0x0000_FFFF_0000_FFFFL;
        return (pairs | pairs >>> 16) & 0xFFFF_FFFFL;
    }

    /**
     * The same a word at a time, for fields longer than eight bytes; the chars are all tested before
     * the first word is written, so a value refused as too long leaves the field as it was.
     */
    private static void setLong(MemorySegment s, long off, int length, String value, String field) {
        int chars = value.length();
        int any = chars > length ? 0x80 : 0;
        for (int k = 0; k < chars && any < 0x80; k++) {
            char c = value.charAt(k);
            any |= c == 0 ? 0x80 : c; // a NUL goes the slow way too, which refuses it
        }
        if (any >= 0x80) {
            setUtf8(s, off, length, value, field);
            return;
        }
        for (int w = 0; w < length; w += 8) {
            long word = 0;
            for (int k = 0, end = Math.min(chars - w, 8); k < end; k++) {
                word |= (long) value.charAt(w + k) << (k << 3);
            }
            if (length - w >= 8) {
                s.set(WORD, off + w, word);
            } else {
                tail(s, off + w, length - w, word);
            }
        }
    }

    /** The last {@code n < 8} bytes of a field, from the low end of {@code word}. */
    private static void tail(MemorySegment s, long off, int n, long word) {
        for (int k = 0; k < n; k++, word >>>= 8) {
            s.set(ValueLayout.JAVA_BYTE, off + k, (byte) word);
        }
    }

    private static void setUtf8(MemorySegment s, long off, int length, String value, String field) {
        put(s, off, length, utf8(length, value, field));
    }

    /**
     * The value's UTF-8, checked to fit a field of {@code length} bytes.
     *
     * @throws IllegalArgumentException if it holds a NUL or an unpaired surrogate, or is too long
     */
    static byte[] utf8(int length, String value, String field) {
        int nul = value.indexOf('\u0000');
        if (nul >= 0) {
            throw new IllegalArgumentException("field=" + field + " cannot hold value=\"" + value.replace("\u0000", "\\0")
                    + "\": it has a NUL (U+0000) at index " + nul + ", and a string field ends at its first zero byte,"
                    + " so what follows would be lost on read; remove it, or keep such data in a @Length byte[] field");
        }
        int unpaired = unpairedSurrogate(value);
        if (unpaired >= 0) {
            // getBytes would write '?' in its place, and the field would read back changed
            throw new IllegalArgumentException("field=" + field + " cannot hold value=\"" + value + "\": it has an "
                    + "unpaired surrogate (U+" + Integer.toHexString(value.charAt(unpaired)).toUpperCase(java.util.Locale.ROOT)
                    + ") at index " + unpaired + ", which UTF-8 cannot carry (a string cut inside a surrogate pair?); "
                    + "remove it or complete the pair");
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > length) {
            throw new IllegalArgumentException("field=" + field + " holds " + length + " bytes but value=\""
                    + value + "\" takes " + bytes.length + " in UTF-8; shorten it or raise @Length");
        }
        return bytes;
    }

    /** Stores checked UTF-8 ({@link #utf8}) into a field of {@code length} bytes, zero-padded. */
    static void put(MemorySegment s, long off, int length, byte[] bytes) {
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, off, bytes.length);
        zero(s, off + bytes.length, length - bytes.length);
    }

    /** The index of the first surrogate that is not half of a pair, or -1 if there is none. */
    private static int unpairedSurrogate(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** A loop rather than {@code asSlice().fill()}, which would allocate a slice on every write. */
    private static void zero(MemorySegment s, long off, int n) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) 0);
        }
    }
}
