package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class SharedChunkPoolTest {

    @TempDir
    Path dir;

    @Test
    void handsOutEachChunkOnceUntilEmptyThenTakesThemBack() {
        try (SharedChunkPool pool = SharedChunkPool.open(dir.resolve("p"), 4096, 16)) {
            Set<Long> held = new HashSet<>();
            for (int i = 0; i < 16; i++) {
                long chunk = pool.acquire();
                assertTrue(held.add(chunk), "chunk " + chunk + " handed out twice");
                assertEquals(ProcessHandle.current().pid(), pool.ownerPid(chunk));
                assertEquals(4096, pool.chunk(chunk).byteSize());
            }
            assertEquals(-1, pool.acquire(), "empty is a return value");
            assertEquals(0, pool.freeCount());
            held.forEach(pool::release);
            assertEquals(16, pool.freeCount());
            assertEquals(0, pool.reclaim(), "this process is alive: nothing to reclaim");
        }
    }

    @Test
    void misuseNamesTheValue() {
        try (SharedChunkPool pool = SharedChunkPool.open(dir.resolve("p"), 64, 4)) {
            var notHeld = assertThrows(IllegalArgumentException.class, () -> pool.release(2));
            assertTrue(notHeld.getMessage().contains("chunk=2"), notHeld.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> pool.chunk(4));
            assertEquals(4, pool.freeCount(), "a failed release frees nothing");
        }
        var geometry = assertThrows(IpcException.class, () -> SharedChunkPool.open(dir.resolve("p"), 64, 8));
        assertTrue(geometry.getMessage().contains("chunkCount=4"), geometry.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SharedChunkPool.open(dir.resolve("q"), 100, 4));
    }

    @Test
    void anOpenerOfAnotherGeometryRacingTheCreatorLeavesThePoolToIt() {
        Path path = dir.resolve("p");
        // The creator's region, before it wrote its geometry: what an opener racing it finds.
        SharedRegion.create(path, RegionKind.CHUNK_POOL, ChunkPoolDescriptor.payloadSize(64, 4)).close();
        var other = assertThrows(IpcException.class, () -> SharedChunkPool.open(path, 128, 4));
        assertTrue(other.getMessage().contains("was made for another geometry"), other.getMessage());
        try (SharedChunkPool pool = SharedChunkPool.open(path, 64, 4)) {
            assertEquals(64, pool.chunkSize(), "the creator still gets its pool");
            assertEquals(4, pool.freeCount());
        }
        var later = assertThrows(IpcException.class, () -> SharedChunkPool.open(path, 128, 4));
        assertTrue(later.getMessage().contains("has chunkSize=64, chunkCount=4"), later.getMessage());
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseNamesThePool() {
        Path path = dir.resolve("p");
        SharedChunkPool pool = SharedChunkPool.open(path, 64, 4);
        long chunk = pool.acquire();
        pool.close();
        pool.close();
        for (var call : List.<Executable>of(pool::acquire, () -> pool.release(chunk),
                pool::reclaim, () -> pool.chunk(chunk), () -> pool.ownerPid(chunk), pool::freeCount)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains("chunk pool " + path + " was closed"), e.getMessage());
        }
    }

    @Test
    void chunksStartOnPageBoundariesOfTheFile() {
        try (SharedChunkPool pool = SharedChunkPool.open(dir.resolve("p"), 4096, 3)) {
            long fileOffset = RegionHeader.LENGTH + ChunkPoolDescriptor.dataOffset(3);
            assertEquals(0, fileOffset % 4096);
            assertEquals(0, pool.chunk(1).address() % 4096);
        }
    }

    @Test
    void threadsChurningThePoolNeverShareAChunk() throws Exception {
        try (SharedChunkPool pool = SharedChunkPool.open(dir.resolve("p"), 64, 4)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long stamp = t + 1;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        IpcChild.churn(pool, stamp, 100_000);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(4, pool.freeCount());
        }
    }

    @Test
    void processesChurningThePoolNeverShareAChunk() throws Exception {
        Path path = SharedRegion.shm("colossal-test-churn-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        try (SharedChunkPool pool = SharedChunkPool.open(path, 64, 3)) {
            List<ChildJvm> children = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(IpcChild.class, "churn", path, 64, 3, 200_000));
            }
            for (ChildJvm child : children) {
                assertEquals(0, child.waitExit());
            }
            assertEquals(3, pool.freeCount());
        } finally {
            Files.deleteIfExists(path);
        }
    }

    @Test
    void chunksHeldByAProcessKilledWithSigkillReturnToThePool() throws Exception {
        Path path = SharedRegion.shm("colossal-test-reclaim-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        try (SharedChunkPool pool = SharedChunkPool.open(path, 4096, 10)) {
            long mine = pool.acquire();
            try (ChildJvm holder = ChildJvm.start(IpcChild.class, "hold", path, 4096, 10, 6)) {
                holder.awaitLine("HELD");
                assertEquals(3, pool.freeCount());
                assertEquals(0, pool.reclaim(), "the holder is alive");
                holder.kill9();
            }
            assertEquals(6, pool.reclaim());
            assertEquals(9, pool.freeCount());
            assertEquals(ProcessHandle.current().pid(), pool.ownerPid(mine), "a live owner keeps its chunk");
            pool.release(mine);
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
