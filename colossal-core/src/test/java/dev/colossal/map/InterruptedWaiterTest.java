package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codecs;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread whose interrupt flag is set (an executor's shutdownNow, a cancelled task) and that must
 * wait for a segment's lock parks like any other: a park returns at once for an interrupted thread,
 * so the wait had spun a core until the lock was free. The flag is still set when the call returns.
 */
class InterruptedWaiterTest {

    @TempDir
    Path dir;

    @Test
    void anInterruptedThreadWaitsForALockWithoutSpinningAndKeepsItsFlag() throws Exception {
        try (ColossalMap<String, Long> map = ColossalMap.open(dir.resolve("m.map"), Codecs.string(), Codecs.int64(),
                MapOptions.DEFAULTS.withSegments(1))) {
            CountDownLatch held = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().start(() -> map.compute("held", (k, v) -> {
                held.countDown();
                sleep(800);
                return 1L;
            }));
            assertTrue(held.await(10, TimeUnit.SECONDS));
            boolean[] flagAfter = new boolean[1];
            Thread waiter = Thread.ofPlatform().unstarted(() -> {
                Thread.currentThread().interrupt();
                map.put("other", 2L);   // the only segment: waits for the holder
                flagAfter[0] = Thread.currentThread().isInterrupted();
            });
            waiter.start();
            Thread.sleep(600);
            long cpu = threadCpuNanos(waiter);
            waiter.join(10_000);
            holder.join(10_000);
            assertTrue(cpu < TimeUnit.MILLISECONDS.toNanos(100),
                    "an interrupted waiter used " + cpu / 1_000_000 + " ms of CPU in its first 600 ms of waiting");
            assertTrue(flagAfter[0], "the interrupt is kept for the caller");
            assertEquals(2L, map.get("other"));
            assertEquals(1L, map.get("held"));
        }
    }

    /** By reflection: tests may run in module dev.colossal.core, which does not read java.management. */
    private static long threadCpuNanos(Thread t) throws ReflectiveOperationException {
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        return (long) Class.forName("java.lang.management.ThreadMXBean").getMethod("getThreadCpuTime", long.class)
                .invoke(threads, t.threadId());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
