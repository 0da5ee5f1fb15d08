package dev.colossal.array;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.SmallTmpfs;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sparse arrays reserve no disk, so a write into a hole on a full file system faults (SIGBUS, which
 * the JVM reports as an InternalError). Bulk writes say what it means instead: an
 * UncheckedIOException naming the directory and a full disk. On a real 256 KiB tmpfs, mounted here
 * when the tests run as root (skipped otherwise).
 */
class SparseDiskFullTest {

    private static final int LENGTH = 1 << 20; // 8 MiB of longs over two 4 MiB files, on 256 KiB

    @TempDir
    Path dir;
    private SmallTmpfs tmpfs;
    private Path small;

    @BeforeEach
    void mountSmallTmpfs() throws Exception {
        tmpfs = SmallTmpfs.mount(dir.resolve("small"), "size=256k");
        small = tmpfs.path();
    }

    @AfterEach
    void unmount() throws Exception {
        tmpfs.close();
    }

    @Test
    void fillSaysTheDiskIsFull() {
        inASparseArray(a -> {
            assertFull(() -> a.fill(1));
            assertEquals(1, a.get(0), "elements before the fault hold what was written");
        });
    }

    @Test
    void aCompiledFillSaysTheDiskIsFull() {
        try (LongArray warm = LongArray.contiguous(4096)) {
            for (int i = 0; i < 20_000; i++) { // past C2's thresholds: the fault lands in compiled code
                warm.fill(i);
            }
        }
        inASparseArray(a -> assertFull(() -> a.fill(2)));
    }

    @Test
    void copiesFromJavaArraysSegmentsAndArraysSayTheDiskIsFull() {
        inASparseArray(a -> {
            assertFull(() -> a.copyFrom(new long[LENGTH], 0, 0, LENGTH));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment source = arena.allocate((long) LENGTH * Long.BYTES);
                assertFull(() -> a.copyFrom(source, 0, 0, LENGTH));
            }
            try (LongArray source = LongArray.contiguous(LENGTH)) {
                assertFull(() -> BigArray.copy(source, 0, a, 0, LENGTH));
            }
        });
    }

    private void inASparseArray(Consumer<LongArray> test) {
        try (LongArray a = LongArray.sparse(small, LENGTH, 1 << 22)) {
            test.accept(a);
        }
    }

    private void assertFull(Runnable write) {
        UncheckedIOException e = assertThrows(UncheckedIOException.class, write::run);
        assertTrue(e.getMessage().contains("disk full?") && e.getMessage().contains(small.toString())
                && e.getCause().getCause() instanceof InternalError, e.getMessage());
    }
}
