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

    /** @return the double Redis's strtold would accept, or null (no spaces, no NaN) */
    static Double parseDouble(byte[] a) {
        if (a.length == 0 || a.length > 5000) {
            return null;
        }
        String s = new String(a, StandardCharsets.ISO_8859_1);
        if (Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1))) {
            return null;
        }
        String t = s.toLowerCase(java.util.Locale.ROOT);
        if (t.equals("inf") || t.equals("+inf") || t.equals("infinity") || t.equals("+infinity")) {
            return Double.POSITIVE_INFINITY;
        }
        if (t.equals("-inf") || t.equals("-infinity")) {
            return Double.NEGATIVE_INFINITY;
        }
        if (t.contains("n") || t.endsWith("d") || t.endsWith("f") || t.contains("x") || t.contains("p")) {
            return null; // Java accepts suffixes and hex that strtold spells differently; nan is refused
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Formats like Redis's INCRBYFLOAT: plain decimal, at most 17 places, no trailing zeros. */
    static String formatDouble(double v) {
        java.math.BigDecimal d = new java.math.BigDecimal(Double.toString(v));
        String s = d.setScale(Math.min(17, Math.max(0, d.scale())), java.math.RoundingMode.HALF_EVEN)
                .stripTrailingZeros().toPlainString();
        return s.equals("-0") ? "0" : s;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
