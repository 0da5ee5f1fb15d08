package dev.colossal.array;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.memory.ChunkPool;
import dev.colossal.memory.MappedArena;
import dev.colossal.memory.PoolExhaustedException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Spliterator;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class BigArrayTest {

    @Test
    void shouldIndexPastTwoToTheThirtyOne(@TempDir Path dir) {
        long length = 3_000_000_000L;
        try (ByteArray bytes = ByteArray.sparse(dir, length, 1L << 30)) {
            bytes.set(length - 1, (byte) 42);
            bytes.set((1L << 31) + 5, (byte) 7);
            bytes.set(0, (byte) 1);
            assertEquals(42, bytes.get(length - 1));
            assertEquals(7, bytes.get((1L << 31) + 5));
            assertEquals(0, bytes.get((1L << 31) + 4));
            assertEquals(3, bytes.chunkCount());
        }
        try (ChunkPool pool = ChunkPool.builder().chunkSize(1 << 20).slabSize(1L << 30).build();
             IntArray ints = IntArray.segmented(pool, 2_200_000_000L)) {
            ints.set(2_199_999_999L, -9);
            assertEquals(-9, ints.get(2_199_999_999L));
            assertEquals(0, ints.get(2_147_483_648L));
            assertTrue(ints.chunkCount() > 8000);
        }
    }

    @Test
    void shouldSpanSparseFilesAtSmallSizes(@TempDir Path dir) throws Exception {
        try (LongArray a = LongArray.sparse(dir, 100, 64)) {
            assertEquals(13, a.chunkCount(), "8 longs per 64-byte file");
            try (var files = Files.walk(dir)) {
                assertEquals(13, files.filter(Files::isRegularFile).count());
            }
            for (long i = 0; i < 100; i++) {
                a.set(i, i * i);
            }
            for (long i = 0; i < 100; i++) {
                assertEquals(i * i, a.get(i));
            }
            assertEquals(a.stream().sum(), a.stream().parallel().sum());
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "released: files deleted");
        }
    }

    @Test
    void twoSparseArraysInOneDirectoryKeepTheirOwnElements(@TempDir Path dir) throws Exception {
        try (LongArray x = LongArray.sparse(dir, 1000, 4096);
             LongArray y = LongArray.sparse(dir, 1000, 4096)) {
            x.set(5, 111);
            y.set(5, 222);
            assertEquals(111, x.get(5), "x has files of its own");
            assertEquals(222, y.get(5));
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "both released: their files and directories deleted");
        }
    }

    @Test
    void aSparseArrayNeitherReadsNorDeletesAFileThatWasThere(@TempDir Path dir) throws Exception {
        Path mine = dir.resolve("span-0000.data");
        byte[] contents = new byte[4096];
        java.util.Arrays.fill(contents, (byte) 0x42);
        Files.write(mine, contents);
        try (LongArray a = LongArray.sparse(dir, 1000, 4096)) {
            assertEquals(0, a.get(0), "a new array is zeroed, not the user's file");
            a.set(1, 7);
        }
        assertTrue(java.util.Arrays.equals(contents, Files.readAllBytes(mine)), "the user's file is untouched");
    }

    @Test
    void shouldReturnChunksToThePoolOnTheLastRelease() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 16).limit(1 << 16).build()) {
            FloatArray a = FloatArray.segmented(pool, 10_000);
            assertEquals(10, pool.stats().chunksInUse());
            a.retain();
            a.release();
            assertEquals(10, pool.stats().chunksInUse());
            a.close();
            assertEquals(0, pool.stats().chunksInUse());
            FloatArray b = FloatArray.segmented(pool, 16 * 1024);
            assertEquals(16, pool.stats().chunksInUse());
            assertThrows(PoolExhaustedException.class, () -> FloatArray.segmented(pool, 1));
            b.close();
            try (FloatArray reused = FloatArray.segmented(pool, 16 * 1024)) {
                assertEquals(0f, reused.get(12_345), "reused chunks are zeroed for the new array");
            }
        }
    }

    @Test
    void shouldSkipClearingReusedChunksOnlyWhenAskedTo() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 16).limit(4096).build()) {
            LongArray first = LongArray.segmentedUninitialized(pool, 512);
            assertEquals(0, first.get(7), "fresh memory reads as zero either way");
            first.fill(9);
            first.close();
            try (LongArray again = LongArray.segmentedUninitialized(pool, 512)) {
                assertEquals(9, again.get(7), "the reused chunk keeps its last owner's bytes");
            }
            try (LongArray zeroed = LongArray.segmented(pool, 512)) {
                assertEquals(0, zeroed.get(7));
            }
        }
    }

    @Test
    void shouldGiveBackWhatItTookWhenThePoolRunsOutMidway() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(4096 * 4).limit(4096 * 4).build()) {
            assertThrows(PoolExhaustedException.class, () -> LongArray.segmented(pool, 4096));
            assertEquals(0, pool.stats().chunksInUse());
        }
    }

    @Test
    void shouldSplitParallelStreamsOnChunkBoundaries() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(1 << 16).slabSize(1 << 22).build();
             IntArray a = IntArray.segmented(pool, 1_000_000)) {
            for (long i = 0; i < a.length(); i++) {
                a.set(i, (int) (i % 1000));
            }
            Spliterator.OfInt whole = a.stream().spliterator();
            Spliterator.OfInt prefix = whole.trySplit();
            long perChunk = a.elementsPerChunk();
            assertEquals(0, prefix.estimateSize() % perChunk, "split lands on a chunk boundary");
            assertEquals(1_000_000, prefix.estimateSize() + whole.estimateSize());
            AtomicLong sum = new AtomicLong();
            a.stream().parallel().forEach(sum::addAndGet);
            assertEquals(a.stream().asLongStream().sum(), sum.get());
            assertEquals(999, a.stream().parallel().max().orElseThrow());
        }
    }

    @Test
    void shouldOfferEveryPrimitiveType() {
        try (Arena arena = Arena.ofConfined()) {
            ByteArray b = ByteArray.contiguous(arena, 10);
            b.set(9, (byte) -1);
            assertEquals(-1, b.stream().min().orElseThrow());
            LongArray l = LongArray.contiguous(arena, 10);
            l.fill(Long.MIN_VALUE);
            assertEquals(Long.MIN_VALUE, l.get(9));
            IntArray i = IntArray.contiguous(arena, 10);
            i.fill(3);
            assertEquals(30, i.stream().sum());
            FloatArray f = FloatArray.contiguous(arena, 10);
            f.set(0, 0.25f);
            assertEquals(0.25, f.stream().sum());
            DoubleArray d = DoubleArray.wrap(arena.allocate(80));
            assertEquals(10, d.length());
            d.close();
            assertThrows(IllegalStateException.class, () -> d.get(0));
            assertThrows(IllegalArgumentException.class, () -> DoubleArray.wrap(MemorySegment.ofArray(new byte[7])));
            assertThrows(IllegalArgumentException.class, () -> BigArray.copy(b, 0, l, 0, 1));
        }
    }

    @Test
    void shouldRejectNegativeLengthsNamingTheValue() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 16).build()) {
            var e = assertThrows(IllegalArgumentException.class, () -> DoubleArray.segmented(pool, -3));
            assertTrue(e.getMessage().contains("length=-3"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> DoubleArray.contiguous(-1));
            assertThrows(IllegalArgumentException.class, () -> DoubleArray.segmented(pool, Long.MAX_VALUE));
            try (DoubleArray empty = DoubleArray.segmented(pool, 0)) {
                assertEquals(0, empty.chunkCount());
                assertEquals(0, empty.stream().count());
                assertThrows(IndexOutOfBoundsException.class, () -> empty.get(0));
            }
        }
    }

    /**
     * Closing a pool under arrays that still hold chunks unmaps their memory. The per-chunk and bulk
     * methods then say so; element access keeps the JDK's exception (a check per element would cost).
     */
    @Test
    void anArrayWhosePoolWasClosedSaysSoOnEveryBulkMethod() {
        ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 16).build();
        LongArray a = LongArray.segmented(pool, 2000);
        LongArray other = LongArray.segmented(pool, 2000);
        a.fill(3);
        pool.close();
        List<Executable> bulk = List.of(() -> a.chunk(0), () -> a.fill(1), () -> a.copyTo(0, new long[4], 0, 4),
                () -> a.copyFrom(new long[4], 0, 0, 4), () -> a.copyTo(0, MemorySegment.ofArray(new long[4]), 0, 4),
                () -> a.copyFrom(MemorySegment.ofArray(new long[4]), 0, 0, 4), a::stream,
                () -> BigArray.copy(a, 0, other, 0, 4));
        for (Executable call : bulk) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains("LongArray of length=2000")
                    && e.getMessage().contains("the chunk pool it came from (chunkSize=4096")
                    && e.getMessage().contains("was closed"), e.getMessage());
        }
        assertThrows(IllegalStateException.class, () -> a.get(0), "the JDK's Already closed");
        a.close();
        other.close();
    }

    @Test
    void anArrayWhoseArenaWasClosedSaysSo() {
        Arena arena = Arena.ofShared();
        DoubleArray d = DoubleArray.contiguous(arena, 100);
        arena.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> d.fill(2.0));
        assertTrue(e.getMessage().contains("the arena that holds its memory was closed"), e.getMessage());
        MappedArena mapped = MappedArena.ofTemp();
        IntArray i = IntArray.contiguous(mapped, 10);
        mapped.close();
        IllegalStateException m = assertThrows(IllegalStateException.class, () -> i.chunk(0));
        assertTrue(m.getMessage().contains("its MappedArena in " + mapped.directory()), m.getMessage());
    }

    @Test
    void shouldKeepElementsAppartWhenThreadsWriteDistinctIndices() throws Exception {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(256).slabSize(1 << 16).build();
             LongArray a = LongArray.segmented(pool, 100_000)) {
            Thread[] threads = new Thread[4];
            for (int t = 0; t < threads.length; t++) {
                int me = t;
                threads[t] = Thread.ofPlatform().start(() -> {
                    for (long i = me; i < a.length(); i += threads.length) {
                        a.set(i, i * 3);
                    }
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            for (long i = 0; i < a.length(); i++) {
                assertEquals(i * 3, a.get(i));
            }
        }
    }
}
