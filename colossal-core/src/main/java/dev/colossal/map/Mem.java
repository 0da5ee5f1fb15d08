package dev.colossal.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Shared-memory accessors of the map file, named by memory order (see {@code package-info}).
 * Every field reached through them is a naturally aligned long in the mapped file.
 */
final class Mem {

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Mem() {
    }

    static long getLong(MemorySegment m, long offset) {
        return (long) LONG.get(m, offset);
    }

    static void setLong(MemorySegment m, long offset, long value) {
        LONG.set(m, offset, value);
    }

    static long getLongAcquire(MemorySegment m, long offset) {
        return (long) LONG.getAcquire(m, offset);
    }

    static void setLongRelease(MemorySegment m, long offset, long value) {
        LONG.setRelease(m, offset, value);
    }

    static long getLongVolatile(MemorySegment m, long offset) {
        return (long) LONG.getVolatile(m, offset);
    }

    static void setLongVolatile(MemorySegment m, long offset, long value) {
        LONG.setVolatile(m, offset, value);
    }

    static boolean compareAndSetLong(MemorySegment m, long offset, long expected, long value) {
        return LONG.compareAndSet(m, offset, expected, value);
    }
}
