package dev.colossal.memory;

import dev.colossal.memory.internal.Directories;
import dev.colossal.memory.internal.InterruptFlag;
import dev.colossal.memory.internal.LockFile;
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
 * in file {@code p >>> log2(fileBytes)}.
 *
 * <p><b>Whose files.</b> A span's files are its own. Without {@code keepFiles} they go to a new
 * directory of their own below the one given ({@code sparse-<random>}), created with the files and
 * deleted with them on close: any number of spans share a directory, and nothing already there is
 * read, written or deleted. With {@code keepFiles} the files ({@code span-NNNN.data}) lie in the
 * directory itself and stay on close, so that mapping that directory again with {@code keepFiles}
 * and the same sizes gives the same bytes back; a lock file there ({@code span.lock}, an OS file
 * lock, released on close and by the OS when the process dies) refuses a second live mapping of the
 * directory, from this process or another, since two would read and write the same bytes.
 *
 * <p><b>Disk space.</b> Nothing checks or reserves free disk space here, on purpose: the point is to
 * map more than the disk holds, and a page takes disk only when first written. Writing into a hole
 * when the file system has no free block left (a full disk, a quota, a full tmpfs) is a SIGBUS,
 * which the JVM survives and reports as {@link InternalError} ("a fault occurred in an unsafe memory
 * access operation") from the write that touched the page; the big arrays' bulk writes turn it into
 * {@link #writeFault(InternalError)}'s {@link UncheckedIOException}. Keep as much disk free as will
 * be written, or, when every byte will be written anyway, use memory that checks for room when it
 * is allocated ({@link MappedArena}, a file-backed {@link ChunkPool}).
 */
public final class SparseFiles implements AutoCloseable {

    /** Default size of each file: 8 TiB, half of ext4's limit. */
    public static final long DEFAULT_FILE_BYTES = 8L << 40;

    /** The lock file of a directory of kept files. */
    static final String LOCK_FILE = "span.lock";

    private final Path directory;
    private final boolean keepFiles;
    private final long fileBytes;
    private final List<Path> files;
    private final List<MemorySegment> segments;
    private final Arena arena;
    /** With keepFiles: the hold on the directory's lock file; else null. */
    private final LockFile lock;
    /** Without keepFiles: the directories given that did not exist before, removed on close; else empty. */
    private final List<Path> createdDirectories;

    private SparseFiles(Path directory, boolean keepFiles, long fileBytes, List<Path> files,
                        List<MemorySegment> segments, Arena arena, LockFile lock, List<Path> createdDirectories) {
        this.directory = directory;
        this.createdDirectories = createdDirectories;
        this.keepFiles = keepFiles;
        this.fileBytes = fileBytes;
        this.files = files;
        this.segments = segments;
        this.arena = arena;
        this.lock = lock;
    }

    /**
     * Maps {@code totalBytes} over files of {@link #DEFAULT_FILE_BYTES} in a new directory of their
     * own below {@code directory}, deleted on close.
     *
     * @param directory  where the files' directory goes (created if missing, and then removed again on
     *                   close if empty)
     * @param totalBytes the logical size
     * @return the mapped span
     */
    public static SparseFiles map(Path directory, long totalBytes) {
        return map(directory, totalBytes, DEFAULT_FILE_BYTES, false);
    }

    /**
     * Maps {@code totalBytes} over sparse files of at most {@code maxFileBytes} each.
     *
     * @param directory    where the files go (created if missing): without {@code keepFiles} into a new
     *                     directory of their own below it, deleted on close, and so are the directories
     *                     this call created if they are empty then; with {@code keepFiles} into it, as
     *                     {@code span-NNNN.data} beside a lock file {@code span.lock}
     * @param totalBytes   the logical size, {@code > 0}
     * @param maxFileBytes the largest file, a power of two
     * @param keepFiles    keep the files on close; mapping the same directory again with {@code keepFiles}
     *                     and the same sizes reuses them. Without it, files already in the directory are
     *                     never read, written nor deleted
     * @return the mapped span
     * @throws IllegalArgumentException if a size is not positive or {@code maxFileBytes} not a power of two,
     *                                  or a kept file there has another size than this mapping gives it
     * @throws UncheckedIOException     if a file cannot be created or mapped (the message says which and
     *                                  why: address space, {@code vm.max_map_count}, the file system), or,
     *                                  with {@code keepFiles}, the directory is mapped already (in this
     *                                  process or another) and not closed yet
     */
    public static SparseFiles map(Path directory, long totalBytes, long maxFileBytes, boolean keepFiles) {
        if (totalBytes <= 0) {
            throw new IllegalArgumentException("totalBytes=" + totalBytes + " must be positive");
        }
        if (maxFileBytes <= 0 || Long.bitCount(maxFileBytes) != 1) {
            throw new IllegalArgumentException("maxFileBytes=" + maxFileBytes + " must be a power of two");
        }
        List<Path> created = Directories.ensureWritable(directory, "sparse files");
        // an interrupted thread maps like any other and keeps its flag
        try {
            return InterruptFlag.setAside(() -> keepFiles ? mapKept(directory, totalBytes, maxFileBytes)
                    : mapFiles(Directories.createTemp(directory, "sparse-"), totalBytes, maxFileBytes, null, created));
        } catch (RuntimeException e) {
            Directories.deleteCreated(created);
            throw e;
        }
    }

    private static SparseFiles mapKept(Path directory, long totalBytes, long maxFileBytes) {
        LockFile lock;
        try {
            lock = LockFile.tryAcquire(directory.resolve(LOCK_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException("cannot lock " + directory.resolve(LOCK_FILE) + ": "
                    + e.getMessage() + "; kept sparse files need a file system with file locks", e));
        }
        if (lock == null) {
            throw new UncheckedIOException(new IOException("the kept sparse files in " + directory + " are mapped"
                    + " already, by this process or another (" + LOCK_FILE + " is locked): two live mappings would"
                    + " overwrite each other's bytes; close the other one first, or map another directory"));
        }
        return mapFiles(directory, totalBytes, maxFileBytes, lock, List.of());
    }

    /**
     * Maps the files; {@code lock} is null for a private directory, else the hold on a kept one;
     * {@code created} are the directories above a private one to remove with it.
     */
    private static SparseFiles mapFiles(Path directory, long totalBytes, long maxFileBytes, LockFile lock,
                                        List<Path> created) {
        boolean keepFiles = lock != null;
        long count = (totalBytes - 1) / maxFileBytes + 1; // rounding up without overflow near Long.MAX_VALUE
        Arena arena = Arena.ofShared();
        List<Path> files = new ArrayList<>();
        List<Path> createdFiles = new ArrayList<>();
        List<MemorySegment> segments = new ArrayList<>();
        try {
            for (long i = 0; i < count; i++) {
                long size = Math.min(maxFileBytes, totalBytes - i * maxFileBytes);
                Path file = directory.resolve(String.format("span-%04d.data", i));
                files.add(file);
                try (FileChannel ch = open(file, keepFiles, createdFiles)) {
                    long existing = ch.size();
                    if (existing != 0 && existing != size) {
                        throw new IllegalArgumentException("kept file=" + file + " is " + existing
                                + " bytes, but totalBytes=" + totalBytes + " over maxFileBytes=" + maxFileBytes
                                + " make it " + size + ": map it with the sizes it was made with");
                    }
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
            createdFiles.forEach(SparseFiles::deleteQuietly);
            if (keepFiles) {
                lock.close();
            } else {
                deleteQuietly(directory);
            }
            throw e;
        }
        return new SparseFiles(directory, keepFiles, maxFileBytes, files, List.copyOf(segments), arena, lock, created);
    }

    /** Opens a file, a new one (recorded in {@code created}) unless kept files may be reopened. */
    private static FileChannel open(Path file, boolean reopen, List<Path> created) throws IOException {
        if (reopen && Files.exists(file)) {
            return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.SPARSE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        created.add(file);
        return ch;
    }

    /** @return one segment per file, in order; all but the last are {@link #fileBytes()} long */
    public List<MemorySegment> segments() {
        return segments;
    }

    /** @return the size of every file but possibly the last, a power of two */
    public long fileBytes() {
        return fileBytes;
    }

    /**
     * @return the directory holding the files: the span's own below the one given, or with
     *         {@code keepFiles} the one given
     */
    public Path directory() {
        return directory;
    }

    /**
     * What a write into these files that faulted most likely means, as an exception to throw instead of
     * the JVM's {@link InternalError}: the file system had no free block for a hole the write filled.
     *
     * @param fault the error the write raised
     * @return an exception naming the directory, its free space now, and what to do
     */
    public UncheckedIOException writeFault(InternalError fault) {
        String usable;
        try {
            usable = Files.getFileStore(directory).getUsableSpace() + " bytes";
        } catch (IOException | RuntimeException e) {
            usable = "unknown";
        }
        return new UncheckedIOException(new IOException("a write into the sparse files in " + directory
                + " faulted (" + fault.getMessage() + "): disk full? Sparse files take disk only as pages are first"
                + " written, and none was left (usable now: " + usable + ", logical size: " + logicalBytes()
                + " bytes). Free disk space or write less; when every byte will be written, use memory that checks"
                + " for room when allocated (a MappedArena, a file-backed ChunkPool). Elements up to the fault hold"
                + " what was written, those after it may not", fault));
    }

    private long logicalBytes() {
        return segments.stream().mapToLong(MemorySegment::byteSize).sum();
    }

    /**
     * Unmaps every file and, unless kept, deletes them and their directory, and the directory given
     * to {@code map} (with its parents) if mapping created it and it is empty now; a kept directory's
     * lock is released. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (!arena.scope().isAlive()) {
            return;
        }
        arena.close();
        if (keepFiles) {
            lock.close();
        } else {
            files.forEach(SparseFiles::deleteQuietly);
            deleteQuietly(directory);
            Directories.deleteCreated(createdDirectories);
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
