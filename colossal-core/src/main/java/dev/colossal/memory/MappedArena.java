package dev.colossal.memory;

import dev.colossal.memory.internal.Directories;
import dev.colossal.memory.internal.LockFile;
import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link Arena} whose segments live in a file: memory the garbage collector never walks, that can
 * be larger than RAM, and that can be kept and reopened.
 *
 * <p>Segments are carved, bump-pointer style, from <em>extents</em>: page-aligned regions of one
 * growing sparse file ({@code arena.data}), each mapped once. Many small allocations therefore cost
 * one mapping, and a large one gets an extent of its own. Every allocation is recorded in
 * {@code arena.index} so that a kept arena can be {@linkplain #open(Path) reopened} with the same
 * segments, in allocation order, holding the same bytes.
 *
 * <pre>{@code
 * try (MappedArena arena = MappedArena.builder().directory(dir).keepFiles(true).build()) {
 *     MemorySegment s = arena.allocate(1L << 30);          // 1 GiB, file-backed, zeroed
 *     s.set(ValueLayout.JAVA_LONG, 0, 42);
 * }
 * try (MappedArena again = MappedArena.open(dir)) {
 *     long v = again.segments().get(0).get(ValueLayout.JAVA_LONG, 0);   // 42
 * }
 * }</pre>
 *
 * <p>Fresh memory reads as zero. The arena is shared: its segments may be used from any thread, and
 * {@link #close()} unmaps every segment at once; any later access throws {@link IllegalStateException}.
 * By default the files are deleted on close. Alignment is honoured for every new allocation, up to
 * any power of two; reopened segments keep alignments up to the page size (4096), since the kernel
 * chooses where the file is mapped. One arena at a time has a directory: a second {@link #open} or
 * {@link Builder#build()} there, from this process or another, is refused while the first is open
 * (an OS file lock on {@code arena.lock}, which the OS drops when the process dies), since both
 * would allocate the same bytes of {@code arena.data}. For data shared between processes use the
 * {@code map} or {@code ipc} packages.
 *
 * <p>An interrupted thread allocates like any other, and its interrupt is still set afterwards: the
 * JDK would otherwise close the arena's files for every thread.
 *
 * @see ArenaIndex the layout of the index file
 */
public final class MappedArena implements Arena {

    /** Default size of an extent: small allocations share one mapping of this size. */
    public static final long DEFAULT_EXTENT_SIZE = 64L << 20;

    private static final long PAGE = 4096;
    static final String DATA_FILE = "arena.data";
    static final String LOCK_FILE = "arena.lock";

    private final Path directory;
    private final boolean ownsDirectory;
    /** Directories that did not exist before this arena was built: removed with the files on close. */
    private final List<Path> createdDirectories;
    private final boolean keepFiles;
    private final boolean checkFreeSpace;
    private final long extentSize;
    private final Arena mappings = Arena.ofShared();
    /**
     * Reopened when an allocating thread's interrupt closed it (a pool's shutdownNow, a cancelled
     * future), which would fail every later allocation in every thread.
     */
    private final ReopeningChannel data;
    private final ArenaIndex index;
    /** The hold on the directory: released on close (and its file deleted with the others unless kept). */
    private final LockFile lock;
    private final List<MemorySegment> segments = new ArrayList<>();

    private MemorySegment extent = MemorySegment.NULL;
    private long extentFileOffset;
    private long extentUsed;
    private long fileEnd;
    private boolean closed;

    private MappedArena(Builder b, Path directory, boolean ownsDirectory, List<Path> createdDirectories,
                        LockFile lock, boolean reopen) throws IOException {
        this.directory = directory;
        this.lock = lock;
        this.ownsDirectory = ownsDirectory;
        this.createdDirectories = createdDirectories;
        this.keepFiles = b.keepFiles;
        this.checkFreeSpace = b.checkFreeSpace;
        this.extentSize = b.extentSize;
        Path dataPath = directory.resolve(DATA_FILE);
        this.data = reopen
                ? ReopeningChannel.open(dataPath, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : ReopeningChannel.open(dataPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.SPARSE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            this.index = reopen ? ArenaIndex.open(directory) : ArenaIndex.create(directory);
            if (reopen) {
                this.fileEnd = data.call(FileChannel::size);
                segments.addAll(kept(index.records()));
            }
        } catch (IOException | RuntimeException e) {
            data.close();
            if (!reopen) {
                // A build that failed (a full disk while writing the index header) must not leave
                // files that make the next build say "already holds an arena" and open() "bad magic".
                deleteQuietly(dataPath);
            }
            throw e;
        }
    }

    /** The segments of an arena reopened, from its index records. */
    private List<MemorySegment> kept(List<long[]> records) throws IOException {
        if (records.isEmpty()) {
            return List.of();
        }
        // One mapping for everything that was allocated before: offsets in the file are
        // page-aligned per extent, so alignments up to a page survive the remap.
        long size = fileEnd;
        MemorySegment whole = data.call(ch -> ch.map(FileChannel.MapMode.READ_WRITE, 0, size, mappings));
        List<MemorySegment> kept = new ArrayList<>(records.size());
        for (long[] r : records) {
            if (r[0] < 0 || r[1] < 0 || r[0] + r[1] > size) {
                throw new IOException("arena index " + directory.resolve(ArenaIndex.FILE)
                        + " records offset=" + r[0] + " size=" + r[1] + " beyond the data file (size="
                        + size + "); the files are damaged or were not written by this arena");
            }
            kept.add(whole.asSlice(r[0], r[1]));
        }
        return kept;
    }

    /** @return a builder for an arena in a fresh temporary directory, files deleted on close */
    public static Builder builder() {
        return new Builder();
    }

    /** @return an arena in a fresh temporary directory below {@code java.io.tmpdir}, deleted on close */
    public static MappedArena ofTemp() {
        return builder().build();
    }

    /** @return an arena on {@code /dev/shm} (tmpfs: memory, no disk), deleted on close */
    public static MappedArena ofShm() {
        return builder().onShm().build();
    }

    /**
     * Reopens an arena that was built with {@link Builder#keepFiles(boolean) keepFiles(true)}. The
     * reopened arena keeps its files on close too.
     *
     * @param directory the arena's directory
     * @return the arena, whose {@link #segments()} are the earlier allocations with their bytes
     * @throws UncheckedIOException if the directory holds no arena or a damaged one
     */
    public static MappedArena open(Path directory) {
        try {
            if (!Files.isRegularFile(directory.resolve(DATA_FILE))) {
                throw new IOException("no arena in directory=" + directory + " (no " + DATA_FILE
                        + "); create one with MappedArena.builder().directory(dir).keepFiles(true)");
            }
            if (unfinished(directory)) {
                throw new IOException("no arena in directory=" + directory + ": " + ArenaIndex.FILE
                        + " has no header, so no arena was ever completed there (a build that failed, for"
                        + " example on a full disk, left it). Nothing can be read from it: delete " + DATA_FILE
                        + " and " + ArenaIndex.FILE + ", or build a new arena there with MappedArena.builder()");
            }
            LockFile lock = lock(directory);
            try {
                return new MappedArena(new Builder().keepFiles(true), directory, false, List.of(), lock, true);
            } catch (IOException | RuntimeException e) {
                lock.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Takes the directory's lock file, or says that another arena has the directory open. */
    private static LockFile lock(Path directory) throws IOException {
        LockFile lock = LockFile.tryAcquire(directory.resolve(LOCK_FILE));
        if (lock == null) {
            throw new IOException("the arena in directory=" + directory + " is open already, in this process or"
                    + " another (" + LOCK_FILE + " is locked): two open arenas would allocate over each other's"
                    + " bytes; close the other one first (a process that died releases it), or choose another"
                    + " directory");
        }
        return lock;
    }

    /**
     * Allocates a zeroed, file-backed segment.
     *
     * @param byteSize      size in bytes, {@code >= 0}
     * @param byteAlignment a power of two
     * @return the segment, alive until this arena is closed
     * @throws IllegalArgumentException if the size is negative or the alignment not a power of two
     * @throws IllegalStateException    if the arena is closed
     * @throws UncheckedIOException     if the file cannot grow (for example the disk is full)
     */
    @Override
    public synchronized MemorySegment allocate(long byteSize, long byteAlignment) {
        if (byteSize < 0) {
            throw new IllegalArgumentException("byteSize=" + byteSize + " is negative; ask for 0 or more bytes");
        }
        if (byteAlignment <= 0 || Long.bitCount(byteAlignment) != 1) {
            throw new IllegalArgumentException("byteAlignment=" + byteAlignment + " is not a power of two");
        }
        ensureOpen();
        long slack = byteAlignment > PAGE ? byteAlignment : 0;
        if (byteSize > Long.MAX_VALUE - slack - PAGE) {
            throw new IllegalArgumentException("byteSize=" + byteSize + " with byteAlignment=" + byteAlignment
                    + " is larger than any file can be; ask for less");
        }
        try {
            MemorySegment target;
            long start;
            long targetFileOffset;
            if (byteSize + slack > extentSize / 2) {
                // Large: an extent of its own, so the shared extent's tail is not wasted.
                targetFileOffset = fileEnd;
                target = mapExtent(byteSize + slack);
                start = alignedStart(target, 0, byteAlignment);
            } else {
                start = alignedStart(extent, extentUsed, byteAlignment);
                if (start + byteSize > extent.byteSize()) {
                    // Moved only once the new extent is mapped: a failed mapping (a full disk) must
                    // not leave the old extent's next allocations recorded at the new one's offset.
                    long at = fileEnd;
                    extent = mapExtent(extentSize);
                    extentFileOffset = at;
                    start = alignedStart(extent, 0, byteAlignment);
                }
                target = extent;
                targetFileOffset = extentFileOffset;
                extentUsed = start + byteSize;
            }
            MemorySegment segment = target.asSlice(start, byteSize);
            index.append(targetFileOffset + start, byteSize, byteAlignment);
            segments.add(segment);
            return segment;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long alignedStart(MemorySegment region, long from, long alignment) {
        long address = region.address() + from;
        return from + (((address + alignment - 1) & -alignment) - address);
    }

    private MemorySegment mapExtent(long minimum) throws IOException {
        long size = (minimum + PAGE - 1) & -PAGE;
        if (checkFreeSpace) {
            Directories.checkFreeSpace(directory, size, "a mapped arena extent of " + size + " bytes");
        }
        long at = fileEnd;
        MemorySegment mapped = data.call(ch -> ch.map(FileChannel.MapMode.READ_WRITE, at, size, mappings));
        fileEnd += size;
        return mapped;
    }

    /**
     * @return every segment allocated so far (after {@link #open}, including those of earlier runs),
     *     in allocation order
     */
    public synchronized List<MemorySegment> segments() {
        ensureOpen();
        return List.copyOf(segments);
    }

    /** @return the directory holding {@code arena.data} and {@code arena.index} */
    public Path directory() {
        return directory;
    }

    /** @return bytes of the data file currently mapped (extents, including unused tails) */
    public synchronized long bytesMapped() {
        return fileEnd;
    }

    @Override
    public MemorySegment.Scope scope() {
        return mappings.scope();
    }

    /**
     * Unmaps every segment and, unless the arena keeps its files, deletes them.
     *
     * @throws IllegalStateException if the arena is already closed, as {@link Arena#close} specifies
     *                               for every arena (an arena is no {@link java.io.Closeable})
     */
    @Override
    public synchronized void close() {
        ensureOpen();
        closed = true;
        try {
            mappings.close();
        } finally {
            try {
                data.close();
                index.close();
            } catch (IOException ignored) {
                // Closing a channel we only wrote through cannot lose data: the mappings are gone already.
            }
            if (!keepFiles) {
                deleteQuietly(directory.resolve(DATA_FILE));
                deleteQuietly(directory.resolve(ArenaIndex.FILE));
            }
            lock.close();
            if (!keepFiles) {
                // Only once the files are gone: an open() that took the lock meanwhile finds no arena.
                deleteQuietly(directory.resolve(LOCK_FILE));
                if (ownsDirectory) {
                    Directories.deleteTree(directory);
                } else {
                    Directories.deleteCreated(createdDirectories);
                }
            }
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // A leftover file is harmless and the caller can see it.
        }
    }

    /**
     * Whether the files in {@code dir} are what a build that never completed leaves: an index without
     * its header (it is written before anything else) and no data. Nothing was ever allocated there.
     */
    private static boolean unfinished(Path dir) throws IOException {
        Path dataFile = dir.resolve(DATA_FILE);
        Path indexFile = dir.resolve(ArenaIndex.FILE);
        return (Files.notExists(dataFile) || Files.size(dataFile) == 0)
                && (Files.notExists(indexFile) || Files.size(indexFile) < ArenaIndex.HEADER_LENGTH);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("MappedArena in " + directory + " is closed");
        }
    }

    @Override
    public String toString() {
        return "MappedArena[directory=" + directory + ", segments=" + segments.size() + ", mapped=" + fileEnd + "]";
    }

    /** Options of a {@link MappedArena}. */
    public static final class Builder {
        private Path directory;
        private boolean shm;
        private boolean keepFiles;
        private boolean checkFreeSpace = true;
        private long extentSize = DEFAULT_EXTENT_SIZE;

        private Builder() {}

        /**
         * @param dir where {@code arena.data} and {@code arena.index} go (created if missing; without
         *            {@link #keepFiles(boolean) keepFiles} the directories created are removed again on
         *            close, if empty); default a fresh temporary directory
         * @return this builder
         */
        public Builder directory(Path dir) {
            this.directory = dir;
            this.shm = false;
            return this;
        }

        /** @return this builder, placing the files in a fresh directory on {@code /dev/shm} (tmpfs) */
        public Builder onShm() {
            this.shm = true;
            this.directory = null;
            return this;
        }

        /**
         * @param keep keep the files on close so that {@link MappedArena#open(Path)} gives the bytes back
         *             (default {@code false}: delete them)
         * @return this builder
         */
        public Builder keepFiles(boolean keep) {
            this.keepFiles = keep;
            return this;
        }

        /**
         * @param check refuse to map an extent when the disk has less free space than its size (default
         *              {@code true}); a write into a sparse hole on a full disk is a SIGBUS, not an exception
         * @return this builder
         */
        public Builder checkFreeSpace(boolean check) {
            this.checkFreeSpace = check;
            return this;
        }

        /**
         * @param bytes size of the extents small allocations share, a multiple of 4096 (default 64 MiB)
         * @return this builder
         */
        public Builder extentSize(long bytes) {
            if (bytes <= 0 || bytes % PAGE != 0) {
                throw new IllegalArgumentException("extentSize=" + bytes + " must be a positive multiple of 4096");
            }
            this.extentSize = bytes;
            return this;
        }

        /**
         * Creates {@code arena.data} and {@code arena.index} (and the directory, if missing). A build
         * that fails removes what it created, so it can simply be tried again. The leftovers of a build
         * that did not complete in an earlier run (an index without its header, no data) are no arena:
         * they are replaced.
         *
         * @return the arena
         * @throws UncheckedIOException if the directory is not writable, already holds an arena, or the
         *                              files cannot be written (for example the disk is full); the
         *                              message names the directory
         */
        public MappedArena build() {
            boolean owns = directory == null;
            Path dir;
            List<Path> created;
            if (owns) {
                dir = Directories.createTemp(shm ? Directories.SHM : Directories.tempRoot(), "colossal-arena-");
                created = List.of();
            } else {
                dir = directory;
                created = Directories.ensureWritable(directory, "a mapped arena");
            }
            LockFile lock;
            try {
                lock = lock(dir);
            } catch (IOException e) {
                Directories.deleteCreated(created);
                throw new UncheckedIOException(e);
            }
            try {
                if (Files.exists(dir.resolve(DATA_FILE)) || Files.exists(dir.resolve(ArenaIndex.FILE))) {
                    if (!unfinished(dir)) {
                        throw new IOException("directory=" + dir + " already holds an arena; reopen it with"
                                + " MappedArena.open(dir) or choose an empty directory");
                    }
                    Files.deleteIfExists(dir.resolve(DATA_FILE));
                    Files.deleteIfExists(dir.resolve(ArenaIndex.FILE));
                }
            } catch (IOException e) {
                lock.close();
                throw new UncheckedIOException(e);
            }
            try {
                return new MappedArena(this, dir, owns, created, lock, false);
            } catch (IOException | RuntimeException e) {
                lock.close();
                deleteQuietly(dir.resolve(LOCK_FILE)); // the build made nothing else that stays
                if (owns) {
                    Directories.deleteTree(dir);
                } else {
                    Directories.deleteCreated(created);
                }
                if (e instanceof RuntimeException r) {
                    throw r;
                }
                String reason = describe(e);
                throw new UncheckedIOException(new IOException("cannot create a mapped arena in directory=" + dir
                        + ": " + reason + "; " + Directories.remedy(reason, "free disk space or choose another directory")
                        + " (nothing was left behind, so the same build can simply be tried again)", e));
            }
        }

        /** The JDK's message, which for a full disk ("No space left on device") names no file. */
        private static String describe(Exception e) {
            return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        }
    }
}
