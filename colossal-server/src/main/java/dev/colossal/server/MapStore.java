package dev.colossal.server;

import dev.colossal.map.BytesMap;
import dev.colossal.map.MapCorruptedException;
import dev.colossal.map.MapOptions;
import dev.colossal.memory.SegmentBytes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * {@link KeyValueStore} over one {@link BytesMap} file, values in {@link StoredValue} form: one
 * database of the server ({@link Databases}). Expired entries are dropped lazily when read and in
 * bulk by {@link #purgeExpired}, which the server's {@link ExpirySweeper} runs.
 */
final class MapStore implements KeyValueStore {

    /** Database 0's file, the one a data directory always has. */
    static final String FILE_NAME = "db0.map";
    /** Values up to this size are staged in {@link #STAGING}; larger ones get an array of their own. */
    private static final int MAX_STAGING = 64 * 1024;
    private static final ThreadLocal<byte[]> STAGING = ThreadLocal.withInitial(() -> new byte[4096]);
    private static final long NO_ROOM_LOG_NANOS = 60_000_000_000L;
    /** Headers {@link #toFree} keeps at most: a flood of DELs of small lists waits for one walk instead. */
    private static final int MAX_TO_FREE = 100_000;

    private final BytesMap map;
    private final KeyLocks locks;
    private final LongSupplier clock;
    /** The file's name now: SWAPDB renames files under open maps, whose own path stays the first. */
    private volatile Path file;
    /** The data directory's claim when this store is opened alone ({@link #open}); null in {@link Databases}. */
    private DataDirLock dirLock;
    /** Told of every write once the server runs; null before (and in tests of the store alone). */
    private ExpirySweeper sweeper;
    /** Keys a sampling policy evicted ({@link #evictKey}); the map counts its own CLOCK's. */
    private final LongAdder sampledEvictions = new LongAdder();
    /** Keys the map evicted, copied under its segment lock, until a writer tells the sweeper. */
    private final java.util.concurrent.ConcurrentLinkedQueue<byte[]> evicted = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Told of the bytes of every write when databases share a bound, or elements count in it; null otherwise. */
    private volatile MemoryBudget budget;
    /** The server's bound, told of this map's writes once they matter to it ({@link #share}); null without --maxmemory. */
    private volatile MemoryBudget bound;
    /** Headers of element-backed values evicted or removed, whose elements are to be freed ({@link #freeRemoved}). */
    private final java.util.concurrent.ConcurrentLinkedQueue<Entry> toFree = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** How many {@link #toFree} holds, about: past {@link #MAX_TO_FREE} removals are left to a walk. */
    private final java.util.concurrent.atomic.AtomicInteger toFreeCount = new java.util.concurrent.atomic.AtomicInteger();
    /** The last complete sweep, null before the first. */
    private volatile Sweep lastSweep;
    /** Writes since the last sweep began may have changed the keys with a TTL. */
    private volatile boolean sweepWanted = true;
    /** Which parts of the map may hold keys with a TTL: what sweeps and volatile samples read. */
    private final TtlBuckets ttls;
    /** The element map of this database's lists, opened with the first list or at open if it has a file; null before. */
    private volatile ListElements elements;
    /** Whether a removal since the collector last looked took a value whose elements it must free. */
    private volatile boolean elementsDropped;
    /** Segments repaired at open, left mid-write by a server that did not stop cleanly, and how long that took. */
    private int repairedAtOpen;
    private long repairNanos;

    private MapStore(BytesMap map, KeyLocks locks, LongSupplier clock) {
        this.map = map;
        this.locks = locks;
        this.clock = clock;
        this.file = map.path();
        this.ttls = new TtlBuckets(map.scanCursorLimit());
    }

    /**
     * Opens (or creates) the store in {@code dir} alone, without a bound: database 0 with a claim
     * on the directory of its own, for tests of the store.
     *
     * @param dir   the data directory, created if absent
     * @param clock epoch milliseconds
     * @return the store
     * @throws IOException if the directory or map cannot be opened, or another server has the directory
     */
    static MapStore open(Path dir, LongSupplier clock) throws IOException {
        return open(dir, 0, clock);
    }

    /**
     * {@link #open(Path, LongSupplier)} with a bound: a new map evicts to keep its entries within
     * {@code maxBytes}, and an existing one must have been created with that bound.
     *
     * @param dir      the data directory, created if absent
     * @param maxBytes the bound on entry bytes, 0 for none
     * @param clock    epoch milliseconds
     * @return the store
     * @throws MaxMemoryMismatchException if the map was created with another bound
     * @throws IOException if the directory or map cannot be opened, or another server has the directory
     */
    static MapStore open(Path dir, long maxBytes, LongSupplier clock) throws IOException {
        Files.createDirectories(dir);
        DataDirLock lock = DataDirLock.acquire(dir);
        try {
            MapStore store = openFile(dir, dir.resolve(FILE_NAME), maxBytes, new KeyLocks(), clock);
            store.dirLock = lock;
            return store;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Opens (or creates) one database's map file in a directory the caller has claimed: a new map
     * evicts to keep its entries within {@code maxBytes}, and an existing one must have been
     * created with that bound. Segments a writer that died left mid-write are repaired now.
     *
     * @param dir      the data directory, for messages
     * @param file     the map file
     * @param maxBytes the bound on entry bytes, 0 for none
     * @param locks    the key locks, shared by every database
     * @param clock    epoch milliseconds
     * @return the store
     * @throws MaxMemoryMismatchException if the map was created with another bound
     * @throws IOException if the map cannot be opened
     */
    static MapStore openFile(Path dir, Path file, long maxBytes, KeyLocks locks, LongSupplier clock) throws IOException {
        // An existing file opens with its own bound when asked for none: compared here, so that
        // one opened without --maxmemory is refused too, and the error names the flags.
        BytesMap map = BytesMap.open(file, Files.exists(file) || maxBytes == 0 ? MapOptions.DEFAULTS
                : MapOptions.DEFAULTS.withMaxBytes(maxBytes));
        try {
            MapOptions kept = map.options();
            if (kept.maxBytes() != maxBytes || kept.maxEntries() != 0) {
                throw new MaxMemoryMismatchException(dir, file, kept.maxBytes(), kept.maxEntries(), maxBytes);
            }
            MapStore store = new MapStore(map, locks, clock);
            Path elementsFile = ListElements.fileFor(file);
            if (Files.exists(elementsFile)) {
                store.elements = ListElements.open(elementsFile);
            }
            long t0 = System.nanoTime();
            store.repairedAtOpen = map.recoverLocks();
            if (store.elements != null) {
                HeaderRename.finishAtOpen(store, store.elements);   // after the repair: it reads and writes headers
            }
            store.repairNanos = System.nanoTime() - t0;
            return store;
        } catch (IOException | RuntimeException e) {
            map.close();
            throw e;
        }
    }

    /** A size for the log; "unknown" where the file system would not say (out of descriptors, say). */
    private static String mib(long bytes) {
        return bytes < 0 ? "unknown" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    @Override
    public Path path() {
        return file;
    }

    /** SWAPDB renamed the file: messages and file sizes name the new one. */
    void renamed(Path to) {
        file = to;
    }

    /** @return the segments repaired at open (see {@link #openFile}) */
    int repairedAtOpen() {
        return repairedAtOpen;
    }

    /** @return how long the repairs at open took */
    long repairNanos() {
        return repairNanos;
    }

    /** The line {@code serve} says at start about this database: its file, keys, size and the free disk space. */
    String startupLine() {
        long keys = map.size();
        return String.format(Locale.ROOT, "colossal: map file %s: %d key%s, %s, %s free on its file system",
                file.toAbsolutePath(), keys, keys == 1 ? "" : "s", mib(fileBytes()), mib(diskFreeBytes()));
    }

    /** Notes that the removal of {@code stored} left elements to free, by {@link #freeRemoved} or a walk. */
    private void removed(byte[] stored) {
        if (StoredValue.leavesElements(stored)) {
            toFree(entry(stored, StoredValue.expireAt(stored)));
        }
    }

    private void toFree(Entry header) {
        if (toFreeCount.incrementAndGet() <= MAX_TO_FREE) {
            toFree.add(header);
        } else {
            toFreeCount.decrementAndGet();
            elementsDropped = true;
        }
    }

    /**
     * Whether a removal since the collector last cleared this (FLUSHDB, or a DEL, expiry or
     * eviction whose elements {@link #freeRemoved} could not free) dropped a value whose elements
     * are now garbage; a value replaced by a write that did not read it (SET over a list) is not
     * seen here, which is why the collector also walks when {@link #changeStamp} moved.
     */
    boolean elementsDropped() {
        return elementsDropped;
    }

    void clearElementsDropped() {
        elementsDropped = false;
    }

    /** @return a number that changes whenever this database's map or element map may have changed */
    long changeStamp() {
        ListElements e = elements;
        return map.changeStamp() + (e == null ? 0 : e.changeStamp());
    }

    @Override
    public ListElements elements(boolean create) {
        ListElements e = elements;
        return e != null || !create ? e : openElements();
    }

    private synchronized ListElements openElements() {
        if (elements == null) {
            Path f = ListElements.fileFor(file);
            try {
                elements = ListElements.open(f);
            } catch (IOException e) {
                throw new UncheckedIOException("element map file=" + f + " could not be created: " + e.getMessage()
                        + "; free disk space and retry", e);
            }
            MemoryBudget b = bound;
            if (b != null) {
                b.elementsOpened(this);   // elements count in the bound from the first
            }
        }
        return elements;
    }

    @Override
    public void watch(ExpirySweeper s) {
        sweeper = s;
        // the map's CLOCK hand removes keys under a write's feet: note them for the writer to tell
        map.onEviction((key, value, expired) -> {
            evicted.add(SegmentBytes.toArray(key));
            Entry header = elementsHeader(value);
            if (header != null) {
                toFree(header);
            }
        });
    }

    /**
     * An evicted value's header, copied, if the value keeps elements in the element map (a plain
     * string, the common victim, is not copied); null otherwise.
     */
    private Entry elementsHeader(MemorySegment value) {
        byte flags = value.get(ValueLayout.JAVA_BYTE, StoredValue.FLAGS_OFFSET);
        if (elements == null || StoredValue.isString(flags) && !StoredValue.isChunked(flags)) {
            return null;
        }
        byte[] stored = SegmentBytes.toArray(value);
        return StoredValue.leavesElements(stored) ? entry(stored, StoredValue.expireAt(stored)) : null;
    }

    /** @return {@code stored} as {@link #raw} gives it: a chunked string's header, not its bytes */
    private static Entry entry(byte[] stored, long expireAtMillis) {
        return new Entry(stored, StoredValue.payloadOffset(stored), expireAtMillis, StoredValue.type(stored),
                StoredValue.isChunked(stored[StoredValue.FLAGS_OFFSET]));
    }

    /**
     * Frees the elements of the values evicted or removed (DEL, expiry) since the last look
     * ({@link ListCollector#freeNow}), in the caller's thread: an eviction's, which must see them
     * go, the bound's before it sums, or the collector's each tick. What it must leave (a lock it
     * cannot take now) is left to the collector's next walk.
     */
    void freeRemoved() {
        ListElements e = elements;
        if (e == null) {
            return;   // nothing was queued: only values with elements are
        }
        Entry header;
        while ((header = toFree.poll()) != null) {
            toFreeCount.decrementAndGet();
            if (!ListCollector.freeNow(this, e, header)) {
                elementsDropped = true;
            }
        }
    }

    /** Tells the sweeper of the keys evicted since the last look: their events and tracking's invalidations. */
    private void tellEvicted(ExpirySweeper s) {
        byte[] key;
        while ((key = evicted.poll()) != null) {
            s.evicted(this, key);
        }
    }

    /**
     * Shares the bound with other databases, or with this database's elements: this map and its
     * element map tell {@code b} of every write's bytes from now on (null: no longer).
     */
    void share(MemoryBudget b) {
        budget = b;
        ListElements e = elements;
        if (e != null) {
            e.share(b);
        }
    }

    /**
     * The server's bound, which this map shares ({@link #share}) once there is a second database or
     * an element map: a map of keys alone keeps within it by itself.
     */
    void bound(MemoryBudget b) {
        bound = b;
        if (elements != null) {
            b.elementsOpened(this);
        }
    }

    /** @return whether this database has an element map, whose bytes count in {@link #usedBytes} */
    boolean hasElements() {
        return elements != null;
    }

    /**
     * Tells the sweeper of a write (the deadline it set, or that it set none), and the budget of
     * its bytes: the key, the value, and room for the map's header, counted high rather than low.
     */
    private void written(long expireAtMillis, long keyLength, long valueLength) {
        MemoryBudget b = budget;
        if (b != null) {
            b.wrote(keyLength + valueLength + 32);
        }
        ExpirySweeper s = sweeper;
        if (s == null) {
            return;
        }
        if (!evicted.isEmpty()) {
            tellEvicted(s);
        }
        if (expireAtMillis != StoredValue.NO_EXPIRY) {
            sweepWanted = true;
            s.deadlineSet(expireAtMillis);
        } else {
            Sweep last = lastSweep;
            if (last == null || last.expiring() != 0) {
                // it may have replaced or removed a key that had a TTL
                sweepWanted = true;
                s.changed();
            }
        }
    }

    /** @return the last complete sweep of this database, null before the first: INFO keyspace's expires and avg_ttl */
    Sweep lastSweep() {
        return lastSweep;
    }

    /**
     * @param now epoch milliseconds
     * @return whether a sweep would find something new: writes since the last one may have changed
     *     the keys with a TTL, or the earliest deadline it saw has passed
     */
    boolean sweepDue(long now) {
        Sweep last = lastSweep;
        return sweepWanted || last == null || last.nextDeadline() <= now;
    }

    /**
     * Evicts by the map's CLOCK until {@code bytes} are freed ({@link BytesMap#evict}), counting the
     * elements of evicted lists, streams, big hashes, sets, sorted sets and strings, which go with
     * their keys: the map is asked for little at a time while the victims are small headers of big
     * collections, and for more while they free nothing else. Keys a command holds the lock of
     * are spared: they are in use now, and one being written would come back part-written.
     *
     * @return the bytes freed
     */
    long evict(long bytes) {
        ListElements e = elements;
        long freed = 0;
        if (e == null) {
            freed = map.evict(bytes, locks::held);
        } else {
            long step = 1;
            while (freed < bytes) {
                long before = e.usedBytes();
                long f = map.evict(Math.min(step, bytes - freed), locks::held);
                freeRemoved();
                long ofElements = Math.max(0, before - e.usedBytes());
                freed += f + ofElements;
                if (f == 0) {
                    break;   // no key left: what elements remain are the collector's
                }
                step = ofElements > 0 ? 1 : step * 2;
            }
        }
        ExpirySweeper s = sweeper;
        if (s != null) {
            tellEvicted(s);   // this database may not be written again for a while
        }
        return freed;
    }

    @Override
    public Entry get(byte[] key) {
        Entry e = raw(key);
        if (e == null || !e.chunked()) {
            return e;
        }
        // Every reader that does not know chunks gets the whole string, as if it were stored plain.
        byte[] stored = BigString.expand(elements, e.array());
        return new Entry(stored, StoredValue.payloadOffset(stored), e.expireAtMillis(), StoredValue.STRING);
    }

    @Override
    public Entry raw(byte[] key) {
        byte[] stored = map.get(key);
        if (stored == null) {
            return null;
        }
        long at = StoredValue.expireAt(stored);
        if (isExpired(at)) {
            dropIfExpired(key);
            return null;
        }
        return entry(stored, at);
    }

    @Override
    public long copyStored(MemorySegment key, MemorySegment dst, long at) {
        long n = map.get(key, dst, at);
        if (n < 0 || n > dst.byteSize() - at) {
            return n;
        }
        if (isExpired(StoredValue.expireAt(dst, at, n))) {
            dropIfExpired(SegmentBytes.toArray(key));
            return -1;
        }
        if (StoredValue.isChunked(StoredValue.flags(dst, at))) {
            return BigString.expand(elements, dst, at, n); // the chunks go straight into dst, no array between
        }
        return n;
    }

    private void dropIfExpired(byte[] key) {
        ExpirySweeper sw = sweeper;
        if (sw != null && sw.held()) {
            return; // the reader is told it is gone; it goes once the pause is over
        }
        Lock l = lock(key);
        if (!l.tryLock()) {
            return; // a writer is on it; the next reader or the purge will drop it
        }
        try {
            byte[] stored = map.get(key);
            if (stored != null && isExpired(StoredValue.expireAt(stored)) && map.remove(key)) {
                removed(stored);
                ExpirySweeper s = sweeper;
                if (s != null) {
                    s.removedOnRead(this, key);
                }
            }
        } finally {
            l.unlock();
        }
    }

    private boolean isExpired(long at) {
        // a replica's master decides when its keys expire (it sends DEL): its commands see them whole
        return at != StoredValue.NO_EXPIRY && at <= clock.getAsLong() && !ReplicaState.OBEYED.isBound();
    }

    @Override
    public int prefetch(MemorySegment[] keys, int from) {
        return map.prefetch(keys, from);
    }

    @Override
    public long evictions() {
        return map.evictions() + sampledEvictions.sum();
    }

    @Override
    public long largestValue(long keyLength, long expireAtMillis) {
        // A bounded map refuses an entry larger than a segment's share of the bound; the server
        // refuses it first, before a write of many keys stores any.
        return Math.max(0, Math.min(StoredValue.MAX_PAYLOAD,
                map.maxValueLength(keyLength) - StoredValue.headerLength(expireAtMillis)));
    }

    @Override
    public void checkFits(long keyLength, long valueLength, long expireAtMillis) {
        StoredValue.checkLength(valueLength);
        long most = largestValue(keyLength, expireAtMillis);
        if (valueLength > most) {
            MapOptions o = map.options();
            throw new ReplyException("OOM value of " + valueLength + " bytes is larger than maxmemory allows: at most "
                    + most + " bytes with this key (the bound, " + o.maxBytes() + " bytes, is split over " + o.segments()
                    + " segments that evict on their own, and a key and its value must fit in one); store smaller"
                    + " values, or serve a new data directory with a larger --maxmemory");
        }
    }

    @Override
    public void set(byte[] key, byte[] value, int from, int length, long expireAtMillis, byte type) {
        checkFits(key.length, length, expireAtMillis);
        int n = StoredValue.headerLength(expireAtMillis) + length;
        if (n > MAX_STAGING) {
            map.put(key, StoredValue.encode(value, from, length, expireAtMillis, type));
            markTtl(MemorySegment.ofArray(key), expireAtMillis);
            written(expireAtMillis, key.length, n);
            return;
        }
        // The map copies the value into its file, so the stored form is staged in a per-thread
        // buffer: a SET allocates (and zeroes) no second copy of its value.
        byte[] staging = STAGING.get();
        if (staging.length < n) {
            staging = new byte[Math.max(n, staging.length * 2)];
            STAGING.set(staging);
        }
        int len = StoredValue.encodeInto(staging, value, from, length, expireAtMillis, type);
        MemorySegment k = MemorySegment.ofArray(key);
        map.put(k, MemorySegment.ofArray(staging).asSlice(0, len));
        markTtl(k, expireAtMillis);
        written(expireAtMillis, key.length, len);
    }

    /** After a write of {@code key}: a TTL marks its part of the map for the sweeps (after, so a sweep that misses the key sees the mark). */
    private void markTtl(MemorySegment key, long expireAtMillis) {
        if (expireAtMillis != StoredValue.NO_EXPIRY) {
            ttls.mark(map.scanPosition(key));
        }
    }

    @Override
    public void setInPlace(MemorySegment key, MemorySegment buf, long valueAt, long valueLength, long expireAtMillis, byte type) {
        checkFits(key.byteSize(), valueLength, expireAtMillis);
        long at = StoredValue.headerBefore(buf, valueAt, expireAtMillis, type);
        map.put(key, buf, at, valueAt + valueLength - at);
        markTtl(key, expireAtMillis);
        written(expireAtMillis, key.byteSize(), valueAt + valueLength - at);
    }

    @Override
    public boolean delete(byte[] key) {
        byte[] stored = map.get(key);
        if (stored == null) {
            return false;
        }
        map.remove(key);
        removed(stored);
        written(StoredValue.NO_EXPIRY, 0, 0);
        return !isExpired(StoredValue.expireAt(stored));
    }

    @Override
    public boolean deleteHeader(byte[] key) {
        boolean had = map.remove(key);
        written(StoredValue.NO_EXPIRY, 0, 0);
        return had;
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long usedBytes() {
        ListElements e = elements;
        return map.usedBytes() + (e == null ? 0 : e.usedBytes());
    }

    @Override
    public void clear() {
        map.clear();
        // After the headers: a crash between the two leaves elements no header holds, which the collector frees.
        ListElements e = elements;
        if (e != null) {
            e.clear();
            elementsDropped = true; // a crash between the two clears left elements behind
        }
        written(StoredValue.NO_EXPIRY, 0, 0);
    }

    @Override
    public long scanKeys(long cursor, long count, Predicate<byte[]> filter, BiConsumer<byte[], Long> action) {
        if (cursor < 0 || cursor >= map.scanCursorLimit()) {
            return 0; // not a cursor of ours: Redis too just goes on from wherever a cursor points
        }
        long now = clock.getAsLong();
        List<byte[]> keys = new ArrayList<>();
        List<Long> deadlines = new ArrayList<>();
        // The filter sees the mapped bytes: copy only keys, never values, and act outside the lock.
        long next = map.scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), (k, v) -> {
            long at = StoredValue.expireAtOrNone(v);
            if (at == StoredValue.NO_EXPIRY || at > now) {
                byte[] key = SegmentBytes.toArray(k);
                if (filter.test(key)) {
                    keys.add(key);
                    deadlines.add(at);
                }
            }
            return false;
        }, NOTHING, this::damaged);
        for (int i = 0; i < keys.size(); i++) {
            action.accept(keys.get(i), deadlines.get(i));
        }
        return next;
    }

    @Override
    public long scanPosition(byte[] key) {
        return map.scanPosition(MemorySegment.ofArray(key));
    }

    @Override
    public void scanKeys(Predicate<byte[]> filter, BiConsumer<byte[], Long> action) {
        long cursor = 0;
        do {
            cursor = scanKeys(cursor, Integer.MAX_VALUE, filter, action);
        } while (cursor != 0);
    }

    @Override
    public long scanEntries(long cursor, long count, EntryAction action) {
        if (cursor < 0 || cursor >= map.scanCursorLimit()) {
            return 0;
        }
        long now = clock.getAsLong();
        List<byte[]> keys = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        // Key and value copied together under the segment's lock, the actions run outside it
        long next = map.scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), (k, v) -> {
            long at = StoredValue.expireAtOrNone(v);
            if (at == StoredValue.NO_EXPIRY || at > now) {
                keys.add(SegmentBytes.toArray(k));
                entries.add(entry(SegmentBytes.toArray(v), at));
            }
            return false;
        }, NOTHING, this::damaged);
        for (int i = 0; i < keys.size(); i++) {
            action.accept(keys.get(i), entries.get(i));
        }
        return next;
    }

    /**
     * Passes up to {@code n} live keys and their deadlines, read from a random point of the scan's
     * order on, wrapping once at the end: {@link SampledEviction}'s sample, and RANDOMKEY's key.
     *
     * @param volatileOnly take only keys that have a TTL
     * @param maxSteps     scan steps (of 16 slots) to read at most; a whole pass ends sooner
     */
    void sample(int n, boolean volatileOnly, int maxSteps, BiConsumer<byte[], Long> action) {
        long start = ThreadLocalRandom.current().nextLong(map.scanCursorLimit());
        if (volatileOnly && ttls.complete()) {
            sampleMarked(start, n, maxSteps, action);
            return;
        }
        int[] taken = {0};
        long cursor = start;
        boolean wrapped = false;
        for (int step = 0; step < maxSteps && taken[0] < n && (!wrapped || cursor < start); step++) {
            cursor = scanKeys(cursor, 16, k -> true, (k, at) -> {
                if (taken[0] < n && (!volatileOnly || at != StoredValue.NO_EXPIRY)) {
                    taken[0]++;
                    action.accept(k, at);
                }
            });
            if (cursor == 0) {
                if (wrapped || start == 0) {
                    return;
                }
                wrapped = true;
            }
        }
    }

    /**
     * {@link #sample} of keys with a TTL from the parts of the map marked as holding some, from
     * {@code start} on and wrapping once: a database of millions of keys and a few with a TTL
     * gives those few, where reading {@code maxSteps} steps from a random point would find none.
     * A part read is unmarked first and marked again if a TTL is still there, as a sweep does: the
     * parts whose keys were evicted do not fill the next samples' steps.
     */
    private void sampleMarked(long start, int n, int maxSteps, BiConsumer<byte[], Long> action) {
        long now = clock.getAsLong();
        List<byte[]> keys = new ArrayList<>();
        List<Long> deadlines = new ArrayList<>();
        long first = ttls.bucketOf(start);
        long b = first;
        boolean wrapped = false;
        for (int step = 0; step < maxSteps && keys.size() < n; step++, b++) {
            b = ttls.nextMarked(b);
            if (b < 0 && !wrapped) {
                wrapped = true;
                b = ttls.nextMarked(0);
            }
            if (b < 0 || wrapped && b >= first) {
                break;
            }
            ttls.clearRun(b, b + 1);
            boolean[] ttl = {false};
            boolean read = false;
            try {
                for (long c = ttls.start(b), end = ttls.end(b); c != end; ) {
                    c = map.scan(c, end, 64, (k, v) -> {
                        long at = StoredValue.expireAtOrNone(v);
                        ttl[0] |= at != StoredValue.NO_EXPIRY;
                        if (at != StoredValue.NO_EXPIRY && at > now && keys.size() < n) {
                            keys.add(SegmentBytes.toArray(k));
                            deadlines.add(at);
                        }
                        return false;
                    }, NOTHING, this::damaged);
                }
                read = true;
            } finally {
                if (ttl[0] || !read) {
                    ttls.mark(ttls.start(b));
                }
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            action.accept(keys.get(i), deadlines.get(i));
        }
    }

    /**
     * Evicts {@code key} for a sampling policy ({@link SampledEviction}), as the map's CLOCK evicts
     * under allkeys-lru: told as an eviction, counted in {@link #evictions}, its elements freed
     * now. A key whose lock is held (a command on it, maybe this thread's own) is left.
     *
     * @return the bytes freed, about: its entry's, and its elements'; -1 if it was not evicted
     */
    long evictKey(byte[] key) {
        Lock l = lock(key);
        if (l instanceof java.util.concurrent.locks.ReentrantLock r && r.isHeldByCurrentThread() || !l.tryLock()) {
            return -1;
        }
        byte[] stored;
        try {
            stored = map.get(key);
            if (stored == null || !map.remove(key)) {
                return -1;
            }
            removed(stored);
            sampledEvictions.increment();
            evicted.add(key);
        } finally {
            l.unlock();
        }
        long freed = KeyCommands.entryBytes(key.length, stored.length);
        ListElements e = elements;
        if (e != null && StoredValue.leavesElements(stored)) {
            long before = e.usedBytes();
            freeRemoved();
            freed += Math.max(0, before - e.usedBytes());
        }
        ExpirySweeper s = sweeper;
        if (s != null) {
            tellEvicted(s);
        }
        return freed;
    }

    @Override
    public byte[] randomKey() {
        byte[][] found = new byte[1][];
        sample(1, false, Integer.MAX_VALUE, (k, at) -> found[0] = k);   // at most one pass over the map
        return found[0];
    }

    private static final BiConsumer<byte[], byte[]> NOTHING = (k, v) -> { };

    private final AtomicBoolean damageReported = new AtomicBoolean();

    @Override
    public void damaged(MapCorruptedException e) {
        if (damageReported.compareAndSet(false, true)) {
            System.err.println("colossal: map file " + e.file() + " is damaged (offset=" + e.offset() + ": " + e.what()
                    + "); KEYS, SCAN, the HTTP key listing and expiry sweeps skip damaged entries, and commands on a damaged key answer an error; stop the server and run "
                    + "'colossal repair " + e.file() + "' (it drops the damaged entries and keeps the rest)");
        }
    }

    private final LongAdder noRoom = new LongAdder();
    /** When refusals were last said on stderr (nanoTime), and how many there were by then; guarded by this. */
    private long noRoomSaidAt;
    private long noRoomSaid;

    @Override
    public void noRoom(UncheckedIOException e) {
        noRoom.increment();
        long now = System.nanoTime();
        long since;
        synchronized (this) {
            if (noRoomSaid > 0 && now - noRoomSaidAt < NO_ROOM_LOG_NANOS) {
                return;
            }
            since = noRoom.sum() - noRoomSaid;
            noRoomSaid += since;
            noRoomSaidAt = now;
        }
        String why = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : e.getMessage();
        System.err.println("colossal: map file " + file + " could not grow (" + why + "): " + since + " write(s) refused"
                + " with -OOM (HTTP 507) since " + (since == noRoomSaid ? "start" : "the last such line") + ", reads go on;"
                + " the file is " + mib(fileBytes()) + ", its file system has " + mib(diskFreeBytes()) + " free. Free disk space"
                + " (writes succeed again at once) or DEL/FLUSHALL keys; said at most once a minute while writes are refused");
    }

    @Override
    public long noRoomRefusals() {
        return noRoom.sum();
    }

    @Override
    public long fileBytes() {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public long diskFreeBytes() {
        try {
            java.nio.file.FileStore store = fileStore;
            if (store == null) {
                fileStore = store = Files.getFileStore(file);
            }
            return store.getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * The file system of {@link #file}, found once: finding it reads the system's mount table, most of
     * INFO persistence's time. A SWAPDB rename stays in the data directory, so in the same store.
     */
    private volatile java.nio.file.FileStore fileStore;

    @Override
    public long repairs() {
        return map.repairs();
    }

    @Override
    public Lock lock(byte[] key) {
        return locks.lock(key);
    }

    @Override
    public Lock lock(MemorySegment key) {
        return locks.lock(key);
    }

    @Override
    public Lock[] locks(byte[]... keys) {
        return locks.locks(keys);
    }

    /** Entries a sweep step reads: a few milliseconds, after which it looks whether to stop. */
    private static final int SWEEP_STEP = 16_384;

    @Override
    public Sweep purgeExpired(BooleanSupplier keepGoing) {
        sweepWanted = false; // writes from now on want the next sweep
        Sweep done = null;
        try {
            done = sweep(keepGoing);
            return done;
        } finally {
            if (done == null || !done.complete()) {
                sweepWanted = true; // stopped or failed: the next round sweeps again
            } else {
                lastSweep = done;
            }
        }
    }

    /**
     * Reads the whole map until a whole sweep has marked every key with a TTL ({@link TtlBuckets}),
     * then only the runs of parts marked, clearing their marks first; each key with a TTL a sweep
     * sees marks its part again.
     */
    private Sweep sweep(BooleanSupplier keepGoing) {
        boolean whole = !ttls.complete();
        SweepCounts counts = new SweepCounts(clock.getAsLong());
        for (long b = whole ? 0 : ttls.nextMarked(0); b >= 0; ) {
            long after = whole ? ttls.buckets() : ttls.clearRun(b, ttls.buckets());
            long cursor = ttls.start(b);
            long end = ttls.end(after - 1);
            boolean read = false;
            try {
                do {
                    if (!keepGoing.getAsBoolean()) {
                        return new Sweep(counts.removed, 0, 0, Long.MAX_VALUE, false, whole, counts.read);
                    }
                    // A key present for the whole sweep is visited once (BytesMap.scan's cursor): counted once.
                    cursor = map.scan(cursor, end, SWEEP_STEP, counts, NOTHING, this::damaged);
                    counts.removed += removeExpired(counts.expired);
                    counts.expired.clear();
                } while (cursor != end);
                read = true;
            } finally {
                for (long u = b; !read && !whole && u < after; u++) {
                    ttls.mark(ttls.start(u)); // stopped or failed: the run's keys are not all seen, so marked again
                }
            }
            b = whole ? -1 : ttls.nextMarked(after);
        }
        if (whole) {
            ttls.completed();
        }
        return new Sweep(counts.removed, counts.expiring, counts.expiring == 0 ? 0 : counts.now + counts.sumLeft / counts.expiring,
                counts.next, true, whole, counts.read);
    }

    /** What a sweep sees: the expired keys of a step and the deadlines still ahead; each key with a TTL marks its part of the map. */
    private final class SweepCounts implements BiPredicate<MemorySegment, MemorySegment> {
        final long now;
        final List<byte[]> expired = new ArrayList<>();
        long removed;
        long read;
        long expiring;
        double sumLeft;
        long next = Long.MAX_VALUE;

        SweepCounts(long now) {
            this.now = now;
        }

        /** Counts a deadline still ahead, or keeps an expired key; copies nothing else. */
        @Override
        public boolean test(MemorySegment k, MemorySegment v) {
            read++;
            long at = StoredValue.expireAtOrNone(v);
            if (at == StoredValue.NO_EXPIRY) {
                return false;
            }
            if (at <= now) {
                expired.add(SegmentBytes.toArray(k));
            } else {
                // an expired key is removed after the step, or written again, which marks it itself
                ttls.mark(map.scanPosition(k));
                expiring++;
                sumLeft += at - now;
                next = Math.min(next, at);
            }
            return false;
        }
    }

    /** Removes each of {@code keys} that is still expired (it may have been written since it was seen). */
    private long removeExpired(List<byte[]> keys) {
        long removed = 0;
        for (byte[] key : keys) {
            Lock l = lock(key);
            l.lock();
            try {
                byte[] stored = map.get(key);
                if (stored != null && isExpired(StoredValue.expireAt(stored))) {
                    map.remove(key);
                    removed(stored);
                    removed++;
                    ExpirySweeper s = sweeper;
                    if (s != null) {
                        s.expired(this, key); // under the key's lock: no later write's event goes before it
                    }
                }
            } finally {
                l.unlock();
            }
        }
        return removed;
    }

    @Override
    public void sync() {
        map.sync();
        ListElements e = elements;
        if (e != null) {
            e.sync();
        }
    }

    @Override
    public void close() throws IOException {
        ListElements e = elements;
        if (e != null) {
            e.close();
        }
        if (dirLock == null) {
            map.close();
            return;
        }
        try {
            map.close();
            dirLock.stoppedCleanly();
        } finally {
            dirLock.close();
        }
    }
}
