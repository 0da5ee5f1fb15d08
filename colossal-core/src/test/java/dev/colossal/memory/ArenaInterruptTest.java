package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.Interrupts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread interrupted while it allocates from a mapped arena (a pool's shutdownNow, a cancelled
 * future) must not break the arena for every other thread, nor lose what a kept arena recorded: the
 * JDK closes a FileChannel for good when a thread doing I/O on it is interrupted.
 */
class ArenaInterruptTest {

    @TempDir
    Path dir;

    @Test
    void anInterruptedAllocationBreaksNothingForOtherThreads() throws Exception {
        try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).extentSize(1 << 16).build()) {
            arena.allocate(32_000).set(ValueLayout.JAVA_LONG, 0, 1);
            arena.allocate(32_000).set(ValueLayout.JAVA_LONG, 0, 2);
            Thread.currentThread().interrupt();
            Throwable interrupted = Interrupts.failureOf( // a new extent
                    () -> arena.allocate(32_000).set(ValueLayout.JAVA_LONG, 0, 3));
            boolean flagKept = Thread.interrupted();
            Throwable other = Interrupts.onAnotherThread(() -> {
                arena.allocate(1000).set(ValueLayout.JAVA_LONG, 0, 4); // from the first extent's tail
                arena.allocate(1 << 20).set(ValueLayout.JAVA_LONG, 0, 5);
            });
            assertEquals(null, other, "another thread's allocations after the interrupted one");
            assertEquals(null, interrupted, "the interrupted thread's allocation");
            assertTrue(flagKept, "the caller's interrupt is kept for it to see");
        }
        try (MappedArena again = MappedArena.open(dir)) {
            List<MemorySegment> segments = again.segments();
            assertEquals(5, segments.size());
            for (int i = 0; i < 5; i++) {
                assertEquals(i + 1, segments.get(i).get(ValueLayout.JAVA_LONG, 0), "segment " + i);
            }
        }
    }

    @Test
    void interruptingAnAllocatorContinuouslyLosesNoSegment() throws Exception {
        int count = 20_000;
        AtomicInteger allocated = new AtomicInteger();
        try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).extentSize(1 << 16).build()) {
            Throwable failure = Interrupts.interruptedThroughout(() -> {
                for (int i = 0; i < count; i++) {
                    arena.allocate(1000).set(ValueLayout.JAVA_INT, 0, i);
                    allocated.incrementAndGet();
                }
            });
            assertEquals(null, failure, "an interrupt is no reason for an allocation to fail");
            assertEquals(count, allocated.get());
            arena.allocate(1 << 20).set(ValueLayout.JAVA_INT, 0, count); // grows the file from another thread
        }
        try (MappedArena again = MappedArena.open(dir)) {
            List<MemorySegment> segments = again.segments();
            assertEquals(count + 1, segments.size());
            for (int i = 0; i <= count; i++) {
                assertEquals(i, segments.get(i).get(ValueLayout.JAVA_INT, 0), "segment " + i);
            }
        }
    }
}
