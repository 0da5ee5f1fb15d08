package dev.colossal.server;

import dev.colossal.rdb.RdbFile;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One RDB snapshot of every database as it stood at one moment (for a replica, the offset its
 * stream starts from), built key by key while clients go on writing: what a replica loads and
 * {@code redis-cli --rdb} saves.
 *
 * <p>Redis forks for a still copy. Here the copy is made lazily: while a build is on, every command
 * that may write first hands each key it may change to {@link #beforeWrite}, before it has touched
 * the key (the moment is when every write under way as the build began has ended: {@link Replicas}).
 * A key the builder has not taken yet is read there, as it stands, and kept aside; the builder
 * takes a kept key's earlier state instead of its present one.
 *
 * <p>What a write must know is whether the builder has taken its key yet, and the store's scan
 * order tells that without a word per key: the builder walks each database in the order of
 * {@link KeyValueStore#scanPosition}, which no write moves, and once it has taken every key of a
 * step it moves {@link #reached} past the step. A write to a key below it has nothing to keep; a
 * write to a key at or above it keeps the key in {@link #kept}, which holds only keys written
 * ahead of the builder:
 *
 * <pre>
 *   position:  0 ............ reached[db) ............ step being read ............ limit
 *              taken: writes keep nothing    writes keep the key (Before, or NEW if absent)
 *
 *   kept key  --builder meets it in a step--> removed; its Before goes in the file, NEW goes nowhere
 *   kept key  --never met (removed since)--> its Before goes in the file at the database's end
 * </pre>
 *
 * <p>The builder reads a step first and claims it after: holding {@link #lock}, it takes each
 * key it read out of {@link #kept} and moves {@link #reached} to the step's end; a write keeps its
 * key holding the same lock, after seeing the key not yet reached. So a key the builder read with
 * nothing kept had no write between the start and the claim, and what it read is the key at the
 * start; if a write kept it first, its {@code Before} is. Keys removed for their TTL or evicted are
 * not kept: they simply go missing from the snapshot, and the DEL that the stream after it carries
 * finds nothing to remove on the replica, which ends the same.
 *
 * <p>The file goes to disk as it is made ({@link SnapshotFile}); the heap holds a step of keys
 * and a buffer of the file, whatever the dataset's size.
 *
 * <p>FLUSHALL and FLUSHDB keep every key they remove first (the old way's cost, on their own loop,
 * but rare); MOVE and COPY .. DB keep the key in both databases. SWAPDB, DEBUG RELOAD and POPULATE
 * change keys in ways no key-by-key copy follows: the build is given up ({@link #beforeCommand}).
 */
final class SnapshotBuild {

    /** A key that did not exist at the start: the stream creates it. */
    private static final Object NEW = new Object();
    /** Keys the builder asks the store for at a time, at most. */
    private static final int SCAN_STEP = 512;
    /** About the most bytes of values a step holds before it is written: big values make steps of fewer keys. */
    private static final long STEP_BYTES = 4L << 20;

    /** A key as it stood at the start, kept by the write that came before the builder: its RDB value ({@link DumpCommands#rdbValue}). */
    private record Before(byte[] value, long deadline) {}

    private final ServerContext ctx;
    /** Per database: the scan position below which the builder has taken every key; {@code Long.MAX_VALUE} once done. */
    private final AtomicLongArray reached;
    /** Per database: the keys a write kept before the builder reached them ({@code Before} or {@code NEW}), until it meets them. */
    private final List<ConcurrentHashMap<DbKey, Object>> kept = new ArrayList<>();
    /** Orders a write's keeping of a key after the builder's claim of its step, or before it. */
    private final Object lock = new Object();
    private final List<byte[]> functions = new ArrayList<>();
    /** The file's bytes, on disk as they are made ({@link SnapshotFile}): the heap holds a buffer of them. */
    private final FileChannel channel;
    private final RdbFile file;
    private final boolean functionsOnly;
    private volatile boolean cancelled;
    private int sectionDb = -1;

    /**
     * Starts a snapshot of now: the function libraries and, for a replica's replicas, where this
     * server stands in its master's stream, are taken at once.
     *
     * @param relayed       whether it is for a replica of this replica (the file then names the stream)
     * @param functionsOnly whether it holds the function libraries alone ({@code redis-cli --functions-rdb})
     * @throws java.io.UncheckedIOException if no file can be made in the data directory
     */
    SnapshotBuild(ServerContext ctx, boolean relayed, boolean functionsOnly) {
        this.ctx = ctx;
        this.functionsOnly = functionsOnly;
        this.channel = SnapshotFile.create(ctx.config.dataDir());
        this.file = new RdbFile(ServerContext.REDIS_VERSION, ctx.now(), functionsOnly ? 0 : ctx.dbs.usedBytes(), channel);
        if (relayed) {
            file.replication(ctx.replica.streamDb, ctx.replicas.replid(), ctx.replicas.offset());
        }
        for (FunctionLibraries.Library library : ctx.functions.all()) {
            functions.add(library.code);
        }
        reached = new AtomicLongArray(ctx.dbs.count());
        for (int db = 0; db < ctx.dbs.count(); db++) {
            kept.add(new ConcurrentHashMap<>());
        }
    }

    /**
     * Before a command changes {@code key} of database {@code db}, from any thread:
     * keeps the key as it stands if the builder has not taken it yet.
     */
    void beforeWrite(int db, byte[] key) {
        if (cancelled || functionsOnly || db >= reached.length()) {
            return;
        }
        KeyValueStore store = ctx.dbs.store(db);
        long at = store.scanPosition(key);
        ConcurrentHashMap<DbKey, Object> keptHere = kept.get(db);
        if (at < reached.get(db) || keptHere.containsKey(new DbKey(db, key))) {
            return; // taken, or kept by an earlier write
        }
        // read outside the lock (a big value takes long): no write of the key can come between, as
        // any other keeps it first, or finds it taken, as this one then will
        KeyValueStore.Entry e = store.get(key);
        byte[] value = e == null ? null : DumpCommands.rdbValue(store, key, e);
        Object state = value == null ? NEW : new Before(value, e.expireAtMillis());
        synchronized (lock) {
            if (!cancelled && at >= reached.get(db)) {
                keptHere.putIfAbsent(new DbKey(db, key.clone()), state); // a command's arguments are its own to reuse
            }
        }
    }

    /**
     * Before {@code args} runs in database {@code db}: keeps what it
     * may change. A flush keeps every key it removes; MOVE and COPY .. DB the key in both databases.
     *
     * @return false if the command moves keys between databases wholesale (SWAPDB) or makes keys
     *     outside the command table (DEBUG RELOAD, POPULATE): no key-by-key copy follows that, and
     *     the build must be given up (its replicas sync again after)
     */
    boolean beforeCommand(int db, CommandSpec spec, byte[][] args) {
        if (functionsOnly) {
            return true; // no key goes in such a file: nothing to keep
        }
        switch (spec.name()) {
            case "swapdb" -> {
                return false;
            }
            case "debug" -> {
                return args.length < 2 || !Args.is(args[1], "RELOAD") && !Args.is(args[1], "POPULATE");
            }
            case "flushall", "flushdb" -> {
                for (int d = 0; d < reached.length() && !cancelled; d++) {
                    if (d == db || spec.name().equals("flushall")) {
                        int n = d;
                        ctx.dbs.store(d).scanKeys(k -> true, (key, at) -> beforeWrite(n, key));
                    }
                }
            }
            case "move", "copy" -> {
                spec.forEachKey(args, k -> beforeWrite(db, k));
                int other = otherDb(spec.name(), args);
                if (other >= 0) {
                    beforeWrite(other, spec.name().equals("move") ? args[1] : args[2]);
                }
            }
            default -> spec.forEachKey(args, k -> beforeWrite(db, k));
        }
        return true;
    }

    /** @return the database MOVE or COPY .. DB writes into, or -1 if none is named (or it is not a number) */
    private static int otherDb(String name, byte[][] args) {
        int at = -1;
        if (name.equals("move")) {
            at = 2;
        } else {
            for (int i = 3; i + 1 < args.length; i++) {
                if (Args.is(args[i], "DB")) {
                    at = i + 1;
                }
            }
        }
        java.util.OptionalLong n = at > 0 && at < args.length ? Args.toLong(args[at]) : java.util.OptionalLong.empty();
        return n.isPresent() && n.getAsLong() >= 0 && n.getAsLong() < Integer.MAX_VALUE ? (int) n.getAsLong() : -1;
    }

    /** No one waits for it any more: {@link #build} stops at its next key, writes keep nothing more, and what they kept is let go. */
    void cancel() {
        cancelled = true;
        synchronized (lock) {
            for (ConcurrentHashMap<DbKey, Object> k : kept) {
                k.clear();
            }
        }
    }

    /** @return whether it was {@linkplain #cancel cancelled} */
    boolean cancelled() {
        return cancelled;
    }

    /**
     * Builds the file, on the caller's thread (not an event loop's: it takes as long as the keys take).
     *
     * @param progress called every so many keys (a replica waiting for the file is sent a newline each second)
     * @return the RDB file, held once for the caller, or null if {@linkplain #cancel cancelled}
     * @throws java.io.UncheckedIOException if the disk refused the file's bytes (full)
     * @throws IllegalStateException if a value did not fit in the heap
     */
    SnapshotFile build(Runnable progress) {
        SnapshotFile done = null;
        try {
            done = buildFile(progress);
            return done;
        } catch (OutOfMemoryError e) {
            // one value bigger than the heap can hold (a step holds a few MB besides): the server
            // goes on, and whoever waits for the file is told, rather than waiting for ever
            throw new IllegalStateException("a value of the snapshot did not fit in the server's heap (" + e.getMessage()
                    + "): give the server a larger -Xmx (COLOSSAL_JAVA_OPTS)", e);
        } finally {
            if (done == null) {
                SnapshotFile.close(channel);
            }
        }
    }

    private SnapshotFile buildFile(Runnable progress) {
        for (byte[] code : functions) {
            file.function(code);
        }
        for (int db = 0; db < (functionsOnly ? 0 : reached.length()); db++) {
            KeyValueStore store = ctx.dbs.store(db);
            long cursor = 0;
            int count = 1; // doubles while steps stay small: values may be megabytes each
            do {
                Step step = new Step(store);
                cursor = store.scanEntries(cursor, count, step::read);
                Object[] states = claim(db, step.keys, cursor == 0 ? Long.MAX_VALUE : cursor);
                for (int i = 0; i < step.keys.size() && !cancelled; i++) {
                    take(db, step, i, states == null ? null : states[i]);
                }
                progress.run();
                if (cancelled) {
                    return null;
                }
                // a step of big values is held whole until written: fewer keys a step then
                count = Math.clamp(step.bytes > STEP_BYTES ? count * STEP_BYTES / step.bytes : 2L * count, 1, SCAN_STEP);
            } while (cursor != 0);
            // every key of the database is reached: what is left kept was removed before the builder came
            for (var e : kept.get(db).entrySet()) {
                if (e.getValue() instanceof Before b) {
                    write(db, e.getKey().key(), b.value, b.deadline);
                }
            }
            kept.get(db).clear();
        }
        return SnapshotFile.of(channel, file.finishWritten());
    }

    /** The keys one step of the builder read, with their entries and (for all but plain strings) their RDB values, read before the claim. */
    private static final class Step {
        private final KeyValueStore store;
        final List<byte[]> keys = new ArrayList<>();
        final List<KeyValueStore.Entry> entries = new ArrayList<>();
        /** Null for a plain string, whole in its entry and written from it. */
        final List<byte[]> values = new ArrayList<>();
        long bytes;

        Step(KeyValueStore store) {
            this.store = store;
        }

        void read(byte[] key, KeyValueStore.Entry entry) {
            // other values (lists, streams, values in buckets or chunks) are read now, before the
            // claim (wasted for the few keys a write kept first: cheaper than a second lookup for every key)
            boolean whole = entry.isString() && !entry.chunked();
            byte[] value = whole ? null : DumpCommands.rdbValue(store, key, entry);
            keys.add(key);
            entries.add(entry);
            values.add(value);
            bytes += key.length + (whole ? entry.length() : value == null ? 0 : value.length);
        }
    }

    /**
     * The builder has read {@code keys}, every key of database {@code db} lying below {@code next}
     * from where the last step ended: takes what writes kept of them and moves {@link #reached} to
     * {@code next}, so that writes of them keep nothing from now on.
     *
     * @return what was kept of each key, index for index ({@code Before}, {@code NEW} or null), or null if nothing was kept of any
     */
    private Object[] claim(int db, List<byte[]> keys, long next) {
        synchronized (lock) {
            ConcurrentHashMap<DbKey, Object> keptHere = kept.get(db);
            Object[] states = null;
            if (!keptHere.isEmpty()) {
                states = new Object[keys.size()];
                for (int i = 0; i < keys.size(); i++) {
                    states[i] = keptHere.remove(new DbKey(db, keys.get(i)));
                }
            }
            reached.set(db, next);
            return states;
        }
    }

    /**
     * The builder's key {@code i} of {@code step}, with what a write kept of it: it goes in the file
     * as it stood at the start, unless it did not exist then.
     */
    private void take(int db, Step step, int i, Object state) {
        byte[] key = step.keys.get(i);
        if (state instanceof Before b) {
            write(db, key, b.value, b.deadline);
            return;
        }
        if (state == NEW) {
            return;
        }
        KeyValueStore.Entry entry = step.entries.get(i);
        byte[] value = step.values.get(i);
        if (value != null) {
            write(db, key, value, entry.expireAtMillis());
        } else if (entry.isString() && !entry.chunked()) {
            long at = entry.expireAtMillis() == StoredValue.NO_EXPIRY ? -1 : entry.expireAtMillis();
            section(db);
            file.stringKey(key, MemorySegment.ofArray(entry.array()).asSlice(entry.offset(), entry.length()), at);
            afterKey();
        } // else gone since the scan read it
    }

    private void write(int db, byte[] key, byte[] value, long deadline) {
        section(db);
        file.keyValue(key, value, deadline == StoredValue.NO_EXPIRY ? -1 : deadline);
        afterKey();
    }

    /** Starts database {@code db}'s part of the file before its first key. */
    private void section(int db) {
        if (db != sectionDb) {
            file.database(db, ctx.dbs.store(db).size(), 0); // sizing hints: Redis sizes its tables by them
            sectionDb = db;
        }
    }

    /** After each key: Redis's testing delay. */
    private void afterKey() {
        long delay = ctx.replicas.keySaveDelayMicros;
        if (delay > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(delay * 1000);
        }
    }
}
