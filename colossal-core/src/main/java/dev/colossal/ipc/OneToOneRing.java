package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.align;
import static dev.colossal.ipc.RecordDescriptor.header;

import java.lang.foreign.MemorySegment;

/**
 * {@link MessageRing} with one producer: claims by a release store of the tail, no CAS. The
 * producer zeroes the header that follows each record it claims (so the consumer stops there
 * until the next record is published) and the consumer never writes the data: each line crosses
 * between the cores once per lap, not twice.
 *
 * <p>{@link #write} never marks its record: it copies the message, zeroes the next header,
 * publishes the header, and only then moves the tail: three stores where a marked claim takes
 * four. A producer that dies in {@code write} leaves the tail where it was, so the record does
 * not exist for anyone (a replacement producer writes over it) and nothing is left to unblock.
 * The tail may trail the consumer's head by the record being written.
 */
final class OneToOneRing extends RingBuffer {

    /** The producer's last view of head; only this producer uses it, so it lives on the heap. */
    private long headCache;

    OneToOneRing(SharedRegion region) {
        super(region);
    }

    @Override
    boolean append(int type, MemorySegment source, long offset, int length) {
        int recordLength = length + HEADER_LENGTH;
        int alignedLength = align(recordLength);
        long tail = tail();
        long next = reserve(tail, alignedLength);
        if (next < 0) {
            return false;
        }
        long index = (next - alignedLength) & mask;
        MemorySegment ring = this.ring;
        MemorySegment.copy(source, offset, ring, DATA + index + HEADER_LENGTH, length);
        PLAIN.set(ring, DATA + (next & mask), 0L);
        LONG.setRelease(ring, DATA + index, header(recordLength, type));
        LONG.setRelease(ring, RingDescriptor.TAIL_OFFSET, next);
        return true;
    }

    @Override
    int claim(int recordLength, int type) {
        int alignedLength = align(recordLength);
        long next = reserve(tail(), alignedLength);
        if (next < 0) {
            return -1;
        }
        int index = (int) (next - alignedLength) & mask;
        PLAIN.set(ring, DATA + (next & mask), 0L);
        // Marked before the tail moves: tryClaim's caller may die at any point until commit.
        PLAIN.set(ring, DATA + (long) index, header(-recordLength, type));
        LONG.setRelease(ring, RingDescriptor.TAIL_OFFSET, next);
        return index;
    }

    /**
     * Only this producer writes the tail, so the line is in its own cache: a plain load. It is
     * not kept on the heap so that another handle may take over as the one producer.
     */
    private long tail() {
        return (long) PLAIN.get(ring, RingDescriptor.TAIL_OFFSET);
    }

    /**
     * Checks that a record of {@code alignedLength} bytes fits at {@code tail}, with the header
     * after it, which the caller zeroes; publishes a padding record first if it would cross the
     * end of the data.
     *
     * @return the tail after the record, or -1 if there is no room
     */
    private long reserve(long tail, int alignedLength) {
        int index = (int) tail & mask;
        int toEnd = capacity - index;
        int padding = alignedLength > toEnd ? toEnd : 0;
        int required = padding + alignedLength + HEADER_LENGTH;
        if (required > capacity - (tail - headCache)) {
            headCache = (long) LONG.getAcquire(ring, RingDescriptor.HEAD_OFFSET);
            if (required > capacity - (tail - headCache)) {
                return -1;
            }
        }
        if (padding != 0) {
            PLAIN.set(ring, DATA, 0L);
            LONG.setRelease(ring, DATA + (long) index, header(padding, PADDING_TYPE));
        }
        return tail + padding + alignedLength;
    }

    @Override
    void release(int headIndex, long head, int bytes) {
        LONG.setRelease(ring, RingDescriptor.HEAD_OFFSET, head + bytes);
    }

    /** Every record past the tail was marked before the tail moved: there is no unmarked claim. */
    @Override
    boolean unblockUnmarked(int headIndex, int tailIndex) {
        return false;
    }
}
