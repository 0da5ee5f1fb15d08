package dev.colossal.ipc;

import java.util.concurrent.locks.LockSupport;

/**
 * What a polling loop does when it found no work: spin for the lowest latency, yield to share a
 * core, park to save power, or back off through all three.
 *
 * <pre>{@code
 * IdleStrategy idle = IdleStrategy.backoff();
 * while (running) {
 *     idle.idle(ring.read(handler));   // resets itself whenever work was done
 * }
 * }</pre>
 *
 * Instances keep state: use one per thread.
 */
public interface IdleStrategy {

    /**
     * Idles if no work was done, else resets.
     *
     * @param workCount work done by the last poll; 0 means idle
     */
    default void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    /** Idles once. */
    void idle();

    /** Forgets past idling: the next idle starts from the cheapest step. */
    default void reset() {}

    /** {@return busy-spins with {@link Thread#onSpinWait()}: the lowest latency, one core burnt} */
    static IdleStrategy spin() {
        return Thread::onSpinWait;
    }

    /** {@return yields the core to other threads on every idle} */
    static IdleStrategy yielding() {
        return Thread::yield;
    }

    /**
     * Parks on every idle.
     *
     * @param nanos how long to park each time, at least 1
     * @return parks the thread for {@code nanos} on every idle
     * @throws IllegalArgumentException if {@code nanos < 1}
     */
    static IdleStrategy parking(long nanos) {
        if (nanos < 1) {
            throw new IllegalArgumentException("nanos=" + nanos + " must be at least 1");
        }
        return () -> LockSupport.parkNanos(nanos);
    }

    /** {@return spins 100 times, yields 10 times, then parks from 1 µs doubling up to 1 ms} */
    static IdleStrategy backoff() {
        return new BackoffIdleStrategy(100, 10, 1_000, 1_000_000);
    }
}
