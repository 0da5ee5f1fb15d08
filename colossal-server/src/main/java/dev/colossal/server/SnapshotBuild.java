package dev.colossal.server;

import dev.colossal.rdb.RdbFile;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One RDB snapshot of every database as it stood at one moment (for a replica, the offset its
 * stream starts from), built key by key while clients go on writing: what a replica loads and
 * {@code redis-cli --rdb} saves.
 *
 * <p>Redis forks for a still copy. Here the copy is made lazily: while a build is on, every command
 * that may write first hands each key it may change to {@link #beforeWrite}, before it has touched
 * the key (the moment is when every write under way as the build began has ended: {@link Replicas}). A
 * key the builder has not taken yet is read there, as it stands, and kept aside; the builder takes a
 * kept key's earlier state instead of its present one. Each key's state in {@link #states} goes
 * one way, set once by whoever comes first:
 *
 * <pre>
 *   (none) --builder takes it as it stands--> TAKEN
 *   (none) --a write comes first--> Before(state at the start) --builder takes that--> TAKEN
 *   (none) --a write creates it--> NEW (not in the snapshot)
 * </pre>
 *
 * <p>The builder reads a key first and claims it after ({@code putIfAbsent(TAKEN)}); a writer
 * claims it before its command writes. So a key the builder claims had no write between the start
 * and the claim, and what it read is the key at the start; if a writer claimed first, its
 * {@code Before} is. A key removed before the builder reached it was claimed by the write that
 * removed it, and is taken from {@link #removedBefore} at the end of its database. Keys removed
 * for their TTL or evicted are not claimed: they simply go missing from the snapshot, and the DEL
 * that the stream after it carries finds nothing to remove on the replica, which ends the same.
 *
 * <p>FLUSHALL and FLUSHDB keep every key they remove first (the old way's cost, on their own loop,
 * but rare); MOVE and COPY .. DB keep the key in both databases. SWAPDB, DEBUG RELOAD and POPULATE
 * change keys in ways no key-by-key copy follows: the build is given up ({@link #beforeCommand}).
 */
final class SnapshotBuild {

    /** A key the snapshot has, as it stood at the start. */
    private static final Object TAKEN = new Object();
    /** A key that did not exist at the start: the stream creates it. */
    private static final Object NEW = new Object();
    /** Keys the builder asks the store for at a time. */
    private static final int SCAN_STEP = 512;

    /** A key as it stood at the start, kept by the write that came before the builder: its RDB value ({@link DumpCommands#rdbValue}). */
    private record Before(DbKey key, byte[] value, long deadline) {}

    /** The snapshot grew past what the heap may hold of it. */
    static final class TooBig extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooBig(String message) {
            super(message, null, false, false);
        }
    }

    private final ServerContext ctx;
    /** Sized for every key at the start: the builder puts one state a key, and a table growing under it was a tenth of its time. */
    private final ConcurrentHashMap<DbKey, Object> states;
    /** Per database: the keys a write kept before the builder got to them, some since removed. */
    private final List<ConcurrentLinkedQueue<Before>> removedBefore = new ArrayList<>();
    private final List<byte[]> functions = new ArrayList<>();
    private final RdbFile file;
    private final boolean functionsOnly;
    private final long room;
    private volatile boolean cancelled;
    private int sectionDb = -1;

    /**
     * Starts a snapshot of now: the function libraries and, for a replica's replicas, where this
     * server stands in its master's stream, are taken at once.
     *
     * @param relayed       whether it is for a replica of this replica (the file then names the stream)
     * @param functionsOnly whether it holds the function libraries alone ({@code redis-cli --functions-rdb})
     * @param room          the bytes the file may grow to, past which {@link #build} throws {@link TooBig}
     */
    SnapshotBuild(ServerContext ctx, boolean relayed, boolean functionsOnly, long room) {
        this.ctx = ctx;
        this.functionsOnly = functionsOnly;
        this.room = room;
        this.file = new RdbFile(ServerContext.REDIS_VERSION, ctx.now(), functionsOnly ? 0 : ctx.dbs.usedBytes());
        if (relayed) {
            file.replication(ctx.replica.streamDb, ctx.replicas.replid(), ctx.replicas.offset());
        }
        for (FunctionLibraries.Library library : ctx.functions.all()) {
            functions.add(library.code);
        }
        long keys = 0;
        for (int db = 0; db < ctx.dbs.count(); db++) {
            removedBefore.add(new ConcurrentLinkedQueue<>());
            keys += functionsOnly ? 0 : ctx.dbs.store(db).size();
        }
        states = new ConcurrentHashMap<>((int) Math.min(keys + keys / 8 + 16, 1 << 29));
    }

    /**
     * Before a command changes {@code key} of database {@code db}, from any thread:
     * keeps the key as it stands if the builder has not taken it yet.
     */
    void beforeWrite(int db, byte[] key) {
        if (cancelled || functionsOnly || db >= removedBefore.size() || states.containsKey(new DbKey(db, key))) {
            return;
        }
        KeyValueStore store = ctx.dbs.store(db);
        KeyValueStore.Entry e = store.get(key);
        byte[] value = e == null ? null : DumpCommands.rdbValue(store, key, e);
        DbKey kept = new DbKey(db, key.clone()); // a command's arguments are its own to reuse
        Object state = value == null ? NEW : new Before(kept, value, e.expireAtMillis());
        if (states.putIfAbsent(kept, state) == null && state instanceof Before b) {
            removedBefore.get(db).add(b);
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
                for (int d = 0; d < removedBefore.size() && !cancelled; d++) {
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

    /** The replicas it was for are gone: {@link #build} stops at its next key, and writes keep nothing more. */
    void cancel() {
        cancelled = true;
    }

    /**
     * Builds the file, on the caller's thread (not an event loop's: it takes as long as the keys take).
     *
     * @param progress called every so many keys (a replica waiting for the file is sent a newline each second)
     * @return the RDB file, or null if {@linkplain #cancel cancelled}
     * @throws TooBig if the file outgrew the room it was given
     */
    byte[] build(Runnable progress) {
        for (byte[] code : functions) {
            file.function(code);
        }
        for (int db = 0; db < (functionsOnly ? 0 : removedBefore.size()); db++) {
            KeyValueStore store = ctx.dbs.store(db);
            int n = db;
            long cursor = 0;
            do {
                cursor = store.scanEntries(cursor, SCAN_STEP, (key, entry) -> take(n, store, key, entry));
                progress.run();
                if (cancelled) {
                    return null;
                }
            } while (cursor != 0);
            for (Before b : removedBefore.get(db)) {
                if (states.replace(b.key, b, TAKEN)) {
                    write(b);
                }
            }
        }
        return file.finish();
    }

    /**
     * The builder meets {@code key}, with the entry the scan read (before the claim, as the protocol
     * wants): it goes in the file as it stood at the start, unless it did not exist then.
     */
    private void take(int db, KeyValueStore store, byte[] key, KeyValueStore.Entry entry) {
        DbKey k = new DbKey(db, key);
        // a plain string is whole in the entry, written from it after the claim; other values
        // (lists, streams, values in buckets or chunks) are read again now, before it (wasted for
        // the few keys a write kept first: cheaper than a second lookup for every key)
        boolean whole = entry.isString() && !entry.chunked();
        byte[] value = whole ? null : DumpCommands.rdbValue(store, key, entry);
        Object state = states.putIfAbsent(k, TAKEN);
        if (state == null) {
            long at = entry.expireAtMillis() == StoredValue.NO_EXPIRY ? -1 : entry.expireAtMillis();
            if (whole) {
                section(db);
                file.stringKey(key, MemorySegment.ofArray(entry.array()).asSlice(entry.offset(), entry.length()), at);
                afterKey();
            } else if (value != null) { // null: gone since the scan read it
                write(db, key, value, entry.expireAtMillis());
            }
            return;
        }
        if (state instanceof Before b && states.replace(k, b, TAKEN)) {
            write(b);
        }
    }

    private void write(Before b) {
        write(b.key.db(), b.key.key(), b.value, b.deadline);
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

    /** After each key: Redis's testing delay, and the bound. */
    private void afterKey() {
        long delay = ctx.replicas.keySaveDelayMicros;
        if (delay > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(delay * 1000);
        }
        if (file.size() > room) {
            throw new TooBig(SyncCommands.tooBig(file.size(), room));
        }
    }
}
