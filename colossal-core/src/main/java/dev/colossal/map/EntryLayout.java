package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;

/**
 * Layout of one entry: a run of whole blocks in a segment's heap, written completely before its
 * slot is published and never changed afterwards (an update writes a new entry), but for the
 * CLOCK mark in {@code meta}.
 *
 * <pre>
 *  0          4      5           5+k         5+k+v
 *  +----------+------+-----------+-----------+-----------+-------------+-----------+---------+
 *  | checksum | meta | keyLength | value     | key bytes | value bytes | expiresAt | padding |
 *  | (0 if    | flags| varint,   | Length    |           |             | epoch ms, | to block|
 *  |  off)    |      | k bytes   | varint, v |           |             | if flagged|         |
 *  +----------+------+-----------+-----------+-----------+-------------+-----------+---------+
 *
 * meta: bit 0 HAS_EXPIRY (the 8-byte tail is present); bit 1 REFERENCED (CLOCK eviction's mark,
 *       set and cleared in place under the segment lock); other bits 0
 * varint: 7 bits per byte, low first, high bit set on all but the last byte; shortest form only
 *       (1 byte below 128, 2 below 16 KiB, ... 5 bytes for 1 GiB)
 * </pre>
 *
 * <p>The checksum is the CRC32C of everything after {@code meta} (both lengths, key, value and
 * tail; 0 is stored as 1), so a flipped byte in a length, the expiry flag (it moves the end of the
 * summed range), a key, a value or an expiry time is found: CRC32C catches every burst of up to
 * 32 flipped bits. {@code meta} itself is outside the checksum so that marks may change in place.
 * Format 4 replaced XXH64 (Java code, ~30 ns for a 100-byte entry) by CRC32C (the CPU's crc32
 * instruction through the JDK's intrinsic, ~15 ns, and 3x cheaper per byte on large values).
 *
 * <p>Format 3 replaced a fixed 16-byte header (four ints) by this one, 7 bytes for keys and
 * values under 128 bytes; format 6 made blocks 8 bytes by default (16 before), with every entry at
 * least 16 bytes so that a freed one holds a free run's header. Per entry the file then holds its
 * key and value plus: the header (7 bytes; 4 of them the checksum, kept even when checksums are
 * off so that a file has one layout), padding to the block (~3.5 bytes on average), and an 8-byte
 * slot at a table load between 0.64 and 0.8 (10-12.5 bytes), around which lie the free tail of
 * each segment's newest chunk (up to a 32nd) and the file's zeros written ahead (about an eighth).
 * For seed 001's 74-byte user that is 103 bytes per entry, +39% ({@code colossal inspect} itemises
 * a file): 15% is out of reach for records this small while a slot costs 8 bytes at a load below
 * 0.8 and the checksum 4.
 */
final class EntryLayout {

    static final long CHECKSUM = 0;
    static final long META = 4;
    /** Offset of the key length; the value length follows it. */
    static final long LENGTHS = 5;

    static final int META_HAS_EXPIRY = 1;
    static final int META_REFERENCED = 2;
    private static final int META_KNOWN = META_HAS_EXPIRY | META_REFERENCED;
    static final long EXPIRY_BYTES = Long.BYTES;

    /** Largest key or value; the issue asks for at least 64 MiB. */
    static final long MAX_LENGTH = 1L << 30;
    /** The longest header (two 5-byte varints): less than the smallest entry, 16 bytes. */
    static final long MAX_HEADER_BYTES = LENGTHS + 10;

    private static final long EXPIRY_BIT = 1L << 31;
    private static final long LENGTH_MASK = EXPIRY_BIT - 1;

    private EntryLayout() {
    }

    // ------------------------------------------------------------------ decoded header

    /**
     * Decodes the header of the entry at {@code e} into one long (key length in bits 32..62,
     * value length in bits 0..30, bit 31 set if the entry has an expiry tail), or -1 if the
     * header is malformed (unknown meta bits, a varint too long, not in shortest form or above
     * {@link #MAX_LENGTH}). {@code m} must cover {@code e + MAX_HEADER_BYTES}.
     */
    static long header(MemorySegment m, long e) {
        // One load for meta and both lengths (the bytes up to e + 12 lie in the entry's first 16
        // bytes, and every entry has 16) when the key is under 128 bytes and the value under
        // 16 KiB, its varint then one byte or two (a second byte of 0 is not shortest form and
        // goes to the byte-wise path, which refuses it); longer varints take the byte-wise path.
        long w = m.get(JAVA_LONG_UNALIGNED, e + META);
        if ((w & 0xFC) == 0) {
            if ((w & 0x8080_00L) == 0) {
                return (w & 0x7F00) << 24 | (w >>> 16 & 0x7F) | (w & META_HAS_EXPIRY) << 31;
            }
            if ((w & 0x8080_8000L) == 0x0080_0000L && (w & 0x7F00_0000L) != 0) {
                return (w & 0x7F00) << 24 | (w >>> 16 & 0x7F) | (w >>> 17 & 0x3F80) | (w & META_HAS_EXPIRY) << 31;
            }
        }
        int meta = (byte) w;
        long klen = varint(m, e + LENGTHS);
        if (klen < 0 || (meta & ~META_KNOWN) != 0) {
            return -1;
        }
        long vlen = varint(m, e + LENGTHS + varintBytes(klen));
        if (vlen < 0) {
            return -1;
        }
        return klen << 32 | vlen | ((meta & META_HAS_EXPIRY) != 0 ? EXPIRY_BIT : 0);
    }

    static int keyLength(long header) {
        return (int) (header >>> 32);
    }

    static int valueLength(long header) {
        return (int) (header & LENGTH_MASK);
    }

    static long tailBytes(long header) {
        return (header & EXPIRY_BIT) != 0 ? EXPIRY_BYTES : 0;
    }

    static long keyOffset(long e, long header) {
        return e + headerBytes(keyLength(header), valueLength(header));
    }

    static long valueOffset(long e, long header) {
        return keyOffset(e, header) + keyLength(header);
    }

    static long expiryOffset(long e, long header) {
        return valueOffset(e, header) + valueLength(header);
    }

    /** Bytes of the entry, header to tail, without padding. */
    static long bytes(long header) {
        return bytes(keyLength(header), valueLength(header), tailBytes(header));
    }

    static long blocks(long header, int blockShift) {
        return blocks(keyLength(header), valueLength(header), tailBytes(header), blockShift);
    }

    // ------------------------------------------------------------------ sizes and writing

    private static long headerBytes(long keyLength, long valueLength) {
        return LENGTHS + varintBytes(keyLength) + varintBytes(valueLength);
    }

    static long bytes(long keyLength, long valueLength, long tailBytes) {
        return headerBytes(keyLength, valueLength) + keyLength + valueLength + tailBytes;
    }

    static long blocks(long keyLength, long valueLength, long tailBytes, int blockShift) {
        // At least 16 bytes (two 8-byte blocks), so that a freed entry can hold a free run's header
        // and the 8-byte loads and stores of the header stay inside the entry.
        long bytes = Math.max(bytes(keyLength, valueLength, tailBytes), HeapLayout.MIN_BYTES);
        return (bytes + (1L << blockShift) - 1) >>> blockShift;
    }

    /** Writes meta and both lengths (not the checksum); returns the decoded header. */
    static long writeHeader(MemorySegment m, long e, int meta, long keyLength, long valueLength) {
        if ((keyLength | valueLength) < 0x80) {
            // One store (the word ends at e + 12, inside the entry's 16 bytes at least); the key
            // and value written after it overwrite its zeros.
            m.set(JAVA_LONG_UNALIGNED, e + META, meta & 0xFF | keyLength << 8 | valueLength << 16);
        } else {
            m.set(JAVA_BYTE, e + META, (byte) meta);
            writeVarint(m, writeVarint(m, e + LENGTHS, keyLength), valueLength);
        }
        return keyLength << 32 | valueLength | ((meta & META_HAS_EXPIRY) != 0 ? EXPIRY_BIT : 0);
    }

    static int meta(MemorySegment m, long e) {
        return m.get(JAVA_BYTE, e + META);
    }

    static void setMeta(MemorySegment m, long e, int meta) {
        m.set(JAVA_BYTE, e + META, (byte) meta);
    }

    static int storedChecksum(MemorySegment m, long e) {
        return m.get(JAVA_INT, e + CHECKSUM);
    }

    static void setChecksum(MemorySegment m, long e, int checksum) {
        m.set(JAVA_INT, e + CHECKSUM, checksum);
    }

    /** When the entry expires, in epoch milliseconds, or 0 if never. */
    static long expiresAt(MemorySegment m, long e, long header) {
        return tailBytes(header) == 0 ? 0 : m.get(JAVA_LONG_UNALIGNED, expiryOffset(e, header));
    }

    static void setExpiresAt(MemorySegment m, long e, long header, long epochMillis) {
        m.set(JAVA_LONG_UNALIGNED, expiryOffset(e, header), epochMillis);
    }

    /** The checksum the entry at {@code e} should carry, from its decoded header and bytes. */
    static int checksum(MemorySegment m, long e, long header) {
        return checksum(m, e, header, Crc32c.local());
    }

    /** As {@link #checksum(MemorySegment, long, long)}, summed by {@code sums}. */
    static int checksum(MemorySegment m, long e, long header, Crc32c sums) {
        int crc = sums.sum(m, e + LENGTHS, bytes(header) - LENGTHS);
        // Never 0, which is what a file without checksums stores.
        return crc == 0 ? 1 : crc;
    }

    /**
     * Whether the {@code length} bytes of {@code m} at {@code at} equal {@code key}'s: a word at a
     * time for short keys, where {@link MemorySegment#mismatch} costs more in checks than in work.
     */
    static boolean sameBytes(MemorySegment m, long at, MemorySegment key, long length) {
        // int and long keys (the typed maps' common case) in one compare, inlined into the lookup.
        if (length == Integer.BYTES) {
            return m.get(JAVA_INT_UNALIGNED, at) == key.get(JAVA_INT_UNALIGNED, 0);
        }
        if (length == Long.BYTES) {
            return m.get(JAVA_LONG_UNALIGNED, at) == key.get(JAVA_LONG_UNALIGNED, 0);
        }
        return sameBytesAnyLength(m, at, key, length);
    }

    private static boolean sameBytesAnyLength(MemorySegment m, long at, MemorySegment key, long length) {
        if (length > 16) {
            return MemorySegment.mismatch(m, at, at + length, key, 0, length) == -1;
        }
        long i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            if (m.get(JAVA_LONG_UNALIGNED, at + i) != key.get(JAVA_LONG_UNALIGNED, i)) {
                return false;
            }
        }
        if (i + Integer.BYTES <= length) {
            if (m.get(JAVA_INT_UNALIGNED, at + i) != key.get(JAVA_INT_UNALIGNED, i)) {
                return false;
            }
            i += Integer.BYTES;
        }
        for (; i < length; i++) {
            if (m.get(JAVA_BYTE, at + i) != key.get(JAVA_BYTE, i)) {
                return false;
            }
        }
        return true;
    }

    static void checkLength(String name, long length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException(name + "Length=" + length + " is outside 0.."
                    + MAX_LENGTH + "; store larger data in a file or a big array and keep its id here");
        }
    }

    // ------------------------------------------------------------------ varints

    static int varintBytes(long value) {
        return (70 - Long.numberOfLeadingZeros(value | 1)) / 7;
    }

    private static long writeVarint(MemorySegment m, long at, long value) {
        while (value >= 0x80) {
            m.set(JAVA_BYTE, at++, (byte) (value | 0x80));
            value >>>= 7;
        }
        m.set(JAVA_BYTE, at++, (byte) value);
        return at;
    }

    /** The varint at {@code at}, or -1 if it is longer than 5 bytes, not shortest or too large. */
    private static long varint(MemorySegment m, long at) {
        int b = m.get(JAVA_BYTE, at);
        if (b >= 0) {
            return b;
        }
        long value = b & 0x7F;
        for (int i = 1; i < 5; i++) {
            b = m.get(JAVA_BYTE, at + i);
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                return b == 0 || value > MAX_LENGTH ? -1 : value;
            }
        }
        return -1;
    }
}
