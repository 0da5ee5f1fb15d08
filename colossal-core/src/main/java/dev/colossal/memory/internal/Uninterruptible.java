package dev.colossal.memory.internal;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Runs file I/O on a virtual thread of its own, which no one else knows and so no one can
 * interrupt, while the caller waits without being interruptible.
 *
 * <p>For channels on files deleted while open ({@link java.nio.file.StandardOpenOption#DELETE_ON_CLOSE}):
 * the JDK closes a channel for every thread when one thread is interrupted in an operation on it,
 * and such a file cannot be opened again, so what it held would be lost (see {@link ReopeningChannel}
 * for files that can be reopened). The caller's interrupt flag is left as it is, set or not, and an
 * interrupt that comes while it waits is kept too. The task must not need a lock the caller holds,
 * nor memory confined to the caller's thread.
 */
public final class Uninterruptible {

    /** Blocking I/O to run. */
    @FunctionalInterface
    public interface Task<T> {
        /**
         * @return the result
         * @throws IOException if the I/O fails
         */
        T run() throws IOException;
    }

    private Uninterruptible() {}

    /**
     * Runs {@code task} on a new virtual thread and waits for it.
     *
     * @param task the I/O
     * @param <T>  its result
     * @return what {@code task} returned
     * @throws IOException what {@code task} threw; its unchecked exceptions and errors too, as they are
     */
    public static <T> T call(Task<T> task) throws IOException {
        FutureTask<T> future = new FutureTask<>(task::run);
        Thread.ofVirtual().name("colossal-io").start(future);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static IOException rethrow(Throwable failure) {
        return switch (failure) {
            case IOException e -> e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> new IOException(failure);
        };
    }
}
