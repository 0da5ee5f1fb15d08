package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.ALIGNMENT;
import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.align;
import static dev.colossal.ipc.RecordDescriptor.header;
import static dev.colossal.ipc.RecordDescriptor.lengthOf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@link MessageRing} with many producers: each claims by compare-and-set of the tail, then
 * marks its record. Between the two its header reads as zero, so the consumer zeroes what it has
 * read before it releases it.
 */
final class ManyToOneRing extends RingBuffer {

    ManyToOneRing(SharedRegion region) {
        super(region);
    }

    @Override
    boolean append(int type, MemorySegment source, long offset, int length) {
        int recordLength = length + HEADER_LENGTH;
        // A local: after the compare-and-set C2 would load the field, and check its class, again.
        MemorySegment ring = this.ring;
        int index = claim(ring, recordLength, type);
        if (index < 0) {
            return false;
        }
        MemorySegment.copy(source, offset, ring, DATA + index + HEADER_LENGTH, length);
        LONG.setRelease(ring, DATA + (long) index, header(recordLength, type));
        return true;
    }

    @Override
    int claim(int recordLength, int type) {
        return claim(ring, recordLength, type);
    }

    private int claim(MemorySegment ring, int recordLength, int type) {
        int index = claimSpace(ring, align(recordLength));
        if (index >= 0) {
            // Plain: the release store of the whole header comes after it, and only unblock(),
            // long after a producer died, needs to see the mark.
            PLAIN.set(ring, DATA + (long) index, header(-recordLength, type));
        }
        return index;
    }

    /**
     * Moves the tail by {@code alignedLength} (plus padding to the end); the record stays zero.
     * One attempt in straight code: a compare-and-set inside a loop made C2 check the segment
     * again before it (about 20 instructions per message); losing the race, or a head cache
     * that says full, takes the loop in {@link #claimRetrying}.
     */
    int claimSpace(MemorySegment ring, int alignedLength) {
        // Plain loads: a stale head cache only sends us to the head, a stale tail only fails the
        // CAS, and no barrier between them and the CAS makes C2 check the segment again.
        long head = (long) PLAIN.get(ring, RingDescriptor.HEAD_CACHE_OFFSET);
        long tail = (long) PLAIN.get(ring, RingDescriptor.TAIL_OFFSET);
        int required = required(tail, alignedLength);
        if (required > capacity - (tail - head)
                || !LONG.compareAndSet(ring, RingDescriptor.TAIL_OFFSET, tail, tail + required)) {
            return claimRetrying(ring, alignedLength);
        }
        return required == alignedLength ? (int) tail & mask : pad(ring, (int) tail & mask);
    }

    /** {@link #claimSpace} when the head cache said full or another producer moved the tail first. */
    private int claimRetrying(MemorySegment ring, int alignedLength) {
        long head = (long) LONG.get(ring, RingDescriptor.HEAD_CACHE_OFFSET);
        long tail;
        int required;
        do {
            tail = (long) LONG.get(ring, RingDescriptor.TAIL_OFFSET);
            required = required(tail, alignedLength);
            if (required > capacity - (tail - head)) {
                head = (long) LONG.getVolatile(ring, RingDescriptor.HEAD_OFFSET);
                if (required > capacity - (tail - head)) {
                    return -1;
                }
                LONG.setRelease(ring, RingDescriptor.HEAD_CACHE_OFFSET, head);
            }
        } while (!LONG.compareAndSet(ring, RingDescriptor.TAIL_OFFSET, tail, tail + required));
        return required == alignedLength ? (int) tail & mask : pad(ring, (int) tail & mask);
    }

    /** {@return the bytes to claim at {@code tail}: the record, plus padding to the end if it would cross it} */
    private int required(long tail, int alignedLength) {
        int toEnd = capacity - ((int) tail & mask);
        return alignedLength > toEnd ? alignedLength + toEnd : alignedLength;
    }

    /** Publishes a padding record from {@code index} to the end of the data: the record goes at 0. */
    private int pad(MemorySegment ring, int index) {
        LONG.setRelease(ring, DATA + (long) index, header(capacity - index, PADDING_TYPE));
        return 0;
    }

    @Override
    void release(int headIndex, long head, int bytes) {
        // Producers find unclaimed space zeroed: a zero length means "nothing here yet". The JDK
        // fills a range whose address and length are multiples of 8 a long at a time, and any
        // other range with memset: 4x faster from 1 KiB on (JDK 25), so the last byte goes alone.
        // Nobody reads these bytes before the release of head below, so no word needs to be
        // zeroed at once.
        long at = DATA + headIndex;
        ring.asSlice(at, bytes - 1).fill((byte) 0);
        ring.set(ValueLayout.JAVA_BYTE, at + bytes - 1, (byte) 0);
        LONG.setRelease(ring, RingDescriptor.HEAD_OFFSET, head + bytes);
    }

    /** Claimed but not even marked: skip to the next marked record, or to the claimed end. */
    @Override
    boolean unblockUnmarked(int headIndex, int tailIndex) {
        int limit = tailIndex > headIndex ? tailIndex : capacity;
        int next = headIndex + ALIGNMENT;
        while (next < limit && lengthAt(next) == 0) {
            next += ALIGNMENT;
        }
        if (!stillZero(headIndex, next)) {
            return false;
        }
        LONG.setRelease(ring, DATA + (long) headIndex, header(next - headIndex, PADDING_TYPE));
        return true;
    }

    /** A producer may have marked a record behind the scan after it passed: look again. */
    private boolean stillZero(int from, int to) {
        for (int i = from; i < to; i += ALIGNMENT) {
            if (lengthAt(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private int lengthAt(int index) {
        return lengthOf((long) LONG.getVolatile(ring, DATA + (long) index));
    }
}
