package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.LongUnaryOperator;
import dev.colossal.AllocatedBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw API's promise: reads into a caller's segment, puts, putIfAbsent and removes allocate
 * nothing on the heap, as the JVM counts this thread's allocations (com.sun.management).
 */
class RawAllocationTest {

    private static final int KEYS = 4096;

    @TempDir
    Path dir;

    /**
     * Bytes allocated by {@code KEYS} calls of {@code op} (key index to a checksum), in the
     * quietest of several windows after warming up: a JIT recompilation may allocate once, a path
     * that allocates per call allocates in every window. When no window is clean the JIT may still
     * be compiling (the machine busy, the compile queue long), so it warms up longer and measures
     * again, three times at most: compiled code that allocates per call fails every attempt.
     */
    private static long bytesPerPass(LongUnaryOperator op) {
        long fewest = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3 && fewest > 0; attempt++) {
            fewest = Math.min(fewest, quietestWindow(op, 200 << attempt));
        }
        return fewest;
    }

    private static long quietestWindow(LongUnaryOperator op, int warmUpRounds) {
        long sum = 0;
        for (int round = 0; round < warmUpRounds; round++) {
            for (int i = 0; i < KEYS; i++) {
                sum += op.applyAsLong(i);
            }
        }
        long overhead = AllocatedBytes.ofThisThread();
        overhead = AllocatedBytes.ofThisThread() - overhead;
        long fewest = Long.MAX_VALUE;
        for (int window = 0; window < 5; window++) {
            long before = AllocatedBytes.ofThisThread();
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < KEYS; i++) {
                    sum += op.applyAsLong(i);
                }
            }
            fewest = Math.min(fewest, Math.max(0, AllocatedBytes.ofThisThread() - before - overhead));
        }
        assertTrue(sum != 42, "keeps the loop alive");
        return fewest;
    }

    @Test
    void rawGetsPutsAndRemovesAllocateNothing() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map"));
             Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(8);
            MemorySegment value = arena.allocate(40);
            MemorySegment dst = arena.allocate(64);
            for (int i = 0; i < KEYS; i++) {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                value.set(JAVA_LONG_UNALIGNED, 0, i);
                map.put(key, value);
            }
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                long n = map.get(key, dst);
                assertEquals(i, dst.get(JAVA_LONG_UNALIGNED, 0));
                return n;
            }), "bytes allocated by get(key, dst)");
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                long n = map.get(key, dst, 24);
                assertEquals(i, dst.get(JAVA_LONG_UNALIGNED, 24));
                return n;
            }), "bytes allocated by get(key, dst, offset)");
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                return map.containsKey(key) ? 1 : 0;
            }), "bytes allocated by containsKey");
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                map.put(key, value);
                return 1;
            }), "bytes allocated by put (overwrite)");
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                return map.putIfAbsent(key, value) ? 1 : 0;
            }), "bytes allocated by putIfAbsent of a present key");
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                boolean removed = map.remove(key);
                map.put(key, value); // an insert: takes a slot and blocks again
                return removed ? 1 : 0;
            }), "bytes allocated by remove then put (insert)");
            MemorySegment seen = dst.asSlice(0, value.byteSize());
            MemorySegment other = arena.allocate(value.byteSize());
            assertEquals(0, bytesPerPass(i -> {
                key.set(JAVA_LONG_UNALIGNED, 0, i);
                map.get(key, dst);
                value.set(JAVA_LONG_UNALIGNED, 0, seen.get(JAVA_LONG_UNALIGNED, 0) + 1);
                assertTrue(map.replace(key, seen, value));
                assertTrue(!map.replace(key, other, value) && !map.remove(key, other), "other bytes: refused");
                return 1;
            }), "bytes allocated by replace(key, expected, value), done and refused");
            assertEquals(KEYS, map.size());
        }
    }
}
