package dev.colossal.swap;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

/**
 * The CRC32C of a block's payload, computed beside its I/O: over memory that is already there
 * (writing), or following a reader's progress (reading). Small payloads are summed inline, where a
 * hand-off to another thread would cost more than it saves.
 */
final class Checksum {

    /** Below this, a checksum is computed on the caller's thread. */
    static final long PARALLEL_MIN = 1L << 20;
    private static final long STEP = 1L << 20;
    private static final long ABORTED = Long.MIN_VALUE;
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("colossal-swap-crc-", 0).factory());

    private final MemorySegment[] parts;
    private final long length;
    /** Payload bytes in place so far (reading), or null when all are (writing). Released by the reader. */
    private final AtomicLong ready;
    /** Whether another thread computes it, following {@link #ready}. */
    private final boolean parallel;
    private Future<Integer> result;
    /** The checksum thread while it waits for the reader, else null; the reader wakes it. */
    private volatile Thread sleeper;

    private Checksum(MemorySegment[] parts, long length, AtomicLong ready) {
        this.parts = parts;
        this.length = length;
        this.ready = ready;
        this.parallel = length >= PARALLEL_MIN;
    }

    /**
     * @param ready null if the payload is in memory already; else a counter the caller advances as
     *              the payload arrives in order
     */
    static Checksum start(MemorySegment[] parts, long length, AtomicLong ready) {
        Checksum c = new Checksum(parts, length, ready);
        if (c.parallel) {
            c.result = THREADS.submit(c::compute);
        }
        return c;
    }

    /** The reader has {@code bytes} more payload bytes in place. */
    void advance(long bytes) {
        if (ready != null) {
            ready.setRelease(ready.getPlain() + bytes);
            wake();
        }
    }

    private void wake() {
        Thread t = sleeper;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** The reader stopped (done or failed): a checksum thread still waiting must not wait forever. */
    void finishReading() {
        if (ready != null && ready.getPlain() < length) {
            ready.setRelease(ABORTED);
            wake();
        }
    }

    /** @return the CRC32C of the payload (meaningless if reading was aborted, which threw already) */
    int await() {
        if (result == null) {
            return compute();
        }
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SwapException("interrupted while checksumming a swap block", e);
        } catch (ExecutionException e) {
            throw new SwapException("checksumming a swap block failed: " + e.getCause(), e.getCause());
        }
    }

    private int compute() {
        CRC32C crc = new CRC32C();
        long done = 0;
        for (MemorySegment part : parts) {
            long at = 0;
            while (at < part.byteSize()) {
                long n = Math.min(part.byteSize() - at, STEP);
                if (ready != null && parallel) {
                    long available;
                    while ((available = ready.getAcquire()) < done + 1) {
                        if (available == ABORTED) {
                            return 0;
                        }
                        // Published before the re-check, so an advance after it is never missed for long;
                        // the timeout bounds the wait should a wake-up race with parking.
                        sleeper = Thread.currentThread();
                        if (ready.getAcquire() < done + 1) {
                            LockSupport.parkNanos(1_000_000);
                        }
                        sleeper = null;
                    }
                    n = Math.min(n, available - done);
                }
                crc.update(part.asSlice(at, n).asByteBuffer());
                at += n;
                done += n;
            }
        }
        return (int) crc.getValue();
    }

}
