package dev.colossal.swap;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

/**
 * The CRC32C of a payload about to be written, computed on another thread beside the I/O, so that
 * a block moves at the disk's speed. Small payloads are summed inline, where a hand-off to another
 * thread would cost more than it saves. (A payload being read is summed on the reading thread,
 * piece by piece as it lands: following the reader from another thread cost more CPU in wake-ups
 * than the checksum itself, for no gain in speed on a disk-bound read.)
 */
final class Checksum {

    /** Below this, a checksum is computed on the caller's thread. */
    static final long PARALLEL_MIN = 1L << 20;
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("colossal-swap-crc-", 0).factory());

    private final MemorySegment[] parts;
    private Future<Integer> result;

    private Checksum(MemorySegment[] parts) {
        this.parts = parts;
    }

    /** Starts summing the parts, which must not change until {@link #await()} returns. */
    static Checksum start(MemorySegment[] parts, long length) {
        Checksum c = new Checksum(parts);
        if (length >= PARALLEL_MIN) {
            c.result = THREADS.submit(c::compute);
        }
        return c;
    }

    /** @return the CRC32C of the payload */
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
        for (MemorySegment part : parts) {
            update(crc, part, 0, part.byteSize());
        }
        return (int) crc.getValue();
    }

    /** Adds bytes to a checksum: through a direct buffer, which the JDK's CRC32C intrinsic reads in place. */
    static void update(CRC32C crc, MemorySegment segment, long offset, long length) {
        crc.update(segment.asSlice(offset, length).asByteBuffer());
    }
}
