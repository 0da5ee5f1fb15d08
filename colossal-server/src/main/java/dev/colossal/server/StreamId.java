package dev.colossal.server;

import java.nio.charset.StandardCharsets;

/**
 * A stream entry's ID: two unsigned 64-bit numbers, milliseconds and a sequence, ordered by
 * milliseconds then sequence, written {@code ms-seq}. Java's longs hold them with their bits as
 * they are; every comparison is unsigned.
 *
 * @param ms  the milliseconds part (unsigned)
 * @param seq the sequence part (unsigned)
 */
record StreamId(long ms, long seq) implements Comparable<StreamId> {

    /** {@code 0-0}: below every entry's ID. */
    static final StreamId MIN = new StreamId(0, 0);
    /** The largest ID, {@code 18446744073709551615-18446744073709551615}. */
    static final StreamId MAX = new StreamId(-1L, -1L);
    /** Redis's error for text that is no ID. */
    static final String INVALID = "ERR Invalid stream ID specified as stream command argument";
    /** Redis reads no ID longer than this. */
    private static final int MAX_TEXT = 127;

    @Override
    public int compareTo(StreamId o) {
        int c = Long.compareUnsigned(ms, o.ms);
        return c != 0 ? c : Long.compareUnsigned(seq, o.seq);
    }

    boolean isMin() {
        return ms == 0 && seq == 0;
    }

    boolean isMax() {
        return ms == -1L && seq == -1L;
    }

    /** @return the next ID, or null after {@link #MAX} */
    StreamId next() {
        if (seq != -1L) {
            return new StreamId(ms, seq + 1);
        }
        return ms == -1L ? null : new StreamId(ms + 1, 0);
    }

    /** @return the previous ID, or null before {@link #MIN} */
    StreamId previous() {
        if (seq != 0) {
            return new StreamId(ms, seq - 1);
        }
        return ms == 0 ? null : new StreamId(ms - 1, -1L);
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }

    /** @return {@code ms-seq} in ASCII, written digit by digit (every XADD replies one, so no String between) */
    byte[] bytes() {
        if (ms < 0 || seq < 0) {
            return toString().getBytes(StandardCharsets.US_ASCII); // past 2^63: the unsigned text
        }
        int msDigits = digits(ms);
        int seqDigits = digits(seq);
        byte[] out = new byte[msDigits + 1 + seqDigits];
        putDigits(out, msDigits, ms);
        out[msDigits] = '-';
        putDigits(out, out.length, seq);
        return out;
    }

    /** @return the decimal digits of {@code v}, which is not negative */
    private static int digits(long v) {
        int n = 1;
        for (long p = 10; n < 19 && v >= p; p *= 10) {
            n++;
        }
        return n;
    }

    /** Writes {@code v}, not negative, as decimal digits ending just before {@code end}. */
    private static void putDigits(byte[] out, int end, long v) {
        do {
            out[--end] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
    }

    /**
     * What an ID argument says, as Redis reads it: {@code ms-seq}; {@code ms} alone with
     * {@code missingSeq}; {@code ms-*} when {@code starSeq} (seq left to the server); {@code -}
     * and {@code +} when not {@code strict}.
     *
     * @param id        the ID, null if the text is none
     * @param seqGiven  false for {@code ms-*}
     */
    record Parsed(StreamId id, boolean seqGiven) {}

    /** @return the ID {@code a} spells, or null (Redis then answers {@link #INVALID}) */
    static StreamId parse(byte[] a, long missingSeq, boolean strict) {
        Parsed p = parse(a, missingSeq, strict, false);
        return p == null ? null : p.id();
    }

    /** @return what {@code a} spells, or null if it is no ID */
    static Parsed parse(byte[] a, long missingSeq, boolean strict, boolean starSeq) {
        if (a.length > MAX_TEXT) {
            return null;
        }
        if (a.length == 1 && (a[0] == '-' || a[0] == '+')) {
            return strict ? null : new Parsed(a[0] == '-' ? MIN : MAX, true);
        }
        int dash = -1;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == '-') {
                dash = i;
                break;
            }
        }
        // Redis's C strings end at the first NUL
        int end = cEnd(a, dash < 0 ? a.length : dash);
        Long ms = unsigned(a, 0, end);
        if (ms == null) {
            return null;
        }
        if (dash < 0) {
            return new Parsed(new StreamId(ms, missingSeq), true);
        }
        int seqEnd = cEnd(a, a.length);
        if (starSeq && seqEnd - dash - 1 == 1 && a[dash + 1] == '*') {
            return new Parsed(new StreamId(ms, 0), false);
        }
        Long seq = unsigned(a, dash + 1, seqEnd);
        return seq == null ? null : new Parsed(new StreamId(ms, seq), true);
    }

    private static int cEnd(byte[] a, int end) {
        for (int i = 0; i < end; i++) {
            if (a[i] == 0) {
                return i;
            }
        }
        return end;
    }

    /**
     * Reads {@code a[from, to)} as Redis's {@code string2ull}: a plain integer that is not
     * negative, or else what C's {@code strtoull} takes whole (leading spaces, a sign, leading
     * zeros; a '-' negates modulo 2^64).
     *
     * @return the number's bits, or null
     */
    static Long unsigned(byte[] a, int from, int to) {
        if (to > from && to - from <= 18 && a[from] != '0') {
            // the usual spelling, plain digits below 10^18 with no leading zero: read in place
            long v = 0;
            int i = from;
            for (; i < to && a[i] >= '0' && a[i] <= '9'; i++) {
                v = v * 10 + (a[i] - '0');
            }
            if (i == to) {
                return v;
            }
        }
        byte[] part = java.util.Arrays.copyOfRange(a, from, to);
        java.util.OptionalLong plain = Args.toLong(part);
        if (plain.isPresent()) {
            return plain.getAsLong() < 0 ? null : plain.getAsLong();
        }
        int i = from;
        while (i < to && (a[i] == ' ' || (a[i] >= '\t' && a[i] <= '\r'))) {
            i++;
        }
        boolean negative = false;
        if (i < to && (a[i] == '+' || a[i] == '-')) {
            negative = a[i] == '-';
            i++;
        }
        if (i >= to) {
            return null;
        }
        long v = 0;
        for (; i < to; i++) {
            int d = a[i] - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L, 10)) > 0) {
                return null;
            }
            long next = v * 10 + d;
            if (Long.compareUnsigned(next, v * 10) < 0) {
                return null;
            }
            v = next;
        }
        return negative ? -v : v;
    }
}
