package dev.colossal.struct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import dev.colossal.AllocatedBytes;
import org.junit.jupiter.api.Test;

/**
 * Proves the flyweight access path allocates nothing: bytes allocated by this thread, as the JVM
 * counts them (com.sun.management.ThreadMXBean), across ten million moves, reads and writes.
 */
class StructAllocationTest {

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
            long overhead = AllocatedBytes.ofThisThread();
            overhead = AllocatedBytes.ofThisThread() - overhead; // what reading the counter itself costs
            // Several windows: a JIT recompilation or deoptimisation under load may allocate a few bytes
            // once, but a path that allocates per access would allocate megabytes in every window.
            long fewest = Long.MAX_VALUE;
            for (int window = 0; window < 5; window++) {
                long before = AllocatedBytes.ofThisThread();
                for (int round = 0; round < 30; round++) {
                    checksum += pass(array, p, n);
                }
                fewest = Math.min(fewest, Math.max(0, AllocatedBytes.ofThisThread() - before - overhead));
            }
            long allocated = fewest;
            assertTrue(checksum != 0);
            assertEquals(0, Math.max(0, allocated), "bytes allocated over ~2M struct accesses in the quietest of 5 windows");
        }
    }

    @Test
    void theCounterSeesAllocationsSoAZeroMeansSomething() {
        long before = AllocatedBytes.ofThisThread();
        Object[] sink = new Object[1000];
        for (int i = 0; i < sink.length; i++) {
            sink[i] = new long[16];
        }
        assertTrue(AllocatedBytes.ofThisThread() - before >= 1000 * 16 * 8, "the counter must see 128 KB allocated");
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
