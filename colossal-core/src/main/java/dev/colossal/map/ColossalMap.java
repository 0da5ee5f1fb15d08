package dev.colossal.map;

import dev.colossal.codec.Codec;
import dev.colossal.codec.CodecException;
import dev.colossal.codec.Codecs;
import dev.colossal.memory.SegmentBytes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A {@link ConcurrentMap} stored in a memory-mapped file, shared by threads and processes, that
 * survives kill -9 and needs no size declared up front. Keys and values go through
 * {@link Codec}s; the bytes live in the file, not on the heap.
 *
 * <p>Every single-key operation is atomic across threads and processes: {@code putIfAbsent},
 * {@code replace}, {@code remove(k, v)}, {@code compute*} and {@code merge} run under the key's
 * segment lock, and functions passed to them must not use this map (through this open or another
 * open of its file: a use that needs the segment throws {@link IllegalStateException}). Null keys
 * and values are not allowed. Iterators and spliterators are weakly consistent: they walk the map a
 * step at a time (see {@link BytesMap#forEach}), an entry present throughout is met exactly once, and no
 * {@code ConcurrentModificationException} is ever thrown; spliterators split by cursor, for
 * parallel streams. Reads decode a copy of the stored bytes, and the key set decodes no value.
 *
 * <p>Two keys are the same key when their encoded bytes are equal, not through {@code equals}: the
 * key codec must write equal keys as equal bytes. Codecs made by {@link Codecs} do: the map writes
 * sets and maps inside keys in a canonical order ({@link Codecs#canonical}) and every NaN as the same
 * NaN; -0.0 and 0.0 are two keys, as {@code Double.equals} says; a string with an unpaired
 * surrogate, which would be stored as '?', is refused. A key type whose {@code equals} ignores some
 * of its fields, and a codec of your own that writes equal keys differently, give two entries for
 * two equal keys.
 *
 * <p>{@code get}, {@code containsKey} and the removals take an {@code Object}: a key the key codec
 * cannot take (its {@code ClassCastException}, as for an {@code Integer} given to a map of {@code
 * Long}s) is absent, as in a {@code ConcurrentHashMap}. The writes take a {@code K}, so there a
 * {@code ClassCastException} can only be the codec's own bug, and it reaches you: no write is
 * dropped in silence.
 *
 * <p>For caches, {@link #set(Object, Object, Duration)} stores an entry that expires; expired
 * entries read as absent everywhere (though {@link #size} counts them until they are removed).
 * {@code put}, {@code putIfAbsent} and {@link #set(Object, Object)} store entries without expiry
 * (like Redis {@code SET}); the updates of an entry ({@code replace}, {@code compute},
 * {@code computeIfPresent}, {@code merge}, {@code Entry.setValue}) keep its expiry time (like
 * Redis {@code INCR} or {@code APPEND}). A
 * map created with {@link MapOptions#withMaxEntries} or {@link MapOptions#withMaxBytes} is a
 * bounded cache that evicts approximately least-recently-used entries. {@link #openReadOnly} opens
 * a map for reading only, needing read permission on the file alone.
 *
 * <p>Writes that need the file to grow throw {@link UncheckedIOException} when the disk is full,
 * leaving the map unchanged; damaged bytes throw {@link MapCorruptedException} naming file and
 * offset. See {@link BytesMap} for the guarantees of the file itself.
 *
 * <pre>{@code
 * try (ColossalMap<String, Long> visits = ColossalMap.open(Path.of("visits.map"), strings, longs)) {
 *     visits.merge("alice", 1L, Long::sum);
 * }
 * }</pre>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ColossalMap<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V>, AutoCloseable {

    private final BytesMap raw;
    private final Codec<K> keys;
    private final Codec<V> values;
    private final EntrySet entrySet = new EntrySet();
    private final KeySet keySet = new KeySet();
    private final Values valueView = new Values();

    private ColossalMap(BytesMap raw, Codec<K> keys, Codec<V> values) {
        this.raw = raw;
        // keys are compared by their bytes: sets and maps inside them must not be written in iteration order
        this.keys = Codecs.canonical(keys);
        this.values = values;
    }

    /**
     * Opens the map in {@code path}, creating it (mode 0600) with the default options if absent.
     *
     * @param <K>    the key type
     * @param <V>    the value type
     * @param path   the map file
     * @param keys   the key codec
     * @param values the value codec
     * @return the open map
     * @throws MapFormatException if the file is not a map, or has a newer format, or is truncated
     * @throws IOException        if the file cannot be opened or created
     */
    public static <K, V> ColossalMap<K, V> open(Path path, Codec<K> keys, Codec<V> values) throws IOException {
        return open(path, keys, values, MapOptions.DEFAULTS);
    }

    /**
     * Opens the map in {@code path}, creating it (mode 0600) with {@code options} if absent.
     *
     * @param <K>     the key type
     * @param <V>     the value type
     * @param path    the map file
     * @param keys    the key codec
     * @param values  the value codec
     * @param options the layout of a new file (see {@link BytesMap#open(Path, MapOptions)})
     * @return the open map
     * @throws IllegalArgumentException if {@code options} set a bound other than the existing file's,
     *                                  or the file was written with codecs of another schema (the
     *                                  file records the fingerprints of the first typed map's codecs;
     *                                  {@link Codecs#evolving} and codecs of your own are not checked)
     * @throws MapFormatException if the file is not a map, or has a newer format, or is truncated
     * @throws IOException        if the file cannot be opened or created
     */
    public static <K, V> ColossalMap<K, V> open(Path path, Codec<K> keys, Codec<V> values, MapOptions options)
            throws IOException {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(values, "values");
        return checked(BytesMap.open(path, options), keys, values);
    }

    /**
     * The typed map on {@code raw}, once its codecs match the file's (see {@link MapFile#checkCodecs}):
     * {@code Codecs.of} decodes by position, so a type that changed shape read the old bytes as
     * other values without a word (an enum that gained a constant in the middle read RED as BLUE).
     */
    private static <K, V> ColossalMap<K, V> checked(BytesMap raw, Codec<K> keys, Codec<V> values) throws IOException {
        try {
            raw.file.checkCodecs(Codecs.storedFingerprint(keys), Codecs.storedFingerprint(values));
        } catch (RuntimeException e) {
            raw.close();
            throw e;
        }
        return new ColossalMap<>(raw, keys, values);
    }


    /**
     * Opens an existing map for reading only, needing only read permission on the file (see
     * {@link BytesMap#openReadOnly} for what that means). Every read works, iteration and
     * parallel streams included, and writes nothing to the file; every write (the {@code Map}
     * methods, {@code set}, {@code purgeExpired}, {@code Entry.setValue}, an iterator's
     * {@code remove}) throws {@link UnsupportedOperationException} naming the file before it locks
     * or changes anything; {@link #sync} does nothing.
     *
     * @param <K>    the key type
     * @param <V>    the value type
     * @param path   the map file
     * @param keys   the key codec
     * @param values the value codec
     * @return the map, open for reading
     * @throws java.nio.file.NoSuchFileException if there is no such file (none is created)
     * @throws MapFormatException                if the file is not a map, or has a newer format, or is truncated
     * @throws IllegalArgumentException          if the file was written with codecs of another schema
     *                                           (see {@link #open(Path, Codec, Codec, MapOptions)})
     * @throws IOException                       if the file cannot be opened for reading
     */
    public static <K, V> ColossalMap<K, V> openReadOnly(Path path, Codec<K> keys, Codec<V> values) throws IOException {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(values, "values");
        return checked(BytesMap.openReadOnly(path), keys, values);
    }

    /**
     * Creates a map that lives in memory only (see {@link BytesMap#inMemory}), for caches.
     *
     * @param <K>     the key type
     * @param <V>     the value type
     * @param keys    the key codec
     * @param values  the value codec
     * @param options the layout
     * @return the open map
     * @throws IOException if the backing file cannot be created
     */
    public static <K, V> ColossalMap<K, V> inMemory(Codec<K> keys, Codec<V> values, MapOptions options) throws IOException {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(values, "values");
        return new ColossalMap<>(BytesMap.inMemory(options), keys, values);
    }

    /**
     * Returns the same map on raw bytes.
     *
     * @return the raw view, closed with this map
     */
    public BytesMap bytes() {
        return raw;
    }

    // ------------------------------------------------------------------ codec plumbing

    /** Encodes the key into the scratch buffer; a ClassCastException from the codec is the codec's own. */
    private MemorySegment encodeKey(Scratch scratch, K key) {
        Objects.requireNonNull(key, "key");
        long size = keys.encodedSize(key);
        MemorySegment target = scratch.key(size);
        checkWritten("key", keys.encode(key, target, 0), size);
        return target;
    }

    /**
     * Encodes a key being looked up, or returns null if the codec cannot take it (not a K: the map
     * knows no class of its keys, so the codec's ClassCastException tells) or refuses it (a string
     * with an unpaired surrogate): no such key can be stored, so it is absent, as a lookup of user
     * input in a cache should find it.
     */
    @SuppressWarnings("unchecked")
    private MemorySegment lookupKey(Scratch scratch, Object key) {
        try {
            return encodeKey(scratch, (K) key);
        } catch (ClassCastException | CodecException notAKey) {
            return null;
        }
    }

    private static void checkWritten(String what, long end, long size) {
        if (end != size) {
            throw new IllegalStateException("the " + what + " codec wrote " + end
                    + " bytes but its encodedSize said " + size + "; fix the codec");
        }
    }

    /** Encodes the value into the scratch buffer. */
    private MemorySegment encodeValue(Scratch scratch, V value) {
        Objects.requireNonNull(value, "value");
        long size = values.encodedSize(value);
        MemorySegment target = scratch.valueBytes(size);
        checkWritten("value", values.encode(value, target, 0), size);
        return target;
    }

    /** Encodes key and value, then stores them with the raw map's lambda-free write. */
    private void write(K key, V value, long expiresAt) {
        Objects.requireNonNull(value, "value");
        Scratch scratch = Scratch.acquire();
        try {
            raw.write(encodeKey(scratch, key), encodeValue(scratch, value), expiresAt, false);
        } finally {
            scratch.release();
        }
    }

    private V oldValue(Segment s, long slot) {
        if (slot < 0) {
            return null;
        }
        try {
            return values.decode(s.value(s.entryAt(slot)));
        } catch (CodecException e) {
            throw new CodecException("the value stored under this key cannot be decoded with this map's value codec (was it"
                    + " written with another codec, or an older version of the type?), and this call returns it; nothing"
                    + " was changed. set(key, value) replaces it and removeAll(List.of(key)) or keySet().remove(key) drops it"
                    + " without reading it: " + e.getMessage(), e);
        }
    }

    /**
     * An operation on one key's slot, run under its segment lock. It gets the map and the call's
     * arguments ({@code a}, {@code b}) as parameters, so that every operation is a lambda that
     * captures nothing: one instance, no allocation per call.
     */
    @FunctionalInterface
    private interface KeyOp<K, V, A, B, R> {
        R apply(ColossalMap<K, V> map, Segment segment, long slot, long hash, MemorySegment key, Scratch scratch,
                A a, B b) throws IOException;
    }

    /**
     * Runs {@code op} on the key's slot under its segment lock. The scratch buffer stays ours
     * during the call: a function that uses another map on this thread gets its own.
     */
    private <A, B, R> R locked(K key, A a, B b, KeyOp<K, V, A, B, R> op) {
        return locked(key, false, null, a, b, op);
    }

    /**
     * As {@link #locked(Object, Object, Object, KeyOp)}; a removal passes {@code lookup}, and gets
     * {@code ifNotKey} for a key that cannot be stored (see {@link #lookupKey}).
     */
    @SuppressWarnings("unchecked")
    private <A, B, R> R locked(Object key, boolean lookup, R ifNotKey, A a, B b, KeyOp<K, V, A, B, R> op) {
        raw.file.checkWritable();
        Scratch scratch = Scratch.acquire();
        try {
            MemorySegment k = lookup ? lookupKey(scratch, key) : encodeKey(scratch, (K) key);
            if (k == null) {
                return ifNotKey;
            }
            long h = BytesMap.hash(k);
            Segment s = raw.segmentFor(h);
            s.lock();
            try {
                return op.apply(this, s, s.liveSlot(k, h), h, k, scratch, a, b);
            } catch (IOException e) {
                throw raw.cannotGrow(e);
            } finally {
                s.unlock();
            }
        } finally {
            scratch.release();
        }
    }

    // ------------------------------------------------------------------ reads

    @Override
    public V get(Object key) {
        Scratch scratch = Scratch.acquire();
        try {
            MemorySegment k = lookupKey(scratch, key);
            if (k == null) {
                return null;
            }
            long h = BytesMap.hash(k);
            return read(raw.segmentFor(h), k, h, scratch);
        } finally {
            scratch.release();
        }
    }

    /** The decoded value of encoded key {@code k}, or null if absent. */
    private V read(Segment s, MemorySegment k, long h, Scratch scratch) {
        MemorySegment dst = scratch.value(0);
        while (true) {
            long n = s.get(k, h, dst);
            if (n < 0) {
                return null;
            }
            if (n <= dst.byteSize()) {
                return values.decode(n == dst.byteSize() ? dst : scratch.valueBytes(n));
            }
            dst = scratch.value(n);
        }
    }

    /**
     * Looks up many keys at once: like {@link #get} for each, but keys are looked up in batches
     * whose cache and TLB misses overlap (see {@link BytesMap#getAll}), so a random key out of a
     * large file costs a fraction of a lone get. Each key is read atomically; the keys are not
     * read at one moment together.
     *
     * @param keys the keys; none null
     * @return the keys present and their values, in the order of {@code keys}; a new map
     * @throws NullPointerException if a key is null
     */
    public Map<K, V> getAll(Iterable<? extends K> keys) {
        // Sized for every key when the count is known: growing a map of a few dozen entries twice
        // was 5% of a batched get's time.
        Map<K, V> found = keys instanceof Collection<?> c ? LinkedHashMap.newLinkedHashMap(c.size()) : new LinkedHashMap<>();
        getAll(keys, found::put);
        return found;
    }

    /**
     * Looks up many keys at once as {@link #getAll(Iterable)} does, handing each key found and its
     * value to {@code action} instead of collecting them into a map: the form for bulk reads that
     * keep nothing (a sum, a filter, a copy elsewhere), without the map's cost (15M users of 74
     * bytes in batches of 32: 223 ns a key against 255). {@code action} runs as each key is read, on the calling thread, and may call into this
     * map.
     *
     * @param keys   the keys; none null
     * @param action gets each key present and its value, in the order of {@code keys} (a key given
     *               twice is handed over twice)
     * @throws NullPointerException if a key is null (the batches before it have been handed over)
     */
    public void getAll(Iterable<? extends K> keys, BiConsumer<? super K, ? super V> action) {
        Objects.requireNonNull(action, "action");
        try (KeyBatch batch = new KeyBatch()) {
            for (K key : keys) {
                if (batch.add(key, Objects.requireNonNull(key, "keys holds a null key"))) {
                    readBatch(batch, action);
                }
            }
            readBatch(batch, action);
        }
    }

    private void readBatch(KeyBatch batch, BiConsumer<? super K, ? super V> action) {
        Scratch scratch = batch.touch();
        for (int j = 0; j < batch.n; j++) {
            long h = scratch.hashes[j];
            V v = read(raw.segmentFor(h), batch.encoded[j], h, scratch);
            if (v != null) {
                @SuppressWarnings("unchecked")
                K key = (K) batch.items[j];
                action.accept(key, v);
            }
        }
        batch.clear();
    }

    /**
     * Copies every mapping of {@code m} into this map, as {@link #set} each (old values are not
     * read), looking keys up in batches whose cache and TLB misses overlap (see {@link
     * BytesMap#putAll}). Each put is atomic on its own; together they are not one step.
     *
     * @param m the mappings to store; no null key or value
     * @throws NullPointerException if {@code m} holds a null key or value: the batches before it are stored
     * @throws UncheckedIOException if the file could not grow (disk full): the puts before it are stored
     */
    @Override
    public void putAll(Map<? extends K, ? extends V> m) {
        raw.file.checkWritable();
        try (KeyBatch batch = new KeyBatch()) {
            for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
                if (e.getValue() == null) {
                    throw new NullPointerException("m holds a null value for key=" + e.getKey());
                }
                if (batch.add(e.getValue(), Objects.requireNonNull(e.getKey(), "m holds a null key"))) {
                    writeBatch(batch);
                }
            }
            writeBatch(batch);
        }
    }

    private void writeBatch(KeyBatch batch) {
        Scratch scratch = batch.touch();
        for (int j = 0; j < batch.n; j++) {
            @SuppressWarnings("unchecked")
            V value = (V) batch.items[j];
            raw.store(batch.encoded[j], scratch.hashes[j], encodeValue(scratch, value));
        }
        batch.clear();
    }

    /**
     * Up to {@link BytesMap#BATCH} keys of a batched operation, encoded one after the other into
     * this thread's batch buffer, each with an item of the caller's (the key itself, or its value).
     */
    private final class KeyBatch implements AutoCloseable {
        final Object[] items = new Object[BytesMap.BATCH];
        final MemorySegment[] encoded = new MemorySegment[BytesMap.BATCH];
        private final Scratch scratch = Scratch.acquire();
        int n;
        private long used;

        /** Adds {@code key}, encoded, with {@code item}; returns whether the batch is full. */
        boolean add(Object item, K key) {
            long size = keys.encodedSize(key);
            MemorySegment target = scratch.batchKeys(used + size).asSlice(used, size);
            checkWritten("key", keys.encode(key, target, 0), size);
            items[n] = item;
            encoded[n++] = target;
            used += size;
            return n == encoded.length;
        }

        /** Hashes the keys and reads ahead what their lookups will read (see {@link BytesMap#touch}); returns the scratch holding the hashes. */
        Scratch touch() {
            raw.touch(encoded, 0, n, scratch);
            return scratch;
        }

        void clear() {
            n = 0;
            used = 0;
        }

        @Override
        public void close() {
            scratch.release();
        }
    }

    @Override
    public boolean containsKey(Object key) {
        Scratch scratch = Scratch.acquire();
        try {
            MemorySegment k = lookupKey(scratch, key);
            if (k == null) {
                return false;
            }
            long h = BytesMap.hash(k);
            return raw.segmentFor(h).get(k, h, null) >= 0;
        } finally {
            scratch.release();
        }
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, raw.size());
    }

    /**
     * Returns the number of entries, which may exceed {@code Integer.MAX_VALUE}.
     *
     * @return the number of entries
     */
    public long longSize() {
        return raw.size();
    }

    // ------------------------------------------------------------------ writes

    @Override
    public V put(K key, V value) {
        Objects.requireNonNull(value, "value");
        return locked(key, value, null, (m, s, slot, h, k, sc, v, unused) -> {
            V old = m.oldValue(s, slot);
            s.store(slot, k, h, m.encodeValue(sc, v), 0);
            return old;
        });
    }

    /**
     * Maps {@code key} to {@code value} without reading the old value: the fast {@code put}.
     *
     * @param key   the key
     * @param value the value
     * @throws UncheckedIOException if the file could not grow (disk full); nothing changed
     */
    public void set(K key, V value) {
        write(key, value, 0);
    }

    /**
     * Maps {@code key} to {@code value} until {@code ttl} has passed (see
     * {@link BytesMap#put(MemorySegment, MemorySegment, Duration)}). A later {@code put} or {@code
     * set} without a TTL stores the key without expiry; the updates ({@code replace},
     * {@code compute*}, {@code merge}) keep this expiry time.
     *
     * @param key   the key
     * @param value the value
     * @param ttl   how long the entry lives, positive
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public void set(K key, V value, Duration ttl) {
        write(key, value, raw.expiry(ttl));
    }

    /**
     * Maps {@code key} to {@code value} until {@code ttl} has passed, unless the key is present
     * (see {@link BytesMap#putIfAbsent(MemorySegment, MemorySegment, Duration)}): a lease taken in
     * one step.
     *
     * @param key   the key
     * @param value the value
     * @param ttl   how long the entry lives, positive
     * @return the present value, or null if {@code value} was stored
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public V putIfAbsent(K key, V value, Duration ttl) {
        return putIfAbsent(key, value, Long.valueOf(raw.expiry(ttl)));
    }

    /**
     * Makes {@code key}'s entry expire when {@code ttl} has passed from now, keeping its value
     * (see {@link BytesMap#expire}).
     *
     * @param key the key
     * @param ttl how long the entry lives from now, positive
     * @return true if the key was present, false if absent or expired
     * @throws UncheckedIOException     if the file could not grow (disk full); nothing changed
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public boolean expire(K key, Duration ttl) {
        long expiresAt = raw.expiry(ttl);   // a bad ttl is refused whether or not the key is present
        return onKey(key, false, (k, scratch) -> raw.rewriteExpiry(k, expiresAt, scratch));
    }

    /**
     * Makes {@code key}'s entry live until it is removed, keeping its value (see {@link BytesMap#persist}).
     *
     * @param key the key
     * @return true if the key was present, false if absent or expired
     * @throws UncheckedIOException if the file could not grow (disk full); nothing changed
     */
    public boolean persist(K key) {
        return onKey(key, false, (k, scratch) -> raw.rewriteExpiry(k, 0, scratch));
    }

    /**
     * Tells when {@code key} expires.
     *
     * @param key the key
     * @return the expiry time in epoch milliseconds, 0 if the entry never expires, -1 if absent
     */
    public long expiresAt(K key) {
        return onKey(key, -1L, (k, scratch) -> raw.expiresAt(k));
    }

    /**
     * Runs {@code op} on the encoded key and this thread's scratch it is in, or returns {@code
     * absent} for a key no entry can have (see {@link #lookupKey}).
     */
    private <R> R onKey(K key, R absent, BiFunction<MemorySegment, Scratch, R> op) {
        Scratch scratch = Scratch.acquire();
        try {
            MemorySegment k = lookupKey(scratch, key);
            return k == null ? absent : op.apply(k, scratch);
        } finally {
            scratch.release();
        }
    }

    /**
     * Removes every expired entry now (they already read as absent; this returns their space).
     *
     * @return how many entries were removed
     */
    public long purgeExpired() {
        return raw.purgeExpired();
    }

    @Override
    public V putIfAbsent(K key, V value) {
        return putIfAbsent(key, value, (Long) null);
    }

    /** Stores {@code value} to expire at {@code expiresAt} (null for never) unless the key is present. */
    private V putIfAbsent(K key, V value, Long expiresAt) {
        Objects.requireNonNull(value, "value");
        return locked(key, value, expiresAt, (m, s, slot, h, k, sc, v, at) -> {
            if (slot >= 0) {
                return m.oldValue(s, slot);
            }
            s.store(slot, k, h, m.encodeValue(sc, v), at == null ? 0 : at);
            return null;
        });
    }

    @Override
    public V remove(Object key) {
        return locked(key, true, null, null, null, (m, s, slot, h, k, sc, a, b) -> {
            V old = m.oldValue(s, slot);
            if (slot >= 0) {
                s.delete(slot);
            }
            return old;
        });
    }

    /**
     * Removes every key of {@code keys} without reading their values: {@link #remove(Object)} for
     * many keys, looked up in batches whose cache and TLB misses overlap (see {@link
     * BytesMap#removeAll}). Each removal is atomic on its own and in the order given; together
     * they are not one step.
     *
     * @param keys the keys to remove
     * @return how many of them were present (a key given twice counts once)
     * @throws NullPointerException if a key is null: the batches before it are removed
     */
    public int removeAll(Iterable<? extends K> keys) {
        raw.file.checkWritable();
        int removed = 0;
        try (KeyBatch batch = new KeyBatch()) {
            for (K key : keys) {
                if (batch.add(key, Objects.requireNonNull(key, "keys holds a null key"))) {
                    removed += removeBatch(batch);
                }
            }
            removed += removeBatch(batch);
        }
        return removed;
    }

    private int removeBatch(KeyBatch batch) {
        Scratch scratch = batch.touch();
        int removed = 0;
        for (int j = 0; j < batch.n; j++) {
            if (raw.remove(batch.encoded[j], scratch.hashes[j])) {
                removed++;
            }
        }
        batch.clear();
        return removed;
    }

    @Override
    public boolean remove(Object key, Object value) {
        raw.file.checkWritable();
        if (value == null) {
            return false;
        }
        return locked(key, true, Boolean.FALSE, value, null, (m, s, slot, h, k, sc, expected, unused) -> {
            if (m.holds(s, slot, expected, sc)) {
                s.delete(slot);
                return Boolean.TRUE;
            }
            return Boolean.FALSE;
        });
    }

    /**
     * Whether the entry in {@code slot} holds {@code expected}: the same bytes as its encoding, or
     * a decoded value {@code equals} to it. Bytes first, so that values whose {@code equals} is
     * identity (arrays, classes without one) match what {@link #get} returned, as a
     * ConcurrentHashMap's do; without it {@code replaceAll} retried such a value for ever.
     */
    @SuppressWarnings("unchecked")
    private boolean holds(Segment s, long slot, Object expected, Scratch sc) {
        if (slot < 0) {
            return false;
        }
        MemorySegment stored = s.value(s.entryAt(slot));
        try {
            MemorySegment encoded = encodeValue(sc, (V) expected);
            if (encoded.byteSize() == stored.byteSize() && encoded.mismatch(stored) == -1) {
                return true;
            }
        } catch (ClassCastException | IllegalArgumentException | CodecException notAV) {
            return false;   // nothing of another type or that cannot be encoded is stored
        }
        return expected.equals(oldValue(s, slot));
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        Objects.requireNonNull(oldValue, "oldValue");
        Objects.requireNonNull(newValue, "newValue");
        return locked(key, oldValue, newValue, (m, s, slot, h, k, sc, expected, v) -> {
            if (m.holds(s, slot, expected, sc)) {
                s.store(slot, k, h, m.encodeValue(sc, v), s.expiryToKeep(slot));
                return Boolean.TRUE;
            }
            return Boolean.FALSE;
        });
    }

    @Override
    public V replace(K key, V value) {
        Objects.requireNonNull(value, "value");
        return locked(key, value, null, (m, s, slot, h, k, sc, v, unused) -> {
            if (slot < 0) {
                return null;
            }
            V old = m.oldValue(s, slot);
            s.store(slot, k, h, m.encodeValue(sc, v), s.expiryToKeep(slot));
            return old;
        });
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(remapping, "remapping");
        return locked(key, key, remapping, (m, s, slot, h, k, sc, typed, fn) ->
                m.apply(s, slot, k, h, sc, fn.apply(typed, m.oldValue(s, slot))));
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mapping) {
        Objects.requireNonNull(mapping, "mapping");
        return locked(key, key, mapping, (m, s, slot, h, k, sc, typed, fn) -> {
            if (slot >= 0) {
                return m.oldValue(s, slot);
            }
            V v = fn.apply(typed);
            return v == null ? null : m.apply(s, slot, k, h, sc, v);
        });
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(remapping, "remapping");
        return locked(key, key, remapping, (m, s, slot, h, k, sc, typed, fn) -> slot < 0 ? null
                : m.apply(s, slot, k, h, sc, fn.apply(typed, m.oldValue(s, slot))));
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(remapping, "remapping");
        return locked(key, value, remapping, (m, s, slot, h, k, sc, v, fn) -> m.apply(s, slot, k, h, sc,
                slot < 0 ? v : fn.apply(m.oldValue(s, slot), v)));
    }

    /** Stores {@code v} in the key's slot, or removes the entry if {@code v} is null; returns v. */
    private V apply(Segment s, long slot, MemorySegment k, long h, Scratch sc, V v) throws IOException {
        if (v == null) {
            if (slot >= 0) {
                s.delete(slot);
            }
        } else {
            s.store(slot, k, h, encodeValue(sc, v), s.expiryToKeep(slot));
        }
        return v;
    }

    @Override
    public void clear() {
        raw.clear();
    }

    /**
     * Replaces each entry's value with {@code function}'s result, each entry on its own under its
     * segment's lock (as {@link #computeIfPresent}: the function must not use this map); entries
     * added meanwhile may or may not be seen. Refused at once by a read-only map, even an empty one.
     *
     * @throws NullPointerException if {@code function} returns null (the entries before stay replaced)
     */
    @Override
    public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
        raw.file.checkWritable();
        Objects.requireNonNull(function, "function");
        for (K key : keySet) {
            computeIfPresent(key, (k, v) -> Objects.requireNonNull(function.apply(k, v),
                    () -> "replaceAll's function returned null for key=" + k));
        }
    }

    /**
     * As {@link Map#containsValue}: reads every value.
     *
     * @throws NullPointerException if {@code value} is null, as a ConcurrentHashMap does
     */
    @Override
    public boolean containsValue(Object value) {
        return super.containsValue(Objects.requireNonNull(value, "value"));
    }

    /**
     * Rebuilds every segment's free space from its live entries, as {@link BytesMap#compact} does.
     */
    public void compact() {
        raw.compact();
    }

    /**
     * Copies the live entries into the new map file {@code target}, packed: a backup of a map in
     * use, or the way to give disk space back; see {@link BytesMap#copyTo(Path)}.
     *
     * @param target the new file; must not exist
     * @return the number of entries copied
     * @throws java.nio.file.FileAlreadyExistsException if {@code target} exists
     * @throws MapCorruptedException if an entry is damaged (no target is left behind)
     * @throws IOException           if the copy cannot be written (the disk is full)
     */
    public long copyTo(Path target) throws IOException {
        return raw.copyTo(target);
    }

    /**
     * {@link #copyTo(Path)} into a map laid out by {@code options}; see {@link BytesMap#copyTo(Path, MapOptions)}.
     *
     * @param target  the new file; must not exist
     * @param options the new file's layout
     * @return the number of entries copied
     * @throws java.nio.file.FileAlreadyExistsException if {@code target} exists
     * @throws MapCorruptedException if an entry is damaged (no target is left behind)
     * @throws IOException           if the copy cannot be written (the disk is full)
     */
    public long copyTo(Path target, MapOptions options) throws IOException {
        return raw.copyTo(target, options);
    }

    /**
     * Forces every change to the storage device (for power loss; kill -9 needs no sync). Does
     * nothing on a map opened read-only.
     */
    public void sync() {
        raw.sync();
    }

    /**
     * Unmaps and closes the file. The map must not be in use by other threads of this process.
     *
     * @throws IOException if closing the file fails
     */
    @Override
    public void close() throws IOException {
        raw.close();
    }

    // ------------------------------------------------------------------ views

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return entrySet;
    }

    @Override
    public Set<K> keySet() {
        return keySet;
    }

    @Override
    public Collection<V> values() {
        return valueView;
    }

    /**
     * Whether the map holds no entry that iteration would show: unlike {@link #size()}, not
     * counting entries that expired but were not yet removed.
     */
    @Override
    public boolean isEmpty() {
        // Only a map holding expiring entries needs the walk, which copies a step of keys.
        return raw.size() == 0 || raw.mayExpire() && !keySet.iterator().hasNext();
    }

    /** How many entries {@link #toString()} shows at most. */
    static final int TO_STRING_ENTRIES = 1000;

    /**
     * The entries as {@link AbstractMap#toString()} writes them ({@code {k1=v1, k2=v2}}), but at
     * most the first {@value #TO_STRING_ENTRIES} in iteration order, then how many there are: a
     * log line or a debugger that shows a map of a billion entries would otherwise decode every one
     * of them into one string, and run out of heap.
     */
    @Override
    public String toString() {
        Iterator<Map.Entry<K, V>> entries = entrySet().iterator();
        StringBuilder sb = new StringBuilder("{");
        int shown = 0;
        while (entries.hasNext()) {
            if (shown == TO_STRING_ENTRIES) {
                return sb.append(", ... (").append(TO_STRING_ENTRIES).append(" of ").append(size())
                        .append(" entries shown)}").toString();
            }
            Map.Entry<K, V> e = entries.next();
            if (shown++ > 0) {
                sb.append(", ");
            }
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.append('}').toString();
    }

    /**
     * Compares with {@code o} as {@link Map#equals} says. An entry that expired but was not yet
     * removed counts in {@link #size()}, which other maps' {@code equals} compare first, so here
     * too it makes the maps differ: equality stays symmetric. {@link #purgeExpired()} removes such
     * entries.
     */
    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (!(o instanceof Map<?, ?> other) || other.size() != raw.size()) {
            return false;
        }
        long seen = 0;
        for (Map.Entry<K, V> e : entrySet) {
            if (!e.getValue().equals(other.get(e.getKey()))) {
                return false;
            }
            seen++;
        }
        return seen == other.size();
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    /** Copies an entry's key and value out of the map (under its segment's lock). */
    private static byte[][] copyEntry(MemorySegment k, MemorySegment v, long expiresAt) {
        return new byte[][] {SegmentBytes.toArray(k), SegmentBytes.toArray(v)};
    }

    /** Copies only a key: what the key set shows, and all a removal needs. */
    private static byte[][] copyKey(MemorySegment k, MemorySegment v, long expiresAt) {
        return new byte[][] {SegmentBytes.toArray(k), null};
    }

    private Map.Entry<K, V> decodeEntry(byte[][] kv) {
        return new Entry(keys.decode(MemorySegment.ofArray(kv[0])), values.decode(MemorySegment.ofArray(kv[1])));
    }

    private K decodeKey(byte[][] kv) {
        return keys.decode(MemorySegment.ofArray(kv[0]));
    }

    private V decodeValue(byte[][] kv) {
        return values.decode(MemorySegment.ofArray(kv[1]));
    }

    private final class Entry extends AbstractMap.SimpleEntry<K, V> {
        private static final long serialVersionUID = 1L;

        Entry(K key, V value) {
            super(key, value);
        }

        @Override
        public V setValue(V value) {
            // An update of this entry, as replace: it keeps the entry's expiry time; an entry
            // removed meanwhile is written again, as a ConcurrentHashMap's entry does.
            if (replace(getKey(), value) == null) {
                put(getKey(), value);
            }
            return super.setValue(value);
        }
    }

    /**
     * What a view walks: copied out of the map a step at a time (see {@link BytesMap#walkStep}: a segment, or a few
     * MiB of one) (the
     * resumable scan's steps, so an entry present throughout is met exactly once, however the
     * map changes), decoded outside the lock, and only as far as the view needs: a key set never
     * decodes a value.
     */
    private record Shape<T>(BytesMap.EntryMapper<byte[][]> copy, Function<byte[][], T> decode,
                            boolean distinct) {
    }

    private abstract class View<T> extends AbstractCollection<T> {
        final Shape<T> shape;

        View(Shape<T> shape) {
            this.shape = shape;
        }

        @Override
        public Iterator<T> iterator() {
            return new Walk<>(shape, 0, raw.scanCursorLimit());
        }

        @Override
        public Spliterator<T> spliterator() {
            return new WalkSpliterator<>(shape, 0, raw.scanCursorLimit());
        }

        @Override
        public int size() {
            return ColossalMap.this.size();
        }

        @Override
        public boolean isEmpty() {
            return ColossalMap.this.isEmpty();
        }

        @Override
        public void clear() {
            ColossalMap.this.clear();
        }

        /**
         * As {@link Set#equals}, for the sets among the views. A set holding null differs from
         * this one, which cannot hold it: asked whether it contains null, it would throw.
         */
        boolean sameElements(Object o) {
            if (o == this) {
                return true;
            }
            if (!(o instanceof Set<?> other) || other.size() != size()) {
                return false;
            }
            for (Object e : other) {
                if (e == null || !contains(e)) {
                    return false;
                }
            }
            return true;
        }
    }

    private final class EntrySet extends View<Map.Entry<K, V>> implements Set<Map.Entry<K, V>> {
        EntrySet() {
            super(new Shape<>(ColossalMap::copyEntry, ColossalMap.this::decodeEntry, true));
        }

        // An entry with a null key is one this map cannot hold, so it is not in the set (as in a
        // ConcurrentHashMap's), rather than the NullPointerException of get(null).
        @Override
        public boolean contains(Object o) {
            return o instanceof Map.Entry<?, ?> e && e.getKey() != null && e.getValue() != null
                    && e.getValue().equals(get(e.getKey()));
        }

        @Override
        public boolean remove(Object o) {
            raw.file.checkWritable();   // a write, refused by a read-only map whatever o is, as keySet().remove
            return o instanceof Map.Entry<?, ?> e && e.getKey() != null && ColossalMap.this.remove(e.getKey(), e.getValue());
        }

        @Override
        public boolean equals(Object o) {
            return sameElements(o);
        }

        @Override
        public int hashCode() {
            return ColossalMap.this.hashCode();
        }
    }

    private final class KeySet extends View<K> implements Set<K> {
        KeySet() {
            super(new Shape<>(ColossalMap::copyKey, ColossalMap.this::decodeKey, true));
        }

        @Override
        public boolean contains(Object o) {
            return containsKey(o);
        }

        /** Removes the key's entry without reading its value. */
        @Override
        public boolean remove(Object o) {
            raw.file.checkWritable();
            Scratch scratch = Scratch.acquire();
            try {
                MemorySegment k = lookupKey(scratch, o);
                return k != null && raw.remove(k);
            } finally {
                scratch.release();
            }
        }

        @Override
        public boolean equals(Object o) {
            return sameElements(o);
        }

        @Override
        public int hashCode() {
            int h = 0;
            for (K k : this) {
                h += k.hashCode();
            }
            return h;
        }
    }

    private final class Values extends View<V> {
        Values() {
            super(new Shape<>(ColossalMap::copyEntry, ColossalMap.this::decodeValue, false));
        }
    }

    /** An iterator over the cursors {@code [from, end)}; its remove drops the entry by its key's bytes. */
    private final class Walk<T> implements Iterator<T> {
        private final Shape<T> shape;
        private final long end;
        private long cursor;
        private final List<byte[][]> step = new ArrayList<>();
        private int next;
        private byte[] lastKey;

        Walk(Shape<T> shape, long from, long end) {
            this.shape = shape;
            this.cursor = from;
            this.end = end;
        }

        /** Whether entries of an earlier step wait to be handed out: a split must not lose them. */
        boolean buffered() {
            return next < step.size();
        }

        @Override
        public boolean hasNext() {
            while (next == step.size() && cursor < end) {
                step.clear();
                next = 0;
                cursor = raw.walkStep(cursor, end, shape.copy(), step);
            }
            return next < step.size();
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            byte[][] kv = step.get(next);
            step.set(next++, null);   // a step of big values is let go as it is handed out
            lastKey = kv[0];
            return shape.decode().apply(kv);
        }

        @Override
        public void remove() {
            if (lastKey == null) {
                throw new IllegalStateException("next() has not been called since the last remove()");
            }
            raw.remove(MemorySegment.ofArray(lastKey));
            lastKey = null;
        }
    }

    /** Splits the cursors in halves, so that even a map of one segment streams in parallel. */
    private final class WalkSpliterator<T> implements Spliterator<T> {
        private final Shape<T> shape;
        private long from;
        private final long end;
        private Walk<T> walk;

        WalkSpliterator(Shape<T> shape, long from, long end) {
            this.shape = shape;
            this.from = from;
            this.end = end;
        }

        @Override
        public boolean tryAdvance(Consumer<? super T> action) {
            if (walk == null) {
                walk = new Walk<>(shape, from, end);
            }
            if (!walk.hasNext()) {
                return false;
            }
            action.accept(walk.next());
            return true;
        }

        @Override
        public Spliterator<T> trySplit() {
            if (walk != null) {
                return null;   // started: its cursor has moved on, and a step may be buffered
            }
            long mid = from + (end - from) / 2;
            // Cursors number segments << 26, not entries: split down to single cursors, a map of
            // 3 entries in 4 segments made 2^28 pieces for a caller that splits until null.
            if (mid == from || estimateSize() <= 1) {
                return null;
            }
            WalkSpliterator<T> prefix = new WalkSpliterator<>(shape, from, mid);
            from = mid;
            return prefix;
        }

        /** The live entries of the cursors left, assuming each segment's spread evenly over its tags. */
        @Override
        public long estimateSize() {
            long tags = 1L << SlotLayout.TAG_BITS;
            double n = 0;
            for (long c = from; c < end; ) {
                int seg = (int) (c >>> SlotLayout.TAG_BITS);
                long segmentEnd = Math.min(end, ((long) seg + 1) << SlotLayout.TAG_BITS);
                n += raw.segment(seg).liveEntries() * (double) (segmentEnd - c) / tags;
                c = segmentEnd;
            }
            return (long) Math.ceil(n);
        }

        @Override
        public int characteristics() {
            return Spliterator.CONCURRENT | Spliterator.NONNULL | (shape.distinct() ? Spliterator.DISTINCT : 0);
        }
    }
}
