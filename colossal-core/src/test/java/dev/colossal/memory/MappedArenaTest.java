package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import java.io.File;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedArenaTest {

    @Test
    void shouldHonourEveryPowerOfTwoAlignment() {
        try (MappedArena arena = MappedArena.ofTemp()) {
            for (long alignment = 1; alignment <= (1L << 21); alignment <<= 1) {
                arena.allocate(3); // knock the bump pointer off any boundary
                MemorySegment s = arena.allocate(100, alignment);
                assertEquals(0, s.address() % alignment, "alignment=" + alignment);
                assertEquals(100, s.byteSize());
            }
        }
    }

    @Test
    void shouldHandOutZeroedDisjointSegmentsFromSharedExtents() {
        try (MappedArena arena = MappedArena.builder().extentSize(1 << 16).build()) {
            MemorySegment a = arena.allocate(1000);
            MemorySegment b = arena.allocate(1000);
            assertTrue(a.address() + 1000 <= b.address() || b.address() + 1000 <= a.address());
            assertEquals(-1, a.mismatch(MemorySegment.ofArray(new byte[1000])));
            a.fill((byte) 7);
            assertEquals(0, b.get(ValueLayout.JAVA_BYTE, 0));
            for (int i = 0; i < 60; i++) {
                arena.allocate(1000);
            }
            assertEquals(1 << 16, arena.bytesMapped(), "62 small allocations share one 64 KiB extent");
            MemorySegment big = arena.allocate(1 << 20);
            assertEquals(1 << 20, big.byteSize());
            assertEquals((1 << 16) + (1 << 20), arena.bytesMapped(), "a large allocation gets an extent of its own");
            assertEquals(0, arena.allocate(0).byteSize());
        }
    }

    @Test
    void shouldGiveTheSameBytesBackAfterKeepAndReopen(@TempDir Path dir) {
        Random random = new Random(42);
        byte[] first = new byte[5000];
        byte[] second = new byte[3 << 20];
        random.nextBytes(first);
        random.nextBytes(second);
        try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).extentSize(1 << 16).build()) {
            MemorySegment.copy(MemorySegment.ofArray(first), 0, arena.allocate(first.length, 64), 0, first.length);
            MemorySegment.copy(MemorySegment.ofArray(second), 0, arena.allocate(second.length, 4096), 0, second.length);
            arena.allocate(8).set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        }
        assertTrue(Files.exists(dir.resolve("arena.data")));
        try (MappedArena again = MappedArena.open(dir)) {
            List<MemorySegment> segments = again.segments();
            assertEquals(3, segments.size());
            assertEquals(-1, segments.get(0).mismatch(MemorySegment.ofArray(first)));
            assertEquals(-1, segments.get(1).mismatch(MemorySegment.ofArray(second)));
            assertEquals(0, segments.get(1).address() % 4096);
            assertEquals(0x1122334455667788L, segments.get(2).get(ValueLayout.JAVA_LONG, 0));
            MemorySegment more = again.allocate(16);
            more.set(ValueLayout.JAVA_LONG, 8, 5);
        }
        try (MappedArena third = MappedArena.open(dir)) {
            assertEquals(4, third.segments().size());
            assertEquals(5, third.segments().get(3).get(ValueLayout.JAVA_LONG, 8));
            assertEquals(-1, third.segments().get(0).mismatch(MemorySegment.ofArray(first)));
        }
    }

    @Test
    void shouldDeleteItsFilesOnCloseByDefault(@TempDir Path dir) throws Exception {
        try (MappedArena arena = MappedArena.builder().directory(dir).build()) {
            arena.allocate(10);
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
        MappedArena temp = MappedArena.ofTemp();
        Path tempDir = temp.directory();
        temp.allocate(1);
        temp.close();
        assertFalse(Files.exists(tempDir));
    }

    @Test
    void shouldLiveOnShm() {
        try (MappedArena arena = MappedArena.ofShm()) {
            assertTrue(arena.directory().startsWith("/dev/shm"));
            arena.allocate(4096).set(ValueLayout.JAVA_INT, 0, 1);
        }
    }

    @Test
    void shouldThrowOnUseAfterClose() {
        MappedArena arena = MappedArena.ofTemp();
        MemorySegment s = arena.allocate(64);
        arena.close();
        assertThrows(IllegalStateException.class, () -> s.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, () -> arena.allocate(8));
        assertThrows(IllegalStateException.class, arena::close);
        assertFalse(arena.scope().isAlive());
    }

    @Test
    void shouldRejectBadInputNamingTheValue(@TempDir Path dir) throws Exception {
        try (MappedArena arena = MappedArena.ofTemp()) {
            var negative = assertThrows(IllegalArgumentException.class, () -> arena.allocate(-5));
            assertTrue(negative.getMessage().contains("byteSize=-5"));
            var misaligned = assertThrows(IllegalArgumentException.class, () -> arena.allocate(8, 3));
            assertTrue(misaligned.getMessage().contains("byteAlignment=3"));
            var zero = assertThrows(IllegalArgumentException.class, () -> arena.allocate(8, 0));
            assertTrue(zero.getMessage().contains("byteAlignment=0"));
        }
        Path file = Files.createFile(dir.resolve("file"));
        var notDir = assertThrows(UncheckedIOException.class, () -> MappedArena.builder().directory(file).build());
        assertTrue(notDir.getMessage().contains(file.toString()));
        var none = assertThrows(UncheckedIOException.class, () -> MappedArena.open(dir.resolve("nothing")));
        assertTrue(none.getMessage().contains("no arena"));
        assertThrows(IllegalArgumentException.class, () -> MappedArena.builder().extentSize(1000));
    }

    @Test
    void shouldExplainADirectoryWhereNoFileCanBeCreated() {
        // /proc refuses new files even to root, unlike a chmod-ed directory.
        Path unwritable = Path.of("/proc/colossal-cannot-write-here");
        var arena = assertThrows(UncheckedIOException.class, () -> MappedArena.builder().directory(unwritable).build());
        assertTrue(arena.getMessage().contains("directory=" + unwritable), arena.getMessage());
        assertTrue(arena.getMessage().contains("choose a writable directory"), arena.getMessage());
        var pool = assertThrows(UncheckedIOException.class, () -> ChunkPool.builder().directory(unwritable).build());
        assertTrue(pool.getMessage().contains("directory=" + unwritable), pool.getMessage());
    }

    @Test
    void shouldRefuseToOverwriteAKeptArena(@TempDir Path dir) {
        try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).build()) {
            arena.allocate(1);
        }
        var e = assertThrows(UncheckedIOException.class, () -> MappedArena.builder().directory(dir).build());
        assertTrue(e.getMessage().contains("already holds an arena"));
    }

    /**
     * A build that fails writing its files (here a child JVM under {@code ulimit -f 0}, where every
     * write fails as on a full disk) names the directory, says what to do, and leaves nothing: the
     * next build fails the same way rather than "already holds an arena", and once there is room a
     * build succeeds. Directories it created go too; one that was there stays, empty.
     */
    @Test
    void aBuildThatFailsOnAFullDiskLeavesNothingBehind(@TempDir Path base) throws Exception {
        Path fresh = base.resolve("fresh").resolve("a").resolve("b");
        Path existing = Files.createDirectories(base.resolve("existing").resolve("dir"));
        String javaCommand = ProcessHandle.current().info().command().orElse("java");
        String classPath = Path.of("target", "classes").toAbsolutePath() + File.pathSeparator
                + Path.of("target", "test-classes").toAbsolutePath();
        // No perf data file: the JVM could not write that either.
        Process child = new ProcessBuilder("bash", "-c", "ulimit -f 0 && exec \"$0\" \"$@\"", javaCommand, "-Xmx64m",
                "-XX:-UsePerfData", "-cp", classPath, ArenaChild.class.getName(), base.toString(), fresh.toString(),
                existing.toString())
                .redirectErrorStream(true).start();
        List<String> lines = new String(child.getInputStream().readAllBytes()).lines().toList();
        assertEquals(0, child.waitFor(), lines.toString());
        assertEquals(8, lines.size(), lines.toString());
        for (int i = 0; i < 8; i += 2) {
            Path dir = i < 4 ? fresh : existing;
            String failure = lines.get(i);
            assertTrue(failure.startsWith("failed ") && failure.contains("directory=" + dir)
                    && failure.contains("free disk space or choose another directory"), failure);
            assertFalse(failure.contains("already holds"), failure);
            assertEquals("left [, existing, existing/dir]", lines.get(i + 1),
                    "what the build created is gone, and only that");
        }
        try (MappedArena arena = MappedArena.builder().directory(fresh).build()) {
            arena.allocate(8);
        }
        try (MappedArena arena = MappedArena.builder().directory(existing).keepFiles(true).build()) {
            arena.allocate(8);
        }
        try (MappedArena again = MappedArena.open(existing)) {
            assertEquals(1, again.segments().size());
        }
    }

    @Test
    void theEmptyFilesOfABuildThatDidNotCompleteAreNoArena(@TempDir Path dir) throws Exception {
        // What a build killed or failed between creating its files and writing the index header left.
        Files.createFile(dir.resolve("arena.data"));
        Files.createFile(dir.resolve("arena.index"));
        var open = assertThrows(UncheckedIOException.class, () -> MappedArena.open(dir));
        assertTrue(open.getMessage().contains("no arena in directory=" + dir)
                && open.getMessage().contains("delete arena.data and arena.index"), open.getMessage());
        try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).build()) {
            arena.allocate(8).set(ValueLayout.JAVA_LONG, 0, 7);
        }
        try (MappedArena again = MappedArena.open(dir)) {
            assertEquals(7, again.segments().get(0).get(ValueLayout.JAVA_LONG, 0));
        }
        // A kept arena with no allocation has its header: that is an arena, and is not replaced.
        Path empty = Files.createDirectories(dir.resolve("empty"));
        MappedArena.builder().directory(empty).keepFiles(true).build().close();
        var e = assertThrows(UncheckedIOException.class, () -> MappedArena.builder().directory(empty).build());
        assertTrue(e.getMessage().contains("already holds an arena"), e.getMessage());
    }

    @Test
    void closeRemovesTheDirectoriesTheBuildCreatedUnlessFilesAreKept(@TempDir Path base) throws Exception {
        try (MappedArena arena = MappedArena.builder().directory(base.resolve("x").resolve("y").resolve("z")).build()) {
            arena.allocate(8);
        }
        assertFalse(Files.exists(base.resolve("x")), "x/y/z did not exist before: none of it stays");
        try (MappedArena arena = MappedArena.builder().directory(base.resolve("k").resolve("l")).keepFiles(true).build()) {
            arena.allocate(8);
        }
        assertTrue(Files.exists(base.resolve("k").resolve("l").resolve("arena.data")), "kept files keep their directory");
        Path shared = base.resolve("shared").resolve("inner");
        try (MappedArena arena = MappedArena.builder().directory(shared).build()) {
            arena.allocate(8);
            Files.writeString(base.resolve("shared").resolve("mine.txt"), "the caller's");
        }
        assertFalse(Files.exists(shared));
        assertTrue(Files.exists(base.resolve("shared").resolve("mine.txt")), "a directory holding more is left alone");
    }

    @Test
    void shouldRefuseAForeignIndexFile(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("arena.data"), new byte[4096]);
        Files.write(dir.resolve("arena.index"), "not an index at all".getBytes());
        var e = assertThrows(UncheckedIOException.class, () -> MappedArena.open(dir));
        assertTrue(e.getMessage().contains("bad magic"), e.getMessage());
    }

    /**
     * Two arenas open on one directory would each allocate from the same end of arena.data and
     * write over each other's segments: a second open, here or in another process, is refused
     * while the first is open, and a process killed with the arena open releases it.
     */
    @Test
    void aSecondOpenOfOneDirectoryIsRefusedUntilTheFirstIsClosedOrItsProcessDies(@TempDir Path dir) throws Exception {
        try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).build()) {
            arena.allocate(ValueLayout.JAVA_LONG).set(ValueLayout.JAVA_LONG, 0, 1234);
            for (var second : List.<org.junit.jupiter.api.function.Executable>of(() -> MappedArena.open(dir).close(),
                    () -> MappedArena.builder().directory(dir).build().close())) {
                var e = assertThrows(UncheckedIOException.class, second);
                assertTrue(e.getMessage().contains("is open already"), e.getMessage());
            }
            try (ChildJvm child = ChildJvm.start(ArenaChild.class, "hold", dir)) {
                child.awaitLine("refused");
            }
            arena.allocate(ValueLayout.JAVA_LONG).set(ValueLayout.JAVA_LONG, 0, 5678);
        }
        try (ChildJvm child = ChildJvm.start(ArenaChild.class, "hold", dir)) {
            child.awaitLine("open");
            var e = assertThrows(UncheckedIOException.class, () -> MappedArena.open(dir));
            assertTrue(e.getMessage().contains("in this process or another"), e.getMessage());
            child.kill9();
        }
        try (MappedArena again = MappedArena.open(dir)) {
            List<MemorySegment> segments = again.segments();
            assertEquals(3, segments.size());
            assertEquals(1234, segments.get(0).get(ValueLayout.JAVA_LONG, 0));
            assertEquals(5678, segments.get(1).get(ValueLayout.JAVA_LONG, 0));
            assertEquals(4321, segments.get(2).get(ValueLayout.JAVA_LONG, 0), "kill -9 released the lock");
        }
    }
}
