package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Whether bytes are the canonical decimal of a 64-bit integer (an optional minus, then digits with
 * no leading zero, {@code "-0"} excluded: what {@code Long.toString} gives back), and its value:
 * the test by which Redis stores a string or a listpack entry as an integer.
 *
 * <p>Read byte by byte, never by {@code Long.parseLong}: most entries are not numbers, and each
 * failed parse threw an exception whose stack trace cost more than the rest of writing the entry
 * (a third of a 300k-key snapshot's time, in the lists' and hashes' listpacks).
 */
final class CanonicalDecimal {

    /** The digits of {@code Long.MIN_VALUE} without its sign: the longest canonical decimal a long has. */
    private static final byte[] MIN_DIGITS = "9223372036854775808".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private CanonicalDecimal() {}

    /** @return whether {@code e} is the canonical decimal of a long */
    static boolean is(byte[] e) {
        return is(MemorySegment.ofArray(e));
    }

    /** @return whether {@code e} is the canonical decimal of a long */
    static boolean is(MemorySegment e) {
        long n = e.byteSize();
        if (n == 0 || n > 20) {
            return false;
        }
        boolean negative = e.get(ValueLayout.JAVA_BYTE, 0) == '-';
        int from = negative ? 1 : 0;
        if (n == from) {
            return false;
        }
        if (e.get(ValueLayout.JAVA_BYTE, from) == '0') {
            return n == 1;   // "0" alone: "-0" and leading zeros read back otherwise
        }
        for (long i = from; i < n; i++) {
            byte b = e.get(ValueLayout.JAVA_BYTE, i);
            if (b < '0' || b > '9') {
                return false;
            }
        }
        long digits = n - from;
        if (digits != MIN_DIGITS.length) {
            return digits < MIN_DIGITS.length;
        }
        // As many digits as the extremes: compare with 9223372036854775808 (807 for a positive one)
        for (int i = 0; i < MIN_DIGITS.length; i++) {
            int d = e.get(ValueLayout.JAVA_BYTE, from + i) - MIN_DIGITS[i];
            if (d != 0) {
                return d < 0;
            }
        }
        return negative;
    }

    /** @return the value of {@code e}, which {@link #is} accepted */
    static long value(byte[] e) {
        return value(MemorySegment.ofArray(e));
    }

    /** @return the value of {@code e}, which {@link #is} accepted */
    static long value(MemorySegment e) {
        boolean negative = e.get(ValueLayout.JAVA_BYTE, 0) == '-';
        long v = 0;   // accumulated negative, which holds Long.MIN_VALUE too
        for (long i = negative ? 1 : 0; i < e.byteSize(); i++) {
            v = v * 10 - (e.get(ValueLayout.JAVA_BYTE, i) - '0');
        }
        return negative ? v : -v;
    }
}
