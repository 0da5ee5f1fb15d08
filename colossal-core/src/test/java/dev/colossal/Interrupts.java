package dev.colossal;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Interrupting threads as a pool's shutdownNow or a cancelled future does, for tests that show an
 * interrupt breaks nothing for other threads.
 */
public final class Interrupts {

    private Interrupts() {}

    /**
     * Runs {@code work} on a new thread and interrupts that thread every 200 us until it ends.
     *
     * @return what {@code work} threw, or null
     */
    public static Throwable interruptedThroughout(Runnable work) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = Thread.ofPlatform().start(() -> failure.set(failureOf(work)));
        while (worker.isAlive()) {
            worker.interrupt();
            Thread.sleep(0, 200_000);
        }
        worker.join();
        return failure.get();
    }

    /** @return what {@code work} threw, run on a new thread that no one interrupts, or null */
    public static Throwable onAnotherThread(Runnable work) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread.ofPlatform().start(() -> failure.set(failureOf(work))).join();
        return failure.get();
    }

    /** @return what {@code work} threw, run on this thread, or null */
    public static Throwable failureOf(Runnable work) {
        try {
            work.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
