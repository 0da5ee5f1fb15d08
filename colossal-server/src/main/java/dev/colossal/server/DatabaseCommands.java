package dev.colossal.server;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * The commands about databases ({@link Databases}): SELECT, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, MOVE
 * and COPY, with redis-server 7.0's replies and error texts.
 */
final class DatabaseCommands {

    /** What {@link #index} returns once it has answered the error: no int. */
    private static final long REFUSED = Long.MIN_VALUE;

    private final ServerContext ctx;

    DatabaseCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("select", 2, List.of("fast"), 0, 0, 0, this::select);
        t.add("dbsize", 1, List.of("readonly", "fast"), 0, 0, 0, (c, a, r) -> r.integer(ctx.db(c).size()));
        t.add("flushdb", -1, List.of("write"), 0, 0, 0, (c, a, r) -> flush(c, a, r, false));
        t.add("flushall", -1, List.of("write"), 0, 0, 0, (c, a, r) -> flush(c, a, r, true));
        t.add("swapdb", 3, List.of("write", "fast"), 0, 0, 0, this::swapdb);
        t.add("move", 3, List.of("write", "fast"), 1, 1, 1, this::move);
        t.add("copy", -3, List.of("write", "denyoom"), 1, 2, 1, this::copy);
    }

    /**
     * Reads a database number as Redis's {@code getIntFromObjectOrReply} does (any int; whether it
     * is one of ours is {@link #inRange}'s, after, as Redis's order of errors has it), or answers the error.
     *
     * @param notInt the error for a non-number or a number outside int, or null for Redis's own two
     * @return the number, or {@link #REFUSED} once the error is answered
     */
    private static long index(byte[] arg, String notInt, Reply r) {
        OptionalLong parsed = Args.toLong(arg);
        if (parsed.isEmpty()) {
            r.error(notInt != null ? notInt : Errors.NOT_INTEGER);
            return REFUSED;
        }
        long db = parsed.getAsLong();
        if (db > Integer.MAX_VALUE || db < Integer.MIN_VALUE) {
            r.error(notInt != null ? notInt : "ERR value is out of range, value must between " + Integer.MIN_VALUE
                    + " and " + Integer.MAX_VALUE);
            return REFUSED;
        }
        return db;
    }

    /**
     * A database named by one argument (SELECT, MOVE, COPY ... DB): {@link #index} with Redis's own
     * errors, then the range.
     *
     * @return the number, or {@link #REFUSED} once the error is answered
     */
    private long database(byte[] arg, Reply r) {
        long db = index(arg, null, r);
        if (db != REFUSED && !inRange(db)) {
            r.error(Errors.DB_RANGE);
            return REFUSED;
        }
        return db;
    }

    /** Whether {@code db} is one of ours; false for {@link #REFUSED} too. */
    private boolean inRange(long db) {
        return db >= 0 && db < ctx.dbs.count();
    }

    private void select(Client c, byte[][] a, Reply r) {
        long db = database(a[1], r);
        if (db == REFUSED) {
            return;
        }
        c.db = (int) db;
        r.ok();
    }

    private void flush(Client c, byte[][] a, Reply r, boolean all) {
        if (a.length > 2 || (a.length == 2 && !Args.is(a[1], "ASYNC") && !Args.is(a[1], "SYNC"))) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (all) {
            ctx.dbs.openMaps().forEach(KeyValueStore::clear);
            ctx.savePoints.saveIfSet();
        } else {
            ctx.db(c).clear();
        }
        ctx.waits.changedAll(all ? -1 : c.db); // a blocked XREADGROUP's stream went
        // every database's keys, as Redis tells it; with no client tracking now the table may still
        // hold keys read before, which no write forgot since (none is watched then): they go too
        ctx.tracking.flushed();
        r.ok();
    }

    private void swapdb(Client c, byte[][] a, Reply r) {
        long first = index(a[1], "ERR invalid first DB index", r);
        if (first == REFUSED) {
            return;
        }
        long second = index(a[2], "ERR invalid second DB index", r);
        if (second == REFUSED) {
            return;
        }
        if (!inRange(first) || !inRange(second)) {
            r.error(Errors.DB_RANGE);
            return;
        }
        ctx.dbs.swap((int) first, (int) second);
        // as in Redis, the waiters of both see what is under their keys now: a stream with entries, or none
        ctx.waits.changedAll((int) first);
        ctx.waits.changedAll((int) second);
        r.ok();
    }

    /**
     * MOVE key db: 1 if the key went to {@code db}, 0 if it is not in this database or already in
     * that one (which keeps its own). The key's lock is the same in both ({@link KeyLocks}), so no
     * write to it lands between the copy and the delete; a kill between them is settled at the
     * next start ({@link KeyMove}).
     */
    private void move(Client c, byte[][] a, Reply r) {
        long to = database(a[2], r);
        if (to == REFUSED) {
            return;
        }
        if (to == c.db) {
            r.error(Errors.SAME_OBJECT);
            return;
        }
        KeyValueStore src = ctx.db(c);
        KeyValueStore dst = ctx.dbs.store((int) to);
        Lock l = src.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = src.get(a[1]);
            if (e == null || dst.exists(a[1])) {
                r.integer(0);
                return;
            }
            KeyMove.run(src, (int) to, a[1], () -> copyValue(src, a[1], e, dst, a[1], (int) to), () -> deleteValue(src, a[1], e));
            ctx.events.fire(KeyspaceEvents.GENERIC, "move_from", src, a[1]);
            ctx.events.fire(KeyspaceEvents.GENERIC, "move_to", dst, a[1]);
            r.integer(1);
        } finally {
            l.unlock();
        }
    }

    /**
     * COPY source destination [DB db] [REPLACE]: options are read in order, each error as it is met,
     * as Redis does, so that {@code COPY a b FOO DB 99} is a syntax error, not a range one. Both
     * keys' locks are the same in every database ({@link KeyLocks}), so holding them covers the
     * destination's database too.
     */
    private void copy(Client c, byte[][] a, Reply r) {
        long to = c.db;
        boolean replace = false;
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "REPLACE")) {
                replace = true;
            } else if (Args.is(a[j], "DB") && j + 1 < a.length) {
                to = database(a[++j], r);
                if (to == REFUSED) {
                    return;
                }
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        if (to == c.db && Arrays.equals(a[1], a[2])) {
            r.error(Errors.SAME_OBJECT);
            return;
        }
        KeyValueStore src = ctx.db(c);
        KeyValueStore dst = ctx.dbs.store((int) to);
        Lock[] ls = src.locks(a[1], a[2]);
        StringCommands.lockAll(ls);
        try {
            KeyValueStore.Entry e = src.get(a[1]);
            if (e == null || (!replace && dst.exists(a[2]))) {
                r.integer(0);
                return;
            }
            copyValue(src, a[1], e, dst, a[2], (int) to);
            ctx.events.fire(KeyspaceEvents.GENERIC, "copy_to", dst, a[2]);
            r.integer(1);
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /**
     * Writes the value {@code e} of {@code key} in {@code src} under {@code toKey} in database
     * {@code to} ({@code dst}), replacing what it held: elements under a new id of the destination's
     * element map, then the header, the one write a reader sees (MOVE's and COPY's).
     */
    private void copyValue(KeyValueStore src, byte[] key, KeyValueStore.Entry e, KeyValueStore dst, byte[] toKey, int to) {
        if (e.type() == StoredValue.LIST) {
            StoredList.read(src, key).copyTo(dst, toKey, e.expireAtMillis());
            ctx.waits.ready(to, toKey);
        } else if (e.type() == StoredValue.STREAM) {
            StoredStream.read(src, key).copyTo(dst, toKey, e.expireAtMillis());
            ctx.waits.ready(to, toKey);
        } else if (HashBuckets.isBucketed(e)) {
            StoredHash.read(src, key, e).copyTo(dst, toKey, e.expireAtMillis());
        } else if (ZSetTreeLayout.isTree(e)) {
            StoredZSet.read(src, key, e, ctx.zsetMaxListpackEntries).copyTo(dst, toKey, e.expireAtMillis());
        } else {
            dst.set(toKey, e, e.expireAtMillis());
        }
    }

    /** Removes {@code key}, whose value is {@code e}, from {@code src} with the elements it keeps there (MOVE's source). */
    private void deleteValue(KeyValueStore src, byte[] key, KeyValueStore.Entry e) {
        if (e.type() == StoredValue.LIST) {
            StoredList.read(src, key).delete();
        } else if (e.type() == StoredValue.STREAM) {
            StoredStream.read(src, key).delete();
        } else if (HashBuckets.isBucketed(e)) {
            StoredHash.read(src, key, e).delete();
        } else if (ZSetTreeLayout.isTree(e)) {
            StoredZSet.read(src, key, e, ctx.zsetMaxListpackEntries).delete();
        } else {
            src.delete(key);
        }
    }
}
