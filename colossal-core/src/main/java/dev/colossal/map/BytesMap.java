package dev.colossal.map;

import dev.colossal.memory.SegmentBytes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A persistent hash map from bytes to bytes in a memory-mapped file, shared safely by threads
 * and processes: the raw face of {@link ColossalMap}.
 *
 * <p>Keys and values are 0 bytes to 1 GiB. An entry may carry an expiry time
 * ({@link #put(MemorySegment, MemorySegment, Duration)}); a write without one clears it. The file starts small and grows by itself; each of its
 * segments grows its own table and heap, so there is no size to declare and no global rehash.
 * Reads never block each other and never write; a writer locks one segment. A lock left by a
 * process that died is taken over and the segment repaired. Every operation that returned is in
 * the file: a crash at any point (kill -9) loses nothing acknowledged and leaks space at worst,
 * which the next repair or {@link #compact} takes back. For power loss, call {@link #sync}.
 *
 * <p>Methods taking {@link MemorySegment}s read them only during the call. A full disk makes the
 * write that needed space throw {@link UncheckedIOException} (its cause the {@link IOException});
 * the map is unchanged by that write. Damaged bytes make an operation throw
 * {@link MapCorruptedException} naming the file and offset. {@link #openReadOnly} opens a map for
 * reading only, with read permission on the file alone.
 *
 * <pre>{@code
 * try (BytesMap map = BytesMap.open(Path.of("users.map"))) {
 *     map.put("alice".getBytes(UTF_8), "42".getBytes(UTF_8));
 *     byte[] v = map.get("alice".getBytes(UTF_8));
 * }
 * }</pre>
 */
public final class BytesMap implements AutoCloseable {

    final MapFile file;
    private final Segment[] segments;
    private final int segmentMask;

    private BytesMap(MapFile file) {
        this.file = file;
        this.segments = new Segment[file.segmentCount];
        for (int i = 0; i < segments.length; i++) {
            segments[i] = new Segment(file, i);
        }
        for (Segment s : segments) {
            s.siblings(segments);
        }
        this.segmentMask = file.segmentCount - 1;
    }

    /**
     * Opens the map in {@code path}, creating it (mode 0600) with the default options if absent.
     *
     * @param path the map file
     * @return the open map
     * @throws MapFormatException if the file is not a map, or has a newer format, or is truncated
     * @throws IOException        if the file cannot be opened or created
     */
    public static BytesMap open(Path path) throws IOException {
        return open(path, MapOptions.DEFAULTS);
    }

    /**
     * Opens the map in {@code path}, creating it (mode 0600) with {@code options} if absent. An
     * existing file keeps its own layout, whatever {@code options} say; only a bound
     * ({@link MapOptions#withMaxEntries}, {@link MapOptions#withMaxBytes}) other than the file's is
     * refused, as the map would not keep it.
     *
     * @param path    the map file
     * @param options the layout of a new file
     * @return the open map
     * @throws IllegalArgumentException if {@code options} set a bound other than the existing file's
     * @throws MapFormatException if the file is not a map, or has a newer format, or is truncated
     * @throws IOException        if the file cannot be opened or created
     */
    public static BytesMap open(Path path, MapOptions options) throws IOException {
        return new BytesMap(MapFile.open(Objects.requireNonNull(path, "path"), Objects.requireNonNull(options, "options")));
    }

    /**
     * Creates a map that lives in memory only, for caches: its file is created in
     * {@code /dev/shm} (tmpfs) when there is one, else in the temporary directory, and unlinked
     * at once, so it vanishes when the map is closed or the process ends. It grows like any map.
     *
     * @param options the layout
     * @return the open map
     * @throws IOException if the file cannot be created
     */
    public static BytesMap inMemory(MapOptions options) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path dir = java.nio.file.Files.isDirectory(shm) && java.nio.file.Files.isWritable(shm) ? shm
                : Path.of(System.getProperty("java.io.tmpdir"));
        Path file = dir.resolve("colossal-" + ProcessHandle.current().pid() + "-" + java.util.UUID.randomUUID() + ".map");
        BytesMap map = open(file, options);
        java.nio.file.Files.delete(file);
        return map;
    }

    /** Opens an existing map for the tools, never creating one. */
    static BytesMap openExisting(Path path) throws IOException {
        return new BytesMap(MapFile.open(Objects.requireNonNull(path, "path"), null));
    }

    /**
     * Opens an existing map for tools that only read it: writable if this user may write the file
     * (so a dead writer's segment is repaired before it is read), else read-only, so that a backup
     * or another user's map can still be inspected and verified.
     */
    static BytesMap openForTools(Path path) throws IOException {
        return java.nio.file.Files.isWritable(Objects.requireNonNull(path, "path")) || !java.nio.file.Files.isReadable(path)
                ? openExisting(path) : openReadOnly(path);
    }

    /**
     * Opens an existing map for reading only: a map another process (or user) writes, a backup, a
     * file this user may only read. It needs read permission on the file and nothing else, maps it
     * read-only and never writes a byte of it: reads take no lock (each runs between two equal
     * versions of its segment, again while a writer changes it), mark nothing for eviction, and
     * read an expired entry as absent without removing it. They see what writers of this or other
     * processes store meanwhile, however far the file or its tables grow.
     *
     * <p>Every write ({@code put}, {@code remove}, {@code clear}, {@code compact}, ...) throws
     * {@link UnsupportedOperationException} naming the file, before it locks or changes anything;
     * {@link #sync} does nothing. A read waits while a live writer holds its segment's lock, as in
     * a writable open; but a segment whose writer died holding the lock can only be repaired by a
     * writer: a read that needs it throws {@link IllegalStateException} naming the segment and
     * saying so, until the map is opened writable once. A read that writers spoilt a thousand
     * times over throws {@link IllegalStateException} too (try again).
     *
     * @param path the map file
     * @return the map, open for reading
     * @throws java.nio.file.NoSuchFileException if there is no such file (none is created)
     * @throws MapFormatException                if the file is not a map, or has a newer format, or is truncated
     * @throws IOException                       if the file cannot be opened for reading
     */
    public static BytesMap openReadOnly(Path path) throws IOException {
        return new BytesMap(MapFile.openReadOnly(Objects.requireNonNull(path, "path")));
    }

    /**
     * Returns the map file.
     *
     * @return the path the map was opened with
     */
    public Path path() {
        return file.path;
    }

    /**
     * Returns the options the map's file was created with, as its header keeps them: what an
     * existing file goes by, whatever the options it was opened with said (only a different bound
     * is refused at open). {@link MapOptions#verifyReads()} is this open's.
     *
     * @return the file's layout and bounds
     */
    public MapOptions options() {
        return file.layout();
    }

    static long hash(MemorySegment key) {
        return Segment.hashKey(key, 0, Objects.requireNonNull(key, "key").byteSize());
    }

    Segment segmentFor(long hash) {
        return segments[SlotLayout.segmentOf(hash, segmentMask)];
    }

    Segment segment(int i) {
        return segments[i];
    }

    int segmentCount() {
        return segments.length;
    }

    /**
     * Looks a key up and copies its value into {@code dst} if it fits, allocating nothing.
     *
     * @param key the key bytes
     * @param dst where the value goes, from offset 0; it is untouched if the value is longer
     * @return the value's length (compare with {@code dst.byteSize()}), or -1 if the key is absent
     * @throws IllegalArgumentException if {@code dst} is read-only
     */
    public long get(MemorySegment key, MemorySegment dst) {
        long h = hash(key);
        return segmentFor(h).get(key, h, writable(dst));
    }

    /**
     * A read-only {@code dst} is the caller's mistake, to be told as one: found only when the copy
     * failed, it would read as a damaged map (and send the user to restore a sound file).
     */
    private static MemorySegment writable(MemorySegment dst) {
        if (Objects.requireNonNull(dst, "dst").isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only: values are copied into it; pass a writable segment");
        }
        return dst;
    }

    /**
     * Looks a key up and copies its value into {@code dst} at {@code dstOffset} if it fits there,
     * allocating nothing: how a server puts a value straight into its reply buffer.
     *
     * @param key       the key bytes
     * @param dst       where the value goes
     * @param dstOffset where in {@code dst} the value starts; {@code dst} is untouched if the value
     *                  is longer than {@code dst.byteSize() - dstOffset}
     * @return the value's length (compare with the room), or -1 if the key is absent
     * @throws IndexOutOfBoundsException if {@code dstOffset} is not within {@code [0, dst.byteSize()]}
     * @throws IllegalArgumentException  if {@code dst} is read-only
     */
    public long get(MemorySegment key, MemorySegment dst, long dstOffset) {
        if (dstOffset < 0 || dstOffset > writable(dst).byteSize()) {
            throw new IndexOutOfBoundsException("dstOffset=" + dstOffset + " is outside dst of byteSize=" + dst.byteSize());
        }
        long h = hash(key);
        return segmentFor(h).get(key, h, dst, dstOffset);
    }

    /**
     * Looks up many keys at once, copying their values one after the other into {@code dst}:
     * what a server's MGET needs, allocating nothing. Batches of keys are looked up together, so
     * that their cache and TLB misses overlap instead of coming one after the other; each key's
     * lookup is as atomic as {@link #get(MemorySegment, MemorySegment)} (keys are not read at one
     * moment together).
     *
     * <p>From {@code keys[from]} on, {@code lengths[i]} gets the length of key {@code i}'s value
     * (-1 if absent) and the value is copied to {@code dst} right after the previous one, the
     * first at {@code dstOffset}. It stops before a value that does not fit into the rest of
     * {@code dst}; {@code lengths} then holds that value's length at the returned index, so the
     * caller can send what it has and go on from there (with a larger buffer if nothing fitted).
     *
     * @param keys      the keys; none null
     * @param from      the first key to look up, in {@code [0, keys.length]}
     * @param lengths   gets the value lengths; at least as long as {@code keys}
     * @param dst       where the values go
     * @param dstOffset where the first value goes, in {@code [0, dst.byteSize()]}
     * @return the index after the last key whose value was copied (or found absent): {@code
     *     keys.length} when all were, {@code from} when the first value did not fit
     * @throws IndexOutOfBoundsException if {@code from} or {@code dstOffset} is out of range, or
     *                                   {@code lengths} is shorter than {@code keys}
     * @throws NullPointerException      if a key is null
     */
    public int getAll(MemorySegment[] keys, int from, long[] lengths, MemorySegment dst, long dstOffset) {
        if (from < 0 || from > keys.length || lengths.length < keys.length) {
            throw new IndexOutOfBoundsException("from=" + from + " with keys.length=" + keys.length
                    + " and lengths.length=" + lengths.length + ": from must be in 0..keys.length and lengths as long as keys");
        }
        if (dstOffset < 0 || dstOffset > writable(dst).byteSize()) {
            throw new IndexOutOfBoundsException("dstOffset=" + dstOffset + " is outside dst of byteSize=" + dst.byteSize());
        }
        Scratch scratch = Scratch.acquire();
        try {
            long at = dstOffset;
            for (int i = from; i < keys.length; ) {
                int n = Math.min(BATCH, keys.length - i);
                touch(keys, i, n, scratch);
                for (int j = 0; j < n; j++, i++) {
                    long h = scratch.hashes[j];
                    long length = segmentFor(h).get(keys[i], h, dst, at);
                    lengths[i] = length;
                    if (length > dst.byteSize() - at) {
                        return i;
                    }
                    at += Math.max(0, length);
                }
            }
            return keys.length;
        } finally {
            scratch.release();
        }
    }

    /**
     * Reads ahead what lookups of the keys from {@code keys[from]} on will read, for as many keys
     * as a batched get takes at once ({@value #BATCH}), so that their cache and TLB misses overlap
     * instead of coming one after the other. For callers that must handle each value on their own
     * (a server writing each into its reply behind a header of its own), where {@link #getAll}'s
     * packed output would be copied again:
     *
     * <pre>{@code
     * for (int i = 0; i < keys.length; ) {
     *     for (int end = map.prefetch(keys, i); i < end; i++) {
     *         long n = map.get(keys[i], dst);  // its lines are in the cache now
     *         ...
     *     }
     * }
     * }</pre>
     *
     * Only a hint: it changes nothing, takes no lock, and gets that follow read and check
     * everything again. The server's MGET of 10 random keys out of 2M (100-byte values,
     * redis-benchmark -c 50 -P 16) went from 188k to 385k requests/s with it.
     *
     * @param keys the keys; none null
     * @param from the first key to read ahead for, in {@code [0, keys.length]}
     * @return the index after the last key read ahead for ({@code keys.length} at most)
     * @throws IndexOutOfBoundsException if {@code from} is out of range
     * @throws NullPointerException      if a key read ahead for is null
     */
    public int prefetch(MemorySegment[] keys, int from) {
        if (from < 0 || from > keys.length) {
            throw new IndexOutOfBoundsException("from=" + from + " with keys.length=" + keys.length + ": from must be in 0..keys.length");
        }
        int n = Math.min(BATCH, keys.length - from);
        if (file.allocEnd() <= CACHED_BYTES) {
            // all of it fits a core's cache, where it stays while in use: reading ahead would only
            // hash every key twice (a sixth of a server's MGET of 10 keys of a small database)
            for (int j = from; j < from + n; j++) {
                if (keys[j] == null) {
                    throw new NullPointerException("keys[" + j + "] is null");
                }
            }
            return from + n;
        }
        Scratch scratch = Scratch.acquire();
        try {
            touch(keys, from, n, scratch);
        } finally {
            scratch.release();
        }
        return from + n;
    }

    /** A map file up to this size is read without {@link #prefetch}'s read-ahead: a core's L2 cache holds it. */
    static final long CACHED_BYTES = 2L << 20;

    /**
     * Keys a batched get looks up together: misses enough in flight to keep the CPU's miss
     * buffers busy, few enough that the loads of a step fit in its reorder window. (15M entries
     * of 80 bytes: 32 took 177 ns per key where 16 took 185-198.)
     */
    static final int BATCH = 32;

    /**
     * Hashes {@code keys[from, from + n)} into {@code scratch.hashes} and reads ahead what their
     * lookups will read: every key's home slot and the slot three on (a key often lies a slot or
     * two past its home, and that may be the next line), then the first three lines of every
     * entry those slots name, then the rest of each larger entry. The third line is read before
     * the entry's header says it is needed: an 80-byte entry spans two or three lines, and
     * waiting for its header to know cost a round of misses (177 ns per key down to 160; entries
     * of 24 bytes, which waste the line, lose 4%). The loads of one step do not depend on each other,
     * so the CPU has the misses of all the keys in flight at once, where gets one after the other
     * wait for two misses each in turn. Only a hint, read without the seqlock: the gets that
     * follow read everything again and check it.
     */
    void touch(MemorySegment[] keys, int from, int n, Scratch scratch) {
        long[] hashes = scratch.hashes;
        long[] entries = scratch.entries;
        for (int j = 0; j < n; j++) {
            MemorySegment k = keys[from + j];
            if (k == null) {
                throw new NullPointerException("keys[" + (from + j) + "] is null");
            }
            hashes[j] = hash(k);
        }
        long sum = 0;
        try {
            MemorySegment m = file.mem();
            long size = m.byteSize();
            // Each step computes addresses first, then loads them in a loop of a few instructions
            // per key: the fewer instructions between two misses, the more of them the CPU's
            // reorder window holds at once.
            for (int j = 0; j < n; j++) {
                entries[j] = segmentFor(hashes[j]).homeSlotOffset(m, hashes[j]);
            }
            for (int j = 0; j < n; j++) {
                long at = entries[j];
                if (at >= 0) {
                    sum += Mem.getLong(m, at) + Mem.getLong(m, Math.min(at + 3 * Long.BYTES, size - Long.BYTES));
                }
            }
            for (int j = 0; j < n; j++) {
                entries[j] = segmentFor(hashes[j]).touchedEntry(m, hashes[j]);
            }
            for (int j = 0; j < n; j++) {
                long e = entries[j];
                if (e >= 0) {
                    sum += m.get(ValueLayout.JAVA_BYTE, e) + (e + TOUCH_LINE < size ? m.get(ValueLayout.JAVA_BYTE, e + TOUCH_LINE) : 0)
                            + (e + 2 * TOUCH_LINE < size ? m.get(ValueLayout.JAVA_BYTE, e + 2 * TOUCH_LINE) : 0);
                }
            }
            for (int j = 0; j < n; j++) {
                long e = entries[j];
                long header = e < 0 ? -1 : EntryLayout.header(m, e);
                if (header >= 0) {
                    long end = Math.min(size, e + Math.min(EntryLayout.bytes(header), TOUCH_MAX));
                    for (long line = (e & -TOUCH_LINE) + 3 * TOUCH_LINE; line < end; line += TOUCH_LINE) {
                        sum += m.get(ValueLayout.JAVA_BYTE, line);
                    }
                }
            }
        } catch (IllegalStateException retired) {
            // The mapping was replaced (or the map closed): the gets will tell which.
        }
        scratch.touched = sum;
    }

    /** A cache line: entries are touched a line at a time. */
    private static final long TOUCH_LINE = 64;
    /** Bytes of an entry touched ahead: the copy of a larger value streams anyway. */
    private static final long TOUCH_MAX = 1024;

    /**
     * Returns a copy of the value of {@code key}.
     *
     * @param key the key bytes
     * @return the value, or null if the key is absent
     */
    public byte[] get(byte[] key) {
        MemorySegment k = MemorySegment.ofArray(key);
        long h = hash(k);
        Scratch scratch = Scratch.acquire();
        try {
            MemorySegment dst = scratch.value(0);
            while (true) {
                long n = segmentFor(h).get(k, h, dst);
                if (n < 0) {
                    return null;
                }
                if (n <= dst.byteSize()) {
                    if (n == dst.byteSize() && dst.heapBase().orElse(null) instanceof byte[] whole) {
                        return whole;
                    }
                    return SegmentBytes.toArray(dst, 0, Math.toIntExact(n));
                }
                dst = scratch.value(n);
            }
        } finally {
            scratch.release();
        }
    }

    /**
     * Tells whether the map holds {@code key}.
     *
     * @param key the key bytes
     * @return true if present
     */
    public boolean containsKey(MemorySegment key) {
        long h = hash(key);
        return segmentFor(h).get(key, h, null) >= 0;
    }

    /**
     * Maps {@code key} to {@code value}, replacing any value it had.
     *
     * @param key   the key bytes
     * @param value the value bytes
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if the key or value is longer than 1 GiB
     */
    public void put(MemorySegment key, MemorySegment value) {
        write(key, value, 0, false);
    }

    /**
     * Maps {@code key} to the bytes {@code [valueOffset, valueOffset + valueLength)} of
     * {@code value}, replacing any value it had: a value cut from a larger buffer (a network
     * request) is copied into the map once, with no slice allocated for it.
     *
     * @param key         the key bytes
     * @param value       holds the value bytes
     * @param valueOffset where in {@code value} they start
     * @param valueLength how many there are
     * @throws IndexOutOfBoundsException if the range is not within {@code value}
     * @throws UncheckedIOException      if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException  if the key or value is longer than 1 GiB
     */
    public void put(MemorySegment key, MemorySegment value, long valueOffset, long valueLength) {
        Objects.checkFromIndexSize(valueOffset, valueLength, value.byteSize());
        write(key, value, valueOffset, valueLength, 0, false);
    }

    /**
     * Maps {@code key} to {@code value}, replacing any value it had.
     *
     * @param key   the key bytes
     * @param value the value bytes
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if the key or value is longer than 1 GiB
     */
    public void put(byte[] key, byte[] value) {
        put(MemorySegment.ofArray(key), MemorySegment.ofArray(value));
    }

    /**
     * Maps {@code key} to {@code value} until {@code ttl} has passed; after that the entry reads
     * as absent and is removed when its segment next needs room, or by {@link #purgeExpired}.
     * Expiry has millisecond resolution against the system clock; a {@code ttl} that is not whole
     * milliseconds is rounded up.
     *
     * @param key   the key bytes
     * @param value the value bytes
     * @param ttl   how long the entry lives, positive
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public void put(MemorySegment key, MemorySegment value, Duration ttl) {
        write(key, value, expiry(ttl), false);
    }

    /**
     * Maps {@code key} to {@code value} until {@code ttl} has passed, unless the key is present: a
     * lease or a lock with a timeout taken in one step (Redis {@code SET NX EX}). An expired entry
     * counts as absent.
     *
     * @param key   the key bytes
     * @param value the value bytes
     * @param ttl   how long the entry lives, positive; rounded up to whole milliseconds
     * @return true if the value was stored, false if the key was present
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public boolean putIfAbsent(MemorySegment key, MemorySegment value, Duration ttl) {
        return write(key, value, expiry(ttl), true);
    }

    /**
     * Makes {@code key}'s entry expire when {@code ttl} has passed from now, keeping its value:
     * a session's lease renewed, or an expiry set on an entry stored without one (Redis {@code
     * EXPIRE}). The entry is rewritten whole (a new copy published as a put is), so it is as crash
     * safe as a put, and costs as much.
     *
     * @param key the key bytes
     * @param ttl how long the entry lives from now, positive; rounded up to whole milliseconds
     * @return true if the key was present, false if absent or expired (nothing is stored then)
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public boolean expire(MemorySegment key, Duration ttl) {
        return rewriteExpiry(key, expiry(ttl));
    }

    /** As {@link #expire}, with the expiry time decided, and this thread's scratch taken. */
    private boolean rewriteExpiry(MemorySegment key, long expiresAt) {
        Scratch scratch = Scratch.acquire();
        try {
            return rewriteExpiry(key, expiresAt, scratch);
        } finally {
            scratch.release();
        }
    }

    /**
     * Makes {@code key}'s entry live until it is removed, keeping its value (Redis {@code PERSIST}).
     *
     * @param key the key bytes
     * @return true if the key was present, false if absent or expired
     * @throws UncheckedIOException if the file could not grow (disk full); nothing changed
     */
    public boolean persist(MemorySegment key) {
        return rewriteExpiry(key, 0);
    }

    /**
     * Rewrites {@code key}'s entry to expire at {@code expiresAt} (0 for never), copying its value
     * through {@code scratch}'s value buffer (a typed map's caller holds the scratch its key is in).
     */
    boolean rewriteExpiry(MemorySegment key, long expiresAt, Scratch scratch) {
        file.checkWritable();
        long h = hash(key);
        Segment s = segmentFor(h);
        s.lock();
        try {
            long slot = s.liveSlot(key, h);
            if (slot < 0) {
                return false;
            }
            if (s.expiryToKeep(slot) != expiresAt) {
                // Copied out first: the store makes room (evicting, purging, merging free runs)
                // before it copies the value, and none of that need know its source is an entry.
                MemorySegment old = s.value(s.entryAt(slot));
                MemorySegment copy = scratch.value(old.byteSize());
                MemorySegment.copy(old, 0, copy, 0, old.byteSize());
                s.store(slot, key, h, copy, 0, old.byteSize(), expiresAt);
            }
            return true;
        } catch (IOException e) {
            throw cannotGrow(e);
        } finally {
            s.unlock();
        }
    }

    long expiry(Duration ttl) {
        if (Objects.requireNonNull(ttl, "ttl is null: use put without a ttl for an entry that never expires").isNegative()
                || ttl.isZero()) {
            throw new IllegalArgumentException("ttl=" + ttl + " must be positive; use remove to drop an entry");
        }
        long now = file.nowMillis();
        // a ttl past what milliseconds hold (Duration.ofSeconds(Long.MAX_VALUE)) is the end of time;
        // a part of a millisecond counts as one: cut off, a ttl under 1 ms expired as it was written
        long millis = ttl.compareTo(MAX_TTL) >= 0 ? Long.MAX_VALUE : ttl.plusNanos(999_999).toMillis();
        return Math.max(1, now + Math.min(millis, Long.MAX_VALUE - now));
    }

    private static final Duration MAX_TTL = Duration.ofMillis(Long.MAX_VALUE);

    /**
     * Tells when {@code key} expires.
     *
     * @param key the key bytes
     * @return the expiry time in epoch milliseconds, 0 if the entry never expires, -1 if absent
     */
    public long expiresAt(MemorySegment key) {
        long h = hash(key);
        return segmentFor(h).expiresAt(key, h);
    }

    /**
     * Removes every expired entry now, one segment at a time (expired entries already read as
     * absent; this returns their space).
     *
     * @return how many entries were removed
     */
    public long purgeExpired() {
        return eachSegmentLocked(Segment::purgeExpired);
    }

    /** Runs {@code op} on every segment under its lock, one at a time; sums the results. */
    private long eachSegmentLocked(ToLongFunction<Segment> op) {
        file.checkWritable();
        long n = 0;
        for (Segment s : segments) {
            s.lock();
            try {
                n += op.applyAsLong(s);
            } finally {
                s.unlock();
            }
        }
        return n;
    }

    /**
     * Maps each {@code keys[i]} to {@code values[i]}, replacing any value it had: {@link
     * #put(MemorySegment, MemorySegment)} for many keys, looked up in batches whose cache and TLB
     * misses overlap (as {@link #getAll} does), so a random key of a large file costs a fraction
     * of a lone put. Each put is atomic on its own and in the order given; the puts are not one
     * atomic step together, and a failure (disk full) leaves the ones before it stored.
     *
     * @param keys   the keys; none null
     * @param values the values, as many as keys; none null
     * @throws IllegalArgumentException if the arrays differ in length, or a key or value is longer than 1 GiB
     * @throws NullPointerException     if a key or value is null (checked before anything is stored)
     * @throws UncheckedIOException     if the file could not grow (disk full); the puts before it are stored
     */
    public void putAll(MemorySegment[] keys, MemorySegment[] values) {
        if (keys.length != values.length) {
            throw new IllegalArgumentException("keys.length=" + keys.length + " but values.length=" + values.length
                    + ": each key needs its value");
        }
        writeAll(keys, values);
    }

    /**
     * Puts {@code values[i]} under {@code keys[i]}, or removes {@code keys[i]} if {@code values} is
     * null, a batch at a time: the batch's slots and entries read ahead together (see {@link
     * #touch}), then each key written under its lock. Every key and value is checked for null first.
     *
     * @return how many keys were present (counted for removes only)
     */
    private int writeAll(MemorySegment[] keys, MemorySegment[] values) {
        file.checkWritable();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == null || values != null && values[i] == null) {
                throw new NullPointerException((keys[i] == null ? "keys[" : "values[") + i + "] is null");
            }
        }
        int removed = 0;
        Scratch scratch = Scratch.acquire();
        try {
            for (int i = 0; i < keys.length; ) {
                int n = Math.min(BATCH, keys.length - i);
                touch(keys, i, n, scratch);
                for (int j = 0; j < n; j++, i++) {
                    if (values != null) {
                        store(keys[i], scratch.hashes[j], values[i]);
                    } else if (remove(keys[i], scratch.hashes[j])) {
                        removed++;
                    }
                }
            }
        } finally {
            scratch.release();
        }
        return removed;
    }

    /**
     * Maps {@code key} to {@code value} unless the key is present.
     *
     * @param key   the key bytes
     * @param value the value bytes
     * @return true if the value was stored, false if the key was present
     * @throws UncheckedIOException if the file could not grow (disk full); nothing changed
     */
    public boolean putIfAbsent(MemorySegment key, MemorySegment value) {
        return write(key, value, 0, true);
    }

    /**
     * Stores a copy of {@code value} under the key's segment lock, unless {@code onlyIfAbsent} and
     * the key is present. No lambda: the raw writes allocate nothing.
     */
    boolean write(MemorySegment key, MemorySegment value, long expiresAt, boolean onlyIfAbsent) {
        return write(key, value, 0, value.byteSize(), expiresAt, onlyIfAbsent);
    }

    private boolean write(MemorySegment key, MemorySegment value, long valueOffset, long valueLength, long expiresAt,
                          boolean onlyIfAbsent) {
        return write(key, hash(key), value, valueOffset, valueLength, expiresAt, onlyIfAbsent);
    }

    /** A put of a key whose hash {@code h} is known (a batch's: {@link #touch} computed it). */
    void store(MemorySegment key, long h, MemorySegment value) {
        write(key, h, value, 0, value.byteSize(), 0, false);
    }

    private boolean write(MemorySegment key, long h, MemorySegment value, long valueOffset, long valueLength, long expiresAt,
                          boolean onlyIfAbsent) {
        file.checkWritable();
        Segment s = segmentFor(h);
        s.lock();
        try {
            long slot = s.liveSlot(key, h);
            if (onlyIfAbsent && slot >= 0) {
                return false;
            }
            s.store(slot, key, h, value, valueOffset, valueLength, expiresAt);
            return true;
        } catch (IOException e) {
            throw cannotGrow(e);
        } finally {
            s.unlock();
        }
    }

    /**
     * Removes {@code key}.
     *
     * @param key the key bytes
     * @return true if it was present
     */
    public boolean remove(MemorySegment key) {
        return remove(key, hash(key));
    }

    /** A remove of a key whose hash {@code h} is known (a batch's: {@link #touch} computed it). */
    boolean remove(MemorySegment key, long h) {
        file.checkWritable();
        Segment s = segmentFor(h);
        s.lock();
        try {
            long slot = s.liveSlot(key, h);
            if (slot >= 0) {
                s.delete(slot);
            }
            return slot >= 0;
        } finally {
            s.unlock();
        }
    }

    /**
     * Removes {@code key} and copies its value into {@code dst} at {@code dstOffset}: a get and a
     * remove in one lookup under one lock, a queue's pop. A value longer than the room is neither
     * copied nor removed: the caller makes room for the length returned and takes again.
     *
     * @param key       the key bytes
     * @param dst       where the value goes
     * @param dstOffset where in {@code dst} the value starts
     * @return the value's length (taken only if it is at most {@code dst.byteSize() - dstOffset}),
     *         or -1 if the key is absent
     * @throws IndexOutOfBoundsException if {@code dstOffset} is not within {@code [0, dst.byteSize()]}
     * @throws IllegalArgumentException  if {@code dst} is read-only
     */
    public long take(MemorySegment key, MemorySegment dst, long dstOffset) {
        if (dstOffset < 0 || dstOffset > writable(dst).byteSize()) {
            throw new IndexOutOfBoundsException("dstOffset=" + dstOffset + " is outside dst of byteSize=" + dst.byteSize());
        }
        file.checkWritable();
        long h = hash(key);
        Segment s = segmentFor(h);
        s.lock();
        try {
            long slot = s.liveSlot(key, h);
            if (slot < 0) {
                return -1;
            }
            long n = s.copyValue(slot, dst, dstOffset);
            if (n <= dst.byteSize() - dstOffset) {
                s.delete(slot);
            }
            return n;
        } finally {
            s.unlock();
        }
    }

    /**
     * Replaces {@code key}'s value with {@code value} if it is {@code expected}, byte for byte: a
     * compare-and-set on raw bytes, atomic across threads and processes, allocating nothing; a
     * loop of {@link #get(MemorySegment, MemorySegment)} and this updates a value in place of a
     * lock (a counter, a state machine). The entry keeps its expiry time, as an update does.
     *
     * @param key      the key bytes
     * @param expected the bytes the value must hold
     * @param value    the new value bytes
     * @return true if the value was replaced, false if the key is absent or holds other bytes
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if the value is longer than 1 GiB
     */
    public boolean replace(MemorySegment key, MemorySegment expected, MemorySegment value) {
        Objects.requireNonNull(value, "value");
        return ifHolds(key, expected, value);
    }

    /**
     * Removes {@code key} if its value is {@code expected}, byte for byte; atomic across threads
     * and processes.
     *
     * @param key      the key bytes
     * @param expected the bytes the value must hold
     * @return true if the entry was removed
     */
    public boolean remove(MemorySegment key, MemorySegment expected) {
        return ifHolds(key, expected, null);
    }

    /** Under the key's lock: if its value is {@code expected}, replaces it with {@code value}, or removes it if null. */
    private boolean ifHolds(MemorySegment key, MemorySegment expected, MemorySegment value) {
        Objects.requireNonNull(expected, "expected");
        file.checkWritable();
        long h = hash(key);
        Segment s = segmentFor(h);
        s.lock();
        try {
            long slot = s.liveSlot(key, h);
            if (slot < 0 || !s.valueIs(slot, expected)) {
                return false;
            }
            if (value == null) {
                s.delete(slot);
            } else {
                s.store(slot, key, h, value, s.expiryToKeep(slot));
            }
            return true;
        } catch (IOException e) {
            throw cannotGrow(e);
        } finally {
            s.unlock();
        }
    }

    /**
     * Removes every key of {@code keys}: {@link #remove(MemorySegment)} for many keys, looked up in
     * batches whose cache and TLB misses overlap (as {@link #getAll} does). Each removal is atomic
     * on its own and in the order given; together they are not one step.
     *
     * @param keys the keys; none null (checked before anything is removed)
     * @return how many of them were present
     * @throws NullPointerException if a key is null
     */
    public int removeAll(MemorySegment[] keys) {
        return writeAll(keys, null);
    }

    /**
     * Removes {@code key}.
     *
     * @param key the key bytes
     * @return true if it was present
     */
    public boolean remove(byte[] key) {
        return remove(MemorySegment.ofArray(key));
    }

    UncheckedIOException cannotGrow(IOException e) {
        // Space that removals free stays with its segment (but for chunks left empty, which a
        // compact gives to every segment), so removing keys on a full disk may not make room for
        // others: say what does.
        return new UncheckedIOException("map file=" + file.path + " could not grow: " + e.getMessage()
                + "; free disk space and retry (the map is unchanged). Space freed by removing entries serves"
                + " keys of the same segment; chunks left empty serve every segment after 'colossal compact'"
                + " (clear() gives them at once); 'colossal copy' packs the map into a smaller new file", e);
    }

    /**
     * Returns the number of entries.
     *
     * @return the sum of the segments' counts, each read once; expired entries count until removed
     */
    public long size() {
        return sum(Segment::liveEntries);
    }

    /**
     * Returns a number that changes whenever an entry may have changed: for a caller that redoes
     * work over the whole map (a walk, a summary) only when something was written since. Writes by
     * other processes sharing the file count too; a map no one writes keeps the same number.
     *
     * @return the sum of the segments' write counters, each read once
     */
    public long changeStamp() {
        return sum(Segment::version);
    }

    /**
     * Returns the bytes the entries take, each rounded up to whole blocks: what a bound set with
     * {@link MapOptions#withMaxBytes} counts, each segment keeping within its share of it. Expired
     * entries count until removed.
     *
     * @return the sum of the segments' counts, each read once
     */
    public long usedBytes() {
        return sum(Segment::usedBytes);
    }

    /**
     * Evicts entries as a bounded map does to make room for a write, until at least {@code bytes}
     * of entry bytes (as {@link #usedBytes} counts them) are freed or the map is empty: for a caller
     * that keeps several maps within one budget, such as a server whose databases share one bound.
     * The segments give about equal shares, each chosen by its CLOCK hand: an expired entry goes
     * at once, one read or written since the hand last passed is spared once. Evicted entries count
     * in {@link #evictions}. In a map without a bound reads do not mark entries, so there the hand
     * takes them in table order.
     *
     * @param bytes the bytes to free; 0 or less frees nothing
     * @return the bytes freed: at least {@code bytes} unless the map became empty, and at most about
     *     one entry per segment more
     * @throws UnsupportedOperationException if the map was opened read-only
     */
    public long evict(long bytes) {
        return evict(bytes, null);
    }

    /**
     * {@link #evict(long)}, passing over the entries whose keys {@code spare} accepts, as if read
     * since the hand last passed: for a caller that knows better than the CLOCK which entries are
     * in use right now (a server sparing the keys its commands are writing). Called under the
     * entry's segment lock, with the key valid during the call only: keep it short, and do not
     * call the map from it.
     *
     * @param bytes the bytes to free; 0 or less frees nothing
     * @param spare keys not to evict this time; null spares none
     * @return the bytes freed: less than {@code bytes} if only spared entries were left
     * @throws UnsupportedOperationException if the map was opened read-only
     */
    public long evict(long bytes, Predicate<MemorySegment> spare) {
        file.checkWritable();
        long freed = 0;
        int n = segments.length;
        int from = evictFrom;
        while (freed < bytes) {
            long round = freed;
            long share = Math.max(1, (bytes - freed + n - 1) / n);
            for (int i = 0; i < n && freed < bytes; i++) {
                Segment s = segments[(from + i) & (n - 1)];
                if (s.liveEntries() == 0) {
                    continue;
                }
                s.lock();
                try {
                    freed += s.evict(Math.min(share, bytes - freed), spare);
                } finally {
                    s.unlock();
                }
            }
            // The next call starts one segment on: small requests must not always drain the first.
            from = (from + 1) & (n - 1);
            if (freed == round) {
                break; // nothing left to evict
            }
        }
        evictFrom = from;
        return freed;
    }

    /**
     * Tells {@code listener} of every entry this process's writes (and {@link #evict}) remove by the
     * CLOCK hand from now on, replacing any listener set before; null stops telling. Other processes'
     * evictions are told to their own listeners.
     *
     * @param listener called under the entry's segment lock (see {@link EvictionListener}), or null
     */
    public void onEviction(EvictionListener listener) {
        file.evictionListener = listener;
    }

    /** Where the next {@link #evict} starts; a hint, so racing callers need not agree. */
    private int evictFrom;

    /**
     * Returns how many entries this process evicted to keep the map within its bound (see {@link
     * MapOptions#withMaxEntries}) since it opened the map: a cache's miss rate explained. Other
     * processes' evictions are theirs to count; expired entries removed are not evictions.
     *
     * @return the count, 0 for an unbounded map
     */
    public long evictions() {
        return sum(Segment::evictions);
    }

    /**
     * Returns how many times, over the file's life, a segment was repaired after its writer died
     * holding its lock (killed, crashed, or a copy of the file made while it wrote): each time, the
     * segment's free space was rebuilt from its table and chunks. What {@code colossal inspect}
     * calls repairs.
     *
     * @return the sum of the segments' counts
     */
    public long repairs() {
        return sum(Segment::repairs);
    }

    private long sum(ToLongFunction<Segment> count) {
        long n = 0;
        for (Segment s : segments) {
            n += count.applyAsLong(s);
        }
        return n;
    }

    /**
     * Repairs now every segment a gone writer left locked, instead of on the segment's first use: a
     * server after a crash, so that it can say what recovery took. Takes each segment's lock in
     * turn (waiting while a live writer holds it); a segment whose lock a dead process held is
     * repaired as any use of it would.
     *
     * @return how many segments were repaired
     * @throws UnsupportedOperationException if the map was opened read-only
     */
    public int recoverLocks() {
        int repaired = 0;
        for (Segment s : segments) {
            long before = s.repairs();
            s.lockForRead();
            s.unlockForRead();
            if (s.repairs() != before) {
                repaired++;
            }
        }
        return repaired;
    }

    /**
     * Returns the longest value this map stores under a key of {@code keyLength} bytes, without an
     * expiry time (one takes 8 bytes more): 1 GiB, or in a map bounded by bytes what one entry may
     * take of a segment's share of the bound ({@link MapOptions#withMaxBytes}), past which a put is
     * refused. A check before a write of many keys, so that none is stored when one would be
     * refused.
     *
     * @param keyLength the key's length in bytes
     * @return the length, or -1 if no value fits beside such a key
     */
    public long maxValueLength(long keyLength) {
        if (file.maxBlocksPerSegment == 0) {
            return keyLength <= EntryLayout.MAX_LENGTH ? EntryLayout.MAX_LENGTH : -1;
        }
        long room = file.maxBlocksPerSegment << file.blockShift;
        long keyed = EntryLayout.bytes(keyLength, 0, 0) - 1;   // all but the value and its length's varint
        long longest = -1;
        for (int varint = 1; varint <= 5; varint++) {
            long value = room - keyed - varint;
            if (value >= 0 && EntryLayout.bytes(keyLength, value, 0) <= room) {
                longest = Math.max(longest, value);
            }
        }
        return Math.min(longest, EntryLayout.MAX_LENGTH);
    }

    /** Whether some entry may carry an expiry time (so {@link #size} may count expired ones). */
    boolean mayExpire() {
        for (Segment s : segments) {
            if (s.mayExpire()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Calls {@code action} with a copy of every entry. Weakly consistent: entries are copied a step
     * of a few hundred at a time (with their segment's writers held off for that step only), and an
     * entry present throughout is met exactly once, however the map changes meanwhile; one added or
     * removed meanwhile may or may not be. It never throws because of concurrent changes, and holds
     * one step's copies at a time, whatever the map's size.
     *
     * @param action receives key and value
     */
    public void forEach(BiConsumer<byte[], byte[]> action) {
        scan((k, v) -> true, action);
    }

    /**
     * Calls {@code action} with a copy of every entry whose raw bytes pass {@code filter}; the
     * filter sees read-only views of the mapped bytes, valid only during the call, and runs with
     * the segment's writers held off (readers go on); in a map opened read-only, which holds no
     * writer off, it sees copies read between two equal versions of the segment. Weakly
     * consistent, like {@link #forEach}.
     *
     * @param filter tests key and value bytes without copying them
     * @param action receives a copy of each entry that passed
     * @return the number of entries that passed
     */
    public long scan(BiPredicate<MemorySegment, MemorySegment> filter, BiConsumer<byte[], byte[]> action) {
        long hits = 0;
        List<byte[][]> copies = new ArrayList<>();
        for (long cursor = 0; cursor < scanCursorLimit(); ) {
            copies.clear();
            cursor = walkStep(cursor, scanCursorLimit(), (k, v, expiresAt) -> filter.test(k, v)
                    ? new byte[][] {SegmentBytes.toArray(k), SegmentBytes.toArray(v)} : null, copies);
            for (byte[][] kv : copies) {
                action.accept(kv[0], kv[1]);
            }
            hits += copies.size();
        }
        return hits;
    }

    /**
     * The most entries a step of a full walk visits: a segment up to this size is walked in one
     * step, its entries in file order (a walk of 1M entries in steps of 256 took 2.5x as long, each
     * step's entries lying scattered over the heap); a larger one in steps that hold its writers off
     * for milliseconds, not for the whole segment.
     */
    private static final int WALK_ENTRIES = 1 << 16;
    /**
     * Entries per step in a segment larger than {@link #WALK_ENTRIES}: its steps read scattered
     * entries whatever their size, so small ones cost little more and hold writers off for
     * milliseconds (steps of 64k held them ~60 ms in a segment of 3M).
     */
    private static final int PART_ENTRIES = 1 << 13;
    /** The most bytes (about) a step of a full walk copies: what an iterator holds at once. */
    private static final long WALK_BYTES = 4 << 20;

    /**
     * One step of a full walk ({@link #forEach}, the typed map's views): as {@link #step}, with as
     * many entries as {@link #WALK_ENTRIES} and {@link #WALK_BYTES} allow, never past the end of
     * the cursor's segment.
     */
    <T> long walkStep(long cursor, long end, EntryMapper<T> mapper, List<T> out) {
        int seg = (int) (cursor >>> SlotLayout.TAG_BITS);
        Segment s = segments[seg];
        long live = s.liveEntries();
        long meanBytes = live <= 0 ? 1 : Math.max(1, s.usedBytes() / live);
        int count = Math.clamp(WALK_BYTES / meanBytes, 1, live <= WALK_ENTRIES ? WALK_ENTRIES : PART_ENTRIES);
        return step(cursor, Math.min(end, ((long) seg + 1) << SlotLayout.TAG_BITS), count, mapper, out);
    }

    /**
     * One step of a scan that can stop and resume, as Redis's SCAN: visits about {@code count}
     * entries from {@code cursor} on and calls {@code action} with a copy of each that passes
     * {@code filter}; returns the cursor of the next step, 0 once the whole map has been visited.
     * Start with cursor 0. An entry present for the whole scan is visited exactly once, however
     * the map grows or shrinks meanwhile (the cursor is a position in hash order, which no growth
     * moves); one added or removed meanwhile may or may not be. A step costs about {@code count}
     * entries, not the map's size, and holds one segment's writers off at a time.
     *
     * @param cursor 0, or what the previous step returned
     * @param count  about how many entries to visit (a step may visit fewer or more, and pass none
     *               of them to {@code action} with a non-zero cursor left)
     * @param filter tests key and value bytes without copying them (read-only views, valid during the call)
     * @param action receives a copy of each entry that passed
     * @return the cursor of the next step, or 0 when done
     * @throws IllegalArgumentException if {@code cursor} is not one this map returns, or {@code count < 1}
     */
    public long scan(long cursor, int count, BiPredicate<MemorySegment, MemorySegment> filter, BiConsumer<byte[], byte[]> action) {
        return scan(cursor, count, filter, action, null);
    }

    /**
     * {@link #scan(long, int, BiPredicate, BiConsumer)} that goes on past damaged entries: an entry
     * that fails its checks (a bad checksum, a malformed header, a position outside the file) is
     * handed to {@code damaged} and stepped over, where the plain scan throws and every step over
     * that part of the map keeps throwing. What a server's KEYS or an expiry sweep needs on a map
     * that took some damage, until {@code colossal repair} drops it. Damage to a table or a chunk
     * list still throws.
     *
     * @param cursor  0, or what the previous step returned
     * @param count   about how many entries to visit
     * @param filter  tests key and value bytes without copying them (read-only views, valid during the call)
     * @param action  receives a copy of each entry that passed
     * @param damaged receives each damaged entry met, as the exception a read of it throws (names
     *                the file and offset); null to throw it instead
     * @return the cursor of the next step, or 0 when done
     * @throws IllegalArgumentException if {@code cursor} is not one this map returns, or {@code count < 1}
     */
    public long scan(long cursor, int count, BiPredicate<MemorySegment, MemorySegment> filter, BiConsumer<byte[], byte[]> action,
                     Consumer<MapCorruptedException> damaged) {
        long next = scan(cursor, scanCursorLimit(), count, filter, action, damaged);
        return next == scanCursorLimit() ? 0 : next;
    }

    /**
     * {@link #scan(long, int, BiPredicate, BiConsumer, Consumer)} over the cursors {@code [cursor,
     * end)} only: a part of the map's order, such as the one a {@link #scanPosition} lies in.
     *
     * @param cursor  where to start: 0, a {@link #scanPosition}, or what the previous step returned
     * @param end     where to stop, at most {@link #scanCursorLimit()}
     * @param count   about how many entries to visit
     * @param filter  tests key and value bytes without copying them (read-only views, valid during the call)
     * @param action  receives a copy of each entry that passed
     * @param damaged receives each damaged entry met (see the method above); null to throw it instead
     * @return the cursor of the next step, {@code end} when the range is done
     * @throws IllegalArgumentException if the cursors are not this map's, or {@code count < 1}
     */
    public long scan(long cursor, long end, int count, BiPredicate<MemorySegment, MemorySegment> filter,
                     BiConsumer<byte[], byte[]> action, Consumer<MapCorruptedException> damaged) {
        if (cursor < 0 || cursor >= end || end > scanCursorLimit() || count < 1) {
            throw new IllegalArgumentException("cursor=" + cursor + " end=" + end + " count=" + count + ": the cursor must be 0 or one"
                    + " a scan of this map returned, below the end, which is at most " + scanCursorLimit() + "; the count at least 1");
        }
        List<byte[][]> copies = new ArrayList<>();
        long next = step(cursor, end, count, (k, v, expiresAt) -> filter.test(k, v)
                ? new byte[][] {SegmentBytes.toArray(k), SegmentBytes.toArray(v)} : null, copies, damaged);
        for (byte[][] kv : copies) {
            action.accept(kv[0], kv[1]);
        }
        return next;
    }

    /**
     * Where {@code key} lies in a scan's order, present or not: a scan over cursors that include
     * this position visits the key if it is there. It depends on the key's hash and the segment
     * count alone, so no growth of the map moves it: an index of which parts of the order hold
     * some kind of entry stays true for the map's life.
     *
     * @param key the key's bytes
     * @return a cursor below {@link #scanCursorLimit()}
     */
    public long scanPosition(MemorySegment key) {
        long hash = hash(key);
        return (long) SlotLayout.segmentOf(hash, segmentMask) << SlotLayout.TAG_BITS | SlotLayout.tag(hash);
    }

    /**
     * One step of a walk over the cursors {@code [cursor, end)} (as {@link #scan(long, int,
     * BiPredicate, BiConsumer)}'s): visits about {@code count} entries, adds what {@code mapper}
     * makes of each to {@code out} (null is dropped) and returns where to go on, {@code end} when
     * done. The mapper runs with the entries' segment held still; what it keeps must be a copy.
     */
    <T> long step(long cursor, long end, int count, EntryMapper<T> mapper, List<T> out) {
        return step(cursor, end, count, mapper, out, null);
    }

    /** {@link #step(long, long, int, EntryMapper, List)} that hands damaged entries to {@code damaged} and goes on, if not null. */
    private <T> long step(long cursor, long end, int count, EntryMapper<T> mapper, List<T> out,
                          Consumer<MapCorruptedException> damaged) {
        long tags = 1L << SlotLayout.TAG_BITS;
        long visited = 0;
        while (visited < count && cursor < end) {
            int seg = (int) (cursor >>> SlotLayout.TAG_BITS);
            long tag = cursor & (tags - 1);
            Segment s = segments[seg];
            // Tags spread evenly over a segment's entries: a span holding about what is left to visit.
            long live = s.liveEntries();
            long span = live == 0 ? tags : Math.max(1, (count - visited) * tags / live);
            long segmentEnd = Math.min(end, ((long) seg + 1) << SlotLayout.TAG_BITS);
            long to = Math.min(segmentEnd - ((long) seg << SlotLayout.TAG_BITS), tag + span);
            long[] seen = {0};
            out.addAll(snapshot(seg, tag, to, (k, v, expiresAt) -> {
                seen[0]++;
                return mapper.map(k, v, expiresAt);
            }, damaged));
            visited += seen[0];
            cursor = ((long) seg << SlotLayout.TAG_BITS) + to;
        }
        return cursor;
    }

    /**
     * Returns the bound of {@link #scan(long, int, BiPredicate, BiConsumer)}'s cursors: every cursor
     * a scan of this map returns is below it.
     *
     * @return one past the largest cursor
     */
    public long scanCursorLimit() {
        return (long) segments.length << SlotLayout.TAG_BITS;
    }

    /**
     * What a walk makes of an entry, with the entry's segment held still: read-only views of its
     * key and value, valid during the call only, and its expiry time (0 if none); null to drop it.
     */
    @FunctionalInterface
    interface EntryMapper<T> {
        T map(MemorySegment key, MemorySegment value, long expiresAt);
    }

    /** Maps the entries of segment {@code i} whose tags lie in {@code [fromTag, toTag)}, the segment held still; null results are dropped. */
    private <T> List<T> snapshot(int i, long fromTag, long toTag, EntryMapper<T> mapper, Consumer<MapCorruptedException> damaged) {
        Segment s = segments[i];
        List<T> out = new ArrayList<>();
        Segment.EntryVisitor keep = (k, v, expiresAt) -> {
            T t = mapper.map(k, v, expiresAt);
            if (t != null) {
                out.add(t);
            }
        };
        if (file.readOnly) {
            // Copied between two equal versions, then mapped: the mapper (a caller's filter, a
            // codec) sees each entry once, never bytes that a writer was changing meanwhile.
            // Damage is told only once the versions agree: else it may be a writer's bytes in passing.
            List<MapCorruptedException> bad = new ArrayList<>();
            List<Copied> copies = s.readConsistently(() -> {
                List<Copied> read = new ArrayList<>();
                bad.clear();
                s.forEachInTags(fromTag, toTag, (k, v, expiresAt) -> read.add(new Copied(copy(k), copy(v), expiresAt)),
                        damaged == null ? null : bad::add);
                return read;
            });
            if (damaged != null) {
                bad.forEach(damaged);
            }
            copies.forEach(e -> keep.visit(e.key(), e.value(), e.expiresAt()));
            return out;
        }
        s.lockForRead();
        try {
            s.forEachInTags(fromTag, toTag, keep, damaged);
        } finally {
            s.unlockForRead();
        }
        return out;
    }

    /** An entry read from a segment that could not be locked. */
    private record Copied(MemorySegment key, MemorySegment value, long expiresAt) {
    }

    /** Removes every entry, one segment at a time. */
    public void clear() {
        eachSegmentLocked(s -> {
            s.clear();
            return 0;
        });
    }

    /**
     * Compacts the map online, one segment at a time under its lock: rebuilds each segment's free
     * space from its live entries (merging neighbouring free runs, taking back space crashes
     * leaked), moves the entries out of its chunks that are mostly free, and gives the chunks so
     * emptied to the file's spare extents, which every segment takes from before the file grows.
     * Then rebuilds the spare extents, taking back what writers that died took from the file. The
     * file does not shrink ({@link #copyTo} makes a packed copy); its free space serves every
     * segment. Readers of a segment wait while it is compacted.
     *
     * @throws MapCorruptedException if a segment's table or chunks are damaged
     */
    public void compact() {
        eachSegmentLocked(Segment::evacuate);
        rebuildSpares();
    }

    /**
     * Rebuilds the file's spare extents from what the segments own (see {@link SpareExtents#rebuild})
     * and returns their bytes; segments are not stopped.
     */
    long rebuildSpares() {
        file.checkWritable();
        file.pin(0);
        try {
            return file.spares.rebuild();
        } finally {
            file.unpin(0);
        }
    }

    /**
     * Copies the live entries into the new map file {@code target}, packed, with this map's layout:
     * a backup taken while the map is in use, and the way to give disk space back (a map file never
     * shrinks in place; once the processes using it are stopped, the copy can replace it). See
     * {@link MapCopier} for how consistent the copy is.
     *
     * @param target the new file; must not exist
     * @return the number of entries copied
     * @throws java.nio.file.FileAlreadyExistsException if {@code target} exists
     * @throws MapCorruptedException if an entry is damaged (no target is left behind)
     * @throws IOException           if the copy cannot be written (the disk is full)
     */
    public long copyTo(Path target) throws IOException {
        return MapCopier.copy(this, target, null, null);
    }

    /**
     * {@link #copyTo(Path)} into a map laid out by {@code options}: more segments, another block
     * size, checksums on or off, another bound (a smaller one evicts as the copy fills).
     *
     * @param target  the new file; must not exist
     * @param options the new file's layout
     * @return the number of entries copied
     * @throws java.nio.file.FileAlreadyExistsException if {@code target} exists
     * @throws MapCorruptedException if an entry is damaged (no target is left behind)
     * @throws IOException           if the copy cannot be written (the disk is full)
     */
    public long copyTo(Path target, MapOptions options) throws IOException {
        Objects.requireNonNull(options, "options");
        return MapCopier.copy(this, target, own -> options, null);
    }

    /**
     * Salvages a damaged map: removes every entry that fails its checks (what {@link MapVerifier}
     * and reads report as a bad checksum, a malformed header or an entry outside the file), and
     * every table slot that does not fit the entries (outside the heap or its segment's chunks,
     * naming another key's entry, overlapping another entry, or shadowed by another slot of its
     * key: what a copy of a file being written holds), one segment at a time under its lock, and
     * frees their space. Every entry that passes stays as it is, so the rest of the map is usable
     * again, each key once; what was dropped is lost (restore those keys from elsewhere). Each
     * segment's free space and counters are then rebuilt as {@link #compact} does, which repairs
     * damaged free lists and bump regions too. A damaged table word or chunk list is beyond this:
     * only a copy of the file helps then.
     *
     * @return the file offsets of the entries removed, segment by segment; empty if none was damaged
     * @throws MapCorruptedException if a segment's table word or chunk list is damaged (the
     *                               segments before it are salvaged)
     */
    public long[] dropDamaged() {
        return dropDamaged(null);
    }

    /** {@link #dropDamaged()}, telling {@code progress} the percentage done after each segment (may be null). */
    long[] dropDamaged(java.util.function.IntConsumer progress) {
        file.checkWritable();
        java.util.stream.LongStream.Builder all = java.util.stream.LongStream.builder();
        for (int i = 0; i < segments.length; i++) {
            Segment s = segments[i];
            s.lock();
            try {
                for (long e : s.dropDamaged()) {
                    all.add(e);
                }
            } finally {
                s.unlock();
            }
            if (progress != null) {
                progress.accept((int) ((i + 1) * 100L / segments.length));
            }
        }
        return all.build().toArray();
    }

    private static MemorySegment copy(MemorySegment bytes) {
        return MemorySegment.ofArray(SegmentBytes.toArray(bytes)).asReadOnly();
    }

    /**
     * Forces every change to the storage device (for power loss; kill -9 needs no sync). Does
     * nothing on a map opened read-only: it changed nothing, and its writers sync what they wrote.
     */
    public void sync() {
        file.sync();
    }

    /**
     * Unmaps and closes the file. The map must not be in use by other threads of this process.
     *
     * @throws IOException if closing the file fails
     */
    @Override
    public void close() throws IOException {
        file.close();
    }
}
