package dev.colossal.map;

/**
 * How a new map file is laid out. Every option has a default that suits maps from a few entries
 * to billions; none is a size limit. Options are only read when a file is created: an existing
 * file keeps the layout recorded in its header.
 *
 * @param segments  number of segments, a power of two from 1 to 65536; more segments let more
 *                  writers work at once and keep each segment's table growth short
 * @param blockSize heap block size in bytes: 16, 32 or 64; entries are rounded up to whole blocks,
 *                  and the file can reach 2^40 blocks
 * @param checksums whether each entry carries a checksum verified on every read
 */
public record MapOptions(int segments, int blockSize, boolean checksums) {

    /** The defaults: 64 segments, 32-byte blocks, checksums on. */
    public static final MapOptions DEFAULTS = new MapOptions(64, 32, true);

    /**
     * Validates the options.
     *
     * @param segments  number of segments
     * @param blockSize heap block size in bytes
     * @param checksums whether entries carry checksums
     * @throws IllegalArgumentException if {@code segments} or {@code blockSize} is not allowed
     */
    public MapOptions {
        if (!FileHeaderLayout.validSegmentCount(segments)) {
            throw new IllegalArgumentException("segments=" + segments
                    + " must be a power of two from 1 to 65536, e.g. 64");
        }
        if (!FileHeaderLayout.validBlockSize(blockSize)) {
            throw new IllegalArgumentException("blockSize=" + blockSize + " must be 16, 32 or 64");
        }
    }

    /**
     * Returns these options with another segment count.
     *
     * @param n the number of segments
     * @return the new options
     */
    public MapOptions withSegments(int n) {
        return new MapOptions(n, blockSize, checksums);
    }

    /**
     * Returns these options with another block size.
     *
     * @param bytes the block size
     * @return the new options
     */
    public MapOptions withBlockSize(int bytes) {
        return new MapOptions(segments, bytes, checksums);
    }

    /**
     * Returns these options with checksums switched on or off.
     *
     * @param on whether entries carry checksums
     * @return the new options
     */
    public MapOptions withChecksums(boolean on) {
        return new MapOptions(segments, blockSize, on);
    }
}
