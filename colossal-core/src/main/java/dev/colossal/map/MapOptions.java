package dev.colossal.map;

/**
 * How a new map file is laid out. Every option has a default that suits maps from a few entries
 * to billions; no default limits the size (only {@code maxEntries} and {@code maxBytes} do, for a
 * cache). Options but {@code verifyReads} shape only a new file: an existing file keeps the layout
 * recorded in its header, and an open whose options set a bound other than the file's is refused.
 *
 * @param segments  number of segments, a power of two from 1 to 65536; more segments let more
 *                  writers work at once and keep each segment's table growth short
 * @param blockSize heap block size in bytes: 8, 16, 32 or 64; entries are rounded up to whole
 *                  blocks and take at least 16 bytes (8 wastes least: ~3.5 bytes per entry
 *                  against ~7.5 with 16), and the file can reach 2^38 blocks (2 TiB with 8,
 *                  4 TiB with 16, 16 TiB, ext4's limit, with 64)
 * @param checksums  whether each entry carries a checksum (CRC32C of its lengths, key, value and
 *                   expiry time); {@code verify} and, by default, every read check it
 * @param maxEntries a bound on entries for a cache, 0 for none: inserting beyond it evicts the
 *                   least recently used entries, approximately (CLOCK, per segment). Kept per
 *                   segment and rounded up: see {@link #withMaxEntries}
 * @param maxBytes   a bound on the bytes entries occupy, 0 for none or at least the smallest entry,
 *                   16 bytes or one block if larger;
 *                   evicts like {@code maxEntries}, and is rounded as {@link #withMaxBytes} says
 * @param expectedEntries a hint, 0 for none: tables start large enough for this many entries, so
 *                   filling the map rehashes less. Only speed depends on it; the map grows past it
 * @param verifyReads whether this process checks an entry's checksum whenever a lookup meets it
 *                   (reads, iteration, and the lookup of a write), so that damaged bytes are
 *                   reported instead of returned. Unlike the other options it is not kept in the
 *                   file: it applies to each open. Off, a random get of a 100-byte value in a map of
 *                   1M took ~2/3 of the time (JMH); damage is then found only by {@code colossal verify}
 */
public record MapOptions(int segments, int blockSize, boolean checksums, long maxEntries, long maxBytes,
        long expectedEntries, boolean verifyReads) {

    /** The defaults: 64 segments, 8-byte blocks, checksums on and verified on reads, no bound, no size hint. */
    public static final MapOptions DEFAULTS = new MapOptions(64, 8, true, 0, 0, 0, true);

    /**
     * Validates the options.
     *
     * @param segments   number of segments
     * @param blockSize  heap block size in bytes
     * @param checksums  whether entries carry checksums
     * @param maxEntries bound on entries, 0 for none
     * @param maxBytes   bound on entry bytes, 0 for none
     * @param expectedEntries size hint, 0 for none
     * @param verifyReads whether lookups check checksums
     * @throws IllegalArgumentException if a value is not allowed
     */
    public MapOptions {
        if (maxEntries < 0 || maxBytes < 0) {
            throw new IllegalArgumentException("maxEntries=" + maxEntries + " maxBytes=" + maxBytes
                    + " must be 0 (no bound) or positive");
        }
        if (expectedEntries < 0) {
            throw new IllegalArgumentException("expectedEntries=" + expectedEntries + " must be 0 (no hint) or positive");
        }
        if (!FileHeaderLayout.validSegmentCount(segments)) {
            throw new IllegalArgumentException("segments=" + segments
                    + " must be a power of two from 1 to 65536, e.g. 64");
        }
        if (!FileHeaderLayout.validBlockSize(blockSize)) {
            throw new IllegalArgumentException("blockSize=" + blockSize + " must be 8, 16, 32 or 64");
        }
        long smallestEntry = EntryLayout.blocks(0, 0, 0, Integer.numberOfTrailingZeros(blockSize)) * blockSize;
        if (maxBytes != 0 && maxBytes < smallestEntry) {
            // A segment's share is at least this when the file is made (see MapFile.segmentsFor):
            // a smaller bound would let no entry in, and every put would fail.
            throw new IllegalArgumentException("maxBytes=" + maxBytes + " must be 0 (no bound) or at least "
                    + smallestEntry + ", the smallest entry with blockSize=" + blockSize);
        }
    }

    /**
     * Options whose reads verify checksums (when the file has them).
     *
     * @param segments   number of segments
     * @param blockSize  heap block size in bytes
     * @param checksums  whether entries carry checksums
     * @param maxEntries bound on entries, 0 for none
     * @param maxBytes   bound on entry bytes, 0 for none
     * @param expectedEntries size hint, 0 for none
     * @throws IllegalArgumentException if a value is not allowed
     */
    public MapOptions(int segments, int blockSize, boolean checksums, long maxEntries, long maxBytes,
            long expectedEntries) {
        this(segments, blockSize, checksums, maxEntries, maxBytes, expectedEntries, true);
    }

    /**
     * Returns these options with another segment count.
     *
     * @param n the number of segments
     * @return the new options
     */
    public MapOptions withSegments(int n) {
        return new MapOptions(n, blockSize, checksums, maxEntries, maxBytes, expectedEntries, verifyReads);
    }

    /**
     * Returns these options with another block size.
     *
     * @param bytes the block size
     * @return the new options
     */
    public MapOptions withBlockSize(int bytes) {
        return new MapOptions(segments, bytes, checksums, maxEntries, maxBytes, expectedEntries, verifyReads);
    }

    /**
     * Returns these options with checksums switched on or off.
     *
     * @param on whether entries carry checksums
     * @return the new options
     */
    public MapOptions withChecksums(boolean on) {
        return new MapOptions(segments, blockSize, on, maxEntries, maxBytes, expectedEntries, verifyReads);
    }

    /**
     * Returns these options with a bound on entries, for a cache.
     *
     * <p>The bound is kept per segment, rounded up: each segment holds at most
     * {@code ceil(n / segments)} entries, so the map holds at most
     * {@code segments * ceil(n / segments)}. A new file gets fewer segments than asked when the
     * bound is small, so that each holds at least 64 entries: {@code withMaxEntries(10)} makes a map
     * of one segment that keeps exactly 10, {@code withMaxEntries(1000)} one of 8 segments that
     * keeps 1000, and from 4096 entries on the default 64 segments keep at most 63 more than the
     * bound. A segment evicts once it is full, so with keys spread unevenly eviction may start
     * before the whole map holds that many.
     *
     * <p>The bound is written into the file when it is created. Opening an existing file with
     * another bound throws {@link IllegalArgumentException} naming both; options without a bound
     * (0) open it with the bound it has.
     *
     * @param n the most entries, 0 for no bound
     * @return the new options
     */
    public MapOptions withMaxEntries(long n) {
        return new MapOptions(segments, blockSize, checksums, n, maxBytes, expectedEntries, verifyReads);
    }

    /**
     * Returns these options with a bound on the bytes entries occupy, for a cache.
     *
     * <p>Entries occupy whole blocks (their headers, keys, values and expiry times rounded up to
     * {@code blockSize}), and the bound is kept per segment in blocks: {@code bytes} is rounded down
     * to whole blocks, then up to a multiple of the segments, so each segment holds at most
     * {@code ceil(floor(bytes / blockSize) / segments)} blocks. A new file gets fewer segments than
     * asked when the bound is small, so that each holds at least 64 KiB (one segment below 128 KiB,
     * the default 64 from 4 MiB on). A segment evicts
     * once it is full, so eviction may start before the whole map occupies that much. An entry
     * larger than a segment's bound is refused with an {@link IllegalArgumentException} (it would
     * evict the whole segment and still not fit).
     *
     * <p>Like {@link #withMaxEntries}, the bound is fixed when the file is created; opening it with
     * another throws {@link IllegalArgumentException}.
     *
     * @param bytes the most bytes, 0 for no bound, else at least the smallest entry: 16 bytes, or
     *              one block if {@code blockSize} is larger
     * @return the new options
     * @throws IllegalArgumentException if {@code bytes} is positive but below the smallest entry
     */
    public MapOptions withMaxBytes(long bytes) {
        return new MapOptions(segments, blockSize, checksums, maxEntries, bytes, expectedEntries, verifyReads);
    }

    /**
     * Returns these options with a size hint: tables start large enough for {@code n} entries.
     *
     * @param n the expected number of entries, 0 for no hint
     * @return the new options
     */
    public MapOptions withExpectedEntries(long n) {
        return new MapOptions(segments, blockSize, checksums, maxEntries, maxBytes, n, verifyReads);
    }

    /**
     * Returns these options with checksum checks on lookups switched on or off, for this open.
     *
     * @param on whether lookups check the checksum of the entries they meet
     * @return the new options
     */
    public MapOptions withVerifyReads(boolean on) {
        return new MapOptions(segments, blockSize, checksums, maxEntries, maxBytes, expectedEntries, on);
    }
}
