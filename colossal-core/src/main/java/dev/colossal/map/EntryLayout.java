package dev.colossal.map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * Layout of one entry: a run of whole blocks in a segment's heap, written completely before its
 * slot is published and never changed afterwards (an update writes a new entry).
 *
 * <pre>
 *  0          4            8          12         16
 *  +----------+------------+----------+----------+----------------+-------------+---------+
 *  | keyLength| valueLength| checksum | meta     | key bytes      | value bytes | padding |
 *  |          |            | (0 if    | reserved |                |             | to block|
 *  |          |            |  off)    |          |                |             |         |
 *  +----------+------------+----------+----------+----------------+-------------+---------+
 * </pre>
 *
 * <p>The checksum is XXH64 of key and value seeded with both lengths, folded to 32 bits, so a
 * flipped byte in a length, a key or a value is found. {@code meta} is outside the checksum: it is
 * reserved for expiry and eviction marks that change in place.
 */
final class EntryLayout {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("keyLength"),
            JAVA_INT.withName("valueLength"),
            JAVA_INT.withName("checksum"),
            JAVA_INT.withName("meta"));

    static final long HEADER_BYTES = LAYOUT.byteSize();
    static final long KEY_LENGTH = offset("keyLength");
    static final long VALUE_LENGTH = offset("valueLength");
    static final long CHECKSUM = offset("checksum");
    static final long META = offset("meta");

    /** Largest key or value; the issue asks for at least 64 MiB. */
    static final long MAX_LENGTH = 1L << 30;

    private EntryLayout() {
    }

    private static long offset(String name) {
        return LAYOUT.byteOffset(groupElement(name));
    }

    static long blocks(long keyLength, long valueLength, int blockShift) {
        long bytes = HEADER_BYTES + keyLength + valueLength;
        return (bytes + (1L << blockShift) - 1) >>> blockShift;
    }

    static long keyOffset(long entry) {
        return entry + HEADER_BYTES;
    }

    static long valueOffset(long entry, int keyLength) {
        return entry + HEADER_BYTES + keyLength;
    }

    static int checksum(MemorySegment m, long entry, int keyLength, int valueLength) {
        long h = XxHash64.hash(m, keyOffset(entry), (long) keyLength + valueLength,
                (long) keyLength << 32 | (valueLength & 0xFFFF_FFFFL));
        int folded = (int) (h ^ (h >>> 32));
        return folded == 0 ? 1 : folded;
    }

    static void checkLength(String name, long length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException(name + "Length=" + length + " is outside 0.."
                    + MAX_LENGTH + "; store larger data in a file or a big array and keep its id here");
        }
    }
}
