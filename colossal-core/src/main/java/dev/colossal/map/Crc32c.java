package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.colossal.memory.internal.SharedBuffers;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli) of bytes in the mapped file, by the JDK's intrinsic ({@link CRC32C}: the
 * CPU's crc32 instruction), allocating nothing.
 *
 * <p>The intrinsic reads a heap array or a direct buffer. A buffer view of the mapping would
 * allocate two objects per call (a slice and the buffer: 104 bytes per GET of a 1 KiB value in
 * the server) and acquire and release the mapping's shared arena around the call: two atomic
 * updates of one word shared by every thread of the process, on which concurrent readers contend.
 * So the range is copied to a per-thread array, {@link #CHUNK} bytes at a time, and summed from
 * there: bytes the caller has just touched, so a copy from L1 (on 104 bytes it measured the same
 * CPU time as the buffer view, and 15 ns more on 1 KiB).
 */
final class Crc32c {

    static final int CHUNK = 4096;
    private static final ThreadLocal<Crc32c> LOCAL = ThreadLocal.withInitial(Crc32c::new);
    /** The summers virtual threads borrow, one {@link #sum} at a time (see {@link SharedBuffers}). */
    private static final SharedBuffers<Crc32c> SHARED = new SharedBuffers<>();
    /**
     * What {@link #local} gives a virtual thread on its first calls ({@link SharedBuffers#borrowing}):
     * a summer without a copy of its own, which borrows one for each sum. A virtual thread per
     * request would otherwise make a 4 KiB array per request.
     */
    private static final Crc32c BORROWING = new Crc32c();

    // The summer is kept with the array rather than made per call: a new CRC32C per call is left
    // to escape analysis, which gave way now and then in a compiled GET (16 bytes per request in
    // ServerAllocationTest).
    private final byte[] copy = new byte[CHUNK];
    private final CRC32C crc = new CRC32C();

    private Crc32c() {
    }

    /** This thread's summer: a lookup costs a ThreadLocal's, so a get takes it once. */
    static Crc32c local() {
        return SHARED.borrowing() ? BORROWING : LOCAL.get();
    }

    /** The CRC32C of {@code length} bytes of {@code m} from {@code offset}. */
    static int of(MemorySegment m, long offset, long length) {
        return local().sum(m, offset, length);
    }

    /** As {@link #of}, with this thread's summer. */
    int sum(MemorySegment m, long offset, long length) {
        if (this == BORROWING) {
            return borrowed(m, offset, length);
        }
        byte[] copy = this.copy;
        CRC32C crc = this.crc;
        crc.reset();
        if (length <= CHUNK) {
            // Small entries (every get of a small value) in one step, without the loop. (Copying
            // segment to segment into a heap segment of the array called two accessors of the
            // heap segment: 31 instructions more per get.)
            int n = (int) length;
            MemorySegment.copy(m, JAVA_BYTE, offset, copy, 0, n);
            crc.update(copy, 0, n);
            return (int) crc.getValue();
        }
        return ofLarge(m, offset, length, copy, crc);
    }

    private static int borrowed(MemorySegment m, long offset, long length) {
        Crc32c summer = SHARED.take();
        if (summer == null) {
            summer = new Crc32c();
        }
        try {
            return summer.sum(m, offset, length);
        } finally {
            SHARED.give(summer);
        }
    }

    private static int ofLarge(MemorySegment m, long offset, long length, byte[] copy, CRC32C crc) {
        for (long done = 0; done < length; done += CHUNK) {
            int n = (int) Math.min(CHUNK, length - done);
            MemorySegment.copy(m, JAVA_BYTE, offset + done, copy, 0, n);
            crc.update(copy, 0, n);
        }
        return (int) crc.getValue();
    }
}
