package dev.colossal.bench.ipc;

/** One producer side of a ring under test, with its consumer running on a thread of its own. */
interface Pipe extends AutoCloseable {

    /** @return whether one message was written (false: the ring is full) */
    boolean offer();

    /** Starts the consumer thread, which reads in batches until {@link #close()}. */
    void startConsumer();

    @Override
    void close() throws Exception;

    /**
     * A daemon thread that polls until {@code running} turns false, yielding when a poll finds
     * nothing: on a shared two-core machine a spinning consumer can starve its own producer.
     */
    static Thread pollingThread(java.util.function.BooleanSupplier running, java.util.function.IntSupplier poll) {
        return Thread.ofPlatform().daemon().start(() -> {
            while (running.getAsBoolean()) {
                if (poll.getAsInt() == 0) {
                    Thread.yield();
                }
            }
        });
    }
}
