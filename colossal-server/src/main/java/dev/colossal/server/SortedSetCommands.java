package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.concurrent.locks.Lock;

/**
 * The sorted set commands that add, remove, pop and look up members, with Redis 7.0's replies and
 * errors. A sorted set is one value ({@link ZSetLayout}); a write holds the key's lock, reads the
 * value, changes it in memory ({@link ZSetValue}) and stores it whole again with the deadline it
 * had; a read walks it where it lies ({@link ZSetCursor}). Ranges are {@link SortedSetRanges}',
 * pops {@link SortedSetPops}', ZUNION and its kin {@link SortedSetAlgebra}'s, ZRANDMEMBER and ZSCAN
 * {@link SortedSetSampling}'s.
 */
final class SortedSetCommands {

    static final String NOT_FLOAT = "ERR value is not a valid float";
    private static final String NAN_SCORE = "ERR resulting score is not a number (NaN)";

    private final ServerContext ctx;

    SortedSetCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> wf = List.of("write", "denyoom", "fast");
        List<String> rf = List.of("readonly", "fast");
        t.add("zadd", -4, wf, 1, 1, 1, this::zadd);
        t.add("zincrby", 4, wf, 1, 1, 1, (c, a, r) -> zadd(c, a, r, true));
        t.add("zrem", -3, List.of("write", "fast"), 1, 1, 1, this::zrem);
        t.add("zcard", 2, rf, 1, 1, 1, this::zcard);
        t.add("zscore", 3, rf, 1, 1, 1, this::zscore);
        t.add("zmscore", -3, rf, 1, 1, 1, this::zmscore);
        t.add("zrank", 3, rf, 1, 1, 1, (c, a, r) -> zrank(c, a, r, false));
        t.add("zrevrank", 3, rf, 1, 1, 1, (c, a, r) -> zrank(c, a, r, true));
        t.add("zcount", 4, rf, 1, 1, 1, (c, a, r) -> count(c, a, r, ZRange.byScore(a[2], a[3]), ZRange.NOT_FLOAT));
        t.add("zlexcount", 4, rf, 1, 1, 1, (c, a, r) -> count(c, a, r, ZRange.byLex(a[2], a[3]), ZRange.NOT_LEX));
        List<String> w = List.of("write");
        t.add("zremrangebyrank", 4, w, 1, 1, 1, this::zremrangebyrank);
        t.add("zremrangebyscore", 4, w, 1, 1, 1,
                (c, a, r) -> zremrange(c, a, r, ZRange.byScore(a[2], a[3]), ZRange.NOT_FLOAT, "zremrangebyscore"));
        t.add("zremrangebylex", 4, w, 1, 1, 1,
                (c, a, r) -> zremrange(c, a, r, ZRange.byLex(a[2], a[3]), ZRange.NOT_LEX, "zremrangebylex"));
        new SortedSetPops(ctx).register(t);
        new SortedSetRanges(ctx).register(t);
        new SortedSetAlgebra(ctx).register(t);
        new SortedSetSampling(ctx).register(t);
        new GeoCommands(ctx, this).register(t);
    }

    /** ZADD with its options (GEOADD runs it with the scores of its points, as Redis does). */
    void zadd(Client c, byte[][] a, Reply r) {
        zadd(c, a, r, false);
    }

    /**
     * The live sorted set under {@code key}.
     *
     * @return the entry, or null if absent or expired
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static KeyValueStore.Entry zset(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        if (e != null && e.type() != StoredValue.ZSET) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return e;
    }

    /**
     * Stores {@code z} under {@code key} with the deadline {@code expireAt}: one value while Redis
     * would hold it as a listpack, else a tree ({@link StoredZSet}). An empty set deletes the key, as in Redis.
     */
    static void save(KeyValueStore store, byte[] key, ZSetValue z, long expireAt) {
        if (z.size() == 0) {
            store.delete(key);
            return;
        }
        if (z.encoding() == ZSetLayout.SKIPLIST) {
            StoredZSet.save(store, key, z, expireAt, z.maxEntries());
            return;
        }
        byte[] payload = z.encode();
        store.set(key, payload, 0, payload.length, expireAt, StoredValue.ZSET);
    }

    /**
     * A cursor over the whole sorted set {@code e} holds under {@code key}: where it lies for a
     * one-value set; a big one is read whole under the key's lock (O(n): for the commands that
     * read every member, or rarely used).
     *
     * @return the cursor, or null if {@code e} is null (a set deleted since reads as empty)
     */
    static ZSetCursor cursor(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        if (e == null || !ZSetTreeLayout.isTree(e)) {
            return e == null ? null : new ZSetCursor(e);
        }
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry now = zset(store, key);
            if (now == null) {
                return new ZSetCursor(new byte[] {ZSetLayout.SKIPLIST, 0}, 0); // deleted since: read as empty
            }
            if (!ZSetTreeLayout.isTree(now)) {
                return new ZSetCursor(now);
            }
            return new ZSetCursor(StoredZSet.read(store, key, now, ZSetLayout.MAX_LISTPACK_ENTRIES).payload(), 0);
        } finally {
            l.unlock();
        }
    }

    /**
     * Runs {@code action} on the big sorted set under {@code key}, under the key's lock, if the key
     * holds one: what reads of a big set do, since they read several nodes.
     *
     * @return whether the key held a big sorted set ({@code action} ran)
     */
    static boolean big(KeyValueStore store, byte[] key, KeyValueStore.Entry e, Consumer<StoredZSet> action) {
        if (e == null || !ZSetTreeLayout.isTree(e)) {
            return false;
        }
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry now = zset(store, key);
            if (now == null || !ZSetTreeLayout.isTree(now)) {
                return false; // deleted meanwhile: a tree never turns back into one value in place
            }
            action.accept(StoredZSet.view(store, key, now));
            return true;
        } finally {
            l.unlock();
        }
    }

    /** @return {@code e}, or if it is a big set that {@link #big} found gone, what the key holds now */
    static KeyValueStore.Entry small(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        return e != null && ZSetTreeLayout.isTree(e) ? zset(store, key) : e;
    }

    /** Publishes {@code event} (class z) on {@code key}, and {@code del} after it if the write emptied the set. */
    static void changed(ServerContext ctx, KeyValueStore store, byte[] key, String event, boolean gone) {
        ctx.events.fire(KeyspaceEvents.ZSET, event, store, key);
        if (gone) {
            ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, key);
        } else {
            ready(ctx, store, key);
        }
    }

    /** Tells clients blocked in BZPOPMIN/BZPOPMAX on {@code key} ({@link KeyWaits}) that it holds members. */
    static void ready(ServerContext ctx, KeyValueStore store, byte[] key) {
        if (ctx.waits.blocked() != 0) {
            ctx.waits.ready(ctx.dbs.indexOf(store), key);
        }
    }

    /** What a write does to a sorted set: changes it (or not) and says what to answer once it is stored. */
    @FunctionalInterface
    interface Change {
        Consumer<Reply> apply(ZSetWrites z);
    }

    /**
     * A sorted set write: under the key's lock, decodes the set ({@code absent} gives the one to
     * start from when there is none: null answers {@code ifAbsent} and writes nothing), applies
     * {@code change}, stores the result with the deadline the key had if it changed and publishes
     * {@code event} ({@link KeyspaceEvents}; and {@code del} if the set is gone), then answers.
     */
    private void write(Client c, byte[] key, Reply r, String event, java.util.function.Supplier<ZSetValue> absent,
                       Consumer<Reply> ifAbsent, Change change) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry e = zset(store, key);
            ZSetWrites z = writes(store, key, e, absent);
            if (z == null) {
                ifAbsent.accept(r);
                return;
            }
            Consumer<Reply> reply = change.apply(z);
            if (z.changed()) {
                store(store, key, e, z);
                changed(ctx, store, key, event, z.count() == 0);
            }
            reply.accept(r);
        } finally {
            l.unlock();
        }
    }

    /**
     * @param absent the set to start from when the key holds none (may give null)
     * @return the set {@code e} holds under {@code key}, for a write under the key's lock
     */
    ZSetWrites writes(KeyValueStore store, byte[] key, KeyValueStore.Entry e, java.util.function.Supplier<ZSetValue> absent) {
        long max = ctx.zsetMaxListpackEntries;
        if (e == null) {
            ZSetValue z = absent.get();
            return z == null ? null : z.limit(max);
        }
        return open(store, key, e, max);
    }

    /** @return the set {@code e} (not null) holds under {@code key}, for a write under the key's lock */
    static ZSetWrites open(KeyValueStore store, byte[] key, KeyValueStore.Entry e, long maxListpackEntries) {
        return ZSetTreeLayout.isTree(e) ? StoredZSet.read(store, key, e, maxListpackEntries)
                : ZSetValue.of(e).limit(maxListpackEntries);
    }

    /** Stores the changes of {@code z}, read from {@code e} (null if new) by {@link #writes}. */
    static void store(KeyValueStore store, byte[] key, KeyValueStore.Entry e, ZSetWrites z) {
        if (z instanceof StoredZSet big) {
            big.commit();
        } else {
            save(store, key, (ZSetValue) z, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
        }
    }

    private void zadd(Client c, byte[][] a, Reply r, boolean zincrby) {
        int flags = zincrby ? ZSetValue.INCR : 0;
        boolean ch = false;
        int at = 2;
        while (!zincrby && at < a.length) {
            if (Args.is(a[at], "NX")) {
                flags |= ZSetValue.NX;
            } else if (Args.is(a[at], "XX")) {
                flags |= ZSetValue.XX;
            } else if (Args.is(a[at], "CH")) {
                ch = true;
            } else if (Args.is(a[at], "INCR")) {
                flags |= ZSetValue.INCR;
            } else if (Args.is(a[at], "GT")) {
                flags |= ZSetValue.GT;
            } else if (Args.is(a[at], "LT")) {
                flags |= ZSetValue.LT;
            } else {
                break;
            }
            at++;
        }
        int left = a.length - at;
        if (left % 2 != 0 || left == 0) {
            r.error(Errors.SYNTAX);
            return;
        }
        int elements = left / 2;
        boolean nx = (flags & ZSetValue.NX) != 0;
        boolean gt = (flags & ZSetValue.GT) != 0;
        boolean lt = (flags & ZSetValue.LT) != 0;
        if (nx && (flags & ZSetValue.XX) != 0) {
            r.error("ERR XX and NX options at the same time are not compatible");
            return;
        }
        if ((gt && nx) || (lt && nx) || (gt && lt)) {
            r.error("ERR GT, LT, and/or NX options at the same time are not compatible");
            return;
        }
        boolean incr = (flags & ZSetValue.INCR) != 0;
        if (incr && elements > 1) {
            r.error("ERR INCR option supports a single increment-element pair");
            return;
        }
        double[] scores = new double[elements];
        for (int j = 0; j < elements; j++) {
            scores[j] = ZScore.parse(a[at + 2 * j]);
            if (Double.isNaN(scores[j])) {
                r.error(NOT_FLOAT);
                return;
            }
        }
        int first = at;
        int f = flags;
        boolean changedToo = ch;
        Consumer<Reply> nothing = incr ? Reply::nullBulk : rr -> rr.integer(0);
        java.util.function.Supplier<ZSetValue> absent =
                () -> (f & ZSetValue.XX) != 0 ? null : ZSetValue.created(a[first + 1].length);
        write(c, a[1], r, incr ? "zincr" : "zadd", absent, nothing, z -> {
                    int added = 0;
                    int updated = 0;
                    int processed = 0;
                    double[] score = new double[1];
                    for (int j = 0; j < elements; j++) {
                        int out = z.add(scores[j], a[first + 2 * j + 1], f, score);
                        if (out == ZSetValue.NAN) {
                            return rr -> rr.error(NAN_SCORE);
                        }
                        added += out == ZSetValue.ADDED ? 1 : 0;
                        updated += out == ZSetValue.UPDATED ? 1 : 0;
                        processed += out == ZSetValue.NOP ? 0 : 1;
                    }
                    if (incr) {
                        double s = score[0];
                        return processed > 0 ? rr -> ZScore.reply(rr, s) : Reply::nullBulk;
                    }
                    long n = changedToo ? added + updated : added;
                    return rr -> rr.integer(n);
                });
    }

    private void zrem(Client c, byte[][] a, Reply r) {
        write(c, a[1], r, "zrem", () -> null, rr -> rr.integer(0), z -> {
            long removed = 0;
            for (int i = 2; i < a.length; i++) {
                removed += z.remove(a[i]) ? 1 : 0;
            }
            long n = removed;
            return rr -> rr.integer(n);
        });
    }

    private void zcard(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = zset(ctx.db(c), a[1]);
        if (e != null && ZSetTreeLayout.isTree(e)) {
            r.integer(ZSetTreeLayout.get(e, ZSetTreeLayout.COUNT_OFFSET)); // the header's count is committed with it
            return;
        }
        r.integer(e == null ? 0 : new ZSetCursor(e).count());
    }

    private void zscore(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = zset(store, a[1]);
        if (big(store, a[1], e, z -> reply(r, z.scoreOf(a[2])))) {
            return;
        }
        e = small(store, a[1], e);
        ZSetCursor z = e == null ? null : new ZSetCursor(e);
        if (z != null && z.find(a[2])) {
            ZScore.reply(r, z.score());
        } else {
            r.nullBulk();
        }
    }

    private static void reply(Reply r, Double score) {
        if (score == null) {
            r.nullBulk();
        } else {
            ZScore.reply(r, score);
        }
    }

    private void zmscore(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = zset(store, a[1]);
        if (big(store, a[1], e, z -> {
            r.array(a.length - 2);
            for (int i = 2; i < a.length; i++) {
                reply(r, z.scoreOf(a[i]));
            }
        })) {
            return;
        }
        e = small(store, a[1], e);
        ZSetCursor z = e == null ? null : new ZSetCursor(e);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            if (z != null && z.find(a[i])) {
                ZScore.reply(r, z.score());
            } else {
                r.nullBulk();
            }
        }
    }

    private void zrank(Client c, byte[][] a, Reply r, boolean reverse) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = zset(store, a[1]);
        if (big(store, a[1], e, z -> {
            long rank = z.rankOf(a[2]);
            if (rank < 0) {
                r.nullBulk();
            } else {
                r.integer(reverse ? z.count() - 1 - rank : rank);
            }
        })) {
            return;
        }
        e = small(store, a[1], e);
        ZSetCursor z = e == null ? null : new ZSetCursor(e);
        if (z != null && z.find(a[2])) {
            r.integer(reverse ? z.count() - 1 - z.index() : z.index());
        } else {
            r.nullBulk();
        }
    }

    /** ZCOUNT and ZLEXCOUNT: the entries in {@code range}, walked from the lowest to the range's end. */
    private void count(Client c, byte[][] a, Reply r, ZRange range, String invalid) {
        if (range == null) {
            r.error(invalid);
            return;
        }
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = zset(store, a[1]);
        if (big(store, a[1], e, z -> {
            long[] ranks = z.ranks(range);
            r.integer(ranks[1] - ranks[0]);
        })) {
            return;
        }
        e = small(store, a[1], e);
        long n = 0;
        ZSetCursor z = e == null ? null : new ZSetCursor(e);
        boolean in = false;
        while (z != null && z.next()) {
            if (!in && !range.aboveMin(z)) {
                continue;
            }
            in = true;
            if (!range.belowMax(z)) {
                break;
            }
            n++;
        }
        r.integer(n > 0 && !range.endsAdmit(z) ? 0 : n);
    }

    private void zremrangebyrank(Client c, byte[][] a, Reply r) {
        OptionalLong start = Args.toLong(a[2]);
        OptionalLong end = start.isEmpty() ? start : Args.toLong(a[3]);
        if (end.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        write(c, a[1], r, "zremrangebyrank", () -> null, rr -> rr.integer(0), z -> {
            long[] ranks = ranks(start.getAsLong(), end.getAsLong(), z.count());
            if (ranks == null) {
                return rr -> rr.integer(0);
            }
            z.removeRanks(ranks[0], ranks[1] + 1);
            long n = ranks[1] - ranks[0] + 1;
            return rr -> rr.integer(n);
        });
    }

    /**
     * Redis's sanitising of a rank range {@code [start, end]} (negative from the end) over
     * {@code n} entries.
     *
     * @return the ranks {@code {from, to}}, both included, or null if the range is empty
     */
    static long[] ranks(long start, long end, long n) {
        if (start < 0) {
            start += n;
        }
        if (end < 0) {
            end += n;
        }
        if (start < 0) {
            start = 0;
        }
        if (start > end || start >= n) {
            return null;
        }
        return new long[] {start, Math.min(end, n - 1)};
    }

    private void zremrange(Client c, byte[][] a, Reply r, ZRange range, String invalid, String event) {
        if (range == null) {
            r.error(invalid);
            return;
        }
        write(c, a[1], r, event, () -> null, rr -> rr.integer(0), z -> {
            long[] ranks = z.ranks(range);
            z.removeRanks(ranks[0], ranks[1]);
            long n = ranks[1] - ranks[0];
            return rr -> rr.integer(n);
        });
    }
}
