package dev.colossal.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Address space larger than one file can be: {@code totalBytes} spread over several sparse files,
 * each mapped whole, each at most {@code maxFileBytes} (ext4 caps a file at 16 TiB; the default here
 * is 8 TiB). Creating 64 TiB this way writes nothing: the files are holes until touched.
 *
 * <pre>{@code
 * try (SparseFiles span = SparseFiles.map(dir, 64L << 40)) {   // 8 files of 8 TiB
 *     MemorySegment last = span.segments().getLast();
 *     last.set(ValueLayout.JAVA_BYTE, last.byteSize() - 1, (byte) 1);
 * }
 * }</pre>
 *
 * <p>Every file but possibly the last has the same power-of-two size, so a position {@code p} lives
 * in file {@code p >>> log2(fileBytes)}. Nothing checks free disk space here, on purpose: the point is
 * to map more than the disk holds. Writing into holes when the disk is full raises SIGBUS, which the
 * JVM reports as {@link InternalError}; callers that fill such space must watch free space themselves.
 */
public final class SparseFiles implements AutoCloseable {

    /** Default size of each file: 8 TiB, half of ext4's limit. */
    public static final long DEFAULT_FILE_BYTES = 8L << 40;

    private final Path directory;
    private final boolean keepFiles;
    private final long fileBytes;
    private final List<Path> files;
    private final List<MemorySegment> segments;
    private final Arena arena;

    private SparseFiles(Path directory, boolean keepFiles, long fileBytes, List<Path> files,
                        List<MemorySegment> segments, Arena arena) {
        this.directory = directory;
        this.keepFiles = keepFiles;
        this.fileBytes = fileBytes;
        this.files = files;
        this.segments = segments;
        this.arena = arena;
    }

    /**
     * Maps {@code totalBytes} over files of {@link #DEFAULT_FILE_BYTES} in {@code directory}, deleted on
     * close.
     *
     * @param directory  where the files go (created if missing)
     * @param totalBytes the logical size
     * @return the mapped span
     */
    public static SparseFiles map(Path directory, long totalBytes) {
        return map(directory, totalBytes, DEFAULT_FILE_BYTES, false);
    }

    /**
     * Maps {@code totalBytes} over sparse files of at most {@code maxFileBytes} each.
     *
     * @param directory    where the files go (created if missing); files named {@code span-NNNN.data}
     * @param totalBytes   the logical size, {@code > 0}
     * @param maxFileBytes the largest file, a power of two
     * @param keepFiles    keep the files on close; mapping the same directory again reuses them
     * @return the mapped span
     * @throws IllegalArgumentException if a size is not positive or {@code maxFileBytes} not a power of two
     * @throws UncheckedIOException     if a file cannot be created or mapped (the message says which and
     *                                  why: address space, {@code vm.max_map_count}, the file system)
     */
    public static SparseFiles map(Path directory, long totalBytes, long maxFileBytes, boolean keepFiles) {
        if (totalBytes <= 0) {
            throw new IllegalArgumentException("totalBytes=" + totalBytes + " must be positive");
        }
        if (maxFileBytes <= 0 || Long.bitCount(maxFileBytes) != 1) {
            throw new IllegalArgumentException("maxFileBytes=" + maxFileBytes + " must be a power of two");
        }
        Directories.ensureWritable(directory, "sparse files");
        // An interrupted thread maps like any other and keeps its flag (a channel operation would
        // otherwise fail at once with ClosedByInterruptException)
        boolean interrupted = Thread.interrupted();
        try {
            return mapFiles(directory, totalBytes, maxFileBytes, keepFiles);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static SparseFiles mapFiles(Path directory, long totalBytes, long maxFileBytes, boolean keepFiles) {
        long count = (totalBytes + maxFileBytes - 1) / maxFileBytes;
        Arena arena = Arena.ofShared();
        List<Path> files = new ArrayList<>();
        List<MemorySegment> segments = new ArrayList<>();
        try {
            for (long i = 0; i < count; i++) {
                long size = Math.min(maxFileBytes, totalBytes - i * maxFileBytes);
                Path file = directory.resolve(String.format("span-%04d.data", i));
                files.add(file);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.SPARSE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    segments.add(ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena));
                } catch (ClosedByInterruptException e) {
                    throw new UncheckedIOException(new IOException("interrupted while mapping " + file
                            + " (another thread interrupted this one); nothing was kept: map again", e));
                } catch (IOException e) {
                    throw new UncheckedIOException(new IOException("cannot map " + size + " bytes of " + file
                            + ": " + e.getMessage() + "; check free address space (ulimit -v), vm.max_map_count"
                            + " and the file system's largest file", e));
                }
            }
        } catch (RuntimeException e) {
            arena.close();
            if (!keepFiles) {
                files.forEach(SparseFiles::deleteQuietly);
            }
            throw e;
        }
        return new SparseFiles(directory, keepFiles, maxFileBytes, files, List.copyOf(segments), arena);
    }

    /** @return one segment per file, in order; all but the last are {@link #fileBytes()} long */
    public List<MemorySegment> segments() {
        return segments;
    }

    /** @return the size of every file but possibly the last, a power of two */
    public long fileBytes() {
        return fileBytes;
    }

    /** @return the directory holding the files */
    public Path directory() {
        return directory;
    }

    /** Unmaps every file and, unless kept, deletes them. Idempotent. */
    @Override
    public synchronized void close() {
        if (!arena.scope().isAlive()) {
            return;
        }
        arena.close();
        if (!keepFiles) {
            files.forEach(SparseFiles::deleteQuietly);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // A leftover sparse file costs no space beyond what was written into it.
        }
    }
}
