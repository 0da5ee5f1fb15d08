package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.header;

/** {@link MessageRing} with many producers: each claims by compare-and-set of the tail. */
final class ManyToOneRing extends RingBuffer {

    ManyToOneRing(SharedRegion region) {
        super(region);
    }

    @Override
    int claim(int alignedLength) {
        long head = (long) LONG.getVolatile(meta, RingDescriptor.HEAD_CACHE_OFFSET);
        long tail;
        int index;
        int required;
        do {
            tail = (long) LONG.getVolatile(meta, RingDescriptor.TAIL_OFFSET);
            index = (int) tail & mask;
            int toEnd = capacity - index;
            required = alignedLength > toEnd ? alignedLength + toEnd : alignedLength;
            if (required > capacity - (tail - head)) {
                head = (long) LONG.getVolatile(meta, RingDescriptor.HEAD_OFFSET);
                if (required > capacity - (tail - head)) {
                    return -1;
                }
                LONG.setRelease(meta, RingDescriptor.HEAD_CACHE_OFFSET, head);
            }
        } while (!LONG.compareAndSet(meta, RingDescriptor.TAIL_OFFSET, tail, tail + required));
        if (required != alignedLength) {
            LONG.setRelease(data, (long) index, header(capacity - index, PADDING_TYPE));
            index = 0;
        }
        return index;
    }
}
