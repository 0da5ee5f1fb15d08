package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.header;

/** {@link MessageRing} with one producer: claims by a release store of the tail, no CAS. */
final class OneToOneRing extends RingBuffer {

    /** The producer's last view of head; only this producer uses it, so it lives on the heap. */
    private long headCache;

    OneToOneRing(SharedRegion region) {
        super(region);
    }

    @Override
    int claim(int alignedLength) {
        long tail = (long) LONG.get(meta, RingDescriptor.TAIL_OFFSET);
        int index = (int) tail & mask;
        int toEnd = capacity - index;
        int required = alignedLength > toEnd ? alignedLength + toEnd : alignedLength;
        if (required > capacity - (tail - headCache)) {
            headCache = (long) LONG.getAcquire(meta, RingDescriptor.HEAD_OFFSET);
            if (required > capacity - (tail - headCache)) {
                return -1;
            }
        }
        if (required != alignedLength) {
            LONG.setRelease(data, (long) index, header(toEnd, PADDING_TYPE));
            index = 0;
        }
        LONG.setRelease(meta, RingDescriptor.TAIL_OFFSET, tail + required);
        return index;
    }
}
