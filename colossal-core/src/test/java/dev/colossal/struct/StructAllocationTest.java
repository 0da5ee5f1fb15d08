package dev.colossal.struct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/**
 * Proves the flyweight access path allocates nothing: bytes allocated by this thread, as the JVM
 * counts them (com.sun.management.ThreadMXBean), across ten million moves, reads and writes.
 */
class StructAllocationTest {

    // Reflection, so that this compiles and runs whether surefire places the tests in module
    // dev.colossal.core (which does not, and must not, require java.management or jdk.management)
    // or on the class path: reflective calls need no readability, only exported packages.
    private static final Object THREADS;
    private static final Method ALLOCATED;

    static {
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void movingReadingAndWritingFlyweightsAllocatesNothing() {
        try (Arena arena = Arena.ofConfined()) {
            int n = 1 << 16;
            StructArray<StructSamples.PriceUpdate> array = StructArray.allocate(
                    StructType.of(StructSamples.PriceUpdate.class), n, arena);
            StructSamples.PriceUpdate p = array.flyweight();
            long checksum = 0;
            for (int round = 0; round < 20; round++) { // warm up: compile the loop before measuring
                checksum += pass(array, p, n);
            }
            // The counter itself, and a rare JIT event, can cost a few bytes once per measurement; an
            // allocation on the access path would cost at least 16 bytes x 9.8M accesses. Best of 5.
            long best = Long.MAX_VALUE;
            for (int attempt = 0; attempt < 5 && best > 0; attempt++) {
                long before = allocatedBytes();
                for (int round = 0; round < 150; round++) {
                    checksum += pass(array, p, n);
                }
                best = Math.min(best, allocatedBytes() - before);
            }
            assertTrue(checksum != 0);
            assertTrue(best < 1024, "bytes allocated over ~10M struct accesses: " + best);
        }
    }

    @Test
    void theCounterSeesAllocationsSoAZeroMeansSomething() {
        long before = allocatedBytes();
        Object[] sink = new Object[1000];
        for (int i = 0; i < sink.length; i++) {
            sink[i] = new long[16];
        }
        assertTrue(allocatedBytes() - before >= 1000 * 16 * 8, "the counter must see 128 KB allocated");
        assertEquals(1000, sink.length);
    }

    private static long pass(StructArray<StructSamples.PriceUpdate> array, StructSamples.PriceUpdate p, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            array.at(p, i);
            p.time(i);
            p.price(i * 0.5);
            p.quantity(i);
            p.bid(i & 3, i);
            p.instrument().id(i);
            p.instrument().symbol((i & 1) == 0 ? "EURUSD" : "GBPUSD.X"); // ASCII strings are written in place too
            sum += p.time() + p.quantity() + (long) p.price() + p.instrument().id() + p.bid(i & 3);
        }
        return sum;
    }
}
