package dev.colossal.ipc;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fixed-size chunks of one shared file, handed out to any number of processes. Each chunk has
 * an owner word in the file; {@link #acquire()} takes a free chunk with one compare-and-set and
 * {@link #release(long)} gives it back, so the pool never depends on a lock and a process killed
 * at any instant loses nothing: {@link #reclaim()} returns the chunks of dead owners.
 * Layout: {@code ChunkPoolDescriptor}.
 *
 * <pre>{@code
 * try (SharedChunkPool pool = SharedChunkPool.open(SharedRegion.shm("pool"), 1 << 20, 1024)) {
 *     long chunk = pool.acquire();                 // -1 when every chunk is taken
 *     pool.chunk(chunk).fill((byte) 7);
 *     pool.release(chunk);
 * }
 * }</pre>
 *
 * <p>Why owner words rather than a linked free list: popping a list head and recording the new
 * owner are two steps, and a process killed between them leaks the chunk where nobody can see
 * it. A rotating cursor makes the search for a free word short while the pool is not nearly full.
 *
 * <p>Ownership is per process (pid and start time): threads of one process share their
 * process's chunks, and every process using the pool must see the same pids (one PID namespace;
 * containers sharing a pool need {@code --pid=host} or a shared namespace).
 */
public final class SharedChunkPool implements AutoCloseable {

    private final SharedRegion region;
    private final int chunkSize;
    private final int chunkCount;
    private final MemorySegment chunks;

    private SharedChunkPool(SharedRegion region, int chunkSize, int chunkCount) {
        this.region = region;
        this.chunkSize = chunkSize;
        this.chunkCount = chunkCount;
        this.chunks = region.payload().asSlice(ChunkPoolDescriptor.dataOffset(chunkCount),
                (long) chunkSize * chunkCount);
    }

    /**
     * Opens the pool at {@code path}, creating it if absent.
     *
     * @param path       the pool file ({@link SharedRegion#shm} or a persistent file)
     * @param chunkSize  bytes per chunk, a power of two of at least 8
     * @param chunkCount number of chunks, at least 1
     * @return the pool
     * @throws IpcException if the file is another kind of region or has another geometry
     */
    public static SharedChunkPool open(Path path, int chunkSize, int chunkCount) {
        ChunkPoolDescriptor.check(chunkSize, chunkCount);
        long payloadSize = ChunkPoolDescriptor.payloadSize(chunkSize, chunkCount);
        // An existing pool is opened as it is, so a geometry mismatch is reported in its own terms.
        SharedRegion region = Files.exists(path) ? SharedRegion.open(path, RegionKind.CHUNK_POOL)
                : SharedRegion.openOrCreate(path, RegionKind.CHUNK_POOL, payloadSize);
        // The geometry is claimed only in a region of this pool's size, and the count only by one whose
        // chunk size won: an opener of another geometry racing the creator (which writes it after
        // creating the file) left its own chunk size in the file, and both failed for good. A size and
        // a payload that match fix the count, so the second claim cannot disagree.
        if (region.payloadSize() != payloadSize
                || !region.compareAndSetLong(ChunkPoolDescriptor.CHUNK_SIZE_OFFSET, 0, chunkSize)
                        && region.getLongVolatile(ChunkPoolDescriptor.CHUNK_SIZE_OFFSET) != chunkSize) {
            long size = region.getLongVolatile(ChunkPoolDescriptor.CHUNK_SIZE_OFFSET);
            long count = region.getLongVolatile(ChunkPoolDescriptor.CHUNK_COUNT_OFFSET);
            region.close();
            throw new IpcException("pool " + path + (size == 0 ? " was made for another geometry (its creator has not"
                    + " written it yet)" : " has chunkSize=" + size + ", chunkCount=" + count) + " but chunkSize="
                    + chunkSize + ", chunkCount=" + chunkCount + " was asked for; open it with the geometry it was made"
                    + " with, or delete the file to start afresh");
        }
        region.compareAndSetLong(ChunkPoolDescriptor.CHUNK_COUNT_OFFSET, 0, chunkCount);
        return new SharedChunkPool(region, chunkSize, chunkCount);
    }

    /**
     * Takes a free chunk for this process.
     *
     * @return the chunk's index, or -1 if every chunk is taken
     */
    public long acquire() {
        ensureOpen("acquire a chunk");
        long me = ProcessIdentity.current();
        long start = region.getAndAddLong(ChunkPoolDescriptor.CURSOR_OFFSET, 1);
        for (long i = 0; i < chunkCount; i++) {
            long chunk = Long.remainderUnsigned(start + i, chunkCount);
            long owner = ChunkPoolDescriptor.ownerOffset(chunk);
            if (region.getLongOpaque(owner) == 0 && region.compareAndSetLong(owner, 0, me)) {
                return chunk;
            }
        }
        return -1;
    }

    /**
     * Gives a chunk back to the pool; its contents are left as they are.
     *
     * @param chunk an index returned by {@link #acquire()} in this process
     * @throws IllegalArgumentException if this process does not hold the chunk
     */
    public void release(long chunk) {
        ensureOpen("release a chunk");
        long owner = ChunkPoolDescriptor.ownerOffset(checkIndex(chunk));
        long me = ProcessIdentity.current();
        // A CAS, not a store: releasing a chunk one does not hold must not free someone else's.
        if (!region.compareAndSetLong(owner, me, 0)) {
            throw new IllegalArgumentException("chunk=" + chunk + " is not held by this process (pid="
                    + ProcessHandle.current().pid() + ", owner pid=" + ownerPid(chunk) + ")");
        }
    }

    /**
     * Returns to the pool every chunk whose owner process is no longer alive.
     *
     * @return how many chunks were reclaimed
     */
    public int reclaim() {
        ensureOpen("reclaim chunks");
        int reclaimed = 0;
        for (long chunk = 0; chunk < chunkCount; chunk++) {
            long offset = ChunkPoolDescriptor.ownerOffset(chunk);
            long owner = region.getLongVolatile(offset);
            if (owner != 0 && ProcessIdentity.isDead(owner) && region.compareAndSetLong(offset, owner, 0)) {
                reclaimed++;
            }
        }
        return reclaimed;
    }

    /**
     * The bytes of one chunk.
     *
     * @param chunk a chunk index
     * @return the chunk's bytes, valid until {@link #close()}
     * @throws IndexOutOfBoundsException if the index is not that of a chunk
     */
    public MemorySegment chunk(long chunk) {
        ensureOpen("hand out a chunk");
        return chunks.asSlice(checkIndex(chunk) * chunkSize, chunkSize);
    }

    /**
     * Who holds a chunk.
     *
     * @param chunk a chunk index
     * @return the pid of the process holding it, 0 if it is free
     * @throws IndexOutOfBoundsException if the index is not that of a chunk
     */
    public long ownerPid(long chunk) {
        ensureOpen("read the owner of a chunk");
        long owner = region.getLongVolatile(ChunkPoolDescriptor.ownerOffset(checkIndex(chunk)));
        return owner == 0 ? 0 : ProcessIdentity.pid(owner);
    }

    /** {@return the number of chunks free now (a snapshot)} */
    public int freeCount() {
        ensureOpen("count free chunks");
        int free = 0;
        for (long chunk = 0; chunk < chunkCount; chunk++) {
            if (region.getLongOpaque(ChunkPoolDescriptor.ownerOffset(chunk)) == 0) {
                free++;
            }
        }
        return free;
    }

    /** {@return bytes per chunk} */
    public int chunkSize() {
        return chunkSize;
    }

    /** {@return number of chunks} */
    public int chunkCount() {
        return chunkCount;
    }

    private long checkIndex(long chunk) {
        if (chunk < 0 || chunk >= chunkCount) {
            throw new IndexOutOfBoundsException("chunk=" + chunk + " must be between 0 and " + (chunkCount - 1));
        }
        return chunk;
    }

    /**
     * Unmaps the pool in this process; chunks it holds stay held until released or reclaimed. Closing
     * a closed pool does nothing. Afterwards every method that uses the pool throws an
     * {@link IllegalStateException} naming its file; segments from {@link #chunk(long)} taken before
     * throw the JDK's bare {@code Already closed}.
     */
    @Override
    public void close() {
        region.close();
    }

    private void ensureOpen(String action) {
        if (region.isClosed()) {
            throw SharedRegion.closed("chunk pool", region.path(), action, "SharedChunkPool.open");
        }
    }
}
