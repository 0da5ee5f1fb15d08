package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.align;
import static dev.colossal.ipc.RecordDescriptor.header;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * The one writer of a broadcast ring: every {@link BroadcastReceiver} sees each message unless it
 * falls more than a ring's capacity behind, in which case it is told it was lapped. The
 * transmitter never waits for receivers. Layout: {@code BroadcastDescriptor}.
 *
 * <pre>{@code
 * try (BroadcastTransmitter tx = BroadcastTransmitter.open(SharedRegion.shm("prices"), 1 << 16)) {
 *     tx.transmit(1, price, 0, 32);
 * }
 * }</pre>
 */
public final class BroadcastTransmitter implements AutoCloseable {

    private static final VarHandle LONG = SharedRegion.LONG;

    private final SharedRegion region;
    private final MemorySegment meta;
    private final MemorySegment data;
    private final int capacity;
    private final int maxMessageLength;

    private BroadcastTransmitter(SharedRegion region) {
        this.region = region;
        this.capacity = Math.toIntExact(region.payloadSize() - BroadcastDescriptor.DATA_OFFSET);
        this.maxMessageLength = RingDescriptor.maxMessageLength(capacity);
        this.meta = region.payload().asSlice(0, BroadcastDescriptor.DATA_OFFSET);
        this.data = region.payload().asSlice(BroadcastDescriptor.DATA_OFFSET, capacity);
    }

    /**
     * Opens the broadcast ring for transmitting.
     *
     * @param path     the region file
     * @param capacity data bytes, a power of two of at least 64
     * @return the transmitter of the broadcast ring at {@code path}, created if absent
     * @throws IpcException if the file is another kind of region or of another capacity
     */
    public static BroadcastTransmitter open(Path path, int capacity) {
        return new BroadcastTransmitter(BroadcastDescriptor.open(path, capacity));
    }

    /**
     * Writes one message, overwriting the oldest if needed.
     *
     * @param type   the message type, at least 1
     * @param source where the message is
     * @param offset where it starts in {@code source}
     * @param length its length, 0 to {@link #maxMessageLength()}
     * @throws IllegalArgumentException if the type or length is out of range
     */
    public void transmit(int type, MemorySegment source, long offset, int length) {
        RecordDescriptor.checkType(type);
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length=" + length + " must be between 0 and maxMessageLength="
                    + maxMessageLength);
        }
        int recordLength = length + HEADER_LENGTH;
        int aligned = align(recordLength);
        long tail = (long) LONG.get(meta, BroadcastDescriptor.TAIL_OFFSET);
        int index = (int) tail & (capacity - 1);
        int toEnd = capacity - index;
        int padding = aligned > toEnd ? toEnd : 0;
        long newTail = tail + padding + aligned;
        LONG.setRelease(meta, BroadcastDescriptor.TAIL_INTENT_OFFSET, newTail);
        // Receivers must see the intent before any byte they may be reading changes.
        VarHandle.storeStoreFence();
        if (padding != 0) {
            LONG.set(data, (long) index, header(padding, PADDING_TYPE));
            tail += padding;
            index = 0;
        }
        LONG.set(data, (long) index, header(recordLength, type));
        MemorySegment.copy(source, offset, data, index + HEADER_LENGTH, length);
        LONG.setRelease(meta, BroadcastDescriptor.LATEST_OFFSET, tail);
        LONG.setRelease(meta, BroadcastDescriptor.TAIL_OFFSET, newTail);
    }

    /** {@return the longest message accepted, an eighth of the capacity} */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /** {@return data bytes in the ring} */
    public int capacity() {
        return capacity;
    }

    /** Unmaps the region in this process; closing twice does nothing. */
    @Override
    public void close() {
        region.close();
    }
}
