package dev.colossal.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 64-bit xxHash (XXH64) over bytes in a {@link MemorySegment}, written from the published
 * algorithm. Used for segment and bucket choice and slot tags; its output is part of the file
 * format, so it must never change.
 */
final class XxHash64 {

    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private XxHash64() {
    }

    /**
     * Hashes {@code length} bytes of {@code data} starting at {@code offset}.
     *
     * @param data   the bytes
     * @param offset where they start
     * @param length how many
     * @param seed   the seed
     * @return the 64-bit hash
     */
    static long hash(MemorySegment data, long offset, long length, long seed) {
        // Keys under 32 bytes (most) take only the tail and the avalanche: a method small enough
        // for the JIT to inline into every lookup, where the whole algorithm was called.
        return length >= 32 ? hashLong(data, offset, length, seed) : tail(data, offset, offset + length, seed + P5 + length);
    }

    private static long hashLong(MemorySegment data, long offset, long length, long seed) {
        long p = offset;
        long end = offset + length;
        long v1 = seed + P1 + P2;
        long v2 = seed + P2;
        long v3 = seed;
        long v4 = seed - P1;
        long limit = end - 32;
        do {
            v1 = round(v1, data.get(LONG_LE, p));
            v2 = round(v2, data.get(LONG_LE, p + 8));
            v3 = round(v3, data.get(LONG_LE, p + 16));
            v4 = round(v4, data.get(LONG_LE, p + 24));
            p += 32;
        } while (p <= limit);
        long h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7)
                + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
        h = merge(h, v1);
        h = merge(h, v2);
        h = merge(h, v3);
        h = merge(h, v4);
        return tail(data, p, end, h + length);
    }

    /** The last 0-31 bytes from {@code p} and the avalanche, on the running hash {@code h}. */
    private static long tail(MemorySegment data, long p, long end, long h) {
        while (p + 8 <= end) {
            h ^= round(0, data.get(LONG_LE, p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
            p += 8;
        }
        if (p + 4 <= end) {
            h ^= (data.get(INT_LE, p) & 0xFFFF_FFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        while (p < end) {
            h ^= (data.get(ValueLayout.JAVA_BYTE, p) & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
            p++;
        }
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    private static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    private static long merge(long acc, long v) {
        return (acc ^ round(0, v)) * P1 + P4;
    }
}
