package dev.colossal.swap;

import dev.colossal.memory.internal.LockFile;
import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One swap file: its extents, its blocks and, when persistent, its catalog. Thread-safe: the
 * allocator is guarded here, and block I/O is positional, so reads and writes of different
 * blocks proceed in parallel. Its channel survives interrupts (see {@link ReopeningChannel}), so
 * any thread may swap in.
 *
 * <p>A persistent file has one user at a time: an OS file lock on {@code <file>.lock} (see
 * {@link LockFile}) refuses a second open, from this process or another, until the first is closed
 * or its process dies. Its catalog stays in place while it is open, and the blocks it lists are
 * never overwritten: a block of the catalog that this session frees (the object was closed, or
 * acquired for writing) stays allocated until {@link #closeWithCatalog} has put a new catalog in
 * place, and new blocks go to space the catalog leaves free. So a session that dies, {@code kill -9}
 * or power cut included, loses what it changed and nothing else: the next open finds the catalog of
 * the last clean close and every block it lists as that close left it. A new file gets an empty
 * catalog at once, so a first session that dies leaves an empty space, not a refusal.
 */
final class SwapFile implements AutoCloseable {

    private final Path path;
    private final boolean persistent;
    private final long alignment;
    private final ReopeningChannel channel;
    private final ExtentAllocator allocator;
    private final BlockIO io;
    private final CatalogLayout.Catalog loaded;
    /** A persistent file's hold on its lock file, else null. */
    private final LockFile lock;
    /** The extents the catalog on disk lists, by offset: their length in bytes. Guarded by {@link #allocator}. */
    private final Map<Long, Long> catalogued = new HashMap<>();
    /** Extents of {@link #catalogued} freed in this session, free once a new catalog replaces the old. Same guard. */
    private final Map<Long, Long> freedAfterCatalog = new HashMap<>();

    private SwapFile(Path path, boolean persistent, long alignment, long limit, long ioSize,
                     Set<OpenOption> extra, LockFile lock) throws IOException {
        this.path = path;
        this.persistent = persistent;
        this.lock = lock;
        Set<OpenOption> options = new HashSet<>(extra);
        options.add(StandardOpenOption.READ);
        options.add(StandardOpenOption.WRITE);
        CatalogLayout.Catalog catalog = null;
        Path catalogPath = CatalogLayout.pathOf(path);
        if (!persistent) {
            options.add(StandardOpenOption.CREATE_NEW);
            options.add(StandardOpenOption.DELETE_ON_CLOSE);
        } else if (Files.exists(catalogPath)) {
            catalog = CatalogLayout.read(path);
            if (catalog.alignment() != alignment) {
                throw new IllegalArgumentException("swap file=" + path + " was written with alignment="
                        + catalog.alignment() + ", not alignment=" + alignment + "; open it with the same alignment");
            }
        } else if (Files.exists(path) && Files.size(path) > 0) {
            throw new SwapException("swap file=" + path + " has no catalog " + catalogPath + ", so where its objects"
                    + " lie is unknown (the catalog was deleted, or a crash left the file under an earlier build,"
                    + " which deleted the catalog on open); no space has the file open, so delete it to start afresh");
        } else {
            options.add(StandardOpenOption.CREATE);
        }
        this.alignment = alignment;
        this.channel = ReopeningChannel.open(path, options.toArray(OpenOption[]::new));
        try {
            this.allocator = new ExtentAllocator(alignment, limit);
            if (catalog != null) {
                long size = channel.call(FileChannel::size);
                if (size < catalog.fileEnd()) {
                    throw new SwapCorruptedException(-1, path, size, "the file is " + size + " bytes but its catalog"
                            + " says " + catalog.fileEnd() + ": the swap file was truncated");
                }
                for (CatalogLayout.Entry e : catalog.entries()) {
                    long block = BlockLayout.blockSize(e.length(), alignment);
                    allocator.reserve(e.offset(), block);
                    catalogued.put(e.offset(), block); // the catalog stays: never overwritten before the next
                }
            } else if (persistent) {
                // From the start a session that dies finds a catalog to fall back on: an empty one.
                CatalogLayout.write(path, new CatalogLayout.Catalog(0, 1, alignment, List.of()));
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        this.loaded = catalog;
        this.io = new BlockIO(channel, path, alignment, ioSize);
    }

    /** Takes the lock of a persistent file, or says who has it. */
    private static LockFile lock(Path path) throws IOException {
        Path lockPath = path.resolveSibling(path.getFileName() + ".lock");
        LockFile lock = LockFile.tryAcquire(lockPath);
        if (lock == null) {
            throw new SwapException("swap file=" + path + " is open already, in this process or another ("
                    + lockPath + " is locked): close that space first; a persistent swap file has one user at a time");
        }
        return lock;
    }

    static SwapFile open(Path path, boolean persistent, long alignment, long limit, long ioSize,
                         Set<OpenOption> extra) throws IOException {
        BlockLayout.checkAlignment(alignment);
        LockFile lock = persistent ? lock(path) : null;
        try {
            return new SwapFile(path, persistent, alignment, limit, ioSize, extra, lock);
        } catch (IOException | RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            throw e;
        }
    }

    /** @return the catalog this file was reopened with, or null for a new file */
    CatalogLayout.Catalog loaded() {
        return loaded;
    }

    /**
     * Writes a block in a newly allocated extent.
     *
     * @return the block's offset
     * @throws IOException if the file is at its limit or the write fails (a full disk); the extent is given back
     */
    long write(long id, MemorySegment[] parts, long length) throws IOException {
        long size = BlockLayout.blockSize(length, alignment);
        long offset;
        synchronized (allocator) {
            offset = allocator.allocate(size);
        }
        if (offset < 0) {
            throw new IOException("swap file=" + path + " reached its limit: " + size + " more bytes needed, "
                    + allocator.usedBytes() + " in use; raise the limit or the budget, or free objects");
        }
        try {
            io.write(offset, id, parts, length);
            return offset;
        } catch (IOException | RuntimeException e) {
            release(offset, length, true);
            throw e;
        }
    }

    /** Reads and checks the block of object {@code id}. */
    void read(long offset, long id, MemorySegment[] parts, long length) throws IOException {
        io.read(offset, id, parts, length);
    }

    /**
     * Gives a block's extent back. The file keeps its length (cutting it costs a synchronous discard on
     * some file systems, and the next swap-out would grow it again); it shrinks after a failed write,
     * to give a full disk its space back, and when a persistent file is closed.
     */
    void free(long offset, long length) {
        release(offset, length, false);
    }

    private void release(long offset, long length, boolean shrink) {
        synchronized (allocator) {
            Long block = catalogued.remove(offset);
            if (block != null) {
                freedAfterCatalog.put(offset, block); // the catalog on disk still lists it
                return;
            }
            if (allocator.free(offset, BlockLayout.blockSize(length, alignment)) && shrink) {
                try {
                    long end = allocator.end();
                    channel.call(ch -> ch.truncate(end));
                } catch (IOException ignored) {
                    // The space stays allocated on disk until the file is reused or deleted: no data at risk.
                }
            }
        }
    }

    Path path() {
        return path;
    }

    long alignment() {
        return alignment;
    }

    boolean persistent() {
        return persistent;
    }

    /** @return {used bytes, free bytes below the end, free extents, end of the last used extent} */
    long[] usage() {
        synchronized (allocator) {
            return new long[] {allocator.usedBytes(), allocator.freeBytes(), allocator.freeExtents(), allocator.end()};
        }
    }

    /**
     * Closes a persistent file after saving its catalog: the blocks are forced to disk, then the new
     * catalog replaces the old one, and only then are the blocks the old one listed and this session
     * freed given back (the file is cut to its new end).
     */
    void closeWithCatalog(long nextId, List<CatalogLayout.Entry> entries) throws IOException {
        try {
            channel.call(ch -> {
                ch.force(true);
                return null;
            });
            long end;
            synchronized (allocator) {
                // In memory only: nothing is written after this but the catalog, which lists none of them
                freedAfterCatalog.forEach(allocator::free);
                freedAfterCatalog.clear();
                end = allocator.end();
            }
            CatalogLayout.write(path, new CatalogLayout.Catalog(end, nextId, alignment, entries));
            try {
                channel.call(ch -> ch.truncate(end));
            } catch (IOException ignored) {
                // The new catalog is in place; a file longer than it says is sound, only larger.
            }
        } finally {
            close();
        }
    }

    /** Closes the file; a persistent one keeps the catalog it was opened with. Idempotent. */
    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            if (lock != null) {
                lock.close();
            }
        }
    }
}
