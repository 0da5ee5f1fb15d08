package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.Interrupts;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A thread interrupted while a file-backed chunk pool grows must not break the pool for every other
 * thread: the JDK closes the pool's FileChannel for good, and its file, deleted as soon as it is
 * open, cannot be opened again.
 */
class PoolInterruptTest {

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anInterruptedAcquireBreaksNothingForOtherThreads(boolean ownDirectory) throws Exception {
        ChunkPool.Builder builder = ChunkPool.builder().chunkSize(4096).slabSize(1 << 16);
        try (ChunkPool pool = (ownDirectory ? builder : builder.directory(dir)).build()) {
            Thread.currentThread().interrupt();
            Throwable interrupted = Interrupts.failureOf(() -> pool.segment(pool.acquire()).set(INT, 0, 1));
            boolean flagKept = Thread.interrupted();
            Throwable other = Interrupts.onAnotherThread(() -> pool.segment(pool.acquire()).set(INT, 0, 2));
            assertEquals(null, other, "another thread's acquire after the interrupted one");
            assertEquals(null, interrupted, "the interrupted thread's acquire");
            assertTrue(flagKept, "the caller's interrupt is kept for it to see");
        }
    }

    /** Chunks of 1 GiB, so that every 64th acquire maps a new 64 GiB region of the (sparse) file. */
    @Test
    void interruptingAThreadContinuouslyWhileThePoolGrowsRegionAfterRegion() throws Exception {
        int regions = 6;
        int count = (int) (ChunkPool.REGION_SIZE >> 30) * regions;
        AtomicInteger acquired = new AtomicInteger();
        try (ChunkPool pool = ChunkPool.builder().directory(dir).chunkSize(1L << 30).slabSize(1L << 30).build()) {
            Throwable failure = Interrupts.interruptedThroughout(() -> {
                for (int i = 0; i < count; i++) {
                    pool.segment(pool.acquire()).set(INT, 0, i);
                    acquired.incrementAndGet();
                }
            });
            assertEquals(null, failure, "an interrupt is no reason for an acquire to fail");
            assertEquals(count, acquired.get());
            for (int i = 0; i < (int) (ChunkPool.REGION_SIZE >> 30); i++) { // one more region, from another thread
                pool.segment(pool.acquire()).set(INT, 0, -1);
            }
            assertEquals(regions + 1, pool.stats().slabs() / (ChunkPool.REGION_SIZE >> 30));
        }
    }
}
