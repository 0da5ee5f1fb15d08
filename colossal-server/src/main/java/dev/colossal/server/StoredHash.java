package dev.colossal.server;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A bucketed hash ({@link HashBuckets}) as a command sees it under its key's lock: the header read
 * once, the buckets the command touches decoded and changed in memory, then {@link #commit}ted. A
 * bucketed set is one too, its members the fields, each with the empty value {@link #NO_VALUE}
 * ({@link StoredSet} is its set commands' face): everything below holds for both.
 *
 * <p>The order of writes is what makes a kill at any moment leave a hash that reads right, with
 * the right count. A bucket's put is atomic, but a new field changes a bucket and the header's
 * count: so each changed bucket is committed by writing the header first, with the write's intent
 * (a new serial, the bucket, the count's delta) and the count before it, then the bucket stamped
 * with that serial. Whichever was last to land, the count a reader derives (count, plus delta if
 * the bucket carries the serial) is the bucket's truth. A change that leaves a bucket's count as
 * it was (a value replaced) is its put alone, the bucket keeping the serial it carried: so the
 * header's intent, if it named that bucket, reads as landed or not just as before. A split writes the new bucket B (beyond
 * the header's B buckets: no reader looks there), then the header with B + 1 (the commit point),
 * then the source bucket without the moved fields; readers skip a bucket's entries that map
 * elsewhere, so a kill between the last two writes leaves copies no one sees. A conversion writes
 * every bucket under a new id, then the header. What a crash leaves behind is garbage
 * {@link ListCollector} frees.
 */
final class StoredHash implements HashWrites {

    /** HSCAN cursors of a bucketed hash are this plus the next bucket; a lower one (a scan begun before the conversion) starts over. */
    static final long SCAN_CURSOR_BASE = (1L << 62) + 1;

    /** A bucketed set's members' value. */
    static final byte[] NO_VALUE = {};

    private final KeyValueStore store;
    private final byte[] key;
    private final ListElements elements;
    private final long expireAt;
    /** {@link StoredValue#HASH} or {@link StoredValue#SET}: what the header is stored as. */
    private final byte type;
    private long id;
    private long count;
    private long buckets;
    private long serial;
    /** The buckets this command read or changed, as stored (changes are made in the bytes: {@link BucketEdits}). */
    private final Map<Long, byte[]> read = new HashMap<>();
    /** The buckets changed, with what each change did to the count, in the order they are written. */
    private final Map<Long, Long> deltas = new LinkedHashMap<>();
    private long pending;

    private StoredHash(KeyValueStore store, byte[] key, ListElements elements, long expireAt, byte type) {
        this.store = store;
        this.key = key;
        this.elements = elements;
        this.expireAt = expireAt;
        this.type = type;
    }

    /**
     * The bucketed hash (or set) header {@code e} holds under {@code key}; the caller holds the key's lock.
     *
     * @throws IllegalStateException if the database has no element map
     */
    static StoredHash read(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        StoredHash h = new StoredHash(store, key, elementsOf(store, key), e.expireAtMillis(), e.type());
        h.id = HashBuckets.get(e, HashBuckets.ID_OFFSET);
        h.buckets = HashBuckets.get(e, HashBuckets.BUCKETS_OFFSET);
        h.serial = HashBuckets.get(e, HashBuckets.SERIAL_OFFSET);
        long known = h.elements.hashCounts().count(h.id, h.serial);
        if (known >= 0) {
            h.count = known;
            return h;
        }
        h.count = HashBuckets.get(e, HashBuckets.COUNT_OFFSET);
        long delta = HashBuckets.get(e, HashBuckets.DELTA_OFFSET);
        if (delta != 0 && h.landed(HashBuckets.get(e, HashBuckets.INTENT_OFFSET))) {
            h.count += delta;
        }
        return h;
    }

    /**
     * Stores {@code h} under {@code key} with deadline {@code at}, replacing what the key held: one
     * value while it has at most {@code maxListpackEntries} fields, else bucketed under a new id
     * (every bucket first, the header last). An empty hash deletes the key.
     */
    static void save(KeyValueStore store, byte[] key, HashValue h, long at, long maxListpackEntries) {
        if (h.size() == 0) {
            store.delete(key);
        } else if (h.size() <= maxListpackEntries) {
            byte[] payload = h.encode();
            store.set(key, payload, 0, payload.length, at, StoredValue.HASH);
        } else {
            saveBucketed(store, key, h, at, HashBuckets.fieldsPerBucket(maxListpackEntries), StoredValue.HASH);
        }
    }

    /**
     * Stores the pairs of {@code h}, which is not empty, bucketed under {@code key} as a value of
     * {@code type} (a set's pairs have empty values), under a new id: every bucket first, the
     * header last, so that a kill before the header leaves the key as it was.
     */
    static void saveBucketed(KeyValueStore store, byte[] key, HashValue h, long at, long perBucket, byte type) {
        ListElements elements = store.elements(true);
        long id = elements.newId(key);
        int n = h.size();
        int b = (int) Math.max(1, (n + perBucket - 1) / perBucket);
        HashValue[] parts = new HashValue[b];
        for (int i = 0; i < b; i++) {
            parts[i] = HashValue.empty();
        }
        for (int i = 0; i < n; i++) {
            parts[(int) HashBuckets.index(HashBuckets.hash(h.field(i)), b)].put(h.field(i), h.value(i));
        }
        for (int i = 0; i < b; i++) {
            elements.put(id, i, parts[i].encode(HashBuckets.BUCKET_PAIRS_OFFSET));
            elements.wrote();
        }
        store.set(key, HashBuckets.header(id, n, b, 0, 0, 0), 0, HashBuckets.HEADER_LENGTH, at, type);
        elements.wrote();
    }

    /**
     * The value of {@code field} in the hash (or set) under {@code key}, read without the key's
     * lock: the header, the field's bucket, then the header again; if a split or a new hash came
     * between, it reads again.
     *
     * @param e the key's entry, a bucketed hash's or set's header
     * @return the value ({@link #NO_VALUE} for a set's member), or null if the field or the key is absent
     * @throws ReplyException WRONGTYPE if the key came to hold another type meanwhile
     */
    static byte[] find(KeyValueStore store, byte[] key, KeyValueStore.Entry e, byte[] field) {
        byte type = e.type();
        long h = HashBuckets.hash(field);
        while (true) {
            long id = HashBuckets.get(e, HashBuckets.ID_OFFSET);
            long buckets = HashBuckets.get(e, HashBuckets.BUCKETS_OFFSET);
            long b = HashBuckets.index(h, buckets);
            ListElements elements = elementsOf(store, key);
            byte[] raw = elements.get(id, b);
            KeyValueStore.Entry now = current(store, key, type);
            if (now == null) {
                return null;
            }
            if (!HashBuckets.isBucketed(now)) {
                if (type == StoredValue.SET) {
                    return new SetView(now).contains(field) ? NO_VALUE : null;
                }
                HashCursor c = new HashCursor(now);
                return c.find(field) ? c.value() : null;
            }
            if (HashBuckets.get(now, HashBuckets.ID_OFFSET) == id && HashBuckets.get(now, HashBuckets.BUCKETS_OFFSET) == buckets) {
                if (raw == null) {
                    throw missing(store, id, b);
                }
                // The field maps to this bucket: any entry of it here is live
                HashCursor c = new HashCursor(raw, HashBuckets.BUCKET_PAIRS_OFFSET);
                return c.find(field) ? c.value() : null;
            }
            e = now;
        }
    }

    /**
     * What {@link #locked} returns when it ran its action: an entry no key holds, so that no
     * caller mistakes it for a one-value hash or set or for an absent key.
     */
    static final KeyValueStore.Entry READ_BUCKETED = new KeyValueStore.Entry(new byte[0], 0, StoredValue.NO_EXPIRY, StoredValue.STRING);

    /**
     * Runs {@code action} on the bucketed hash or set under {@code key}, under the key's lock, if
     * the key holds one: what reads of more than one field do, since they read more than one bucket.
     *
     * @param e the key's entry, read without the lock
     * @return {@link #READ_BUCKETED} if {@code action} ran, else the one-value hash or set to read
     *     (null if the key is absent): {@code e} itself, or what the key held under the lock if it
     *     was converted or deleted meanwhile. The caller must read that entry and not the key again:
     *     a writer waiting for the lock may make the key bucketed as soon as it is released, and a
     *     one-value read of a bucketed header reads its id as a count and its longs as pairs.
     * @throws ReplyException WRONGTYPE if the key came to hold another type meanwhile
     */
    static KeyValueStore.Entry locked(KeyValueStore store, byte[] key, KeyValueStore.Entry e, Consumer<StoredHash> action) {
        if (e == null || !HashBuckets.isBucketed(e)) {
            return e;
        }
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry now = current(store, key, e.type());
            if (now == null || !HashBuckets.isBucketed(now)) {
                return now; // deleted meanwhile, maybe made again as one value (DEL, RENAME over it, RESTORE)
            }
            action.accept(read(store, key, now));
            return READ_BUCKETED;
        } finally {
            l.unlock();
        }
    }

    /**
     * @return what the key holds now, a value of {@code type}, or null if absent
     * @throws ReplyException WRONGTYPE if it holds another type
     */
    static KeyValueStore.Entry current(KeyValueStore store, byte[] key, byte type) {
        KeyValueStore.Entry e = store.get(key);
        if (e != null && e.type() != type) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return e;
    }

    // A field maps to one bucket: any entry of it there is live, so these need not skip others

    @Override
    public byte[] get(byte[] field) {
        HashCursor c = new HashCursor(stored(indexOf(field)), HashBuckets.BUCKET_PAIRS_OFFSET);
        return c.find(field) ? c.value() : null;
    }

    @Override
    public boolean put(byte[] field, byte[] value) {
        long b = indexOf(field);
        boolean[] added = new boolean[1];
        read.put(b, BucketEdits.put(stored(b), field, value, added));
        change(b, added[0] ? 1 : 0);
        return added[0];
    }

    /** Adds {@code field} unless the hash has it: one look into its bucket, and no write when it is there. */
    boolean add(byte[] field, byte[] value) {
        long b = indexOf(field);
        byte[] with = BucketEdits.add(stored(b), field, value);
        if (with == null) {
            return false;
        }
        read.put(b, with);
        change(b, 1);
        return true;
    }

    @Override
    public boolean remove(byte[] field) {
        long b = indexOf(field);
        byte[] without = BucketEdits.remove(stored(b), field);
        if (without == null) {
            return false;
        }
        read.put(b, without);
        change(b, -1);
        return true;
    }

    @Override
    public long count() {
        return count + pending;
    }

    @Override
    public boolean changed() {
        return !deltas.isEmpty();
    }

    long buckets() {
        return buckets;
    }

    /** Calls {@code action} with every field and value, bucket by bucket. */
    void forEach(BiConsumer<byte[], byte[]> action) {
        for (long b = 0; b < buckets; b++) {
            HashValue v = bucketAt(b);
            for (int i = 0; i < v.size(); i++) {
                action.accept(v.field(i), v.value(i));
            }
        }
    }

    /** @return the fields of bucket {@code b}, {@code 0 <= b < buckets()} */
    HashValue bucketAt(long b) {
        long n = buckets;
        byte[] raw = read.containsKey(b) ? read.get(b) : load(b);
        return HashValue.of(raw, HashBuckets.BUCKET_PAIRS_OFFSET, f -> HashBuckets.index(HashBuckets.hash(f), n) == b);
    }

    /** @return every pair, decoded (HRANDFIELD with a count; O(the hash's size), as the reply may be) */
    HashValue all() {
        HashValue all = HashValue.empty();
        forEach(all::put);
        return all;
    }

    /** @return the fields and values alternately, for DUMP */
    List<byte[]> pairs() {
        List<byte[]> out = new java.util.ArrayList<>((int) Math.min(2 * count(), 1 << 20));
        forEach((f, v) -> {
            out.add(f);
            out.add(v);
        });
        return out;
    }

    /**
     * Writes the changes: for each bucket whose change moves the count the header with the
     * write's intent, then the bucket (one that keeps its count is written alone); then splits buckets while there are more than {@code fieldsPerBucket} fields a
     * bucket. A hash left empty is deleted, its buckets with it.
     */
    void commit(long fieldsPerBucket) {
        long n = count;
        for (Map.Entry<Long, Long> d : deltas.entrySet()) {
            if (d.getValue() == 0) {
                // The count stays (values replaced): the bucket's put alone is the change, with no
                // header and no new serial. It keeps the stamp it was read with, so the header's
                // intent reads as landed, or not, as before. Half the writes of an HSET into a
                // big hash whose fields exist (~0.5 us of ~3.5).
                elements.put(id, d.getKey(), read.get(d.getKey()));
                elements.wrote();
                continue;
            }
            serial++;
            writeHeader(n, d.getKey(), d.getValue());
            writeBucket(d.getKey());
            n += d.getValue();
        }
        count = n;
        deltas.clear();
        pending = 0;
        if (n == 0) {
            delete();
            return;
        }
        while (count > fieldsPerBucket * buckets) {
            split();
        }
        elements.hashCounts().put(id, serial, count);
    }

    /** Removes the hash: its header, then its buckets and root (the collector would free them later). */
    void delete() {
        store.delete(key);
        elements.drop(id, 0, buckets);
        elements.hashCounts().remove(id);
    }

    /** RENAME to {@code toKey}: only the header moves, whole or not at all after a kill ({@link HeaderRename}). */
    void renameTo(byte[] toKey) {
        HeaderRename.run(store, elements, id, key, toKey,
                () -> store.set(toKey, header(id), 0, HashBuckets.HEADER_LENGTH, expireAt, type));
    }

    /** Copies this hash to {@code toKey} in {@code to} (maybe another database) under a new id with deadline {@code at}: COPY's and MOVE's O(n). */
    void copyTo(KeyValueStore to, byte[] toKey, long at) {
        ListElements dst = to.elements(true);
        long newId = dst.newId(toKey);
        dst.wrote();
        for (long b = 0; b < buckets; b++) {
            byte[] raw = elements.get(id, b);
            if (raw == null) {
                throw missing(store, id, b);
            }
            dst.put(newId, b, raw); // stamps and all: the copied header's intent reads the same
            dst.wrote();
        }
        to.set(toKey, header(newId), 0, HashBuckets.HEADER_LENGTH, at, type);
    }

    /** Splits bucket {@link HashBuckets#splitSource} into itself and the new bucket B. */
    private void split() {
        long source = HashBuckets.splitSource(buckets);
        long added = buckets;
        HashValue from = bucketAt(source);
        HashValue keep = HashValue.empty();
        HashValue moved = HashValue.empty();
        for (int i = 0; i < from.size(); i++) {
            byte[] f = from.field(i);
            (HashBuckets.index(HashBuckets.hash(f), added + 1) == added ? moved : keep).put(f, from.value(i));
        }
        serial++;
        read.put(added, moved.encode(HashBuckets.BUCKET_PAIRS_OFFSET));
        writeBucket(added); // beyond the header's buckets: no reader looks at it yet
        buckets = added + 1;
        writeHeader(count, source, 0); // the split's commit point
        read.put(source, keep.encode(HashBuckets.BUCKET_PAIRS_OFFSET));
        writeBucket(source); // drops the moved copies, which readers skip until then
    }

    private void change(long bucket, long delta) {
        deltas.merge(bucket, delta, Long::sum);
        pending += delta;
    }

    private long indexOf(byte[] field) {
        return HashBuckets.index(HashBuckets.hash(field), buckets);
    }

    /** @return bucket {@code b} as stored, with this command's changes, kept for the next */
    private byte[] stored(long b) {
        return read.computeIfAbsent(b, this::load);
    }

    private byte[] load(long b) {
        byte[] raw = elements.get(id, b);
        if (raw == null) {
            throw missing(store, id, b);
        }
        return raw;
    }

    /** @return whether bucket {@code b} carries the header's serial: the header's intent landed */
    private boolean landed(long b) {
        byte[] raw = elements.get(id, b);
        if (raw != null) {
            read.put(b, raw); // a write to the same bucket reads it once
        }
        return raw != null && raw.length >= HashBuckets.BUCKET_PAIRS_OFFSET
                && ListLayout.getLong(raw, HashBuckets.BUCKET_SERIAL_OFFSET) == serial;
    }

    private void writeHeader(long committed, long intent, long delta) {
        store.set(key, HashBuckets.header(id, committed, buckets, serial, intent, delta), 0, HashBuckets.HEADER_LENGTH,
                expireAt, type);
        elements.wrote();
    }

    /** @return the header of this hash, resolved (no pending intent), under collection {@code newId} */
    private byte[] header(long newId) {
        return HashBuckets.header(newId, count, buckets, serial, 0, 0);
    }

    private void writeBucket(long b) {
        byte[] out = read.get(b); // this command's own copy: stamped in place
        ListLayout.putLong(out, HashBuckets.BUCKET_SERIAL_OFFSET, serial);
        elements.put(id, b, out);
        elements.wrote();
    }

    private static ListElements elementsOf(KeyValueStore store, byte[] key) {
        return ListElements.of(store, key, "bucketed hash or set");
    }

    private static IllegalStateException missing(KeyValueStore store, long id, long b) {
        return new IllegalStateException("bucket " + b + " of id=" + Long.toHexString(id) + " is missing from "
                + ListElements.fileFor(store.path()) + ": the element map is damaged; DEL the key");
    }
}
