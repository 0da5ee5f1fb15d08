package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.ALIGNMENT;
import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.LENGTH_OFFSET;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.TYPE_OFFSET;
import static dev.colossal.ipc.RecordDescriptor.align;
import static dev.colossal.ipc.RecordDescriptor.header;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * What both rings share: the record protocol, the consumer, unblocking and the heartbeat. The
 * two subclasses differ only in how a producer claims space.
 */
abstract class RingBuffer implements MessageRing {

    static final VarHandle INT = SharedRegion.INT;
    static final VarHandle LONG = SharedRegion.LONG;

    final SharedRegion region;
    /** The counters: offsets from {@link RingDescriptor}. */
    final MemorySegment meta;
    /** The records, index 0 to capacity. */
    final MemorySegment data;
    final int capacity;
    final int mask;
    private final int maxMessageLength;

    RingBuffer(SharedRegion region) {
        this.region = region;
        this.capacity = Math.toIntExact(region.payloadSize() - RingDescriptor.DATA_OFFSET);
        RingDescriptor.checkCapacity(capacity);
        this.mask = capacity - 1;
        this.maxMessageLength = RingDescriptor.maxMessageLength(capacity);
        this.meta = region.payload().asSlice(0, RingDescriptor.DATA_OFFSET);
        this.data = region.payload().asSlice(RingDescriptor.DATA_OFFSET, capacity);
    }

    /**
     * Claims {@code alignedLength} bytes, writing a padding record first if they would cross the
     * end of the data.
     *
     * @return the index of the claimed record, or -1 if there is no room
     */
    abstract int claim(int alignedLength);

    @Override
    public final boolean write(int type, MemorySegment source, long offset, int length) {
        int index = claimRecord(type, length);
        if (index < 0) {
            return false;
        }
        MemorySegment.copy(source, offset, data, index + HEADER_LENGTH, length);
        INT.setRelease(data, (long) index + LENGTH_OFFSET, length + HEADER_LENGTH);
        return true;
    }

    @Override
    public final long tryClaim(int type, int length) {
        int index = claimRecord(type, length);
        return index < 0 ? -1 : index + HEADER_LENGTH;
    }

    private int claimRecord(int type, int length) {
        RecordDescriptor.checkType(type);
        checkLength(length);
        int recordLength = length + HEADER_LENGTH;
        int index = claim(align(recordLength));
        if (index >= 0) {
            // Marks the record as being written: unblock() recognises a dead producer by this.
            LONG.setRelease(data, (long) index, header(-recordLength, type));
        }
        return index;
    }

    @Override
    public final void commit(long offset) {
        long index = recordIndex(offset);
        int length = (int) INT.get(data, index + LENGTH_OFFSET);
        INT.setRelease(data, index + LENGTH_OFFSET, -length);
    }

    @Override
    public final void abort(long offset) {
        long index = recordIndex(offset);
        int length = (int) INT.get(data, index + LENGTH_OFFSET);
        LONG.setRelease(data, index, header(align(-length), PADDING_TYPE));
    }

    private long recordIndex(long offset) {
        long index = offset - HEADER_LENGTH;
        if (index < 0 || index >= capacity || (index & (ALIGNMENT - 1)) != 0
                || (int) INT.get(data, index + LENGTH_OFFSET) >= 0) {
            throw new IllegalArgumentException("offset=" + offset + " is not a claimed, uncommitted record");
        }
        return index;
    }

    private void checkLength(int length) {
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length=" + length + " must be between 0 and maxMessageLength="
                    + maxMessageLength + "; use a ring of larger capacity for longer messages");
        }
    }

    @Override
    public final int read(MessageHandler handler) {
        return read(handler, Integer.MAX_VALUE);
    }

    @Override
    public final int read(MessageHandler handler, int limit) {
        long head = (long) LONG.get(meta, RingDescriptor.HEAD_OFFSET);
        int headIndex = (int) head & mask;
        int contiguous = capacity - headIndex;
        int bytesRead = 0;
        int messages = 0;
        try {
            while (bytesRead < contiguous && messages < limit) {
                long index = headIndex + bytesRead;
                int length = (int) INT.getAcquire(data, index + LENGTH_OFFSET);
                if (length <= 0) {
                    break;
                }
                bytesRead += align(length);
                int type = (int) INT.get(data, index + TYPE_OFFSET);
                if (type != PADDING_TYPE) {
                    messages++;
                    handler.onMessage(type, data, index + HEADER_LENGTH, length - HEADER_LENGTH);
                }
            }
        } finally {
            if (bytesRead > 0) {
                // Producers find unclaimed space zeroed: a zero length means "nothing here yet".
                data.asSlice(headIndex, bytesRead).fill((byte) 0);
                LONG.setRelease(meta, RingDescriptor.HEAD_OFFSET, head + bytesRead);
            }
        }
        return messages;
    }

    @Override
    public final boolean unblock() {
        long head = (long) LONG.getVolatile(meta, RingDescriptor.HEAD_OFFSET);
        long tail = (long) LONG.getVolatile(meta, RingDescriptor.TAIL_OFFSET);
        if (head == tail) {
            return false;
        }
        int headIndex = (int) head & mask;
        int tailIndex = (int) tail & mask;
        int length = (int) INT.getVolatile(data, (long) headIndex + LENGTH_OFFSET);
        if (length < 0) {
            LONG.setRelease(data, (long) headIndex, header(align(-length), PADDING_TYPE));
            return true;
        }
        if (length > 0) {
            return false;
        }
        // Claimed but not even marked: skip to the next marked record, or to the claimed end.
        int limit = tailIndex > headIndex ? tailIndex : capacity;
        int next = headIndex + ALIGNMENT;
        while (next < limit && (int) INT.getVolatile(data, (long) next + LENGTH_OFFSET) == 0) {
            next += ALIGNMENT;
        }
        if (!stillZero(headIndex, next)) {
            return false;
        }
        LONG.setRelease(data, (long) headIndex, header(next - headIndex, PADDING_TYPE));
        return true;
    }

    /** A producer may have marked a record behind the scan after it passed: look again. */
    private boolean stillZero(int from, int to) {
        for (int i = from; i < to; i += ALIGNMENT) {
            if ((int) INT.getVolatile(data, (long) i + LENGTH_OFFSET) != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public final void consumerHeartbeat(long epochMillis) {
        LONG.setRelease(meta, RingDescriptor.HEARTBEAT_OFFSET, epochMillis);
    }

    @Override
    public final long consumerHeartbeat() {
        return (long) LONG.getAcquire(meta, RingDescriptor.HEARTBEAT_OFFSET);
    }

    @Override
    public final MemorySegment buffer() {
        return data;
    }

    @Override
    public final int capacity() {
        return capacity;
    }

    @Override
    public final int maxMessageLength() {
        return maxMessageLength;
    }

    @Override
    public final long producerPosition() {
        return (long) LONG.getVolatile(meta, RingDescriptor.TAIL_OFFSET);
    }

    @Override
    public final long consumerPosition() {
        return (long) LONG.getVolatile(meta, RingDescriptor.HEAD_OFFSET);
    }

    @Override
    public final void close() {
        region.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + region.path() + ", capacity=" + capacity + "]";
    }
}
