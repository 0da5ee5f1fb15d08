package dev.colossal.rdb;

import java.util.List;

/**
 * Writes a {@link Listpack} as Redis 7.0's {@code lpAppend} builds one: an entry that is the
 * canonical decimal of a 64-bit integer is stored as an integer of the fewest bytes, any other as a
 * string. The layout is drawn in {@link Listpack}.
 */
final class ListpackWriter {

    private static final int HEADER = Integer.BYTES + Short.BYTES;
    private static final int MANY = 0xFFFF;

    private ListpackWriter() {}

    /** @return the listpack of {@code entries}, in order */
    static byte[] encode(List<byte[]> entries) {
        // Each entry is told integer or string once: an integer's encoded length is kept negated
        int[] lengths = new int[entries.size()];
        long total = HEADER + 1L;
        for (int i = 0; i < lengths.length; i++) {
            byte[] e = entries.get(i);
            boolean integer = CanonicalDecimal.is(e);
            int n = integer ? integerLength(CanonicalDecimal.value(e)) : stringLength(e.length);
            lengths[i] = integer ? -n : n;
            total += n + backLengthSize(n);
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a listpack of " + total + " bytes is larger than one array holds");
        }
        byte[] out = new byte[(int) total];
        putLe(out, 0, total, 4);
        putLe(out, 4, Math.min(entries.size(), MANY), 2);
        int at = HEADER;
        for (int i = 0; i < lengths.length; i++) {
            byte[] e = entries.get(i);
            int start = at;
            at = lengths[i] < 0 ? putInteger(out, at, CanonicalDecimal.value(e), -lengths[i]) : putString(out, at, e);
            at = putBackLength(out, at, at - start);
        }
        out[at] = (byte) 0xFF;
        return out;
    }

    /** @return the bytes of integer {@code v}'s encoding */
    private static int integerLength(long v) {
        return v >= 0 && v <= 127 ? 1 : v >= -4096 && v <= 4095 ? 2 : v >= -32768 && v <= 32767 ? 3
                : v >= -8388608 && v <= 8388607 ? 4 : v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? 5 : 9;
    }

    /** @return the bytes of a string entry of {@code length} bytes */
    private static int stringLength(int length) {
        return length < 64 ? 1 + length : length < 4096 ? 2 + length : 5 + length;
    }

    /** Writes integer {@code v} in its {@code n}-byte encoding; @return the offset after it */
    private static int putInteger(byte[] out, int at, long v, int n) {
        switch (n) {
            case 1 -> out[at] = (byte) v;
            case 2 -> {
                int u = (int) v & 0x1FFF;
                out[at] = (byte) (0xC0 | u >>> 8);
                out[at + 1] = (byte) u;
            }
            default -> {
                out[at] = (byte) (n == 3 ? 0xF1 : n == 4 ? 0xF2 : n == 5 ? 0xF3 : 0xF4);
                putLe(out, at + 1, v, n - 1);
            }
        }
        return at + n;
    }

    private static int putString(byte[] out, int at, byte[] e) {
        int n = e.length;
        if (n < 64) {
            out[at++] = (byte) (0x80 | n);
        } else if (n < 4096) {
            out[at++] = (byte) (0xE0 | n >>> 8);
            out[at++] = (byte) n;
        } else {
            out[at++] = (byte) 0xF0;
            putLe(out, at, n, 4);
            at += 4;
        }
        System.arraycopy(e, 0, out, at, n);
        return at + n;
    }

    private static int backLengthSize(int n) {
        return n <= 127 ? 1 : n < 16383 ? 2 : n < 2097151 ? 3 : n < 268435455 ? 4 : 5;
    }

    /** Redis's {@code lpEncodeBacklen}: 7 bits a byte, most significant first, the high bit set on all but the first. */
    private static int putBackLength(byte[] out, int at, int n) {
        int size = backLengthSize(n);
        for (int i = 0; i < size; i++) {
            int shift = 7 * (size - 1 - i);
            out[at + i] = (byte) ((n >>> shift) & 127 | (i == 0 ? 0 : 128));
        }
        return at + size;
    }

    private static void putLe(byte[] out, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
