package dev.colossal.server;

import dev.colossal.map.MapCorruptedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * What the server needs from storage: keys and values with an optional deadline and a type (a
 * string, or a hash: {@link StoredValue}'s type bit). Expired
 * entries are invisible to every method. Single operations are atomic; a read-modify-write (INCR,
 * SET NX, APPEND) holds {@link #lock} of its key around its reads and writes, and so must every
 * writer, so that such sequences are atomic against each other. One store is one database; a key's
 * lock is the same in every database ({@link KeyLocks}).
 */
interface KeyValueStore extends AutoCloseable {

    /**
     * A value with its deadline. The value may be a slice of a larger array (the stored form), so
     * that GET can reply without copying it again; {@link #value()} copies it out.
     */
    final class Entry {
        private final byte[] bytes;
        private final int offset;
        private final long expireAtMillis;
        private final byte type;
        private final boolean chunked;

        /**
         * @param bytes          an array holding the value from {@code offset} to its end
         * @param offset         where the value starts
         * @param expireAtMillis the Unix-epoch millisecond deadline, or {@link StoredValue#NO_EXPIRY}
         * @param type           the type field: {@link StoredValue#STRING}, {@link StoredValue#HASH}, ...
         */
        Entry(byte[] bytes, int offset, long expireAtMillis, byte type) {
            this(bytes, offset, expireAtMillis, type, false);
        }

        /**
         * @param chunked the value is a chunked string's header ({@link BigStringLayout}), as only
         *                {@link KeyValueStore#raw} returns
         */
        Entry(byte[] bytes, int offset, long expireAtMillis, byte type, boolean chunked) {
            this.bytes = bytes;
            this.offset = offset;
            this.expireAtMillis = expireAtMillis;
            this.type = type;
            this.chunked = chunked;
        }

        /** @return whether the value is a chunked string's header, not its bytes (only from {@link KeyValueStore#raw}) */
        boolean chunked() {
            return chunked;
        }

        /** @return the type field: {@link StoredValue#STRING}, {@link StoredValue#HASH}, ... */
        byte type() {
            return type;
        }

        /** @return whether the value is a string's bytes */
        boolean isString() {
            return type == StoredValue.STRING;
        }

        /** @return whether the value is a hash ({@link HashLayout}), not a string */
        boolean isHash() {
            return type == StoredValue.HASH;
        }

        /** @return a copy of the value */
        byte[] value() {
            return offset == 0 ? bytes : java.util.Arrays.copyOfRange(bytes, offset, bytes.length);
        }

        byte[] array() {
            return bytes;
        }

        int offset() {
            return offset;
        }

        int length() {
            return bytes.length - offset;
        }

        long expireAtMillis() {
            return expireAtMillis;
        }
    }

    /**
     * @param key the key
     * @return the live entry, or null if absent or expired
     */
    Entry get(byte[] key);

    /**
     * As {@link #get}, but a chunked string ({@link BigStringLayout}) comes as its header, marked
     * {@link Entry#chunked()}, not as its bytes: for the commands that read or write its chunks
     * and for {@link ListCollector}. {@link #get} reads every chunk into one array.
     *
     * @param key the key
     * @return the live entry as stored, or null if absent or expired
     */
    Entry raw(byte[] key);

    /**
     * Copies the stored form ({@link StoredValue}) of the live value of {@code key} into
     * {@code dst} at {@code at}, allocating nothing: GET's path from the map to the reply buffer.
     *
     * @param key the key
     * @param dst where the stored form goes
     * @param at  where in {@code dst}
     * @return the stored form's length (a chunked string's is that of the plain string its chunks
     *     hold, which is what lands in {@code dst}) (nothing was copied if it exceeds {@code dst.byteSize() - at}:
     *     make room and call again), or -1 if absent or expired
     */
    long copyStored(MemorySegment key, MemorySegment dst, long at);

    /**
     * Reads ahead what lookups of the keys from {@code keys[from]} on will read, for a batch of
     * them, so that their cache misses overlap (MGET's and MSET's many keys); changes nothing.
     *
     * @param keys the keys
     * @param from the first key to read ahead for
     * @return the index after the last key read ahead for
     */
    int prefetch(MemorySegment[] keys, int from);

    /**
     * The longest value the store takes under a key: {@link StoredValue#MAX_PAYLOAD}, or less in a
     * store bounded by {@code --maxmemory}, whose map refuses an entry larger than a segment's
     * share of the bound.
     *
     * @param keyLength      the key's length
     * @param expireAtMillis the deadline the value is stored with, or {@link StoredValue#NO_EXPIRY}
     * @return the most bytes of value, 0 if the key alone is too long
     */
    long largestValue(long keyLength, long expireAtMillis);

    /**
     * Refuses a value the store would not take, before anything is written: a command that
     * writes several keys checks them all first, and stores all of them or none.
     *
     * @param keyLength      the key's length
     * @param valueLength    the value's length
     * @param expireAtMillis the deadline, or {@link StoredValue#NO_EXPIRY}
     * @throws ReplyException Redis's {@code string exceeds maximum allowed size} past
     *     {@link StoredValue#MAX_PAYLOAD}, or {@code OOM} naming the bound past {@link #largestValue}
     */
    void checkFits(long keyLength, long valueLength, long expireAtMillis);

    /**
     * @return the entries this process evicted to keep a bounded store within its bound (INFO's
     *     {@code evicted_keys}); 0 without a bound
     */
    long evictions();

    /**
     * Stores {@code value} with a deadline (or none), replacing what was there.
     *
     * @param key            the key
     * @param value          the value
     * @param expireAtMillis the deadline, or {@link StoredValue#NO_EXPIRY}
     * @throws ReplyException if the value is longer than {@link StoredValue#MAX_PAYLOAD}, or than
     *     {@link #largestValue} in a bounded store
     */
    default void set(byte[] key, byte[] value, long expireAtMillis) {
        set(key, value, 0, value.length, expireAtMillis, StoredValue.STRING);
    }

    /**
     * Stores the string {@code value[from, from + length)} with a deadline (or none), replacing what was there.
     *
     * @throws ReplyException if the value is longer than {@link StoredValue#MAX_PAYLOAD}, or than
     *     {@link #largestValue} in a bounded store
     */
    default void set(byte[] key, byte[] value, int from, int length, long expireAtMillis) {
        set(key, value, from, length, expireAtMillis, StoredValue.STRING);
    }

    /**
     * Stores {@code value[from, from + length)}, a value of {@code type}, with a deadline (or none),
     * replacing what was there.
     *
     * @param type the type field: {@link StoredValue#STRING}, {@link StoredValue#HASH}, ...
     * @throws ReplyException if the value is longer than {@link StoredValue#MAX_PAYLOAD}, or than
     *     {@link #largestValue} in a bounded store
     */
    void set(byte[] key, byte[] value, int from, int length, long expireAtMillis, byte type);

    /**
     * Stores {@code e}'s value, of its type, under {@code key} with deadline {@code expireAtMillis}:
     * what RENAME, MOVE, COPY and the EXPIRE family write, so that a hash stays one. An entry from
     * {@link #raw} that is a chunked string's header is written as that header, under the same id:
     * for the same key only (a second key holding the id would lose its chunks to the collector).
     *
     * @throws ReplyException as {@link #set(byte[], byte[], int, int, long, byte)}
     */
    default void set(byte[] key, Entry e, long expireAtMillis) {
        // A chunked header (from raw) stays one: EXPIRE and PERSIST rewrite the header, not the chunks.
        set(key, e.array(), e.offset(), e.length(), expireAtMillis, e.chunked() ? StoredValue.CHUNKED : e.type());
    }

    /**
     * Stores {@code buf[valueAt, valueAt + valueLength)} with a deadline (or none), replacing what
     * was there, without copying the value first: the {@link StoredValue#headerLength} bytes before
     * {@code valueAt} are overwritten with the stored form's header.
     *
     * @param key            the key
     * @param buf            holds the value, and room before it
     * @param valueAt        where the value starts, at least {@link StoredValue#headerLength}
     * @param valueLength    the value's length
     * @param expireAtMillis the deadline, or {@link StoredValue#NO_EXPIRY}
     * @throws ReplyException if the value is longer than {@link StoredValue#MAX_PAYLOAD}, or than
     *     {@link #largestValue} in a bounded store
     */
    default void setInPlace(MemorySegment key, MemorySegment buf, long valueAt, long valueLength, long expireAtMillis) {
        setInPlace(key, buf, valueAt, valueLength, expireAtMillis, StoredValue.STRING);
    }

    /**
     * As {@link #setInPlace(MemorySegment, MemorySegment, long, long, long)}, for a value of
     * {@code type}: a list's header, built by the list behind room for the stored form's header,
     * goes to the map in one copy.
     *
     * @param type the type field: {@link StoredValue#STRING}, {@link StoredValue#LIST}, ...
     */
    void setInPlace(MemorySegment key, MemorySegment buf, long valueAt, long valueLength, long expireAtMillis, byte type);

    /**
     * @param key the key
     * @return true if a live entry was removed
     */
    boolean delete(byte[] key);

    /**
     * Removes the header under {@code key} of a value whose elements the caller frees itself (a pop
     * that emptied its list): nothing is queued for {@link ListCollector}, which would find them
     * gone and walk the whole element map to make sure, and the header is not read first.
     *
     * @param key the key
     * @return true if an entry was removed
     */
    boolean deleteHeader(byte[] key);

    /**
     * @param key the key
     * @return true if a live entry exists
     */
    default boolean exists(byte[] key) {
        return raw(key) != null;
    }

    /** @return the number of entries, including expired ones not yet purged (as Redis counts) */
    long size();

    /**
     * @return the bytes the entries take, what {@code --maxmemory} bounds (INFO's {@code used_memory}):
     *     keys, values and their headers, and the element entries of lists, streams and big hashes,
     *     sets, sorted sets and strings, rounded up to the maps' blocks
     */
    long usedBytes();

    /** Removes everything. */
    void clear();

    /**
     * Calls {@code action} with every live key that passes {@code filter} and its deadline. Weakly
     * consistent; the callbacks must not call back into the store.
     *
     * @param filter tests the key bytes
     * @param action receives a copy of each key and its deadline
     */
    void scanKeys(Predicate<byte[]> filter, BiConsumer<byte[], Long> action);

    /** What {@link #scanEntries} hands over of each live key. */
    @FunctionalInterface
    interface EntryAction {
        /**
         * @param key   a copy of the key
         * @param entry a copy of its entry, as {@link #raw} gives it (a chunked string's header)
         */
        void accept(byte[] key, Entry entry);
    }

    /**
     * One step of a resumable scan, as {@link #scanKeys(long, long, Predicate, BiConsumer)}, that
     * hands over each live key with its entry, read together (one lookup, where a scan of keys
     * then {@link #raw} of each made two): a snapshot's way through the keys. The callback runs
     * after the step's reads and may call back into the store.
     *
     * @param cursor 0 to start, or what the previous step returned
     * @param count  about how many keys to visit, at least 1
     * @param action receives each live key and its entry
     * @return the cursor of the next step, 0 when done
     */
    default long scanEntries(long cursor, long count, EntryAction action) {
        List<byte[]> keys = new java.util.ArrayList<>();
        long next = scanKeys(cursor, count, k -> true, (k, at) -> keys.add(k));
        for (byte[] k : keys) {
            Entry e = raw(k);
            if (e != null) {
                action.accept(k, e);
            }
        }
        return next;
    }

    /**
     * One step of a resumable scan (SCAN's): visits about {@code count} keys from {@code cursor}
     * on and calls {@code action} with each live one that passes {@code filter}. A key present for
     * the whole scan is visited exactly once. The callbacks must not call back into the store.
     *
     * @param cursor 0 to start, or what the previous step returned
     * @param count  about how many keys to visit, at least 1
     * @param filter tests the key bytes
     * @param action receives a copy of each key and its deadline
     * @return the cursor of the next step, 0 when done (also for a cursor this store never returned)
     */
    long scanKeys(long cursor, long count, Predicate<byte[]> filter, BiConsumer<byte[], Long> action);

    /**
     * Where {@code key} lies in the order the resumable scans visit keys in, present or not: a step
     * from cursor {@code c} that returns {@code n} (or 0 at the end) visits the keys lying in
     * {@code [c, n)} (or from {@code c} on), and no growth of the store moves a key. What a snapshot
     * asks to know whether its builder has been past a key ({@link SnapshotBuild}).
     *
     * @param key the key
     * @return a cursor-like position, {@code >= 0}
     */
    long scanPosition(byte[] key);

    /**
     * RANDOMKEY's key: the first live key from a random point in the scan's order, wrapping
     * around. Not uniform (a key after a long empty stretch is picked more often), which Redis's
     * isn't quite either; what clients want of it is some key, cheaply.
     *
     * @return a live key, or null if there is none
     */
    byte[] randomKey();

    /**
     * @param key the key
     * @return the lock that every writer of {@code key} holds
     */
    Lock lock(byte[] key);

    /**
     * @param key a key
     * @return {@link #lock(byte[])} of that key, without copying it to an array
     */
    Lock lock(MemorySegment key);

    /**
     * @param keys keys, possibly repeated
     * @return the distinct locks of {@code keys} in the one global order every caller takes them in
     */
    Lock[] locks(byte[]... keys);

    /**
     * What a {@link #purgeExpired} sweep did and saw.
     *
     * @param removed      entries removed because their deadline passed
     * @param expiring     live entries with a deadline
     * @param meanDeadline their mean deadline (epoch ms), 0 if none
     * @param nextDeadline the earliest of their deadlines, {@code Long.MAX_VALUE} if none
     * @param complete     the sweep went through the whole store (else it was told to stop, and
     *                     only {@code removed} is meaningful)
     * @param whole        it read every entry, to learn where the keys with a TTL are (a store's
     *                     first); later sweeps read the parts that hold such keys only
     * @param read         the entries it read
     */
    record Sweep(long removed, long expiring, double meanDeadline, long nextDeadline, boolean complete, boolean whole, long read) {}

    /**
     * Removes entries whose deadline passed, a step at a time, and counts those with a deadline.
     *
     * @param keepGoing asked between steps; false stops the sweep there
     * @return what it did and saw
     */
    Sweep purgeExpired(java.util.function.BooleanSupplier keepGoing);

    /**
     * Lets {@code sweeper} know of every write: the deadline of each TTL written, and that other
     * writes happened. Called once, before the store is shared.
     */
    void watch(ExpirySweeper sweeper);

    /**
     * Says on stderr, once per run, that the map file is damaged, where, and what to do: for damage
     * a command (read or write) met, which fails that command, as for damage a scan or sweep
     * went past.
     */
    void damaged(MapCorruptedException e);

    /**
     * Counts a write refused because the map file could not grow (a full disk, a quota), and says so
     * on stderr: the first time, then at most once a minute while refusals go on, with how many
     * there were, so that a log shows when the disk filled and for how long writes were refused.
     */
    void noRoom(UncheckedIOException e);

    /** @return writes refused since start because the map file could not grow */
    long noRoomRefusals();

    /** @return the map file this store keeps its keys in (for a database without one yet, the file it will have) */
    java.nio.file.Path path();

    /** @return the map file's size in bytes, -1 if it cannot be read */
    long fileBytes();

    /** @return the bytes its file system has free for the map file to grow into, -1 if it will not tell */
    long diskFreeBytes();

    /** @return segment repairs after writers died holding a lock, over the file's life ({@link dev.colossal.map.BytesMap#repairs}) */
    long repairs();

    /**
     * The element map of this database's lists ({@link ListElements}).
     *
     * @param create whether to create it if the database has none yet (a list's first push)
     * @return it, or null if the database has none and {@code create} is false
     * @throws UncheckedIOException if it cannot be created
     */
    ListElements elements(boolean create);

    /** Forces written data to the device. */
    void sync();

    @Override
    void close() throws IOException;
}
