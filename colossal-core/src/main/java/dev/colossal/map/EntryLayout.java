package dev.colossal.map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * Layout of one entry: a run of whole blocks in a segment's heap, written completely before its
 * slot is published and never changed afterwards (an update writes a new entry).
 *
 * <pre>
 *  0          4            8          12         16
 *  +----------+------------+----------+----------+-----------+-------------+-----------+---------+
 *  | keyLength| valueLength| checksum | meta     | key bytes | value bytes | expiresAt | padding |
 *  |          |            | (0 if    | flags    |           |             | epoch ms, | to block|
 *  |          |            |  off)    |          |           |             | if flagged|         |
 *  +----------+------------+----------+----------+-----------+-------------+-----------+---------+
 *
 * meta: bit 0 HAS_EXPIRY (the 8-byte tail is present); bit 1 REFERENCED (CLOCK eviction's mark,
 *       set and cleared in place under the segment lock); other bits reserved
 * </pre>
 *
 * <p>The checksum is XXH64 of key, value and tail seeded with both lengths, folded to 32 bits, so
 * a flipped byte in a length, the expiry flag, a key, a value or an expiry time is found.
 * {@code meta} itself is outside the checksum so that marks may change in place.
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

    static final int META_HAS_EXPIRY = 1;
    static final int META_REFERENCED = 2;
    static final long EXPIRY_BYTES = Long.BYTES;

    /** Largest key or value; the issue asks for at least 64 MiB. */
    static final long MAX_LENGTH = 1L << 30;

    private EntryLayout() {
    }

    private static long offset(String name) {
        return LAYOUT.byteOffset(groupElement(name));
    }

    static long tailBytes(int meta) {
        return (meta & META_HAS_EXPIRY) != 0 ? EXPIRY_BYTES : 0;
    }

    static long blocks(long keyLength, long valueLength, long tailBytes, int blockShift) {
        long bytes = HEADER_BYTES + keyLength + valueLength + tailBytes;
        return (bytes + (1L << blockShift) - 1) >>> blockShift;
    }

    /** Blocks of the entry at {@code entry}, from its header. */
    static long blocks(MemorySegment m, long entry, int blockShift) {
        return blocks(m.get(JAVA_INT, entry + KEY_LENGTH), m.get(JAVA_INT, entry + VALUE_LENGTH),
                tailBytes(m.get(JAVA_INT, entry + META)), blockShift);
    }

    /** Bytes of the entry at {@code entry} (header to tail, without padding), from its header. */
    static long bytes(MemorySegment m, long entry) {
        return HEADER_BYTES + (long) m.get(JAVA_INT, entry + KEY_LENGTH) + m.get(JAVA_INT, entry + VALUE_LENGTH)
                + tailBytes(m.get(JAVA_INT, entry + META));
    }

    static long expiryOffset(long entry, int keyLength, int valueLength) {
        return entry + HEADER_BYTES + keyLength + valueLength;
    }

    /** When the entry expires, in epoch milliseconds, or 0 if never. */
    static long expiresAt(MemorySegment m, long entry) {
        if ((m.get(JAVA_INT, entry + META) & META_HAS_EXPIRY) == 0) {
            return 0;
        }
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, expiryOffset(entry, m.get(JAVA_INT, entry + KEY_LENGTH),
                m.get(JAVA_INT, entry + VALUE_LENGTH)));
    }

    /** The checksum the entry at {@code entry} should carry, from its header and bytes. */
    static int checksum(MemorySegment m, long entry) {
        return checksum(m, entry, m.get(JAVA_INT, entry + KEY_LENGTH), m.get(JAVA_INT, entry + VALUE_LENGTH),
                tailBytes(m.get(JAVA_INT, entry + META)));
    }

    static long keyOffset(long entry) {
        return entry + HEADER_BYTES;
    }

    static long valueOffset(long entry, int keyLength) {
        return entry + HEADER_BYTES + keyLength;
    }

    static int checksum(MemorySegment m, long entry, int keyLength, int valueLength, long tailBytes) {
        long h = XxHash64.hash(m, keyOffset(entry), (long) keyLength + valueLength + tailBytes,
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
