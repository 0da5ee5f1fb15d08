package dev.colossal.array;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.memory.ChunkPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ReadOnlyViewTest {

    @Test
    void shouldRejectEveryWritePathOfEveryType() {
        try (ChunkPool pool = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(4096).slabSize(1 << 20)
                .build()) {
            List<BigArray> arrays = List.of(DoubleArray.segmented(pool, 1000), FloatArray.segmented(pool, 1000),
                    LongArray.segmented(pool, 1000), IntArray.segmented(pool, 1000), ByteArray.segmented(pool, 5000),
                    DoubleArray.contiguous(Arena.ofAuto(), 1000));
            for (BigArray array : arrays) {
                try (BigArray view = array.readOnly()) {
                    String what = view.toString();
                    assertTrue(view.isReadOnly() && !array.isReadOnly(), what);
                    assertEquals(array.getClass(), view.getClass(), what);
                    MemorySegment source = Arena.ofAuto().allocate(64);
                    List<Executable> writes = List.of(
                            () -> view.copyFrom(source, 0, 1, 4),
                            () -> view.chunk(view.chunkCount() - 1).set(ValueLayout.JAVA_BYTE, 0, (byte) 1),
                            () -> BigArray.copy(array, 0, view, 8, 4),
                            () -> elementWrite(view));
                    for (Executable write : writes) {
                        assertThrows(IllegalArgumentException.class, write, what);
                    }
                    assertEquals(0, view.chunk(0).get(ValueLayout.JAVA_BYTE, 0), what + ": nothing was written");
                }
                array.release();
            }
            assertEquals(0, pool.stats().chunksInUse());
        }
    }

    /** The typed element writes: set and fill. */
    private static void elementWrite(BigArray view) {
        switch (view) {
            case DoubleArray a -> {
                assertThrows(IllegalArgumentException.class, () -> a.fill(1.0));
                a.set(999, 2.0);
            }
            case FloatArray a -> {
                assertThrows(IllegalArgumentException.class, () -> a.fill(1f));
                a.set(3, 2f);
            }
            case LongArray a -> {
                assertThrows(IllegalArgumentException.class, () -> a.copyFrom(new long[] {1}, 0, 0, 1));
                a.set(3, 2);
            }
            case IntArray a -> {
                assertThrows(IllegalArgumentException.class, () -> a.fill(0, 10, 1));
                a.set(3, 2);
            }
            case ByteArray a -> {
                assertThrows(IllegalArgumentException.class, () -> a.fill((byte) 1));
                a.set(4999, (byte) 2);
            }
        }
    }

    @Test
    void shouldSeeTheOriginalsWritesAndHoldItsMemory() {
        try (ChunkPool pool = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(4096).slabSize(1 << 20)
                .build()) {
            LongArray array = LongArray.segmented(pool, 3000);
            LongArray view = array.readOnly();
            assertEquals(2, array.references(), "the view holds a reference to the array");
            array.set(2999, 42);
            assertEquals(42, view.get(2999));
            assertEquals(42, view.stream().sum());
            assertFalse(array.release(), "the view still holds the memory");
            assertEquals(42, view.get(2999));
            assertTrue(view.release());
            assertTrue(array.isReleased(), "releasing the view let go of the array");
            assertEquals(0, pool.stats().chunksInUse());
            assertThrows(IllegalStateException.class, array::readOnly);
        }
    }
}
