package dev.colossal.map;

import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A lock word in the map file that records its owner, so that a lock left by a process that died
 * is taken over instead of blocking everyone forever.
 *
 * <p>The word is 0 when free, else the owner token {@code pid << 32 | startSeconds}, the owner's
 * process start time in epoch seconds (unsigned 32 bits): a pid reused by a later process does not
 * pass for the dead owner. Start times are compared with a tolerance, because the JDK derives them
 * from the boot time, which moves when the wall clock is stepped: an exact comparison could take a
 * live owner for dead, the one mistake a lock must never make. Threads of one process share the
 * token, so the word excludes threads as well as processes; a waiter checks the owner's liveness
 * only after waiting a while, and never takes over from a live process.
 */
final class OwnerLock {

    /** This process's token. */
    static final long SELF = token(ProcessHandle.current());

    /** How long a waiter goes between two looks at the owner's liveness. */
    static final long LIVENESS_CHECK_NANOS = 20_000_000L;
    /** How many rounds of {@link #backoff} spin or yield before it parks. */
    static final int SPINS_BEFORE_PARKING = 64;
    /** How far two views of one process's start time may differ (clock steps, rounding). */
    static final long START_TOLERANCE_SECONDS = 30;

    private OwnerLock() {
    }

    static long token(ProcessHandle process) {
        return process.pid() << 32 | startSeconds(process.info().startInstant());
    }

    /** Start time in epoch seconds as an unsigned 32-bit value, 0 if unknown. */
    private static long startSeconds(Optional<Instant> start) {
        return start.map(s -> s.getEpochSecond() & 0xFFFF_FFFFL).orElse(0L);
    }

    static long pid(long token) {
        return token >>> 32;
    }

    /** True only if the owner is certainly gone: no such pid, or the pid belongs to a later process. */
    static boolean isDead(long token) {
        if (token == SELF) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid(token));
        if (process.isEmpty() || !process.get().isAlive()) {
            return true;
        }
        long recorded = token & 0xFFFF_FFFFL;
        long observed = startSeconds(process.get().info().startInstant());
        return recorded != 0 && observed != 0 && Math.abs(observed - recorded) > START_TOLERANCE_SECONDS;
    }

    /**
     * True only if the owner certainly holds no lock in {@code file}: it is dead ({@link #isDead}),
     * or it lives but does not map the file, whose lock word then came with a copy of it.
     */
    static boolean isGone(long token, FileMappers file) {
        return isDead(token) || token != SELF && !file.mappedBy(token);
    }

    static boolean tryAcquire(MemorySegment m, long offset) {
        return Mem.compareAndSetLong(m, offset, 0, SELF);
    }

    /**
     * Acquires the lock, waiting with backoff.
     *
     * @param file the processes that map the lock's file, to tell a live owner from a copied word
     * @param holders this process's holders of the file's locks, which tell a word of its own
     *                that came with a copy ({@link LockHolders#takeOverCopiedWord})
     * @param lock the lock's index in {@code holders}
     * @return 0 if the lock was free, else the token of the gone owner it was taken from
     *         ({@link #isGone}, or this process's own word from a copy); the caller must then
     *         check and repair what that owner guarded
     */
    static long acquire(MemorySegment m, long offset, FileMappers file, LockHolders holders, int lock) {
        if (tryAcquire(m, offset)) {
            return 0;
        }
        long start = System.nanoTime();
        long nextCheck = start + LIVENESS_CHECK_NANOS;
        boolean interrupted = false;
        try {
            for (int spins = 0; ; spins++) {
                long owner = Mem.getLongAcquire(m, offset);
                if (owner == 0) {
                    if (tryAcquire(m, offset)) {
                        return 0;
                    }
                    continue;
                }
                if (spins > 64) {
                    long now = System.nanoTime();
                    if (now - nextCheck >= 0) {
                        nextCheck = now + LIVENESS_CHECK_NANOS;
                        if (owner == SELF ? holders.takeOverCopiedWord(lock)
                                : isGone(owner, file) && Mem.compareAndSetLong(m, offset, owner, SELF)) {
                            return owner;
                        }
                    }
                }
                interrupted |= backoffHoldingInterrupt(spins);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * As {@link #backoff}, for a wait that may be long: a park returns at once for an interrupted
     * thread (and setting the flag again gives a permit, so would the next), so the waiter would spin
     * a core for the whole wait. The interrupt is taken off the thread before it parks and returned,
     * for the caller to set again once, when it stops waiting.
     *
     * @return whether this call took an interrupt off the thread
     */
    static boolean backoffHoldingInterrupt(int spins) {
        boolean interrupted = spins >= SPINS_BEFORE_PARKING && Thread.interrupted();
        backoff(spins);
        return interrupted;
    }

    /**
     * Tries to take the lock while the wait stays short: spinning, then yielding, as
     * {@link #backoff} does before it parks; never checks the owner's liveness.
     *
     * @return true if this process now holds the lock
     */
    static boolean acquireSpinning(MemorySegment m, long offset) {
        for (int spins = 0; spins < SPINS_BEFORE_PARKING; spins++) {
            if (Mem.getLongAcquire(m, offset) == 0 && tryAcquire(m, offset)) {
                return true;
            }
            backoff(spins);
        }
        return false;
    }

    static void release(MemorySegment m, long offset) {
        Mem.setLongRelease(m, offset, 0);
    }

    /** Spins, then yields, then parks for longer and longer (10 us to 640 us). */
    static void backoff(int spins) {
        if (spins < 32) {
            Thread.onSpinWait();
        } else if (spins < SPINS_BEFORE_PARKING) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(1_000_000L, 10_000L << Math.min(6, (spins - SPINS_BEFORE_PARKING) / 8)));
        }
    }
}
