package dev.colossal.swap;

import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One swap file: its extents, its blocks and, when persistent, its catalog. Thread-safe: the
 * allocator is guarded here, and block I/O is positional, so reads and writes of different
 * blocks proceed in parallel. Its channel survives interrupts (see {@link ReopeningChannel}), so
 * any thread may swap in.
 */
final class SwapFile implements AutoCloseable {

    private final Path path;
    private final boolean persistent;
    private final long alignment;
    private final ReopeningChannel channel;
    private final ExtentAllocator allocator;
    private final BlockIO io;
    private final CatalogLayout.Catalog loaded;

    private SwapFile(Path path, boolean persistent, long alignment, long limit, long ioSize,
                     Set<OpenOption> extra) throws IOException {
        this.path = path;
        this.persistent = persistent;
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
            throw new SwapException("swap file=" + path + " has no catalog " + catalogPath + ": it was not closed"
                    + " cleanly, so where its objects lie is unknown; delete it to start afresh");
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
                    allocator.reserve(e.offset(), BlockLayout.blockSize(e.length(), alignment));
                }
                // From here on blocks may be overwritten: a crash must not leave a stale catalog behind.
                Files.delete(catalogPath);
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        this.loaded = catalog;
        this.io = new BlockIO(channel, path, alignment, ioSize);
    }

    static SwapFile open(Path path, boolean persistent, long alignment, long limit, long ioSize,
                         Set<OpenOption> extra) throws IOException {
        BlockLayout.checkAlignment(alignment);
        return new SwapFile(path, persistent, alignment, limit, ioSize, extra);
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

    /** Closes a persistent file after saving its catalog. */
    void closeWithCatalog(long nextId, List<CatalogLayout.Entry> entries) throws IOException {
        try {
            channel.call(ch -> {
                ch.force(true);
                return null;
            });
            long end;
            synchronized (allocator) {
                end = allocator.end();
            }
            long last = end;
            channel.call(ch -> ch.truncate(last));
            CatalogLayout.write(path, new CatalogLayout.Catalog(end, nextId, alignment, entries));
        } finally {
            channel.close();
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
