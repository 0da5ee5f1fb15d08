package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparseFilesTest {

    @Test
    void shouldSpreadTheSpanOverFilesOfTheGivenSize(@TempDir Path dir) throws Exception {
        try (SparseFiles span = SparseFiles.map(dir, 10_000, 4096, false)) {
            assertEquals(3, span.segments().size());
            assertEquals(4096, span.segments().get(0).byteSize());
            assertEquals(10_000 - 8192, span.segments().get(2).byteSize());
            MemorySegment last = span.segments().get(2);
            last.set(ValueLayout.JAVA_BYTE, last.byteSize() - 1, (byte) 9);
            try (var files = Files.list(dir)) {
                assertEquals(3, files.count());
            }
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "files deleted on close");
        }
    }

    @Test
    void anInterruptedThreadMapsAndKeepsItsFlag(@TempDir Path dir) {
        Thread.currentThread().interrupt();
        try (SparseFiles span = SparseFiles.map(dir, 10_000, 4096, false)) {
            assertTrue(Thread.interrupted(), "the flag is set again");
            assertEquals(3, span.segments().size());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void shouldMapMoreThanTheDiskHoldsWithoutWritingIt(@TempDir Path dir) throws Exception {
        long total = 4L << 40; // 4 TiB over 4 files of 1 TiB: address space only
        try (SparseFiles span = SparseFiles.map(dir, total, 1L << 40, false)) {
            MemorySegment last = span.segments().getLast();
            last.set(ValueLayout.JAVA_LONG, last.byteSize() - 8, 77);
            assertEquals(77, last.get(ValueLayout.JAVA_LONG, last.byteSize() - 8));
            long allocated = (Long) Files.getAttribute(dir.resolve("span-0003.data"), "unix:size");
            assertEquals(1L << 40, allocated, "logical size");
        }
    }

    @Test
    void shouldKeepFilesWhenAskedAndReuseThem(@TempDir Path dir) {
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, true)) {
            span.segments().get(1).set(ValueLayout.JAVA_INT, 100, 1234);
        }
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, false)) {
            assertEquals(1234, span.segments().get(1).get(ValueLayout.JAVA_INT, 100));
        }
    }

    @Test
    void shouldRejectBadSizes(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> SparseFiles.map(dir, 0));
        assertThrows(IllegalArgumentException.class, () -> SparseFiles.map(dir, 100, 3000, false));
    }
}
