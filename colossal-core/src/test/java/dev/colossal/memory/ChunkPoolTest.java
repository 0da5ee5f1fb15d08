package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ChunkPoolTest {

    @ParameterizedTest
    @EnumSource(ChunkPool.Backing.class)
    void shouldHandOutDistinctWritableChunksOnEveryBacking(ChunkPool.Backing backing) {
        try (ChunkPool pool = ChunkPool.builder().backing(backing).chunkSize(4096).slabSize(1 << 16).build()) {
            Set<Integer> ids = new HashSet<>();
            for (int i = 0; i < 40; i++) {
                int id = pool.acquire();
                assertTrue(ids.add(id), "chunk handed out twice: " + id);
                MemorySegment chunk = pool.segment(id);
                assertEquals(4096, chunk.byteSize());
                assertEquals(0, chunk.address() % 4096, "chunk not aligned to its size");
                chunk.set(ValueLayout.JAVA_INT, 0, id);
                chunk.set(ValueLayout.JAVA_INT, 4092, ~id);
            }
            for (int id : ids) {
                assertEquals(id, pool.segment(id).get(ValueLayout.JAVA_INT, 0));
                assertEquals(~id, pool.segment(id).get(ValueLayout.JAVA_INT, 4092));
            }
            ChunkPool.Stats stats = pool.stats();
            assertEquals(40, stats.chunksInUse());
            assertEquals(3, stats.slabs(), "16 chunks per slab, 40 chunks");
            assertEquals(48, stats.chunksTotal());
            assertEquals(8, stats.chunksFree());
            assertEquals(3L << 16, stats.bytesMapped());
            ids.forEach(pool::release);
            assertEquals(0, pool.stats().chunksInUse());
            assertEquals(40, pool.stats().highWaterMark());
        }
    }

    @ParameterizedTest
    @EnumSource(ChunkPool.Backing.class)
    void acquireZeroedShouldClearEveryByteOfAReusedChunk(ChunkPool.Backing backing) {
        try (ChunkPool pool = ChunkPool.builder().backing(backing).chunkSize(4096).slabSize(1 << 16).build()) {
            List<Integer> used = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int id = pool.acquire();
                pool.segment(id).fill((byte) 0x5A);
                used.add(id);
            }
            used.forEach(pool::release);
            for (int i = 0; i < 16; i++) {
                int id = pool.acquireZeroed();
                assertTrue(used.contains(id), "expected a reused chunk, got fresh " + id);
                MemorySegment chunk = pool.segment(id);
                assertEquals(-1, chunk.mismatch(MemorySegment.ofArray(new byte[4096])),
                        "chunk " + id + " not zero at offset " + chunk.mismatch(MemorySegment.ofArray(new byte[4096])));
            }
        }
    }

    @Test
    void shouldReuseReleasedChunksBeforeGrowing() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(64).slabSize(256).build()) {
            int a = pool.acquire();
            pool.release(a);
            for (int i = 0; i < 100; i++) {
                pool.release(pool.acquire());
            }
            assertEquals(1, pool.stats().slabs());
        }
    }

    @Test
    void shouldRejectDoubleReleaseAndUnknownIds() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(64).slabSize(1024).build()) {
            int id = pool.acquire();
            pool.release(id);
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> pool.release(id));
            assertTrue(twice.getMessage().contains("id=" + id), twice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pool.release(99_999));
            assertThrows(IllegalArgumentException.class, () -> pool.release(-1));
            int other = pool.acquire();
            int never = other == 0 ? 1 : 0;
            if (never != id) {
                assertThrows(IllegalStateException.class, () -> pool.release(never), "never acquired");
            }
        }
    }

    @Test
    void shouldThrowClearExceptionWhenTheLimitIsReached() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(1024).slabSize(4096).limit(10 * 1024).build()) {
            List<Integer> held = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                held.add(pool.acquire());
            }
            PoolExhaustedException e = assertThrows(PoolExhaustedException.class, pool::acquire);
            assertTrue(e.getMessage().contains("limit=10240"), e.getMessage());
            assertTrue(e.getMessage().contains("raise the limit"), e.getMessage());
            assertEquals(-1, pool.tryAcquire());
            pool.release(held.removeFirst());
            assertNotEquals(-1, pool.tryAcquire(), "a released chunk is available again");
            assertEquals(10, pool.stats().chunksTotal(), "the last slab is cut at the limit");
        }
    }

    @Test
    void shouldRejectBadConfigurationNamingTheValue() {
        var e1 = assertThrows(IllegalArgumentException.class, () -> ChunkPool.builder().chunkSize(1000));
        assertTrue(e1.getMessage().contains("chunkSize=1000"));
        var e2 = assertThrows(IllegalArgumentException.class, () -> ChunkPool.builder().chunkSize(-8));
        assertTrue(e2.getMessage().contains("chunkSize=-8"));
        var e3 = assertThrows(IllegalArgumentException.class, () -> ChunkPool.builder().limit(-1));
        assertTrue(e3.getMessage().contains("limit=-1"));
        var e4 = assertThrows(IllegalArgumentException.class,
                () -> ChunkPool.builder().chunkSize(4096).limit(100).build());
        assertTrue(e4.getMessage().contains("limit=100"));
    }

    @Test
    void shouldRefuseADirectoryThatIsAFile(@TempDir Path tmp) throws Exception {
        Path file = Files.createFile(tmp.resolve("not-a-dir"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> ChunkPool.builder().directory(file).build());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("writable directory"), e.getMessage());
    }

    @Test
    void shouldLeaveNoFileBehindEvenWhileInUse(@TempDir Path tmp) throws Exception {
        try (ChunkPool pool = ChunkPool.builder().directory(tmp).chunkSize(4096).slabSize(1 << 20).build()) {
            pool.segment(pool.acquire()).set(ValueLayout.JAVA_LONG, 0, 1);
            try (var files = Files.list(tmp)) {
                assertEquals(0, files.count(), "the backing file is unlinked once open: a crash leaves nothing");
            }
        }
        try (var files = Files.list(tmp)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void shouldNotKeepItsOwnTemporaryDirectoryWhileOpen(@TempDir Path tmp) {
        String saved = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", tmp.toString());
        try (ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 20).build()) {
            pool.segment(pool.acquire()).set(ValueLayout.JAVA_LONG, 0, 1);
            pool.acquire(); // needs no directory once open
            try (var files = Files.list(tmp)) {
                assertEquals(0, files.count(), "a process killed now must leave no empty directory behind");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        } finally {
            System.setProperty("java.io.tmpdir", saved);
        }
    }

    @Test
    void shouldFailUseAfterClose() {
        ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 16).build();
        int id = pool.acquire();
        MemorySegment chunk = pool.segment(id);
        pool.close();
        pool.close(); // idempotent
        IllegalStateException acquire = assertThrows(IllegalStateException.class, pool::acquire);
        assertTrue(acquire.getMessage().contains("chunk pool (chunkSize=4096") && acquire.getMessage().contains("closed"),
                acquire.getMessage());
        IllegalStateException segment = assertThrows(IllegalStateException.class, () -> pool.segment(id));
        assertTrue(segment.getMessage().contains("is closed"), segment.getMessage());
        // a segment taken before: the JDK's own exception, documented on close()
        assertThrows(IllegalStateException.class, () -> chunk.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void theSegmentOfAReleasedChunkIsRefused() {
        try (ChunkPool pool = ChunkPool.builder().chunkSize(64).slabSize(1024).build()) {
            int id = pool.acquire();
            pool.segment(id).set(ValueLayout.JAVA_LONG, 0, 1);
            pool.release(id);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.segment(id));
            assertTrue(e.getMessage().contains("chunk id=" + id + " is not in use"), e.getMessage());
            int never = id == 0 ? 1 : 0;
            assertThrows(IllegalStateException.class, () -> pool.segment(never), "never acquired");
            assertEquals(id, pool.acquire(), "the released chunk is the next one out");
            assertEquals(64, pool.segment(id).byteSize(), "acquired again, its segment is there again");
        }
    }

    @Test
    void closeRemovesTheDirectoriesTheBuilderCreated(@TempDir Path tmp) throws Exception {
        Path missing = tmp.resolve("a").resolve("b");
        try (ChunkPool pool = ChunkPool.builder().directory(missing).chunkSize(4096).slabSize(1 << 16).build()) {
            pool.segment(pool.acquire()).set(ValueLayout.JAVA_INT, 0, 1);
            assertTrue(Files.isDirectory(missing));
        }
        assertFalse(Files.exists(tmp.resolve("a")), "a/b did not exist before the pool: none of it stays");
        try (ChunkPool pool = ChunkPool.builder().directory(tmp).chunkSize(4096).slabSize(1 << 16).build()) {
            pool.acquire();
        }
        assertTrue(Files.isDirectory(tmp), "a directory that was there stays");
    }

    @Test
    void shouldNeverHandOutAChunkTwiceUnderContention() throws Exception {
        int threads = 8;
        int rounds = 50_000;
        try (ChunkPool pool = ChunkPool.builder().chunkSize(64).slabSize(64 * 64).limit(64 * 256).build()) {
            AtomicIntegerArray owner = new AtomicIntegerArray(256);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t + 1;
                workers.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        int[] held = new int[16];
                        for (int r = 0; r < rounds; r++) {
                            int n = 1 + (r % 16);
                            int got = 0;
                            for (; got < n; got++) {
                                int id = pool.tryAcquire();
                                if (id < 0) {
                                    break;
                                }
                                if (!owner.compareAndSet(id, 0, me)) {
                                    throw new AssertionError("chunk " + id + " held by " + owner.get(id)
                                            + " was handed to " + me);
                                }
                                held[got] = id;
                            }
                            for (int i = 0; i < got; i++) {
                                owner.set(held[i], 0);
                                pool.release(held[i]);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            ChunkPool.Stats stats = pool.stats();
            assertEquals(0, stats.chunksInUse());
            assertTrue(stats.chunksTotal() <= 256);
            // Every chunk is back on the free list exactly once: we can take all 256, then no more.
            Set<Integer> all = new HashSet<>();
            for (int i = 0; i < 256; i++) {
                assertTrue(all.add(pool.acquire()));
            }
            assertEquals(-1, pool.tryAcquire());
        }
    }
}
