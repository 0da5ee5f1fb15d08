package dev.colossal.bench.ipc;

import java.nio.file.Path;

/** One mapping of a ring under test: the producer side in the JMH fork, the consumer side in its own process. */
interface Pipe extends AutoCloseable {

    /** Ring data bytes for both libraries. */
    int CAPACITY = 1 << 16;

    /** @return whether one message was written (false: the ring is full) */
    boolean offer();

    /**
     * @param stamp written into the message's first 8 bytes (a latency run sends the send time)
     * @return whether one message was written (false: the ring is full)
     */
    boolean offer(long stamp);

    /**
     * @param firstLongs receives each message's first 8 bytes
     * @return how many messages one batched read consumed
     */
    int poll(java.util.function.LongConsumer firstLongs);

    @Override
    void close() throws Exception;

    /**
     * @param ring     colossal-spsc, colossal-mpsc, agrona-spsc or agrona-mpsc
     * @param capacity data bytes
     * @param size     message bytes
     * @param path     the shared file; created if {@code create}, else it must exist
     * @param create   whether this side creates the file
     * @return the pipe
     * @throws Exception if the file cannot be mapped
     */
    static Pipe open(String ring, int capacity, int size, Path path, boolean create) throws Exception {
        boolean many = ring.endsWith("mpsc");
        return ring.startsWith("colossal") ? new ColossalPipe(many, capacity, size, path)
                : new AgronaPipe(many, capacity, size, path, create);
    }
}
