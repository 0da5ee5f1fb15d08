package dev.colossal.memory.internal;

/**
 * Runs file work with the calling thread's interrupt flag set aside: the JDK fails a channel
 * operation of an interrupted thread at once (and closes the channel for every thread), so a
 * thread a pool's {@code shutdownNow} interrupted could not create or map a file. The flag is set
 * again afterwards, whether it was set before or an interrupt came meanwhile, for the caller to see.
 * For channels used again and again, {@link ReopeningChannel} also reopens what an interrupt closed.
 */
public final class InterruptFlag {

    /** The work. */
    @FunctionalInterface
    public interface Task<T, E extends Exception> {
        /**
         * @return the result
         * @throws E if the work fails
         */
        T run() throws E;
    }

    private InterruptFlag() {}

    /**
     * Runs {@code task} with this thread's interrupt flag cleared, and sets it again afterwards if
     * it was set before or became set meanwhile.
     *
     * @param task the work
     * @param <T>  its result
     * @param <E>  what it throws
     * @return what {@code task} returned
     * @throws E what {@code task} threw
     */
    public static <T, E extends Exception> T setAside(Task<T, E> task) throws E {
        boolean interrupted = Thread.interrupted();
        try {
            return task.run();
        } finally {
            if (Thread.interrupted() || interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
