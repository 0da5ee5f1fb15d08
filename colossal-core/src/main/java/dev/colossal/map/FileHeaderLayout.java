package dev.colossal.map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * Layout of the map file and of its first page, the file header.
 *
 * <pre>
 * file:
 * +-------------------+ 0
 * | file header       |  this layout, padded to HEADER_BYTES (4 KiB)
 * +-------------------+ HEADER_BYTES
 * | segment directory |  segmentCount x SegmentLayout.BYTES
 * +-------------------+ directoryEnd (64-aligned)
 * | extents ...       |  tables and heap chunks of all segments, in allocation order,
 * |                   |  each 64-aligned; below allocEnd all is allocated
 * +-------------------+ allocEnd
 * | zeros             |  written ahead (real blocks, never holes) up to the file size
 * +-------------------+ file size
 *
 * header (little-endian on every supported platform, native order):
 *  0       8       12      16      20      24      28      32
 *  +-------+-------+-------+-------+-------+-------+-------+
 *  | magic |format |header |segment|block  |flags  |segment|
 *  |"COLOS |version|bytes  |count  |size   |       |bytes  |
 *  | MAP1" |       |       |       |       |       |       |
 *  +-------+-------+-------+-------+-------+-------+-------+
 *  32              40              48              56              64              72              80
 *  +---------------+---------------+---------------+---------------+---------------+---------------+
 *  | fileLock      | allocEnd      | createdMillis | maxEntries    | maxBytes      | expected      |
 *  | owner token   | extent bump   |               | 0 = unbounded | 0 = unbounded | Entries (hint)|
 *  +---------------+---------------+---------------+---------------+---------------+---------------+
 *  80              88              96              104
 *  +---------------+---------------+---------------+
 *  | spareExtents  | keyCodec      | valueCodec    |
 *  | list head,    | fingerprint,  | fingerprint,  |
 *  | 0 = none      | 0 = none      | 0 = none      |
 *  +---------------+---------------+---------------+
 * </pre>
 *
 * <p>{@code magic} is written last when a file is created (in a private temporary file that is
 * then linked into place), so a header is either complete or absent. {@code fileLock} is an
 * {@link OwnerLock} word guarding {@code allocEnd}, file growth and the
 * {@link SpareExtents spare extents}. {@code keyCodec} and {@code valueCodec} are the schema
 * fingerprints of the codecs a typed map first opened the file with (see {@link
 * MapFile#checkCodecs}). Files written before these fields existed hold 0 there (the header page
 * is written as zeros): an empty list, no fingerprint yet.
 */
final class FileHeaderLayout {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("magic"),
            JAVA_INT.withName("formatVersion"),
            JAVA_INT.withName("headerBytes"),
            JAVA_INT.withName("segmentCount"),
            JAVA_INT.withName("blockSize"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("segmentBytes"),
            JAVA_LONG.withName("fileLock"),
            JAVA_LONG.withName("allocEnd"),
            JAVA_LONG.withName("createdMillis"),
            JAVA_LONG.withName("maxEntries"),
            JAVA_LONG.withName("maxBytes"),
            JAVA_LONG.withName("expectedEntries"),
            JAVA_LONG.withName("spareExtents"),
            JAVA_LONG.withName("keyCodec"),
            JAVA_LONG.withName("valueCodec"));

    /** "COLOSMAP" read as a little-endian long. */
    static final long MAGIC = 0x50414D534F4C4F43L;
    /**
     * 6: blocks may be 8 bytes (the default), with entries, free runs and chunk headers of at
     * least 16 bytes; a format 5 file (blocks of 16 bytes or more) has the same layout and is read
     * as it is. 5: slots have 26-bit tags and 38-bit positions, so tables grow by tag alone up to 2^26 slots,
     * and a key's segment is its hash's lowest bits (see {@link SlotLayout}); 4 had 24-bit tags,
     * 40-bit positions and segments chosen by the hash's top bits, and gave tables four sizes per
     * doubling and CRC32C entry checksums (see {@link EntryLayout}); 3 had power-of-two tables and
     * XXH64-based checksums; 2 also had a 16-byte entry header (3 has a 7-byte one with varint
     * lengths); 1 also placed keys in tables differently.
     */
    static final int FORMAT_VERSION = 6;
    /** The oldest format this code reads. */
    static final int OLDEST_READABLE = 5;
    static final int HEADER_BYTES = 4096;
    /** Alignment of every extent: a cache line, and a multiple of every block size. */
    static final long EXTENT_ALIGN = 64;

    static final int FLAG_CHECKSUMS = 1;
    static final int KNOWN_FLAGS = FLAG_CHECKSUMS;

    static final long MAGIC_OFFSET = offset("magic");
    static final long FORMAT_VERSION_OFFSET = offset("formatVersion");
    static final long HEADER_BYTES_OFFSET = offset("headerBytes");
    static final long SEGMENT_COUNT_OFFSET = offset("segmentCount");
    static final long BLOCK_SIZE_OFFSET = offset("blockSize");
    static final long FLAGS_OFFSET = offset("flags");
    static final long SEGMENT_BYTES_OFFSET = offset("segmentBytes");
    static final long FILE_LOCK_OFFSET = offset("fileLock");
    static final long ALLOC_END_OFFSET = offset("allocEnd");
    static final long CREATED_OFFSET = offset("createdMillis");
    static final long MAX_ENTRIES_OFFSET = offset("maxEntries");
    static final long MAX_BYTES_OFFSET = offset("maxBytes");
    static final long EXPECTED_ENTRIES_OFFSET = offset("expectedEntries");
    static final long SPARE_EXTENTS_OFFSET = offset("spareExtents");
    static final long KEY_CODEC_OFFSET = offset("keyCodec");
    static final long VALUE_CODEC_OFFSET = offset("valueCodec");

    private FileHeaderLayout() {
    }

    private static long offset(String name) {
        return LAYOUT.byteOffset(groupElement(name));
    }

    static long segmentOffset(int segment) {
        return HEADER_BYTES + (long) segment * SegmentLayout.BYTES;
    }

    static long directoryEnd(int segmentCount) {
        return alignExtent(segmentOffset(segmentCount));
    }

    static long alignExtent(long position) {
        return (position + EXTENT_ALIGN - 1) & -EXTENT_ALIGN;
    }

    static boolean validSegmentCount(int n) {
        return n >= 1 && n <= 1 << 16 && Integer.bitCount(n) == 1;
    }

    static boolean validBlockSize(int n) {
        return n >= 8 && n <= EXTENT_ALIGN && Integer.bitCount(n) == 1;
    }
}
