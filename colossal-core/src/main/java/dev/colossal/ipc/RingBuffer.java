package dev.colossal.ipc;

import static dev.colossal.ipc.RecordDescriptor.ALIGNMENT;
import static dev.colossal.ipc.RecordDescriptor.HEADER_LENGTH;
import static dev.colossal.ipc.RecordDescriptor.PADDING_TYPE;
import static dev.colossal.ipc.RecordDescriptor.align;
import static dev.colossal.ipc.RecordDescriptor.header;
import static dev.colossal.ipc.RecordDescriptor.lengthOf;
import static dev.colossal.ipc.RecordDescriptor.typeOf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * What both rings share: the record protocol, the consumer, unblocking and the heartbeat. The
 * two subclasses differ in how a producer claims space and in who clears consumed space: with
 * many producers the consumer zeroes what it read (a claimed record must read as zero until its
 * producer marks it); with one, the producer zeroes the header after its record before it moves
 * the tail, so the consumer only reads.
 */
abstract class RingBuffer implements MessageRing {

    static final VarHandle LONG = SharedRegion.LONG;
    /** For plain accesses: no alignment check (every index used is a multiple of 8 anyway). */
    static final VarHandle PLAIN = ValueLayout.JAVA_LONG_UNALIGNED.varHandle();

    final SharedRegion region;
    /** Where the records start in {@link #ring}. */
    static final long DATA = RingDescriptor.DATA_OFFSET;

    /**
     * The counters at their {@link RingDescriptor} offsets, then the records from {@link #DATA}.
     * One segment for both: C2 may share one segment's checks (class, bounds, liveness) between
     * accesses with no fence between them, never two segments'. Measured, it saved no more than
     * the run-to-run spread of ipc-cost.sh; the checks after each release or acquire remain.
     */
    final MemorySegment ring;
    /** The records alone, index 0 to capacity: what {@link #buffer()} hands out. */
    private final MemorySegment data;
    final int capacity;
    final int mask;
    private final int maxMessageLength;

    RingBuffer(SharedRegion region) {
        this.region = region;
        this.capacity = Math.toIntExact(region.payloadSize() - RingDescriptor.DATA_OFFSET);
        RingDescriptor.checkCapacity(capacity);
        this.mask = capacity - 1;
        this.maxMessageLength = RingDescriptor.maxMessageLength(capacity);
        this.ring = region.payload();
        this.data = ring.asSlice(DATA, capacity);
    }

    /**
     * Claims room for a record of {@code recordLength} bytes (header included), writing a padding
     * record first if it would cross the end of the data, and marks it as being written: header
     * {@code (-recordLength, type)}, which is how unblock() recognises a dead producer.
     *
     * @return the index of the claimed record, or -1 if there is no room
     */
    abstract int claim(int recordLength, int type);

    /**
     * Claims room for {@code length} bytes of message, copies them from {@code source} and
     * publishes the record.
     *
     * @return {@code false} if there is no room
     */
    abstract boolean append(int type, MemorySegment source, long offset, int length);

    /** Makes {@code bytes} read from {@code headIndex} free for producers: moves head past them. */
    abstract void release(int headIndex, long head, int bytes);

    /**
     * Skips a claim at {@code headIndex} whose header is still zero, if there can be one.
     *
     * @return whether a record was skipped
     */
    abstract boolean unblockUnmarked(int headIndex, int tailIndex);

    @Override
    public final boolean write(int type, MemorySegment source, long offset, int length) {
        checkArguments(type, length);
        return append(type, source, offset, length);
    }

    @Override
    public final long tryClaim(int type, int length) {
        checkArguments(type, length);
        int index = claim(length + HEADER_LENGTH, type);
        return index < 0 ? -1 : index + HEADER_LENGTH;
    }

    @Override
    public final void commit(long offset) {
        long index = recordIndex(offset);
        long header = (long) LONG.get(ring, DATA + index);
        LONG.setRelease(ring, DATA + index, header(-lengthOf(header), typeOf(header)));
    }

    @Override
    public final void abort(long offset) {
        long index = recordIndex(offset);
        int length = lengthOf((long) LONG.get(ring, DATA + index));
        LONG.setRelease(ring, DATA + index, header(align(-length), PADDING_TYPE));
    }

    private long recordIndex(long offset) {
        long index = offset - HEADER_LENGTH;
        if (index < 0 || index >= capacity || (index & (ALIGNMENT - 1)) != 0
                || lengthOf((long) LONG.get(ring, DATA + index)) >= 0) {
            throw new IllegalArgumentException("offset=" + offset + " is not a claimed, uncommitted record");
        }
        return index;
    }

    private void checkArguments(int type, int length) {
        RecordDescriptor.checkType(type);
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("length=" + length + " must be between 0 and maxMessageLength="
                    + maxMessageLength + "; use a ring of larger capacity for longer messages");
        }
    }

    @Override
    public final int read(MessageHandler handler) {
        return read(handler, Integer.MAX_VALUE);
    }

    /**
     * Two ordering points per batch, not one per record. The first header is loaded with acquire
     * (so a caller's polling loop always sees new records) and its message handed over at once:
     * looking further first would wait for the line after it, which the producer has just
     * written, before the first message is seen (a fixed-rate run measured that wait). The rest
     * of the batch is found with plain loads and ordered by one acquire fence before any of it
     * is handed over. Each acquire makes C2 check the segment again before the next access; per
     * record that was about 25 instructions. Published records do not change until head moves
     * past them, so the second pass reads the same headers again.
     */
    @Override
    public final int read(MessageHandler handler, int limit) {
        // A local, not the field: each barrier below makes C2 reload fields, and check them again.
        MemorySegment ring = this.ring;
        long head = (long) PLAIN.get(ring, RingDescriptor.HEAD_OFFSET);
        int headIndex = (int) head & mask;
        long first = (long) LONG.getAcquire(ring, DATA + headIndex);
        int firstLength = lengthOf(first);
        if (firstLength <= 0 || limit <= 0) {
            return 0;
        }
        int bytesRead = align(firstLength);
        int messages = 0;
        try {
            int firstType = typeOf(first);
            if (firstType != PADDING_TYPE) {
                messages = 1;
                handler.onMessage(firstType, ring, DATA + headIndex + HEADER_LENGTH, firstLength - HEADER_LENGTH);
            }
            int end = batchEnd(ring, headIndex, bytesRead, messages, limit);
            if (end > bytesRead) {
                VarHandle.acquireFence();
                while (bytesRead < end) {
                    long index = headIndex + bytesRead;
                    long header = (long) PLAIN.get(ring, DATA + index);
                    int length = lengthOf(header);
                    bytesRead += align(length);
                    int type = typeOf(header);
                    if (type != PADDING_TYPE) {
                        messages++;
                        handler.onMessage(type, ring, DATA + index + HEADER_LENGTH, length - HEADER_LENGTH);
                    }
                }
            }
        } finally {
            release(headIndex, head, bytesRead);
        }
        return messages;
    }

    /**
     * How many bytes from {@code headIndex} hold published records, counting from {@code start}
     * bytes (and {@code messages} messages) already taken: up to {@code limit} messages, the
     * first unpublished header, or the end of the data.
     */
    private int batchEnd(MemorySegment ring, int headIndex, int start, int messages, int limit) {
        int contiguous = capacity - headIndex;
        int end = start;
        while (end < contiguous && messages < limit) {
            long header = (long) PLAIN.get(ring, DATA + headIndex + end);
            int length = lengthOf(header);
            if (length <= 0) {
                break;
            }
            end += align(length);
            if (typeOf(header) != PADDING_TYPE) {
                messages++;
            }
        }
        return end;
    }

    @Override
    public final boolean unblock() {
        ensureOpen("unblock it");
        long head = (long) LONG.getVolatile(ring, RingDescriptor.HEAD_OFFSET);
        long tail = (long) LONG.getVolatile(ring, RingDescriptor.TAIL_OFFSET);
        if (head == tail) {
            return false;
        }
        int headIndex = (int) head & mask;
        int length = lengthOf((long) LONG.getVolatile(ring, DATA + (long) headIndex));
        if (length < 0) {
            LONG.setRelease(ring, DATA + (long) headIndex, header(align(-length), PADDING_TYPE));
            return true;
        }
        return length == 0 && unblockUnmarked(headIndex, (int) tail & mask);
    }

    @Override
    public final void consumerHeartbeat(long epochMillis) {
        ensureOpen("store a heartbeat");
        LONG.setRelease(ring, RingDescriptor.HEARTBEAT_OFFSET, epochMillis);
    }

    @Override
    public final long consumerHeartbeat() {
        ensureOpen("read the heartbeat");
        return (long) LONG.getAcquire(ring, RingDescriptor.HEARTBEAT_OFFSET);
    }

    @Override
    public final MemorySegment buffer() {
        ensureOpen("hand out its buffer");
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
        ensureOpen("read its producer position");
        return (long) LONG.getVolatile(ring, RingDescriptor.TAIL_OFFSET);
    }

    @Override
    public final long consumerPosition() {
        ensureOpen("read its consumer position");
        return (long) LONG.getVolatile(ring, RingDescriptor.HEAD_OFFSET);
    }

    @Override
    public final void close() {
        region.close();
    }

    /**
     * Off the paths that move messages, which a check per call would slow down: those throw the
     * JDK's exception after close (see {@link MessageRing#close()}).
     */
    private void ensureOpen(String action) {
        if (region.isClosed()) {
            throw SharedRegion.closed("ring", region.path(), action, "MessageRing.oneToOne or manyToOne");
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + region.path() + ", capacity=" + capacity + "]";
    }
}
