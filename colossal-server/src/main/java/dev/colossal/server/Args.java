package dev.colossal.server;

import java.nio.charset.StandardCharsets;

/** Reading command arguments: case-insensitive keywords and Redis-strict numbers. */
final class Args {

    /** Returned by {@link #parseLong} for text that is not a 64-bit integer. */
    static final long NOT_A_NUMBER = Long.MIN_VALUE;

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
     * @return the value, or {@link #NOT_A_NUMBER} (also for Long.MIN_VALUE itself, which callers
     *     must treat as a parse failure only where {@link #isLong} says so)
     */
    static long parseLong(byte[] a) {
        return RequestParser.parseLong(java.lang.foreign.MemorySegment.ofArray(a), 0, a.length);
    }

    static boolean isLong(byte[] a) {
        return parseLong(a) != NOT_A_NUMBER || "-9223372036854775808".equals(new String(a, StandardCharsets.US_ASCII));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
