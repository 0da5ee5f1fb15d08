package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.align;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * One reader of a broadcast ring. It starts at the newest position and receives every later
 * message in order, copied out so the transmitter can never change it under the handler. If it
 * falls more than the capacity behind, it skips to the newest message and counts the lap
 * ({@link #lappedCount()}). A receiver keeps a cursor: use it from one thread at a time.
 */
public final class BroadcastReceiver implements AutoCloseable {

    private static final VarHandle INT = SharedRegion.INT;
    private static final VarHandle LONG = SharedRegion.LONG;

    private final SharedRegion region;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment meta;
    private final MemorySegment data;
    private final MemorySegment scratch;
    private final int capacity;
    private final int maxMessageLength;
    private long cursor;
    private long lapped;

    private BroadcastReceiver(SharedRegion region) {
        this.region = region;
        this.capacity = Math.toIntExact(region.payloadSize() - BroadcastDescriptor.DATA_OFFSET);
        this.maxMessageLength = RingDescriptor.maxMessageLength(capacity);
        this.meta = region.payload().asSlice(0, BroadcastDescriptor.DATA_OFFSET);
        this.data = region.payload().asSlice(BroadcastDescriptor.DATA_OFFSET, capacity);
        this.scratch = arena.allocate(Math.max(8, maxMessageLength), 8);
        this.cursor = (long) LONG.getAcquire(meta, BroadcastDescriptor.TAIL_OFFSET);
    }

    /**
     * Opens the broadcast ring for receiving.
     *
     * @param path     the region file
     * @param capacity data bytes, a power of two of at least 64
     * @return a receiver of the broadcast ring at {@code path}, created if absent
     * @throws IpcException if the file is another kind of region or of another capacity
     */
    public static BroadcastReceiver open(Path path, int capacity) {
        return new BroadcastReceiver(BroadcastDescriptor.open(path, capacity));
    }

    /**
     * Receives the next message if there is one.
     *
     * @param handler called with the copied message
     * @return 1 if a message was handed over, 0 if none is ready (or this receiver was just lapped)
     */
    public int receive(MessageHandler handler) {
        long tail = (long) LONG.getAcquire(meta, BroadcastDescriptor.TAIL_OFFSET);
        if (cursor >= tail) {
            return 0;
        }
        if (!stillValid(cursor)) {
            return lap();
        }
        long position = cursor;
        int index = (int) position & (capacity - 1);
        int length = (int) INT.get(data, (long) index);
        int type = (int) INT.get(data, (long) index + RecordDescriptor.TYPE_OFFSET);
        if (type == PADDING_TYPE) {
            position += capacity - index;
            index = 0;
            length = (int) INT.get(data, 0L);
            type = (int) INT.get(data, (long) RecordDescriptor.TYPE_OFFSET);
        }
        int messageLength = length - HEADER_LENGTH;
        if (messageLength < 0 || messageLength > maxMessageLength) {
            // Only a record being overwritten can look like this: check and resynchronise.
            return stillValid(cursor) ? 0 : lap();
        }
        MemorySegment.copy(data, index + HEADER_LENGTH, scratch, 0, messageLength);
        if (!stillValid(cursor)) {
            return lap();
        }
        cursor = position + align(length);
        handler.onMessage(type, scratch, 0, messageLength);
        return 1;
    }

    private boolean stillValid(long position) {
        // The copy above must be complete before we look at the transmitter's intent.
        VarHandle.acquireFence();
        return position + capacity >= (long) LONG.getVolatile(meta, BroadcastDescriptor.TAIL_INTENT_OFFSET);
    }

    private int lap() {
        lapped++;
        cursor = (long) LONG.getAcquire(meta, BroadcastDescriptor.LATEST_OFFSET);
        return 0;
    }

    /** {@return how many times this receiver fell behind by more than the capacity and skipped ahead} */
    public long lappedCount() {
        return lapped;
    }

    /** Unmaps the region in this process and frees the copy buffer; closing twice does nothing. */
    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
        region.close();
    }
}
