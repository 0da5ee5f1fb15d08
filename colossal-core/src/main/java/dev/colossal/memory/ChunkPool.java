package dev.colossal.memory;

import dev.colossal.memory.internal.Directories;
import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe pool of fixed-size, power-of-two chunks of off-heap memory, sliced from large slabs.
 *
 * <p>A chunk is named by an {@code int} id: {@link #acquire()} hands one out, {@link #segment(int)}
 * gives its memory, {@link #release(int)} gives it back. Both are O(1) and lock-free (a Treiber stack
 * with a version tag against ABA), and a chunk is never handed out twice: releasing a chunk that is not
 * in use throws. Slabs (default 1 GiB) are mapped one at a time as the pool grows, so 100 TB of 1 MiB
 * chunks costs about 100,000 mappings, not 100 million, well inside {@code vm.max_map_count}.
 *
 * <pre>{@code
 * try (ChunkPool pool = ChunkPool.builder().chunkSize(1 << 20).limit(8L << 30).build()) {
 *     int id = pool.acquire();
 *     MemorySegment chunk = pool.segment(id);
 *     chunk.set(ValueLayout.JAVA_DOUBLE, 0, 1.5);
 *     pool.release(id);
 * }
 * }</pre>
 *
 * <p>Backings: {@link Backing#MAPPED_FILE} (default: a sparse file in a temporary directory, unlinked
 * as soon as it is open so that not even a crash leaves it behind), {@link Backing#TMPFS} (the same on {@code /dev/shm}) and {@link Backing#NATIVE} (plain
 * native memory; each slab is zeroed and committed when it is created, so prefer smaller slabs).
 * Chunks are not zeroed when they are reused. Closing the pool unmaps every slab, chunks still held
 * included (see {@link #close()}).
 *
 * <p>An interrupted thread acquires like any other, and its interrupt is still set afterwards: the
 * JDK would otherwise close the pool's file for every thread.
 */
public final class ChunkPool implements AutoCloseable {

    /** Where the slabs live. */
    public enum Backing {
        /** A sparse file in a directory on disk (default: a fresh temporary directory). */
        MAPPED_FILE,
        /** A file on {@code /dev/shm}: memory that never touches the disk and is not persisted. */
        TMPFS,
        /** Native memory from the JVM's allocator, committed when a slab is created. */
        NATIVE
    }

    /**
     * A snapshot of the pool's counters.
     *
     * @param chunksTotal   chunks in all slabs so far
     * @param chunksFree    chunks ready to be acquired without growing
     * @param chunksInUse   chunks acquired and not yet released
     * @param highWaterMark the most chunks ever in use at once
     * @param bytesMapped   bytes of all slabs
     * @param slabs         slabs mapped
     */
    public record Stats(long chunksTotal, long chunksFree, long chunksInUse, long highWaterMark,
                        long bytesMapped, int slabs) {}

    /** Default chunk size: 1 MiB. */
    public static final long DEFAULT_CHUNK_SIZE = 1L << 20;
    /** Default slab size: 1 GiB. */
    public static final long DEFAULT_SLAB_SIZE = 1L << 30;
    /** Address space reserved per mapping for file-backed pools: 64 GiB, so 100 TB takes ~1,600 mappings. */
    static final long REGION_SIZE = 64L << 30;

    private static final VarHandle NEXT = MethodHandles.arrayElementVarHandle(int[].class);
    /** Free-list link of a chunk that is handed out. */
    private static final int IN_USE = -2;
    /** Free-list link meaning "no next chunk". */
    private static final int END = -1;
    private static final long ID_MASK = 0xffff_ffffL;

    /**
     * One slab: where it lies in its region (one mapping shared by consecutive slabs), the free-list
     * links of its chunks, and which chunks were ever released (fresh slab memory is zero; a released
     * chunk may hold its last owner's bytes).
     */
    private record Slab(MemorySegment region, long regionOffset, MemorySegment memory, int[] next, byte[] used) {}

    private final long chunkSize;
    private final int chunkShift;
    private final long slabSize;
    private final int slabShift;        // log2(chunks per slab)
    private final int slabMask;
    private final long maxChunks;
    private final long limitBytes;
    private final Backing backing;
    private final Path directory;
    private final boolean ownsDirectory;
    /** Directories the builder's directory needed that did not exist: removed again on close. */
    private final List<Path> createdDirectories;
    private final ReopeningChannel file;
    /** Where free space is checked: the directory, or its parent once the owned directory is gone. */
    private final Path spaceDirectory;
    private final Arena arena = Arena.ofShared();

    private final long regionSize;
    private MemorySegment region;        // the mapping new slabs are cut from; guarded by growLock
    private long regionUsed;
    private long regionFileOffset;

    private volatile Slab[] slabs = new Slab[0];
    /** Top of the free stack: high 32 bits a version tag, low 32 bits (chunk id + 1), 0 when empty. */
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong inUse = new AtomicLong();
    private final AtomicLong highWater = new AtomicLong();
    private final Object growLock = new Object();
    private volatile boolean closed;

    private ChunkPool(Builder b) {
        this.chunkSize = b.chunkSize;
        this.chunkShift = Long.numberOfTrailingZeros(chunkSize);
        // At most 2^22 chunks per slab keeps each slab's link array at 16 MiB even for tiny chunks.
        this.slabSize = Math.min(Math.max(b.slabSize, chunkSize), chunkSize << 22);
        this.slabShift = Long.numberOfTrailingZeros(slabSize) - chunkShift;
        this.slabMask = (1 << slabShift) - 1;
        this.limitBytes = b.limit;
        this.maxChunks = Math.min(b.limit >>> chunkShift, Integer.MAX_VALUE);
        this.backing = b.backing;
        // File-backed slabs are cut from large sparse regions (address space only until touched), so
        // that the chunks of one array almost always share one segment: the arrays' fast path.
        long wanted = backing == Backing.NATIVE ? slabSize : Math.max(slabSize, REGION_SIZE);
        long needed = ((Math.min(b.limit, maxChunks << chunkShift) + slabSize - 1) / slabSize) * slabSize;
        this.regionSize = Math.min(wanted, needed);
        if (backing == Backing.NATIVE) {
            this.directory = null;
            this.ownsDirectory = false;
            this.createdDirectories = List.of();
            this.file = null;
            this.spaceDirectory = null;
        } else {
            this.ownsDirectory = b.directory == null;
            if (ownsDirectory) {
                this.directory = Directories.createTemp(
                        backing == Backing.TMPFS ? Directories.SHM : Directories.tempRoot(), "colossal-pool-");
                this.createdDirectories = List.of();
            } else {
                this.directory = b.directory;
                this.createdDirectories = Directories.ensureWritable(b.directory, "a chunk pool");
            }
            try {
                this.file = ReopeningChannel.open(directory.resolve("pool-" + ProcessHandle.current().pid() + "-"
                                + System.identityHashCode(this) + ".data"),
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.SPARSE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE, StandardOpenOption.DELETE_ON_CLOSE);
            } catch (IOException e) {
                if (ownsDirectory) {
                    Directories.deleteTree(directory);
                } else {
                    Directories.deleteCreated(createdDirectories);
                }
                throw new UncheckedIOException(new IOException("cannot create the chunk pool's file in "
                        + directory + ": " + e.getMessage() + "; choose a writable directory with free space", e));
            }
            this.spaceDirectory = ownsDirectory ? directory.getParent() : directory;
            if (ownsDirectory) {
                // On Linux DELETE_ON_CLOSE unlinks the file as soon as it is open, so the temporary
                // directory is empty already: removing it now leaves nothing behind after a kill -9.
                try {
                    Files.deleteIfExists(directory);
                } catch (IOException stillHoldsTheFile) {
                    // Elsewhere the file is deleted at close, and close removes the directory.
                }
            }
        }
    }

    /** @return a builder with the defaults: 1 MiB chunks, 1 GiB slabs, mapped file, no limit */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Hands out a free chunk, mapping a new slab if none is free.
     *
     * @return the chunk's id
     * @throws PoolExhaustedException if the limit is reached and every chunk is in use
     * @throws IllegalStateException  if the pool is closed
     * @throws UncheckedIOException   if a new slab cannot be mapped (for example the disk is full)
     */
    public int acquire() {
        int id = tryAcquire();
        if (id < 0) {
            throw new PoolExhaustedException("chunk pool exhausted: limit=" + limitBytes + " bytes ("
                    + maxChunks + " chunks of chunkSize=" + chunkSize + "), all in use; release chunks or"
                    + " raise the limit with ChunkPool.builder().limit(bytes)");
        }
        return id;
    }

    /**
     * Like {@link #acquire()}, but the chunk reads as zero: a chunk that was used before is cleared,
     * a fresh one (whose sparse memory is zero already) is not touched.
     *
     * @return the chunk's id
     * @throws PoolExhaustedException if the limit is reached and every chunk is in use
     * @throws IllegalStateException  if the pool is closed
     */
    public int acquireZeroed() {
        int id = acquire();
        Slab slab = slabs[id >>> slabShift];
        if (slab.used[id & slabMask] != 0) {
            // The JDK fills a range whose address and length are multiples of 8 a long at a time,
            // any other with memset: 2.5x faster on 1 MiB (JDK 25). So the last byte goes alone.
            MemorySegment chunk = segment(id);
            chunk.asSlice(0, chunkSize - 1).fill((byte) 0);
            chunk.set(ValueLayout.JAVA_BYTE, chunkSize - 1, (byte) 0);
        }
        return id;
    }

    /**
     * Like {@link #acquire()}, but reports a full pool as a return value.
     *
     * @return the chunk's id, or {@code -1} if the limit is reached and every chunk is in use
     * @throws IllegalStateException if the pool is closed
     * @throws UncheckedIOException  if a new slab cannot be mapped
     */
    public int tryAcquire() {
        if (closed) {
            throw closedError();
        }
        for (;;) {
            long h = head.get();
            int top = (int) (h & ID_MASK) - 1;
            if (top < 0) {
                if (!grow()) {
                    return -1;
                }
                continue;
            }
            Slab slab = slabs[top >>> slabShift];
            int local = top & slabMask;
            // A stale read here is harmless: if another thread popped `top` meanwhile, the tag moved
            // and the CAS below fails.
            int next = slab.next[local];
            long replaced = ((h >>> 32) + 1) << 32 | ((next + 1) & ID_MASK);
            if (head.compareAndSet(h, replaced)) {
                slab.next[local] = IN_USE;
                long used = inUse.incrementAndGet();
                if (used > highWater.getPlain()) {
                    highWater.accumulateAndGet(used, Math::max);
                }
                return top;
            }
        }
    }

    /**
     * Gives a chunk back. Its memory may be handed to the next {@link #acquire()} at once.
     *
     * @param id the chunk's id from {@link #acquire()}
     * @throws IllegalArgumentException if no chunk has this id
     * @throws IllegalStateException    if the chunk is not in use (released twice, or never acquired)
     */
    public void release(int id) {
        Slab slab = slabOf(id);
        int local = id & slabMask;
        if (!NEXT.compareAndSet(slab.next, local, IN_USE, END)) {
            throw notInUse(id, "cannot be released again");
        }
        slab.used[local] = 1;
        inUse.decrementAndGet();
        for (;;) {
            long h = head.get();
            // Plain store: the CAS that publishes this chunk as the new top releases it.
            slab.next[local] = (int) (h & ID_MASK) - 1;
            if (head.compareAndSet(h, ((h >>> 32) + 1) << 32 | (id + 1))) {
                return;
            }
        }
    }

    /**
     * The memory of a chunk, {@link #chunkSize()} bytes, aligned to the chunk size. Call it for a chunk
     * this thread acquired, or whose id it received from the thread that did (through anything that
     * orders the two, such as a queue).
     *
     * @param id the chunk's id, acquired and not released yet
     * @return a segment over the chunk (alive until the pool is closed)
     * @throws IllegalArgumentException if no chunk has this id
     * @throws IllegalStateException    if the chunk is not in use (released, or never acquired), or the
     *                                  pool is closed
     */
    public MemorySegment segment(int id) {
        Slab slab = slabOf(id);
        int local = id & slabMask;
        // Arrays resolve their chunks' segments once, when they are created, so this check is not
        // on any element access; it turns a use after release (memory another owner may have now)
        // into an exception, as release() does for a second release.
        if (slab.next[local] != IN_USE || closed) {
            throw closed ? closedError() : notInUse(id, "its memory may belong to another owner by now");
        }
        return slab.memory.asSlice((long) local << chunkShift, chunkSize);
    }

    private static IllegalStateException notInUse(int id, String consequence) {
        return new IllegalStateException("chunk id=" + id + " is not in use: it was released (or never acquired),"
                + " and " + consequence + "; acquire() a chunk and use it until you release it");
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("chunk pool (chunkSize=" + chunkSize + ", backing=" + backing
                + (directory != null ? " in directory=" + directory : "") + ") is closed: its memory is unmapped;"
                + " build a new pool, and close a pool only once nothing uses its chunks");
    }

    /**
     * The mapping that holds a chunk, shared by many chunks: storage layers that address a whole
     * array through one segment use this with {@link #regionOffset(int)}.
     *
     * @param id the chunk's id
     * @return the region segment (alive until the pool is closed)
     * @throws IllegalArgumentException if no chunk has this id
     */
    public MemorySegment region(int id) {
        return slabOf(id).region;
    }

    /**
     * @param id the chunk's id
     * @return the byte offset of the chunk within {@link #region(int)}
     * @throws IllegalArgumentException if no chunk has this id
     */
    public long regionOffset(int id) {
        Slab slab = slabOf(id);
        return slab.regionOffset + ((long) (id & slabMask) << chunkShift);
    }

    private Slab slabOf(int id) {
        Slab[] all = slabs;
        int s = id >>> slabShift;
        if (id < 0 || s >= all.length) {
            throw new IllegalArgumentException("chunk id=" + id + " does not belong to this pool (it has "
                    + ((long) all.length << slabShift) + " chunks)");
        }
        return all[s];
    }

    /** Maps one more slab and pushes its chunks; false if the limit forbids it. */
    private boolean grow() {
        synchronized (growLock) {
            if (closed) {
                throw closedError();
            }
            if ((head.get() & ID_MASK) != 0) {
                return true; // another thread grew the pool, or chunks came back, while we waited
            }
            Slab[] all = slabs;
            long first = (long) all.length << slabShift;
            long count = Math.min(1L << slabShift, maxChunks - first);
            if (count <= 0) {
                return false;
            }
            MemorySegment memory = mapSlab();
            int[] next = new int[(int) (1L << slabShift)];
            Arrays.fill(next, IN_USE);
            for (int i = 0; i < count - 1; i++) {
                next[i] = (int) (first + i + 1);
            }
            Slab slab = new Slab(region, regionUsed - slabSize, memory, next, new byte[next.length]);
            Slab[] grown = Arrays.copyOf(all, all.length + 1);
            grown[all.length] = slab;
            slabs = grown; // published before any of its ids can be seen on the free stack
            int last = (int) (count - 1);
            for (;;) {
                long h = head.get();
                next[last] = (int) (h & ID_MASK) - 1;
                if (head.compareAndSet(h, ((h >>> 32) + 1) << 32 | (first + 1))) {
                    return true;
                }
            }
        }
    }

    /** Cuts the next slab from the current region, mapping a new region when it is full. */
    private MemorySegment mapSlab() {
        try {
            if (region == null || regionUsed + slabSize > region.byteSize()) {
                region = backing == Backing.NATIVE
                        ? arena.allocate(slabSize, Math.min(slabSize, 1L << 21))
                        : mapRegion();
                regionFileOffset += region.byteSize();
                regionUsed = 0;
            }
            if (backing != Backing.NATIVE) {
                Directories.checkFreeSpace(spaceDirectory, slabSize, "a chunk pool slab of " + slabSize + " bytes");
            }
            MemorySegment slab = region.asSlice(regionUsed, slabSize);
            regionUsed += slabSize;
            return slab;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (OutOfMemoryError e) {
            throw new UncheckedIOException(new IOException("cannot reserve a slab of " + slabSize
                    + " bytes of native memory; use a smaller slabSize or the MAPPED_FILE backing", e));
        }
    }

    /** Maps the next region of the file (an interrupted thread's too: see {@link ReopeningChannel}). */
    private MemorySegment mapRegion() throws IOException {
        long at = regionFileOffset;
        return file.call(ch -> ch.map(FileChannel.MapMode.READ_WRITE, at, regionSize, arena));
    }

    /** @return the size of every chunk in bytes, a power of two */
    public long chunkSize() {
        return chunkSize;
    }

    /** @return the size of each slab in bytes */
    public long slabSize() {
        return slabSize;
    }

    /** @return where the slabs live */
    public Backing backing() {
        return backing;
    }

    /** @return the pool's limit in bytes ({@link Long#MAX_VALUE} when unlimited) */
    public long limit() {
        return limitBytes;
    }

    /** @return a snapshot of the counters; consistent only when no other thread is acquiring or releasing */
    public Stats stats() {
        int n = slabs.length;
        long total = 0;
        for (int s = 0; s < n; s++) {
            total += Math.min(1L << slabShift, maxChunks - ((long) s << slabShift));
        }
        long used = inUse.get();
        return new Stats(total, total - used, used, highWater.get(), n * slabSize, n);
    }

    /**
     * Unmaps every slab and deletes the backing file, and the directory given to the builder if
     * building created it (and its parents) and it is empty now. Idempotent.
     *
     * <p>Chunks still held are unmapped too, without complaint: close the arrays and release the
     * chunks first. Afterwards {@link #acquire()}, {@link #segment(int)} and the big arrays' bulk
     * methods ({@code chunk}, {@code fill}, copies, streams) of arrays over this pool throw an
     * {@link IllegalStateException} that says the pool was closed; element access ({@code get},
     * {@code set}) and segments obtained earlier throw the JDK's {@code IllegalStateException:
     * Already closed}, since a check on every element would slow every access down.
     */
    @Override
    public void close() {
        synchronized (growLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            arena.close();
        } finally {
            if (file != null) {
                try {
                    file.close();
                } catch (IOException ignored) {
                    // The file is deleted on close; an error here leaves a temp file, nothing more.
                }
                if (ownsDirectory) {
                    Directories.deleteTree(directory);
                } else {
                    Directories.deleteCreated(createdDirectories);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ChunkPool[chunkSize=" + chunkSize + ", slabSize=" + slabSize + ", backing=" + backing + ", "
                + stats() + "]";
    }

    /** Options of a {@link ChunkPool}. */
    public static final class Builder {
        private long chunkSize = DEFAULT_CHUNK_SIZE;
        private long slabSize = DEFAULT_SLAB_SIZE;
        private long limit = Long.MAX_VALUE;
        private Backing backing = Backing.MAPPED_FILE;
        private Path directory;

        private Builder() {}

        /**
         * @param bytes size of every chunk: a power of two, at least 8 (default 1 MiB)
         * @return this builder
         */
        public Builder chunkSize(long bytes) {
            if (bytes < 8 || Long.bitCount(bytes) != 1) {
                throw new IllegalArgumentException("chunkSize=" + bytes + " must be a power of two >= 8");
            }
            this.chunkSize = bytes;
            return this;
        }

        /**
         * @param bytes size of each slab the pool maps as it grows: a power of two (default 1 GiB); a slab
         *              smaller than a chunk is raised to the chunk size
         * @return this builder
         */
        public Builder slabSize(long bytes) {
            if (bytes < 8 || Long.bitCount(bytes) != 1) {
                throw new IllegalArgumentException("slabSize=" + bytes + " must be a power of two");
            }
            this.slabSize = bytes;
            return this;
        }

        /**
         * @param bytes the most memory the pool may map (default unlimited); at least one chunk
         * @return this builder
         */
        public Builder limit(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("limit=" + bytes + " must be positive (bytes)");
            }
            this.limit = bytes;
            return this;
        }

        /**
         * @param backing where the slabs live (default {@link Backing#MAPPED_FILE})
         * @return this builder
         */
        public Builder backing(Backing backing) {
            this.backing = java.util.Objects.requireNonNull(backing, "backing");
            return this;
        }

        /**
         * @param dir directory of the backing file for {@link Backing#MAPPED_FILE} and {@link Backing#TMPFS}
         *            (default: a fresh temporary directory, deleted on close); created if missing, and
         *            then removed again on close if it is empty
         * @return this builder
         */
        public Builder directory(Path dir) {
            this.directory = dir;
            return this;
        }

        /**
         * @return the pool (no memory is mapped until the first {@link ChunkPool#acquire()})
         * @throws IllegalArgumentException if the limit is smaller than one chunk
         * @throws UncheckedIOException     if the directory is not writable
         */
        public ChunkPool build() {
            if (limit < chunkSize) {
                throw new IllegalArgumentException("limit=" + limit + " is smaller than chunkSize=" + chunkSize
                        + "; the pool could not hand out a single chunk");
            }
            return new ChunkPool(this);
        }
    }
}
