package dev.colossal.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.memory.ChunkPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One contract, every way of storing a big array, chunk sizes down to one element so that every
 * chunk boundary case is exercised.
 */
class BigArrayContractTest {

    private static final List<AutoCloseable> RESOURCES = new ArrayList<>();
    @TempDir
    static Path sparseDir;

    @AfterAll
    static void tearDown() throws Exception {
        for (AutoCloseable c : RESOURCES) {
            c.close();
        }
    }

    static Stream<Arguments> storages() {
        List<Arguments> all = new ArrayList<>();
        for (long chunk : new long[] {8, 16, 64, 4096, 1 << 20}) {
            ChunkPool pool = ChunkPool.builder().chunkSize(chunk).slabSize(Math.max(chunk * 64, 1 << 16)).build();
            RESOURCES.add(pool);
            all.add(Arguments.of("segmented chunk=" + chunk, (LongFunction<DoubleArray>) n -> DoubleArray.segmented(pool, n)));
        }
        ChunkPool nativePool = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(64).slabSize(1 << 16).build();
        RESOURCES.add(nativePool);
        all.add(Arguments.of("segmented native chunk=64", (LongFunction<DoubleArray>) n -> DoubleArray.segmented(nativePool, n)));
        // Slabs of 4 chunks, each its own native allocation: an array's chunks lie in many segments,
        // which takes the general path instead of the one-region fast path.
        ChunkPool scattered = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(64).slabSize(256).build();
        RESOURCES.add(scattered);
        all.add(Arguments.of("segmented over many slabs", (LongFunction<DoubleArray>) n -> {
            DoubleArray a = DoubleArray.segmented(scattered, n);
            if (n > 32 && a.region != null) {
                throw new AssertionError("expected chunks spread over several slabs");
            }
            return a;
        }));
        // The three ways a segmented array addresses its elements, each forced: one run of chunks
        // (a fresh pool hands them out in order), chunks out of order in one region, and (above)
        // chunks in several regions.
        all.add(Arguments.of("segmented, chunks in one run", (LongFunction<DoubleArray>) n -> {
            ChunkPool fresh = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(64).slabSize(1 << 16).build();
            RESOURCES.add(fresh);
            DoubleArray a = DoubleArray.segmented(fresh, n);
            if (a.single == null) {
                throw new AssertionError("expected the chunks of a fresh pool to form one run");
            }
            return a;
        }));
        ChunkPool recycled = ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(64).slabSize(1 << 16).build();
        RESOURCES.add(recycled);
        all.add(Arguments.of("segmented, chunks out of order", (LongFunction<DoubleArray>) n -> {
            long count = (n * 8 + 63) / 64;
            int[] ids = new int[(int) count];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = recycled.acquire();
            }
            Arrays.sort(ids);
            for (int id : ids) {
                recycled.release(id); // the stack now pops them in descending order
            }
            DoubleArray a = DoubleArray.segmented(recycled, n);
            if (count > 1 && (a.single != null || a.region == null)) {
                throw new AssertionError("expected chunks out of order within one region");
            }
            return a;
        }));
        all.add(Arguments.of("contiguous mapped", (LongFunction<DoubleArray>) DoubleArray::contiguous));
        Arena arena = Arena.ofShared();
        RESOURCES.add(arena);
        all.add(Arguments.of("contiguous in arena", (LongFunction<DoubleArray>) n -> DoubleArray.contiguous(arena, n)));
        all.add(Arguments.of("sparse files of 64 bytes",
                (LongFunction<DoubleArray>) n -> DoubleArray.sparse(sparseDir.resolve("s" + System.nanoTime()), n, 64)));
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storages")
    void shouldStoreEveryElementAcrossChunkBoundaries(String name, LongFunction<DoubleArray> factory) {
        try (DoubleArray a = factory.apply(1001)) {
            assertEquals(1001, a.length());
            for (long i = 0; i < a.length(); i++) {
                assertEquals(0.0, a.get(i), "fresh arrays read as zero");
                a.set(i, i * 1.5);
            }
            for (long i = 0; i < a.length(); i++) {
                assertEquals(i * 1.5, a.get(i));
            }
            var low = assertThrows(IndexOutOfBoundsException.class, () -> a.get(-1));
            assertTrue(low.getMessage().contains("index=-1"), low.getMessage());
            var high = assertThrows(IndexOutOfBoundsException.class, () -> a.set(1001, 0));
            assertTrue(high.getMessage().contains("length=1001"), high.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storages")
    void shouldWalkChunksThatCoverTheArrayExactly(String name, LongFunction<DoubleArray> factory) {
        try (DoubleArray a = factory.apply(777)) {
            long covered = 0;
            for (int c = 0; c < a.chunkCount(); c++) {
                MemorySegment chunk = a.chunk(c);
                assertEquals(covered, a.chunkFirstIndex(c));
                for (long off = 0; off < chunk.byteSize(); off += 8) {
                    chunk.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, covered + off / 8);
                }
                covered += chunk.byteSize() / 8;
            }
            assertEquals(777, covered);
            for (long i = 0; i < 777; i++) {
                assertEquals(i, a.get(i));
            }
            assertEquals(776L * 777 / 2, a.stream().sum());
            assertEquals(776L * 777 / 2, a.stream().parallel().sum());
            assertEquals(777, a.stream().parallel().count());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storages")
    void shouldFillAndCopyRangesAcrossChunks(String name, LongFunction<DoubleArray> factory) {
        try (DoubleArray a = factory.apply(500); DoubleArray b = factory.apply(500)) {
            a.fill(3, 200, 7.0);
            for (long i = 0; i < 500; i++) {
                assertEquals(i >= 3 && i < 203 ? 7.0 : 0.0, a.get(i), "index " + i);
            }
            double[] heap = new double[300];
            for (int i = 0; i < heap.length; i++) {
                heap[i] = -i;
            }
            a.copyFrom(heap, 10, 17, 250);
            double[] back = new double[250];
            a.copyTo(17, back, 0, 250);
            for (int i = 0; i < 250; i++) {
                assertEquals(-(i + 10), back[i]);
            }
            BigArray.copy(a, 5, b, 123, 300);
            for (long i = 0; i < 300; i++) {
                assertEquals(a.get(5 + i), b.get(123 + i));
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment seg = arena.allocate(8 * 100);
                b.copyTo(150, seg, 0, 100);
                a.copyFrom(seg, 0, 400, 100);
                for (long i = 0; i < 100; i++) {
                    assertEquals(b.get(150 + i), a.get(400 + i));
                }
            }
            assertThrows(IndexOutOfBoundsException.class, () -> a.copyTo(450, new double[100], 0, 100));
            assertThrows(IndexOutOfBoundsException.class, () -> a.fill(-1, 2, 0));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storages")
    void shouldCopyOverlappingRangesOfOneArrayLikeArraycopy(String name, LongFunction<DoubleArray> factory) {
        Random random = new Random(7);
        try (DoubleArray a = factory.apply(300)) {
            double[] model = new double[300];
            for (int i = 0; i < 300; i++) {
                model[i] = i;
                a.set(i, i);
            }
            for (int round = 0; round < 50; round++) {
                int count = random.nextInt(150);
                int from = random.nextInt(300 - count);
                int to = random.nextInt(300 - count);
                System.arraycopy(model, from, model, to, count);
                BigArray.copy(a, from, a, to, count);
                double[] actual = new double[300];
                a.copyTo(0, actual, 0, 300);
                assertArrayEquals(model, actual, "from=" + from + " to=" + to + " count=" + count);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storages")
    void shouldCountReferencesAndFailCleanlyAfterTheLastRelease(String name, LongFunction<DoubleArray> factory) {
        DoubleArray a = factory.apply(100);
        a.set(5, 1);
        a.retain();
        assertEquals(2, a.references());
        assertEquals(false, a.release());
        assertEquals(1.0, a.get(5), "still alive with one reference");
        assertEquals(true, a.release());
        assertTrue(a.isReleased());
        var get = assertThrows(IllegalStateException.class, () -> a.get(5));
        assertTrue(get.getMessage().contains("released"), get.getMessage());
        assertThrows(IllegalStateException.class, () -> a.set(0, 1));
        assertThrows(IllegalStateException.class, () -> a.fill(0));
        assertThrows(IllegalStateException.class, () -> a.chunk(0));
        assertThrows(IllegalStateException.class, a::stream);
        assertThrows(IllegalStateException.class, () -> a.copyTo(0, new double[1], 0, 1));
        assertThrows(IllegalStateException.class, a::release);
        assertThrows(IllegalStateException.class, a::retain);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storages")
    void closingAReleasedArrayDoesNothing(String name, LongFunction<DoubleArray> factory) {
        DoubleArray a = factory.apply(100);
        try (a) {
            a.set(5, 1);
        }
        a.close(); // a second close, by the owner: no exception, and the memory is not returned twice
        a.close();
        assertTrue(a.isReleased());
        assertEquals(0, a.references());
        assertThrows(IllegalStateException.class, a::release, "a release too many still says so");
        DoubleArray b = factory.apply(100);
        b.retain();
        b.close();
        assertEquals(0.0, b.get(5), "another holder's reference keeps it alive");
        b.close();
        assertTrue(b.isReleased(), "closing is releasing: the array cannot tell holders apart");
    }
}
