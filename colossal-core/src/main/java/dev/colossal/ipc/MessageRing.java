package dev.colossal.ipc;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A ring of variable-length messages in a {@link SharedRegion}, written by one producer
 * ({@link #oneToOne}) or many ({@link #manyToOne}, across threads and processes) and read by
 * one consumer. Layouts: {@code RingDescriptor} and {@code RecordDescriptor}.
 *
 * <p>Protocol: a producer claims space by advancing the tail (a release store with one producer,
 * compare-and-set with many), marks the record header with a negative length, copies the
 * message, then stores the header with the positive length with release. (The one producer's
 * {@link #write} skips the mark: it copies, publishes the header, then moves the tail, so a record
 * it did not finish was never claimed.) The consumer loads the first
 * header of a batch with acquire, the following ones plainly, then issues one acquire fence
 * before it reads any message, so a message is seen whole or not at all; it releases the head
 * once per batch. The header after the newest record reads as zero: with one producer, the
 * producer zeroes it as it claims; with many, the consumer zeroes the batch it read. A record that
 * would cross the end of the data becomes a padding record plus the message at index 0.
 *
 * <p>Expected conditions return values: {@link #write} returns {@code false} when the ring is
 * full; {@link #read} returns 0 when it is empty. Misuse (a type below 1, a message longer than
 * {@link #maxMessageLength()}) throws {@link IllegalArgumentException}.
 *
 * <pre>{@code
 * try (MessageRing ring = MessageRing.manyToOne(SharedRegion.shm("orders"), 1 << 20)) {
 *     ring.write(1, order, 0, 64);                                 // in a producer process
 *     ring.read((type, buffer, offset, length) -> handle(buffer, offset, length));   // consumer
 * }
 * }</pre>
 *
 * <p>If a producer dies between claiming and committing, the consumer stops at its record; once
 * the producer is known dead (or the consumer has made no progress for far longer than any write
 * takes), call {@link #unblock()} from the consumer to skip the unfinished record.
 */
public interface MessageRing extends AutoCloseable {

    /**
     * Opens (or creates) a ring with exactly one producer and one consumer.
     *
     * @param path     the region file, e.g. {@code SharedRegion.shm("events")}
     * @param capacity data bytes, a power of two of at least 64
     * @return the ring; closing it unmaps the region
     * @throws IpcException if the file is another kind of region or of another capacity
     */
    static MessageRing oneToOne(Path path, int capacity) {
        return new OneToOneRing(RingDescriptor.open(path, RegionKind.ONE_TO_ONE_RING, capacity,
                RingDescriptor.DATA_OFFSET));
    }

    /**
     * Opens (or creates) a ring with any number of producers and one consumer.
     *
     * @param path     the region file
     * @param capacity data bytes, a power of two of at least 64
     * @return the ring; closing it unmaps the region
     * @throws IpcException if the file is another kind of region or of another capacity
     */
    static MessageRing manyToOne(Path path, int capacity) {
        return new ManyToOneRing(RingDescriptor.open(path, RegionKind.MANY_TO_ONE_RING, capacity,
                RingDescriptor.DATA_OFFSET));
    }

    /**
     * Copies one message into the ring.
     *
     * @param type      the message type, at least 1
     * @param source    where the message is
     * @param offset    where it starts in {@code source}
     * @param length    its length, 0 to {@link #maxMessageLength()}
     * @return {@code true} if written, {@code false} if the ring has no room now
     * @throws IllegalArgumentException if the type or length is out of range
     */
    boolean write(int type, MemorySegment source, long offset, int length);

    /**
     * Claims room for a message to be written in place into {@link #buffer()}, then
     * {@link #commit} or {@link #abort} it. Every claim must be committed or aborted: the
     * consumer waits for it.
     *
     * @param type   the message type, at least 1
     * @param length the message's length, 0 to {@link #maxMessageLength()}
     * @return where to write the message in {@link #buffer()}, or -1 if the ring has no room now
     * @throws IllegalArgumentException if the type or length is out of range
     */
    long tryClaim(int type, int length);

    /**
     * Publishes a claimed message.
     *
     * @param offset the value {@link #tryClaim} returned
     */
    void commit(long offset);

    /**
     * Gives up a claimed message: the consumer skips it.
     *
     * @param offset the value {@link #tryClaim} returned
     */
    void abort(long offset);

    /** {@return the data area, where claimed messages are written} */
    MemorySegment buffer();

    /**
     * Reads every message available now, up to the end of the data area (a batch). If the
     * handler throws, the messages handed over so far, the one it threw on included, count as
     * read, and the exception propagates. A consumer process that dies inside {@code read} has
     * released none of the batch: the next consumer is handed it again (at least once across
     * consumer restarts). With many producers, one killed while clearing the batch it read leaves
     * the ring's head on a cleared header, which {@link #unblock()} skips.
     *
     * @param handler called once per message, in order
     * @return the number of messages read, 0 if none was ready
     */
    int read(MessageHandler handler);

    /**
     * Reads up to {@code limit} messages available now.
     *
     * @param handler called once per message, in order
     * @param limit   most messages to read
     * @return the number of messages read, 0 if none was ready
     */
    int read(MessageHandler handler, int limit);

    /**
     * Skips an unfinished record left by a producer that died mid-write, so the consumer can go
     * on. Call from the consumer, and only when the producer is known dead or the consumer has
     * been stuck far longer than any write takes: a live producer's record would be lost.
     *
     * @return {@code true} if a record was skipped, {@code false} if none was unfinished
     */
    boolean unblock();

    /**
     * Stores the consumer's heartbeat (release). A consumer calls this regularly; producers
     * compare it with the clock to tell a dead consumer from a slow one.
     *
     * @param epochMillis the time now, e.g. {@link System#currentTimeMillis()}
     */
    void consumerHeartbeat(long epochMillis);

    /** {@return the consumer's last heartbeat (acquire), 0 if it never beat} */
    long consumerHeartbeat();

    /**
     * Tells a producer whether the consumer still beats.
     *
     * @param nowMillis     the time now, e.g. {@link System#currentTimeMillis()}
     * @param timeoutMillis how old the last heartbeat may be
     * @return {@code true} if the consumer's last heartbeat is at most {@code timeoutMillis} old
     */
    default boolean isConsumerAlive(long nowMillis, long timeoutMillis) {
        long beat = consumerHeartbeat();
        return beat != 0 && nowMillis - beat <= timeoutMillis;
    }

    /** {@return data bytes in the ring} */
    int capacity();

    /** {@return the longest message accepted, an eighth of the capacity} */
    int maxMessageLength();

    /**
     * {@return bytes ever claimed by producers; with one producer, this may trail
     * {@link #consumerPosition()} by the record being written}
     */
    long producerPosition();

    /** {@return bytes ever consumed} */
    long consumerPosition();

    /**
     * Unmaps the ring's region in this process; closing a closed ring does nothing. Afterwards the
     * other methods throw {@link IllegalStateException}: the ones that move messages ({@code write},
     * {@code tryClaim}, {@code commit}, {@code abort}, {@code read}), which must cost no more than the
     * memory accesses they make, and segments from {@link #buffer()} throw the JDK's bare
     * {@code Already closed}; the others name the ring's file.
     */
    @Override
    void close();
}
