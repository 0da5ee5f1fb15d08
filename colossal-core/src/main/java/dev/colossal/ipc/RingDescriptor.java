package dev.colossal.ipc;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Payload layout of a {@link MessageRing} region ({@link RegionKind#ONE_TO_ONE_RING} or
 * {@link RegionKind#MANY_TO_ONE_RING}). Each counter has a 128-byte line to itself so that the
 * producers' and the consumer's writes never share a line, even with adjacent-line prefetch.
 *
 * <pre>
 *   0         +--------------------------------------+
 *             | capacity (long), written at creation |
 *   128       +--------------------------------------+
 *             | tail: bytes ever claimed (long)      |  producers: CAS (many) or release (one)
 *   256       +--------------------------------------+
 *             | head cache (long)                    |  producers' last view of head
 *   384       +--------------------------------------+
 *             | head: bytes ever consumed (long)     |  consumer: release after zeroing
 *   512       +--------------------------------------+
 *             | consumer heartbeat (long)            |  consumer: release, epoch millis
 *   640       +--------------------------------------+
 *             | data: capacity bytes of records      |  see RecordDescriptor
 *             +--------------------------------------+
 * </pre>
 *
 * Positions only grow; {@code position & (capacity - 1)} is the index in the data. The header at
 * the tail always reads as zero: with many producers the consumer zeroes what it has read before
 * moving head past it; with one, the producer zeroes the header after each record it claims, so
 * it claims that header's 8 bytes too (the head cache is then unused: it lives on the heap).
 */
final class RingDescriptor {

    static final long LINE = 128;
    static final long CAPACITY_OFFSET = 0;
    static final long TAIL_OFFSET = CAPACITY_OFFSET + LINE;
    static final long HEAD_CACHE_OFFSET = TAIL_OFFSET + LINE;
    static final long HEAD_OFFSET = HEAD_CACHE_OFFSET + LINE;
    static final long HEARTBEAT_OFFSET = HEAD_OFFSET + LINE;
    static final long DATA_OFFSET = HEARTBEAT_OFFSET + LINE;

    static final int MIN_CAPACITY = 64;

    private RingDescriptor() {}

    /**
     * Opens or creates the region of a ring whose data start at {@code dataOffset}; an existing one of
     * another capacity is refused in the caller's terms (capacity, not the region's payload size).
     */
    static SharedRegion open(Path path, RegionKind kind, int capacity, long dataOffset) {
        checkCapacity(capacity);
        SharedRegion region = Files.exists(path) ? SharedRegion.open(path, kind)
                : SharedRegion.openOrCreate(path, kind, dataOffset + capacity);
        if (region.payloadSize() != dataOffset + capacity) {
            long found = region.payloadSize() - dataOffset;
            region.close();
            throw new IpcException((kind == RegionKind.BROADCAST ? "broadcast ring " : "ring ") + path
                    + " has capacity=" + found + " but capacity=" + capacity + " was asked for; open it with"
                    + " capacity=" + found + " everywhere, or delete the file to start afresh");
        }
        // Every opener writes the same value, so the race between creators is harmless (offset 0 in
        // BroadcastDescriptor's layout too).
        region.setLongRelease(CAPACITY_OFFSET, capacity);
        return region;
    }

    static void checkCapacity(int capacity) {
        if (capacity < MIN_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two of at least "
                    + MIN_CAPACITY + " (e.g. " + Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, capacity)) << 1) + ")");
        }
    }

    /** Messages up to an eighth of the ring, so one message never starves the others. */
    static int maxMessageLength(int capacity) {
        return capacity / 8;
    }
}
