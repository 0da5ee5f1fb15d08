package dev.colossal.server;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The order a set's members are stored and answered in ({@link SetLayout}): integers first, by
 * value, then every other member by its bytes, unsigned. An integer is what Redis's intset takes
 * for one (its {@code string2ll}): the canonical decimal of a 64-bit value, no sign but a minus,
 * no leading zero, no "-0". A set Redis holds as an intset is all integers, so this is its order;
 * a hashtable's order in Redis is its table's, which no one can rely on.
 */
final class SetOrder {

    /** The order on whole arrays. */
    static final Comparator<byte[]> MEMBERS = (x, y) -> compare(x, 0, x.length, y, 0, y.length);

    /** The most bytes a 64-bit decimal takes: 19 digits and a minus. */
    private static final int LONGEST = 20;

    private SetOrder() {}

    /** @return whether {@code b[from, from + length)} is an integer as Redis's intset takes one */
    static boolean isInteger(byte[] b, int from, int length) {
        if (length == 0 || length > LONGEST) {
            return false;
        }
        int i = from;
        int end = from + length;
        boolean negative = b[i] == '-';
        if (negative && ++i == end) {
            return false;
        }
        if (b[i] == '0') {
            return length == 1;
        }
        // Accumulated negatively, so that Long.MIN_VALUE's digits fit
        long v = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
                return false;
            }
            v = v * 10 - d;
        }
        return negative || v != Long.MIN_VALUE;
    }

    static boolean isInteger(byte[] b) {
        return isInteger(b, 0, b.length);
    }

    /** @return the value of {@code b[from, from + length)}, which {@link #isInteger} accepted */
    static long integer(byte[] b, int from, int length) {
        int i = from;
        int end = from + length;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        long v = 0;
        for (; i < end; i++) {
            v = v * 10 - (b[i] - '0');
        }
        return negative ? v : -v;
    }

    /** @return below, at or above 0 as {@code a[af, af + al)} comes before, is, or comes after {@code b[bf, bf + bl)} */
    static int compare(byte[] a, int af, int al, byte[] b, int bf, int bl) {
        boolean ai = isInteger(a, af, al);
        if (ai != isInteger(b, bf, bl)) {
            return ai ? -1 : 1;
        }
        return ai ? Long.compare(integer(a, af, al), integer(b, bf, bl))
                : Arrays.compareUnsigned(a, af, af + al, b, bf, bf + bl);
    }
}
