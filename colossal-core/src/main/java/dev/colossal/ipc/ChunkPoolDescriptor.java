package dev.colossal.ipc;

/**
 * Payload layout of a {@link RegionKind#CHUNK_POOL} region.
 *
 * <pre>
 *   0         +-----------------------------------------------+
 *             | chunk size (long) | chunk count (long)        |  written at creation
 *   128       +-----------------------------------------------+
 *             | cursor (long)                                 |  getAndAdd: where to look next
 *   256       +-----------------------------------------------+
 *             | owner[0] | owner[1] | ... | owner[count - 1]  |  long each; 0 = free, else the
 *             +-----------------------------------------------+  owner's pid and start time
 *             | zero up to a page boundary of the file        |
 *   data      +-----------------------------------------------+
 *             | chunk 0 | chunk 1 | ... | chunk count - 1     |  chunk size bytes each
 *             +-----------------------------------------------+
 * </pre>
 *
 * A chunk is taken by one compare-and-set of its owner word from 0 to the taker's identity and
 * given back by a release store of 0, so there is no moment at which a crash can lose a chunk:
 * a dead owner's identity stays in the word until {@code reclaim} clears it.
 */
final class ChunkPoolDescriptor {

    static final long CHUNK_SIZE_OFFSET = 0;
    static final long CHUNK_COUNT_OFFSET = 8;
    static final long CURSOR_OFFSET = 128;
    static final long OWNERS_OFFSET = 256;
    static final long PAGE = 4096;

    private ChunkPoolDescriptor() {}

    static long ownerOffset(long chunk) {
        return OWNERS_OFFSET + chunk * Long.BYTES;
    }

    /** The payload offset of chunk 0, chosen so that chunks start on a page of the file. */
    static long dataOffset(int chunkCount) {
        long end = RegionHeader.LENGTH + ownerOffset(chunkCount);
        return ((end + PAGE - 1) & -PAGE) - RegionHeader.LENGTH;
    }

    static long payloadSize(int chunkSize, int chunkCount) {
        return dataOffset(chunkCount) + (long) chunkSize * chunkCount;
    }

    static void check(int chunkSize, int chunkCount) {
        if (chunkSize < 8 || Integer.bitCount(chunkSize) != 1) {
            throw new IllegalArgumentException("chunkSize=" + chunkSize + " must be a power of two of at least 8");
        }
        if (chunkCount < 1) {
            throw new IllegalArgumentException("chunkCount=" + chunkCount + " must be at least 1");
        }
    }
}
