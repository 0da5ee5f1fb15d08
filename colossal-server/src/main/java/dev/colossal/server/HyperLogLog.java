package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * A HyperLogLog in Redis's string format, so that PFADD, PFCOUNT and PFMERGE give Redis's counts,
 * GET and DUMP give Redis's bytes, and a value moved between the servers stays valid. 16,384
 * six-bit registers; an element sets the register its hash's low 14 bits pick to the position of
 * the lowest 1 among the other 50 (plus one), if that is more than the register holds.
 *
 * <pre>
 *  0        4          5          8                  16
 *  +--------+----------+----------+------------------+--------------------------------------+
 *  | "HYLL" | encoding | 0, 0, 0  | cached count     | registers                             |
 *  |        | 0 dense  |          | (LE; top bit of  | dense: 16384 x 6 bits, LSB first,     |
 *  |        | 1 sparse |          |  byte 15 = stale)|        12,288 bytes                   |
 *  +--------+----------+----------+------------------+ sparse: runs, each one opcode:        |
 *                                                    |  00llllll           ZERO, l+1 zeros   |
 *                                                    |  01llllll llllllll  XZERO, l+1 zeros  |
 *                                                    |  1vvvvvll           VAL, l+1 of v+1   |
 *                                                    +--------------------------------------+
 * </pre>
 *
 * <p>A new HyperLogLog is sparse (one XZERO of every register, 18 bytes) with a valid cached count
 * of 0. A sparse one turns dense, for good, once a register needs more than 32 or it would grow past
 * {@link #SPARSE_MAX_BYTES}; a sparse update rewrites only the run the register is in and merges equal
 * neighbours, as Redis does, so that both servers hold the same bytes after the same adds.
 */
final class HyperLogLog {

    static final int P = 14;
    static final int REGISTERS = 1 << P;
    private static final int Q = 64 - P;
    private static final int MAX_REGISTER = 63;
    static final int HEADER = 16;
    static final int DENSE_SIZE = HEADER + (REGISTERS * 6 + 7) / 8;
    static final byte DENSE = 0;
    static final byte SPARSE = 1;
    /** Redis's {@code hll-sparse-max-bytes} default. */
    static final int SPARSE_MAX_BYTES = 3000;
    private static final int ZERO_MAX = 64;
    private static final int XZERO_MAX = 16384;
    private static final int VAL_MAX_VALUE = 32;
    private static final int VAL_MAX_LEN = 4;
    private static final int ENCODING_OFFSET = 4;
    private static final int CARD_OFFSET = 8;

    /** Not a HyperLogLog, as Redis answers it. */
    static final String NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    static final String CORRUPTED = "INVALIDOBJ Corrupted HLL object detected";

    /** The value's bytes; replaced when an update changes its length. */
    private byte[] b;

    private HyperLogLog(byte[] bytes) {
        this.b = bytes;
    }

    /** @return a new, empty, sparse HyperLogLog */
    static HyperLogLog empty() {
        byte[] v = new byte[HEADER + 2];
        v[0] = 'H';
        v[1] = 'Y';
        v[2] = 'L';
        v[3] = 'L';
        v[ENCODING_OFFSET] = SPARSE;
        v[HEADER] = (byte) (0x40 | ((XZERO_MAX - 1) >> 8));
        v[HEADER + 1] = (byte) ((XZERO_MAX - 1) & 0xFF);
        return new HyperLogLog(v);
    }

    /**
     * @param value a string's bytes (not copied: changes go to a copy once the length changes, or in place)
     * @return it as a HyperLogLog
     * @throws ReplyException {@link #NOT_HLL} if it is not one
     */
    static HyperLogLog of(byte[] value) {
        if (value.length < HEADER || value[0] != 'H' || value[1] != 'Y' || value[2] != 'L' || value[3] != 'L'
                || (value[ENCODING_OFFSET] != DENSE && value[ENCODING_OFFSET] != SPARSE)
                || (value[ENCODING_OFFSET] == DENSE && value.length != DENSE_SIZE)) {
            throw new ReplyException(NOT_HLL);
        }
        return new HyperLogLog(value);
    }

    byte[] bytes() {
        return b;
    }

    boolean isDense() {
        return b[ENCODING_OFFSET] == DENSE;
    }

    /**
     * Adds an element.
     *
     * @return whether a register changed
     * @throws ReplyException {@link #CORRUPTED} if a sparse value's runs do not cover the registers
     */
    boolean add(byte[] element) {
        long hash = murmur64a(element);
        int index = (int) (hash & (REGISTERS - 1));
        long rest = (hash >>> P) | (1L << Q); // the extra bit ends the count at Q + 1
        int count = Long.numberOfTrailingZeros(rest) + 1;
        return set(index, count);
    }

    /** Raises register {@code index} to {@code count} if it is lower; @return whether it changed */
    boolean set(int index, int count) {
        if (isDense()) {
            return denseSet(b, index, count);
        }
        return sparseSet(index, count);
    }

    /** Marks the cached count stale, as every change must. */
    void invalidate() {
        b[CARD_OFFSET + 7] |= (byte) 0x80;
    }

    boolean cacheValid() {
        return (b[CARD_OFFSET + 7] & 0x80) == 0;
    }

    long cached() {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[CARD_OFFSET + i] & 0xFF);
        }
        return v;
    }

    void cache(long count) {
        for (int i = 0; i < 8; i++) {
            b[CARD_OFFSET + i] = (byte) (count >>> (8 * i));
        }
    }

    /** Raises each of {@code max}'s registers to this one's where it is higher: PFMERGE's and PFCOUNT's union. */
    void maxInto(byte[] max) {
        if (isDense()) {
            for (int i = 0; i < REGISTERS; i++) {
                max[i] = (byte) Math.max(max[i], denseGet(b, i));
            }
            return;
        }
        walkSparse((value, from, len) -> {
            for (int i = from; i < from + len; i++) {
                max[i] = (byte) Math.max(max[i], value);
            }
        });
    }

    /** @return the estimated number of distinct elements added */
    long count() {
        int[] histogram = new int[64];
        if (isDense()) {
            for (int i = 0; i < REGISTERS; i++) {
                histogram[denseGet(b, i)]++;
            }
        } else {
            walkSparse((value, from, len) -> histogram[value] += len);
        }
        return estimate(histogram);
    }

    /** @return the estimate of registers {@code max} (one byte each), as {@link #count} gives for a value holding them */
    static long count(byte[] max) {
        int[] histogram = new int[64];
        for (byte r : max) {
            histogram[r]++;
        }
        return estimate(histogram);
    }

    /** Turns a sparse value dense (no change if dense). @throws ReplyException {@link #CORRUPTED} */
    void toDense() {
        if (isDense()) {
            return;
        }
        byte[] dense = new byte[DENSE_SIZE];
        System.arraycopy(b, 0, dense, 0, HEADER); // the magic and the cached count
        dense[ENCODING_OFFSET] = DENSE;
        walkSparse((value, from, len) -> {
            if (value != 0) {
                for (int i = from; i < from + len; i++) {
                    denseSet(dense, i, value);
                }
            }
        });
        b = dense;
    }

    /** @return register {@code index} */
    int get(int index) {
        if (isDense()) {
            return denseGet(b, index);
        }
        int[] found = {0};
        walkSparse((value, from, len) -> {
            if (index >= from && index < from + len) {
                found[0] = value;
            }
        });
        return found[0];
    }

    /** PFDEBUG DECODE: the runs of a sparse value, {@code z:len}, {@code Z:len}, {@code v:value,len}. */
    String decode() {
        StringBuilder s = new StringBuilder();
        int p = HEADER;
        while (p < b.length) {
            int op = b[p] & 0xFF;
            if ((op & 0xC0) == 0) {
                s.append("z:").append((op & 0x3F) + 1).append(' ');
                p++;
            } else if ((op & 0xC0) == 0x40) {
                s.append("Z:").append(xzeroLen(p)).append(' ');
                p += 2;
            } else {
                s.append("v:").append(valValue(op)).append(',').append(valLen(op)).append(' ');
                p++;
            }
        }
        return s.toString().stripTrailing();
    }

    /** What a sparse walk sees: {@code len} registers from {@code from} holding {@code value}. */
    @FunctionalInterface
    private interface Run {
        void accept(int value, int from, int len);
    }

    /** Visits a sparse value's runs in order. @throws ReplyException {@link #CORRUPTED} unless they cover exactly the registers */
    private void walkSparse(Run run) {
        int p = HEADER;
        int index = 0;
        while (p < b.length) {
            int op = b[p] & 0xFF;
            int len;
            int value = 0;
            if ((op & 0xC0) == 0) {
                len = (op & 0x3F) + 1;
                p++;
            } else if ((op & 0xC0) == 0x40) {
                if (p + 1 >= b.length) {
                    throw new ReplyException(CORRUPTED);
                }
                len = xzeroLen(p);
                p += 2;
            } else {
                len = valLen(op);
                value = valValue(op);
                p++;
            }
            if (index + len > REGISTERS) {
                throw new ReplyException(CORRUPTED);
            }
            run.accept(value, index, len);
            index += len;
        }
        if (index != REGISTERS) {
            throw new ReplyException(CORRUPTED);
        }
    }

    private int xzeroLen(int p) {
        return (((b[p] & 0x3F) << 8) | (b[p + 1] & 0xFF)) + 1;
    }

    private static int valValue(int op) {
        return ((op >> 2) & 0x1F) + 1;
    }

    private static int valLen(int op) {
        return (op & 0x3) + 1;
    }

    private static byte val(int value, int len) {
        return (byte) (0x80 | ((value - 1) << 2) | (len - 1));
    }

    /** Appends the zero run of {@code len} registers, as ZERO or XZERO. */
    private static void zeros(ByteArrayOutputStream out, int len) {
        if (len > ZERO_MAX) {
            out.write(0x40 | ((len - 1) >> 8));
            out.write((len - 1) & 0xFF);
        } else {
            out.write(len - 1);
        }
    }

    /**
     * The sparse update: finds the run holding {@code index}, then sets the value in place where
     * the run is that one register, or splits the run in up to three; then merges equal VAL runs
     * from the run before it on, over five runs. A value past VAL's 32, or a value that would grow
     * past {@link #SPARSE_MAX_BYTES}, turns dense first.
     */
    private boolean sparseSet(int index, int count) {
        if (count > VAL_MAX_VALUE) {
            toDense();
            return denseSet(b, index, count);
        }
        int p = HEADER;
        int prev = -1;
        int first = 0;
        int span = 0;
        int op = 0;
        while (p < b.length) {
            op = b[p] & 0xFF;
            span = (op & 0xC0) == 0 ? (op & 0x3F) + 1 : (op & 0xC0) == 0x40 ? xzeroLen(p) : valLen(op);
            if (index <= first + span - 1) {
                break;
            }
            prev = p;
            p += (op & 0xC0) == 0x40 ? 2 : 1;
            first += span;
        }
        if (p >= b.length || span == 0) {
            throw new ReplyException(CORRUPTED);
        }
        boolean isVal = (op & 0x80) != 0;
        boolean isXzero = (op & 0xC0) == 0x40;
        if (isVal) {
            if (valValue(op) >= count) {
                return false;
            }
            if (span == 1) {
                b[p] = val(count, 1);
                mergeFrom(prev);
                return true;
            }
        } else if (!isXzero && span == 1) {
            b[p] = val(count, 1);
            mergeFrom(prev);
            return true;
        }
        int last = first + span - 1;
        ByteArrayOutputStream seq = new ByteArrayOutputStream(5);
        if (isVal) {
            int current = valValue(op);
            if (index != first) {
                seq.write(val(current, index - first));
            }
            seq.write(val(count, 1));
            if (index != last) {
                seq.write(val(current, last - index));
            }
        } else {
            if (index != first) {
                zeros(seq, index - first);
            }
            seq.write(val(count, 1));
            if (index != last) {
                zeros(seq, last - index);
            }
        }
        byte[] replacement = seq.toByteArray();
        int oldLen = isXzero ? 2 : 1;
        int delta = replacement.length - oldLen;
        if (delta > 0 && b.length + delta > SPARSE_MAX_BYTES) {
            toDense();
            denseSet(b, index, count);
            return true; // a register needed raising, which is what turned it dense
        }
        byte[] grown = new byte[b.length + delta];
        System.arraycopy(b, 0, grown, 0, p);
        System.arraycopy(replacement, 0, grown, p, replacement.length);
        System.arraycopy(b, p + oldLen, grown, p + replacement.length, b.length - p - oldLen);
        b = grown;
        mergeFrom(prev);
        return true;
    }

    /** Joins adjacent VAL runs of one value that fit one VAL, over the five runs from {@code from} (the start if -1). */
    private void mergeFrom(int from) {
        int p = from < 0 ? HEADER : from;
        int end = b.length;
        for (int scans = 5; p < end && scans > 0; scans--) {
            int op = b[p] & 0xFF;
            if ((op & 0xC0) == 0x40) {
                p += 2;
                continue;
            }
            if ((op & 0x80) == 0) {
                p++;
                continue;
            }
            if (p + 1 < end && (b[p + 1] & 0x80) != 0) {
                int next = b[p + 1] & 0xFF;
                int len = valLen(op) + valLen(next);
                if (valValue(op) == valValue(next) && len <= VAL_MAX_LEN) {
                    b[p + 1] = val(valValue(op), len);
                    System.arraycopy(b, p + 1, b, p, end - p - 1);
                    end--;
                    continue; // the joined run may join the next one too
                }
            }
            p++;
        }
        if (end != b.length) {
            b = Arrays.copyOf(b, end);
        }
    }

    private static int denseGet(byte[] v, int index) {
        int bit = index * 6;
        int at = HEADER + (bit >> 3);
        int shift = bit & 7;
        int lo = (v[at] & 0xFF) >>> shift;
        int hi = at + 1 < v.length ? (v[at + 1] & 0xFF) << (8 - shift) : 0;
        return (lo | hi) & MAX_REGISTER;
    }

    private static boolean denseSet(byte[] v, int index, int count) {
        if (denseGet(v, index) >= count) {
            return false;
        }
        int bit = index * 6;
        int at = HEADER + (bit >> 3);
        int shift = bit & 7;
        v[at] = (byte) ((v[at] & ~(MAX_REGISTER << shift)) | (count << shift));
        if (shift > 2) {
            v[at + 1] = (byte) ((v[at + 1] & ~(MAX_REGISTER >>> (8 - shift))) | (count >>> (8 - shift)));
        }
        return true;
    }

    /**
     * Ertl's estimator over the registers' histogram (the one Redis 5 and later use), rounded to
     * the nearest integer.
     */
    private static long estimate(int[] histogram) {
        double m = REGISTERS;
        double z = m * tau((m - histogram[Q + 1]) / m);
        for (int j = Q; j >= 1; j--) {
            z += histogram[j];
            z *= 0.5;
        }
        z += m * sigma(histogram[0] / m);
        return Math.round(0.721347520444481703680 * m * m / z);
    }

    private static double sigma(double x) {
        if (x == 1.0) {
            return Double.POSITIVE_INFINITY;
        }
        double y = 1;
        double z = x;
        double before;
        do {
            x *= x;
            before = z;
            z += x * y;
            y += y;
        } while (before != z);
        return z;
    }

    private static double tau(double x) {
        if (x == 0.0 || x == 1.0) {
            return 0.0;
        }
        double y = 1.0;
        double z = 1 - x;
        double before;
        do {
            x = Math.sqrt(x);
            before = z;
            y *= 0.5;
            z -= Math.pow(1 - x, 2) * y;
        } while (before != z);
        return z / 3;
    }

    /** MurmurHash64A with Redis's seed, reading eight bytes at a time little-endian. */
    static long murmur64a(byte[] key) {
        final long m = 0xc6a4a7935bd1e995L;
        final int r = 47;
        int len = key.length;
        long h = 0xadc83b19L ^ (len * m);
        int blocks = len / 8;
        for (int i = 0; i < blocks; i++) {
            int at = i * 8;
            long k = 0;
            for (int j = 7; j >= 0; j--) {
                k = (k << 8) | (key[at + j] & 0xFFL);
            }
            k *= m;
            k ^= k >>> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        int tail = blocks * 8;
        int left = len & 7;
        if (left > 0) {
            for (int j = left - 1; j >= 0; j--) {
                h ^= (key[tail + j] & 0xFFL) << (8 * j);
            }
            h *= m;
        }
        h ^= h >>> r;
        h *= m;
        h ^= h >>> r;
        return h;
    }
}
