package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.OptionalLong;

/** Reading command arguments: case-insensitive keywords and Redis-strict numbers. */
final class Args {

    private Args() {}

    /** @return whether {@code a} spells {@code upper} in any case (ASCII) */
    static boolean is(byte[] a, String upper) {
        if (a.length != upper.length()) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            int c = a[i];
            if (c >= 'a' && c <= 'z') {
                c -= 32;
            }
            if (c != upper.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static String lower(byte[] a) {
        char[] out = new char[a.length];
        for (int i = 0; i < a.length; i++) {
            int c = a[i] & 0xff;
            out[i] = (char) (c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        return new String(out);
    }

    /**
     * Reads a 64-bit integer as Redis does (string2ll: optional '-', no '+', no leading zeros, no
     * spaces, within range).
     *
     * @return the value, or empty if {@code a} is not such an integer
     */
    static OptionalLong toLong(byte[] a) {
        long v = RequestParser.parseLong(java.lang.foreign.MemorySegment.ofArray(a), 0, a.length);
        // The wire parser answers Long.MIN_VALUE for bad text, where it is never valid anyway;
        // here it is a value, so that one spelling is told apart from a failure.
        return v != Long.MIN_VALUE || Arrays.equals(a, MIN_VALUE_TEXT) ? OptionalLong.of(v) : OptionalLong.empty();
    }

    /**
     * Reads a SCAN cursor as Redis does, with C's strtoul: an unsigned 64-bit number with an
     * optional '+' or '-' (which negates it modulo 2^64, so -1 is 2^64-1), leading zeros allowed,
     * no spaces, and the text ends at the first NUL byte (a C string): "" and "\0..." are cursor 0.
     *
     * @return the cursor, or empty if Redis answers "invalid cursor"
     */
    static OptionalLong toCursor(byte[] a) {
        int end = 0;
        while (end < a.length && a[end] != 0) {
            end++;
        }
        if (end == 0) {
            return OptionalLong.of(0);
        }
        boolean negative = a[0] == '-';
        int i = negative || a[0] == '+' ? 1 : 0;
        if (i == end) {
            return OptionalLong.empty(); // a sign alone: strtoul reads no number and stops at the sign
        }
        long v = 0;
        for (; i < end; i++) {
            int d = a[i] - '0';
            // Past 2^64-1 strtoul answers ERANGE, which Redis refuses; -1L - d is 2^64-1-d unsigned.
            if (d < 0 || d > 9 || Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                return OptionalLong.empty();
            }
            v = v * 10 + d;
        }
        return OptionalLong.of(negative ? -v : v);
    }

    private static final byte[] MIN_VALUE_TEXT = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** C's atoi as glibc does it: strtol's value, clamped to a long, then cut to an int. */
    static int atoi(byte[] s) {
        int i = 0;
        while (i < s.length && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r')) {
            i++;
        }
        boolean negative = false;
        if (i < s.length && (s[i] == '-' || s[i] == '+')) {
            negative = s[i] == '-';
            i++;
        }
        long v = 0;
        boolean over = false;
        for (; i < s.length && s[i] >= '0' && s[i] <= '9'; i++) {
            int d = s[i] - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                over = true;
            } else {
                v = v * 10 + d;
            }
        }
        if (over) {
            v = negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        } else if (negative) {
            v = -v;
        }
        return (int) v;
    }

}
