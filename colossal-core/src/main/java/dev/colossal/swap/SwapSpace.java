package dev.colossal.swap;

import dev.colossal.array.BigArray;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import dev.colossal.memory.ChunkPool;
import dev.colossal.memory.internal.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Swap space: large objects spill to a swap file when memory is short and come back intact on
 * access, so a program can work through far more data than its memory budget.
 *
 * <pre>{@code
 * try (SwapSpace space = SwapSpace.builder().budget(1L << 30).build()) {
 *     List<SwappableArray<DoubleArray>> signals = new ArrayList<>();
 *     for (int i = 0; i < 64; i++) {                      // 8 GiB of signals under a 1 GiB budget
 *         SwappableArray<DoubleArray> s = space.allocate(DoubleArray.class, 1L << 24);
 *         try (DoubleArray samples = s.acquire()) {
 *             samples.fill(i);
 *         }
 *         signals.add(s);
 *     }
 *     try (DoubleArray first = signals.get(0).acquire()) { // swapped back in, as it was
 *         assert first.get(0) == 0;
 *     }
 * }
 * }</pre>
 *
 * <p><b>Budget.</b> The space keeps the bytes of its resident objects under {@link Builder#budget}:
 * making room evicts the least recently used objects that are not pinned. Swap-out is write-behind
 * on a background thread; a thread that needs room waits for those writes (back-pressure), and
 * gets a {@link SwapException} if they fail (the objects stay in memory) or if everything resident
 * is pinned. Swap-in happens on demand on the accessing thread, or ahead of time with
 * {@link Swappable#prefetch()} on a background thread.
 *
 * <p><b>Swap file.</b> Every object is one block, {@code [magic][length][id][crc32c] payload [id]},
 * in extents that are reused and coalesced. Arrays go to and from the file straight from their
 * chunks ({@code FileChannel} on segment-backed buffers, no {@code byte[]}). A damaged block is a
 * {@link SwapCorruptedException} naming the object, the file and the offset, never bad data. The
 * file is deleted on close, unless the space is {@link Builder#persistent(Path) persistent}: then
 * every object is written out on close with a catalog, and {@link #ids()}, {@link #array} and
 * {@link #object} find them again after reopening.
 *
 * <p><b>Sessions of a persistent space.</b> One space at a time has a persistent file open: a second
 * open, from this process or another, is refused with a {@link SwapException} until the first is
 * closed or its process dies (an OS file lock on {@code <file>.lock}). The catalog of the last
 * clean close stays in place while the space is open, and no block it lists is overwritten before
 * the next close replaces it, so a session that dies ({@code kill -9}, a power cut) loses what it
 * changed and nothing else: the next open finds every object of the last clean close, as it was.
 *
 * <p><b>Interrupts.</b> An interrupted thread swaps in and closes like any other, and its interrupt
 * is still set afterwards. The JDK closes a file channel for every thread when one thread is
 * interrupted in an operation on it; the swap file's channel is then opened again (a temporary
 * file, unlinked as soon as it is open, through a second descriptor kept for that), and the
 * operation runs again.
 */
public final class SwapSpace implements AutoCloseable {

    /**
     * A snapshot of a space's counters.
     *
     * @param budget        the most bytes kept resident
     * @param residentBytes bytes of objects in memory now
     * @param objects       live handles
     * @param swapOuts      objects written out so far
     * @param cleanEvictions objects evicted without a write, their block in the file being up to date
     * @param swapIns       objects read back so far
     * @param bytesWritten  payload bytes written to the swap file so far
     * @param fileBytes     the swap file's length
     * @param freeExtents   free extents inside the swap file (coalesced)
     */
    public record Stats(long budget, long residentBytes, long objects, long swapOuts, long cleanEvictions,
                        long swapIns, long bytesWritten, long fileBytes, long freeExtents) {}

    /** How an access holds an object: not at all (encoded objects), pinned read-only, or pinned writable. */
    enum Pin { NONE, READ, WRITE }


    /**
     * I/O size and chunk size of the default pool. Measured on a virtual disk with O_DIRECT: the kernel's
     * CPU per GB falls from 0.07 core-s at 1 MiB per call to 0.045 at 8 MiB, and no further at 16 MiB.
     */
    private static final long DEFAULT_IO = 8L << 20;

    private final long budget;
    private final SwapFile file;
    private final ChunkPool pool;
    private final boolean ownsPool;
    /** The directories the space made for its file (a temporary one, or missing ones of the builder's): removed on close if empty. */
    private final List<Path> createdDirectories;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Resident, not being written, least recently used first. Guarded by {@link #lock}. */
    private final LinkedHashMap<Long, Swappable> lru = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<Long, Swappable> handles = new TreeMap<>();
    private final AtomicLong nextId;
    private final ExecutorService writer;
    private final ExecutorService reader;
    private long resident;
    private long writing;
    private long failures;
    private SwapException lastFailure;
    private long swapOuts;
    private long cleanEvictions;
    private long swapIns;
    private long bytesWritten;
    private boolean closed;
    /** How long making room waits for pinned arrays to be released before giving up; tests shorten it. */
    long pinWaitNanos = TimeUnit.SECONDS.toNanos(5);

    private SwapSpace(Builder b) throws IOException {
        this.budget = b.budget;
        Path path = b.persistentFile;
        if (path == null) {
            Path dir = b.directory;
            if (dir == null) {
                dir = Directories.createTemp(Directories.tempRoot(), "colossal-swap-");
                this.createdDirectories = List.of(dir);
            } else {
                this.createdDirectories = Directories.ensureWritable(dir, "a swap space");
            }
            path = dir.resolve("swap-" + ProcessHandle.current().pid() + "-" + System.identityHashCode(this) + ".swap");
        } else {
            this.createdDirectories = List.of();
        }
        this.ownsPool = b.pool == null;
        this.pool = ownsPool ? ChunkPool.builder().backing(ChunkPool.Backing.NATIVE).chunkSize(DEFAULT_IO)
                .slabSize(64L << 20).build() : b.pool;
        try {
            this.file = SwapFile.open(path, b.persistentFile != null, b.alignment, b.maxFileBytes, b.ioSize, b.openOptions);
        } catch (IOException | RuntimeException e) {
            if (ownsPool) {
                pool.close();
            }
            Directories.deleteCreated(createdDirectories);
            throw e;
        }
        CatalogLayout.Catalog catalog = file.loaded();
        this.nextId = new AtomicLong(catalog == null ? 1 : catalog.nextId());
        if (catalog != null) {
            try {
                for (CatalogLayout.Entry e : catalog.entries()) {
                    Kind kind = Kind.ofTag(e.kind());
                    Swappable h = kind == Kind.OBJECT
                            ? new SwappableObject<>(this, e.id(), null, e.fingerprint(), e.length(), null, e.offset())
                            : newArrayHandle(e.id(), kind.type, e.length(), null, e.offset());
                    handles.put(e.id(), h);
                }
            } catch (RuntimeException e) {
                try {
                    file.close(); // and with it the file's lock
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                if (ownsPool) {
                    pool.close();
                }
                throw e;
            }
        }
        this.writer = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("colossal-swap-writer").factory());
        this.reader = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("colossal-swap-prefetch").factory());
    }

    private <A extends BigArray> SwappableArray<A> newArrayHandle(long id, Class<A> type, long bytes, BigArray value,
                                                                 long offset) {
        return new SwappableArray<>(this, id, type, bytes, type.cast(value), offset);
    }

    /** @return a builder: temporary swap file, 1 GiB budget, 4 KiB alignment, 8 MiB I/O */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the pool that swapped-in arrays (and {@link #allocate}) take their chunks from */
    public ChunkPool pool() {
        return pool;
    }

    /** @return the swap file */
    public Path file() {
        return file.path();
    }

    /**
     * Makes room under the budget, then allocates a zeroed array from {@link #pool()} held by a new handle.
     *
     * @param type   {@code DoubleArray.class}, {@code FloatArray.class}, {@code LongArray.class},
     *               {@code IntArray.class} or {@code ByteArray.class}
     * @param length the number of elements
     * @param <A>    the array type
     * @return the handle; the array is resident and unpinned
     * @throws IllegalArgumentException if the type is not a big array type
     * @throws SwapException            if room cannot be made
     */
    public <A extends BigArray> SwappableArray<A> allocate(Class<A> type, long length) {
        Kind kind = Kind.of(type);
        long bytes = Math.multiplyExact(length, (long) kind.elementSize);
        lock.lock();
        try {
            checkOpen();
            reserve(bytes, null);
        } finally {
            lock.unlock();
        }
        BigArray array;
        try {
            array = kind.allocate(pool, bytes);
        } catch (RuntimeException e) {
            unreserve(bytes);
            throw e;
        }
        return register(newArrayHandle(nextId.getAndIncrement(), type, bytes, array, -1));
    }

    /**
     * Hands an existing array to the space, which now owns the caller's reference (the caller
     * must not release it; {@link SwappableArray#acquire()} gives it back pinned). Others are evicted
     * to make room for it.
     *
     * @param array a big array, typically from {@link #pool()}, tracked once
     * @param <A>   the array type
     * @return the handle
     * @throws IllegalArgumentException if the array was released already, or is tracked already (by
     *                                  this space: one it handed out from {@code acquire()} included)
     * @throws SwapException if room cannot be made
     */
    @SuppressWarnings("unchecked")
    public <A extends BigArray> SwappableArray<A> track(A array) {
        Objects.requireNonNull(array, "array");
        if (array.isReleased()) {
            throw new IllegalArgumentException(array + " was released: it has no memory left to track; track an"
                    + " array before releasing it, and let the space release it");
        }
        lock.lock();
        try {
            checkOpen();
            for (Swappable h : handles.values()) {
                // Two handles on one array: evicting either would release memory the other still hands out.
                if (h.value == array) {
                    throw new IllegalArgumentException(array + " is tracked already, as object id=" + h.id
                            + "; use that handle");
                }
            }
            reserve(array.byteSize(), null);
        } finally {
            lock.unlock();
        }
        return register(newArrayHandle(nextId.getAndIncrement(), (Class<A>) array.getClass(), array.byteSize(), array, -1));
    }

    /**
     * Holds an object that {@code codec} can encode; it counts against the budget with its encoded size.
     *
     * @param value the value, ideally immutable
     * @param codec its codec, e.g. {@code Codecs.of(MyRecord.class)}
     * @param <T>   its type
     * @return the handle
     * @throws SwapException if room cannot be made
     */
    public <T> SwappableObject<T> store(T value, Codec<T> codec) {
        Objects.requireNonNull(value, "value");
        long bytes = codec.encodedSize(value);
        lock.lock();
        try {
            checkOpen();
            reserve(bytes, null);
        } finally {
            lock.unlock();
        }
        return register(new SwappableObject<>(this, nextId.getAndIncrement(), codec, Codecs.storedFingerprint(codec),
                bytes, value, -1));
    }

    private <H extends Swappable> H register(H h) {
        lock.lock();
        try {
            handles.put(h.id, h);
            lru.put(h.id, h);
            return h;
        } finally {
            lock.unlock();
        }
    }

    /** @return the ids of every live object, in increasing order (after reopening: those of the catalog) */
    public List<Long> ids() {
        lock.lock();
        try {
            return List.copyOf(handles.keySet());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Finds an array by id, typically after reopening a persistent space.
     *
     * @param id   the id from {@link Swappable#id()}
     * @param type the array's type
     * @param <A>  the array type
     * @return its handle
     * @throws IllegalArgumentException if there is no such object, or it is not an array of that type
     */
    @SuppressWarnings("unchecked")
    public <A extends BigArray> SwappableArray<A> array(long id, Class<A> type) {
        Swappable h = find(id);
        if (!(h instanceof SwappableArray<?> a) || a.type() != type) {
            throw new IllegalArgumentException("object id=" + id + " is a " + h.kind + ", not a " + type.getSimpleName());
        }
        return (SwappableArray<A>) a;
    }

    /**
     * Finds an object by id, typically after reopening a persistent space, and gives it its codec.
     *
     * @param id    the id from {@link Swappable#id()}
     * @param codec the codec it was stored with, or one of the same schema: the catalog of a persistent
     *              space records each object's {@linkplain Codecs#storedFingerprint codec fingerprint},
     *              so another schema is refused after reopening as in the session that stored it
     *              (objects stored with an {@linkplain Codecs#evolving evolving} codec, or one not made
     *              by {@link Codecs}, have none to check)
     * @param <T>   its type
     * @return its handle
     * @throws IllegalArgumentException if there is no such object, it is an array, or it was stored
     *                                  with a codec of another schema
     */
    public <T> SwappableObject<T> object(long id, Codec<T> codec) {
        Swappable h = find(id);
        if (!(h instanceof SwappableObject<?> o)) {
            throw new IllegalArgumentException("object id=" + id + " is a " + h.kind + " array, not an encoded object");
        }
        return o.bind(codec);
    }

    private Swappable find(long id) {
        lock.lock();
        try {
            checkOpen();
            Swappable h = handles.get(id);
            if (h == null) {
                throw new IllegalArgumentException("no object id=" + id + " in swap file=" + file.path()
                        + "; ids() lists those there are");
            }
            return h;
        } finally {
            lock.unlock();
        }
    }

    // ---- the state machine; every method below runs its state changes under the lock ----

    boolean isResident(Swappable h) {
        lock.lock();
        try {
            return h.state == Swappable.State.RESIDENT || h.state == Swappable.State.WRITING;
        } finally {
            lock.unlock();
        }
    }

    /** The accessor's path: resident returns at once (pinning arrays), swapped reads on this thread. */
    Object access(Swappable h, Pin pin) {
        lock.lock();
        try {
            for (;;) {
                checkOpen();
                switch (h.state) {
                    case RESIDENT -> {
                        lru.get(h.id); // touch: most recently used
                        if (pin == Pin.WRITE && h.offset >= 0) {
                            file.free(h.offset, h.byteSize); // the caller may write: the copy on disk is stale
                            h.offset = -1;
                        }
                        return pinned(h, pin);
                    }
                    case WRITING -> {
                        if (pin == Pin.WRITE) {
                            h.accesses++; // the caller may write: the copy in flight must not be committed
                        }
                        return pinned(h, pin);
                    }
                    case READING -> changed.awaitUninterruptibly();
                    case SWAPPED -> swapIn(h); // then RESIDENT, once more round the loop
                    case CLOSED -> throw new IllegalStateException(h + " was closed");
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private static Object pinned(Swappable h, Pin pin) {
        return switch (pin) {
            case NONE -> h.value;
            case READ -> ((BigArray) h.value).readOnly(); // holds a reference to the array: a pin
            case WRITE -> {
                ((BigArray) h.value).retain();
                yield h.value;
            }
        };
    }

    /** Reads {@code h} in; called and returns with the lock held, drops it for the I/O. */
    private void swapIn(Swappable h) {
        h.state = Swappable.State.READING;
        try {
            reserve(h.byteSize, h);
        } catch (RuntimeException e) {
            h.state = Swappable.State.SWAPPED;
            changed.signalAll();
            throw e;
        }
        long blockOffset = h.offset;
        Object value = null;
        RuntimeException failure = null;
        lock.unlock();
        try {
            value = h.load(file, blockOffset);
        } catch (SwapException e) {
            failure = e;
        } catch (IOException e) {
            failure = new SwapException("cannot read " + h + " from swap file=" + file.path() + " at offset="
                    + blockOffset + ": " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()), e);
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            lock.lock();
        }
        if (failure != null) {
            resident -= h.byteSize;
            h.state = Swappable.State.SWAPPED;
            changed.signalAll();
            throw failure;
        }
        h.value = value; // clean: the block stays, and evicting it again needs no write
        h.state = Swappable.State.RESIDENT;
        swapIns++;
        lru.put(h.id, h);
        changed.signalAll();
    }

    void prefetch(Swappable h) {
        lock.lock();
        try {
            checkOpen();
            if (h.state == Swappable.State.CLOSED) {
                throw new IllegalStateException(h + " was closed");
            }
            if (h.state != Swappable.State.SWAPPED) {
                return;
            }
        } finally {
            lock.unlock();
        }
        reader.execute(() -> {
            try {
                access(h, Pin.NONE);
            } catch (RuntimeException ignored) {
                // A prefetch is a hint: the access that needs the object meets the same failure and reports it.
            }
        });
    }

    void swapOutNow(Swappable h) {
        lock.lock();
        try {
            for (;;) {
                checkOpen();
                switch (h.state) {
                    case SWAPPED -> {
                        return;
                    }
                    case CLOSED -> throw new IllegalStateException(h + " was closed");
                    case READING, WRITING -> changed.awaitUninterruptibly();
                    case RESIDENT -> {
                        if (h.pinned(h.value)) {
                            throw new IllegalStateException(h + " is pinned: an acquired array was not released yet");
                        }
                        if (h.offset >= 0) {
                            evictClean(h);
                            return;
                        }
                        long before = failures;
                        startWrite(h);
                        while (h.state == Swappable.State.WRITING) {
                            changed.awaitUninterruptibly();
                        }
                        if (h.state == Swappable.State.RESIDENT && failures != before) {
                            throw lastFailure;
                        }
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Makes room for {@code bytes} more resident bytes and counts them, evicting LRU unpinned objects and
     * waiting for their writes. Called with the lock held.
     */
    private void reserve(long bytes, Swappable requester) {
        if (bytes > budget) {
            throw new SwapException("an object of " + bytes + " bytes cannot fit under budget=" + budget
                    + " bytes; raise the budget above the largest object");
        }
        long failuresBefore = failures;
        long pinWaitUntil = 0;
        while (resident + bytes > budget) {
            long toStart = resident + bytes - budget - writing;
            Swappable victim = toStart > 0 ? victim(requester) : null;
            if (victim != null) {
                if (victim.offset >= 0) {
                    evictClean(victim);
                } else {
                    startWrite(victim);
                }
                continue;
            }
            if (failures != failuresBefore) {
                throw new SwapException("cannot make room for " + bytes + " bytes under budget=" + budget
                        + ": " + lastFailure.getMessage(), lastFailure);
            }
            if (writing > 0) {
                changed.awaitUninterruptibly(); // back-pressure: wait for the writes in flight
                continue;
            }
            // Everything resident is pinned: wait a little for other threads to release theirs.
            long now = System.nanoTime();
            if (pinWaitUntil == 0) {
                pinWaitUntil = now + pinWaitNanos;
            } else if (now - pinWaitUntil > 0) {
                throw new SwapException("cannot make room for " + bytes + " bytes under budget=" + budget
                        + ": resident=" + resident + " bytes are all pinned (acquired arrays not released);"
                        + " release arrays sooner or raise the budget");
            }
            try {
                changed.await(1, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SwapException("interrupted while waiting for room under budget=" + budget, e);
            }
        }
        resident += bytes;
    }

    private void unreserve(long bytes) {
        lock.lock();
        try {
            resident -= bytes;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private Swappable victim(Swappable requester) {
        for (Iterator<Swappable> it = lru.values().iterator(); it.hasNext(); ) {
            Swappable h = it.next();
            if (h != requester && !h.pinned(h.value)) {
                return h;
            }
        }
        return null;
    }

    /** Evicts an object whose block is up to date: no write, its memory goes at once. Called with the lock held. */
    private void evictClean(Swappable h) {
        lru.remove(h.id);
        Object value = h.value;
        h.value = null;
        h.state = Swappable.State.SWAPPED;
        resident -= h.byteSize;
        cleanEvictions++;
        h.drop(value);
        changed.signalAll();
    }

    private void startWrite(Swappable h) {
        h.state = Swappable.State.WRITING;
        lru.remove(h.id);
        writing += h.byteSize;
        long accessesAtStart = h.accesses;
        Object value = h.value;
        writer.execute(() -> write(h, value, accessesAtStart));
    }

    /** The writer thread's job: one block out, then commit, or discard if the object was touched meanwhile. */
    private void write(Swappable h, Object value, long accessesAtStart) {
        long blockOffset = -1;
        Exception error = null;
        try (Arena arena = Arena.ofShared()) { // an encoded payload is checksummed on another thread
            MemorySegment[] parts = h.payload(value, arena);
            long length = length(parts);
            if (length != h.byteSize) {
                // A block of another length would not be read back (nor fit the budget's count): keep it here.
                throw new IllegalStateException(h + " was changed after it was stored: it encodes to " + length
                        + " bytes now, not " + h.byteSize + "; a stored value must not change (store a new one"
                        + " and close this handle instead)");
            }
            blockOffset = file.write(h.id, parts, h.byteSize);
        } catch (IOException | RuntimeException e) {
            error = e;
        }
        boolean dropValue = false;
        lock.lock();
        try {
            writing -= h.byteSize;
            if (error != null) {
                failures++;
                lastFailure = new SwapException("cannot swap out " + h + " to file=" + file.path() + ": "
                        + error.getMessage() + "; it stays in memory" + (error instanceof IOException
                        ? ". Free disk space, choose another directory, or raise the budget" : ""), error);
            }
            if (h.state == Swappable.State.CLOSED) {
                resident -= h.byteSize;
                dropValue = true;
                if (blockOffset >= 0) {
                    file.free(blockOffset, h.byteSize);
                }
            } else if (error != null || h.accesses != accessesAtStart) {
                if (blockOffset >= 0) {
                    file.free(blockOffset, h.byteSize);
                }
                h.state = Swappable.State.RESIDENT;
                lru.put(h.id, h);
            } else {
                h.offset = blockOffset;
                swapOuts++;
                bytesWritten += h.byteSize;
                if (h.pinned(value)) {
                    // Read-only pins came meanwhile: the block is good, the memory still in use. Clean.
                    h.state = Swappable.State.RESIDENT;
                    lru.put(h.id, h);
                } else {
                    h.value = null;
                    h.state = Swappable.State.SWAPPED;
                    resident -= h.byteSize;
                    dropValue = true;
                }
            }
            if (dropValue) {
                // Inside the lock: close() waits for writing == 0 and must then find every chunk returned.
                h.drop(value);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void free(Swappable h) {
        Object drop = null;
        lock.lock();
        try {
            while (h.state == Swappable.State.READING) {
                changed.awaitUninterruptibly();
            }
            switch (h.state) {
                case RESIDENT -> {
                    lru.remove(h.id);
                    resident -= h.byteSize;
                    drop = h.value;
                    if (h.offset >= 0) {
                        file.free(h.offset, h.byteSize);
                    }
                }
                case SWAPPED -> file.free(h.offset, h.byteSize);
                default -> { } // WRITING: the writer drops it; CLOSED: nothing left
            }
            h.value = null;
            h.offset = -1;
            h.state = Swappable.State.CLOSED;
            handles.remove(h.id);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (drop != null) {
            h.drop(drop);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("swap space on file=" + file.path() + " is closed");
        }
    }

    /** @return a snapshot of the counters */
    public Stats stats() {
        long[] usage = file.usage();
        lock.lock();
        try {
            return new Stats(budget, resident, handles.size(), swapOuts, cleanEvictions, swapIns, bytesWritten, usage[3],
                    usage[2]);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the space. A temporary swap file is deleted, and the directories made for it. A persistent one first receives every
     * resident object, then its new catalog, so that reopening it finds them all; if that fails, the
     * file keeps the catalog it was opened with, and reopening finds the objects of the last clean
     * close. Either way the file is released for the next open. Closing unmaps the space's memory:
     * arrays still acquired must not be used afterwards (their bulk methods say the pool was
     * closed; element access throws the JDK's {@link IllegalStateException}).
     *
     * @throws UncheckedIOException if a persistent space cannot be saved
     */
    @Override
    public void close() {
        List<Swappable> all;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            while (writing > 0 || handles.values().stream().anyMatch(h -> h.state == Swappable.State.READING)) {
                changed.awaitUninterruptibly();
            }
            closed = true;
            all = new ArrayList<>(handles.values());
        } finally {
            lock.unlock();
        }
        writer.shutdown();
        reader.shutdownNow();
        IOException failure = null;
        try {
            if (file.persistent()) {
                save(all);
            }
        } catch (IOException e) {
            failure = e;
        } finally {
            try {
                file.close(); // after a save, closed already; after a failed one the old catalog stands, and the lock goes
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
            for (Swappable h : all) {
                if (h.value != null) {
                    try {
                        h.drop(h.value);
                    } catch (IllegalStateException releasedElsewhere) {
                        // An array the caller released too (or tracked twice): nothing left to give back,
                        // and the pool and the other objects must still be closed.
                    }
                    h.value = null;
                }
                h.state = Swappable.State.CLOSED;
            }
            if (ownsPool) {
                pool.close();
            }
            Directories.deleteCreated(createdDirectories);
        }
        if (failure != null) {
            throw new UncheckedIOException("cannot save swap space to file=" + file.path() + ": " + failure.getMessage(),
                    failure);
        }
    }

    /** Writes out every resident object not in the file yet, then the catalog, and closes the file. */
    private void save(List<Swappable> all) throws IOException {
        List<CatalogLayout.Entry> entries = new ArrayList<>();
        for (Swappable h : all) {
            long length = h.byteSize;
            if (h.state == Swappable.State.RESIDENT && h.offset < 0) { // clean ones are there already
                try (Arena arena = Arena.ofShared()) {
                    // At the length it has now: an object changed since it was stored is saved as it is.
                    MemorySegment[] parts = h.payload(h.value, arena);
                    length = length(parts);
                    h.offset = file.write(h.id, parts, length);
                }
            }
            entries.add(new CatalogLayout.Entry(h.id, h.offset, length, h.kind.tag,
                    h instanceof SwappableObject<?> o ? o.fingerprint : 0));
        }
        entries.sort(Comparator.comparingLong(CatalogLayout.Entry::offset));
        file.closeWithCatalog(nextId.get(), entries);
    }

    private static long length(MemorySegment[] parts) {
        long length = 0;
        for (MemorySegment part : parts) {
            length += part.byteSize();
        }
        return length;
    }

    @Override
    public String toString() {
        return "SwapSpace[file=" + file.path() + ", " + stats() + "]";
    }

    /** Options of a {@link SwapSpace}. */
    public static final class Builder {
        private long budget = 1L << 30;
        private Path directory;
        private Path persistentFile;
        private long alignment = 4096;
        private long ioSize = DEFAULT_IO;
        private long maxFileBytes = Long.MAX_VALUE;
        private Set<OpenOption> openOptions = Set.of();
        private ChunkPool pool;

        private Builder() {}

        /**
         * @param bytes the most bytes of objects kept in memory (default 1 GiB)
         * @return this builder
         */
        public Builder budget(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("budget=" + bytes + " must be positive (bytes)");
            }
            this.budget = bytes;
            return this;
        }

        /**
         * @param dir where the temporary swap file goes (default: a new temporary directory); created
         *            if missing, and what was created removed again on close
         * @return this builder
         */
        public Builder directory(Path dir) {
            this.directory = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /**
         * Makes the space persistent: the swap file at {@code swapFile} and its catalog beside it
         * ({@code swapFile + ".catalog"}) survive {@link SwapSpace#close()}, and a later build with
         * the same path reopens them. A lock file beside them ({@code swapFile + ".lock"}, kept)
         * lets one space at a time have them open; a space that was not closed (its process died)
         * reopens as the last clean close left it.
         *
         * @param swapFile the swap file
         * @return this builder
         */
        public Builder persistent(Path swapFile) {
            this.persistentFile = Objects.requireNonNull(swapFile, "swapFile");
            return this;
        }

        /**
         * @param bytes alignment of blocks and I/O in the file: a power of two, at least 64 (default 4096,
         *              which direct I/O needs); each block's header takes one unit
         * @return this builder
         */
        public Builder alignment(long bytes) {
            BlockLayout.checkAlignment(bytes);
            this.alignment = bytes;
            return this;
        }

        /**
         * @param bytes the largest single read or write (default 8 MiB): a multiple of the alignment. One
         *              I/O never spans two chunks of an array, so the chunk size bounds it too
         * @return this builder
         */
        public Builder ioSize(long bytes) {
            if (bytes <= 0 || bytes > (1L << 30)) {
                throw new IllegalArgumentException("ioSize=" + bytes + " must be between 1 and 2^30 bytes");
            }
            this.ioSize = bytes;
            return this;
        }

        /**
         * @param bytes the most the swap file may grow to (default unlimited); a swap-out that would go
         *              beyond fails like a full disk
         * @return this builder
         */
        public Builder maxFileBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxFileBytes=" + bytes + " must be positive");
            }
            this.maxFileBytes = bytes;
            return this;
        }

        /**
         * Extra options for opening the swap file, for example {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}
         * to bypass the page cache (then the alignment must be a multiple of the file system's block size).
         *
         * @param options the options
         * @return this builder
         */
        public Builder openOptions(OpenOption... options) {
            this.openOptions = Set.of(options);
            return this;
        }

        /**
         * @param chunks the pool swapped-in arrays come from (default: a private native pool of 8 MiB
         *               chunks, one I/O each; objects are large. Pass a pool with smaller chunks for
         *               small arrays, at some more CPU per GB swapped)
         * @return this builder
         */
        public Builder pool(ChunkPool chunks) {
            this.pool = Objects.requireNonNull(chunks, "chunks");
            return this;
        }

        /**
         * @return the space
         * @throws UncheckedIOException   if the swap file cannot be created or opened
         * @throws SwapCorruptedException if a persistent swap file is truncated or its catalog damaged
         * @throws SwapException          if a persistent swap file is open already (in this process or
         *                                another), or has no catalog
         */
        public SwapSpace build() {
            if (ioSize % alignment != 0) {
                throw new IllegalArgumentException("ioSize=" + ioSize + " must be a multiple of alignment=" + alignment);
            }
            try {
                return new SwapSpace(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open swap space: " + e.getMessage(), e);
            }
        }
    }
}
