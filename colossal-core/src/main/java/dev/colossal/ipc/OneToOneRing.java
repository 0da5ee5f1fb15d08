package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.align;
import static dev.colossal.ipc.RecordDescriptor.header;

/**
 * {@link MessageRing} with one producer: claims by a release store of the tail, no CAS. The
 * producer zeroes the header that follows each record it claims (so the consumer stops there
 * until the next record is published) and the consumer never writes the data: each line crosses
 * between the cores once per lap, not twice.
 */
final class OneToOneRing extends RingBuffer {

    /** The producer's last view of head; only this producer uses it, so it lives on the heap. */
    private long headCache;

    OneToOneRing(SharedRegion region) {
        super(region);
    }

    @Override
    int claim(int recordLength, int type) {
        int alignedLength = align(recordLength);
        // Only this producer writes the tail, so the line is in its own cache: a plain load. It is
        // not kept on the heap so that another handle may take over as the one producer.
        long tail = (long) LONG.get(meta, RingDescriptor.TAIL_OFFSET);
        int index = (int) tail & mask;
        int toEnd = capacity - index;
        int padding = alignedLength > toEnd ? toEnd : 0;
        // The record, and the header after it, which is zeroed now, must be free.
        int required = padding + alignedLength + HEADER_LENGTH;
        if (required > capacity - (tail - headCache)) {
            headCache = (long) LONG.getAcquire(meta, RingDescriptor.HEAD_OFFSET);
            if (required > capacity - (tail - headCache)) {
                return -1;
            }
        }
        if (padding != 0) {
            LONG.set(data, 0L, 0L);
            LONG.setRelease(data, (long) index, header(padding, PADDING_TYPE));
            index = 0;
        }
        LONG.set(data, (long) ((index + alignedLength) & mask), 0L);
        // Marked before the tail moves: a claim whose producer died is always recognisable.
        LONG.set(data, (long) index, header(-recordLength, type));
        LONG.setRelease(meta, RingDescriptor.TAIL_OFFSET, tail + padding + alignedLength);
        return index;
    }

    @Override
    void release(int headIndex, long head, int bytes) {
        LONG.setRelease(meta, RingDescriptor.HEAD_OFFSET, head + bytes);
    }

    @Override
    boolean unblockUnmarked(int headIndex, int tailIndex) {
        return false;
    }
}
