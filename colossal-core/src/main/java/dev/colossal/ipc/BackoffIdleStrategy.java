package dev.colossal.ipc;

import java.util.concurrent.locks.LockSupport;

/** Spin, then yield, then park with a doubling period: cheap while busy, quiet when idle. */
final class BackoffIdleStrategy implements IdleStrategy {

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private int spins;
    private int yields;
    private long parkNanos;

    BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    @Override
    public void idle() {
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }
}
