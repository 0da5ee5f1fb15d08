package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.colossal.ChildJvm;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
            try (var files = Files.list(span.directory())) {
                assertEquals(3, files.count());
            }
            assertEquals(dir, span.directory().getParent(), "a directory of its own below the one given");
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "files and their directory deleted on close");
        }
    }

    @Test
    void closeRemovesTheMissingDirectoriesMappingCreatedAndNoOthers(@TempDir Path dir) throws Exception {
        try (SparseFiles span = SparseFiles.map(dir.resolve("nope").resolve("x"), 8192, 4096, false)) {
            span.segments().get(0).set(ValueLayout.JAVA_INT, 0, 1);
        }
        assertFalse(Files.exists(dir.resolve("nope")), "nope/x did not exist before: none of it stays");
        try (SparseFiles span = SparseFiles.map(dir.resolve("kept").resolve("x"), 8192, 4096, true)) {
            span.segments().get(0).set(ValueLayout.JAVA_INT, 0, 1);
        }
        assertTrue(Files.exists(dir.resolve("kept").resolve("x").resolve("span-0000.data")));
        // A mapping that fails after the directories were made (4 EiB in files of 1 PiB: more than a file
        // system's largest file or the address space) removes them too.
        Path big = dir.resolve("big").resolve("x");
        assertThrows(UncheckedIOException.class, () -> SparseFiles.map(big, 1L << 62, 1L << 50, false));
        try (var left = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("kept")), left.toList());
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
            long allocated = (Long) Files.getAttribute(span.directory().resolve("span-0003.data"), "unix:size");
            assertEquals(1L << 40, allocated, "logical size");
        }
    }

    @Test
    void shouldKeepFilesWhenAskedAndReuseThem(@TempDir Path dir) {
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, true)) {
            span.segments().get(1).set(ValueLayout.JAVA_INT, 100, 1234);
        }
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, true)) {
            assertEquals(1234, span.segments().get(1).get(ValueLayout.JAVA_INT, 100));
        }
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, false)) {
            assertEquals(0, span.segments().get(1).get(ValueLayout.JAVA_INT, 100), "not kept: files of its own");
        }
        assertTrue(Files.exists(dir.resolve("span-0001.data")), "kept files stay when another span closes");
    }

    @Test
    void spansInOneDirectoryHaveFilesOfTheirOwn(@TempDir Path dir) throws Exception {
        try (SparseFiles a = SparseFiles.map(dir, 8192, 4096, false);
             SparseFiles b = SparseFiles.map(dir, 8192, 4096, false)) {
            a.segments().get(0).set(ValueLayout.JAVA_LONG, 40, 111);
            b.segments().get(0).set(ValueLayout.JAVA_LONG, 40, 222);
            assertEquals(111, a.segments().get(0).get(ValueLayout.JAVA_LONG, 40));
            assertNotEquals(a.directory(), b.directory());
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void aFileAlreadyThereIsNeitherMappedNorDeleted(@TempDir Path dir) throws Exception {
        Path mine = dir.resolve("span-0000.data");
        Files.write(mine, new byte[] {1, 2, 3});
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, false)) {
            assertEquals(0, span.segments().get(0).get(ValueLayout.JAVA_BYTE, 0));
        }
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(mine));
    }

    @Test
    void keptFilesAreMappedByOneSpanAtATime(@TempDir Path dir) {
        try (SparseFiles first = SparseFiles.map(dir, 8192, 4096, true)) {
            first.segments().get(0).set(ValueLayout.JAVA_INT, 0, 99);
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> SparseFiles.map(dir, 8192, 4096, true));
            assertTrue(e.getMessage().contains("mapped already") && e.getMessage().contains(dir.toString()),
                    e.getMessage());
            try (SparseFiles other = SparseFiles.map(dir, 8192, 4096, false)) {
                assertEquals(0, other.segments().get(0).get(ValueLayout.JAVA_INT, 0), "a private span is fine");
            }
        }
        try (SparseFiles again = SparseFiles.map(dir, 8192, 4096, true)) {
            assertEquals(99, again.segments().get(0).get(ValueLayout.JAVA_INT, 0), "closed: the lock is free again");
        }
    }

    @Test
    void keptFilesOfOtherSizesAreRefusedAndLeftAlone(@TempDir Path dir) throws Exception {
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, true)) {
            span.segments().get(1).set(ValueLayout.JAVA_INT, 0, 5);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SparseFiles.map(dir, 8192, 8192, true));
        assertTrue(e.getMessage().contains("span-0000.data"), e.getMessage());
        assertEquals(4096, Files.size(dir.resolve("span-0000.data")));
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, true)) {
            assertEquals(5, span.segments().get(1).get(ValueLayout.JAVA_INT, 0), "the refusal locked nothing");
        }
    }

    @Test
    void keptFilesMappedInAnotherProcessAreRefusedUntilItDies(@TempDir Path dir) throws Exception {
        try (ChildJvm child = ChildJvm.start(SparseChild.class, dir, "hold")) {
            child.awaitLine("mapped");
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> SparseFiles.map(dir, 8192, 4096, true));
            assertTrue(e.getMessage().contains("another"), e.getMessage());
            child.kill9();
        }
        try (SparseFiles span = SparseFiles.map(dir, 8192, 4096, true)) {
            assertEquals(4321, span.segments().get(1).get(ValueLayout.JAVA_INT, 100),
                    "kill -9 released the lock; the child's write is in the kept file");
        }
    }

    @Test
    void aRefusedSecondMappingInThisProcessKeepsTheFirstOnesLock(@TempDir Path dir) throws Exception {
        try (SparseFiles first = SparseFiles.map(dir, 8192, 4096, true)) {
            assertThrows(UncheckedIOException.class, () -> SparseFiles.map(dir, 8192, 4096, true));
            assertEquals(2, first.segments().size());
            // POSIX locks belong to the process and go with any descriptor of the file that closes
            try (ChildJvm child = ChildJvm.start(SparseChild.class, dir, "try")) {
                child.awaitLine("refused");
                assertEquals(0, child.waitExit());
            }
        }
    }

    @Test
    void shouldRejectBadSizes(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> SparseFiles.map(dir, 0));
        assertThrows(IllegalArgumentException.class, () -> SparseFiles.map(dir, 100, 3000, false));
        // Rounded up to whole files, Long.MAX_VALUE bytes used to overflow into no file at all, mapped
        // "successfully"; now the first file that cannot be mapped says so.
        var e = assertThrows(java.io.UncheckedIOException.class,
                () -> dev.colossal.array.ByteArray.sparse(dir, Long.MAX_VALUE, 1L << 62).close());
        assertTrue(e.getMessage().contains("cannot map"), e.getMessage());
        var arena = assertThrows(IllegalArgumentException.class, () -> {
            try (MappedArena a = MappedArena.ofTemp()) {
                a.allocate(Long.MAX_VALUE - 8, 8);
            }
        });
        assertTrue(arena.getMessage().contains("larger than any file can be"), arena.getMessage());
    }
}
