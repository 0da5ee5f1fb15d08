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
            long overhead = allocatedBytes();
            overhead = allocatedBytes() - overhead; // what reading the counter itself costs
            // Several windows: a JIT recompilation or deoptimisation under load may allocate a few bytes
            // once, but a path that allocates per access would allocate megabytes in every window.
            long fewest = Long.MAX_VALUE;
            for (int window = 0; window < 5; window++) {
                long before = allocatedBytes();
                for (int round = 0; round < 30; round++) {
                    checksum += pass(array, p, n);
                }
                fewest = Math.min(fewest, Math.max(0, allocatedBytes() - before - overhead));
            }
            long allocated = fewest;
            assertTrue(checksum != 0);
            assertEquals(0, Math.max(0, allocated), "bytes allocated over ~2M struct accesses in the quietest of 5 windows");
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
