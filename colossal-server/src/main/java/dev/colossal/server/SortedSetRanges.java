package dev.colossal.server;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * ZRANGE in Redis 7.0's unified form (BYSCORE, BYLEX, REV, LIMIT, WITHSCORES), its older spellings
 * (ZREVRANGE, ZRANGEBYSCORE, ...) and ZRANGESTORE, parsed in Redis's order of checks. A range is
 * read where the set lies ({@link ZSetCursor}): the walk skips to the range's start and ends at its
 * end, or once LIMIT's count is taken; a reversed range is the forward one read backwards.
 */
final class SortedSetRanges {

    private static final int AUTO = 0;
    private static final int RANK = 1;
    private static final int SCORE = 2;
    private static final int LEX = 3;

    private final ServerContext ctx;

    SortedSetRanges(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> ro = List.of("readonly");
        t.add("zrange", -4, ro, 1, 1, 1, (c, a, r) -> range(c, a, r, 1, AUTO, null));
        t.add("zrangestore", -5, List.of("write", "denyoom"), 1, 2, 1, (c, a, r) -> range(c, a, r, 2, AUTO, null));
        t.add("zrevrange", -4, ro, 1, 1, 1, (c, a, r) -> range(c, a, r, 1, RANK, true));
        t.add("zrangebyscore", -4, ro, 1, 1, 1, (c, a, r) -> range(c, a, r, 1, SCORE, false));
        t.add("zrevrangebyscore", -4, ro, 1, 1, 1, (c, a, r) -> range(c, a, r, 1, SCORE, true));
        t.add("zrangebylex", -4, ro, 1, 1, 1, (c, a, r) -> range(c, a, r, 1, LEX, false));
        t.add("zrevrangebylex", -4, ro, 1, 1, 1, (c, a, r) -> range(c, a, r, 1, LEX, true));
    }

    /**
     * The entries a range picked, in reply order: where each starts in the payload and its rank.
     *
     * @param at    the entries' offsets ({@link ZSetCursor#entryAt})
     * @param ranks their ranks, from the lowest
     * @param n     how many
     */
    private record Picked(int[] at, int[] ranks, int n) {}

    /**
     * Redis's {@code zrangeGenericCommand}.
     *
     * @param keyAt   the source key's place: 1, or 2 for ZRANGESTORE (whose destination is at 1)
     * @param kind    {@link #RANK}, {@link #SCORE}, {@link #LEX}, or {@link #AUTO} to read it from the options
     * @param reverse the direction a legacy spelling fixes, or null to read it from the options
     */
    private void range(Client c, byte[][] a, Reply r, int keyAt, int kind, Boolean reverse) {
        boolean store = keyAt == 2;
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        boolean rev = reverse != null && reverse;
        for (int j = keyAt + 3; j < a.length; j++) {
            int left = a.length - j - 1;
            if (!store && Args.is(a[j], "WITHSCORES")) {
                withScores = true;
            } else if (Args.is(a[j], "LIMIT") && left >= 2) {
                OptionalLong o = Args.toLong(a[j + 1]);
                OptionalLong l = o.isEmpty() ? o : Args.toLong(a[j + 2]);
                if (l.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                offset = o.getAsLong();
                limit = l.getAsLong();
                j += 2;
            } else if (reverse == null && !rev && Args.is(a[j], "REV")) {
                rev = true;
            } else if (kind == AUTO && Args.is(a[j], "BYLEX")) {
                kind = LEX;
            } else if (kind == AUTO && Args.is(a[j], "BYSCORE")) {
                kind = SCORE;
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        if (kind == AUTO) {
            kind = RANK;
        }
        if (limit != -1 && kind == RANK) {
            r.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
            return;
        }
        if (withScores && kind == LEX) {
            r.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
            return;
        }
        byte[] min = a[keyAt + 1];
        byte[] max = a[keyAt + 2];
        if (rev && kind != RANK) { // given as max min
            byte[] t = min;
            min = max;
            max = t;
        }
        long start = 0;
        long end = 0;
        ZRange range = null;
        if (kind == RANK) {
            OptionalLong s = Args.toLong(min);
            OptionalLong e = s.isEmpty() ? s : Args.toLong(max);
            if (e.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            start = s.getAsLong();
            end = e.getAsLong();
        } else {
            range = kind == SCORE ? ZRange.byScore(min, max) : ZRange.byLex(min, max);
            if (range == null) {
                r.error(kind == SCORE ? ZRange.NOT_FLOAT : ZRange.NOT_LEX);
                return;
            }
        }
        KeyValueStore store0 = ctx.db(c);
        if (!store) {
            KeyValueStore.Entry e = SortedSetCommands.zset(store0, a[keyAt]);
            boolean scores = withScores;
            long s0 = start;
            long e0 = end;
            long o0 = offset;
            long l0 = limit;
            boolean r0 = rev;
            ZRange g0 = range;
            if (SortedSetCommands.big(store0, a[keyAt], e, t -> reply(picked(t, s0, e0, r0, g0, o0, l0), scores, r))) {
                return;
            }
            e = SortedSetCommands.small(store0, a[keyAt], e);
            if (e == null) {
                r.array(0);
                return;
            }
            ZSetCursor z = new ZSetCursor(e);
            Picked p = kind == RANK ? byRank(z, start, end, rev) : byRange(z, range, rev, offset, limit);
            reply(z, p, withScores, r);
            return;
        }
        Lock[] ls = store0.locks(a[1], a[2]);
        StringCommands.lockAll(ls);
        try {
            KeyValueStore.Entry e = SortedSetCommands.zset(store0, a[keyAt]);
            if (e != null && ZSetTreeLayout.isTree(e)) {
                Entries got = picked(StoredZSet.read(store0, a[keyAt], e, ctx.zsetMaxListpackEntries), start, end, rev, range,
                        offset, limit);
                stored(store0, a[1], got.scores(), got.members(), got.n(), r);
                return;
            }
            ZSetCursor z = e == null ? null : new ZSetCursor(e);
            Picked p = z == null ? new Picked(new int[0], new int[0], 0)
                    : kind == RANK ? byRank(z, start, end, rev) : byRange(z, range, rev, offset, limit);
            double[] scores = new double[p.n()];
            byte[][] members = new byte[p.n()][];
            for (int i = 0; i < p.n(); i++) {
                z.seek(p.ranks()[i], p.at()[i]);
                z.next();
                scores[i] = z.score();
                members[i] = z.member();
            }
            stored(store0, a[1], scores, members, p.n(), r);
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /** ZRANGESTORE's end: stores the entries picked under {@code dest} (deletes it if none) and answers their number. */
    private void stored(KeyValueStore store, byte[] dest, double[] scores, byte[][] members, int n, Reply r) {
        if (n == 0) {
            if (store.delete(dest)) {
                ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, dest);
            }
            r.integer(0);
            return;
        }
        if (n <= ctx.zsetMaxListpackEntries) {
            // Redis starts the destination as a listpack when the count fits, whatever the members'
            // lengths, and adds the entries in range order: a -0 added before a member too long for a
            // listpack made it a skiplist was stored as 0, and stays 0 (ZSetLayout: listpacks hold no -0).
            for (int i = 0; i < n && ZSetLayout.fitsListpack(0, members[i].length); i++) {
                if (scores[i] == 0) {
                    scores[i] = 0.0;
                }
            }
        }
        SortedSetCommands.save(store, dest, ZSetValue.builtUnder(scores, members, n, ctx.zsetMaxListpackEntries),
                StoredValue.NO_EXPIRY);
        ctx.events.fire(KeyspaceEvents.ZSET, "zrangestore", store, dest);
        SortedSetCommands.ready(ctx, store, dest);
        r.integer(n);
    }

    /** Entries read from a big set, in reply order. */
    private record Entries(double[] scores, byte[][] members, int n) {}

    /**
     * What {@link #byRank} or {@link #byRange} pick, read from a big set in O(log n + the range):
     * the range's ranks from its counted tree, then a walk over them alone.
     */
    private static Entries picked(ZSetWrites z, long start, long end, boolean rev, ZRange range, long offset, long limit) {
        long count = z.count();
        long from;
        long n;
        if (range == null) {
            long[] ranks = SortedSetCommands.ranks(start, end, count);
            if (ranks == null) {
                return new Entries(new double[0], new byte[0][], 0);
            }
            n = ranks[1] - ranks[0] + 1;
            from = rev ? count - 1 - ranks[0] : ranks[0];
        } else {
            if (offset < 0 || (offset > 0 && offset >= count)) {
                return new Entries(new double[0], new byte[0][], 0);
            }
            long[] ranks = z.ranks(range);
            long in = ranks[1] - ranks[0];
            n = Math.max(0, in - offset);
            if (limit >= 0) {
                n = Math.min(n, limit);
            }
            from = rev ? ranks[1] - 1 - offset : ranks[0] + offset;
        }
        int k = (int) Math.min(n, Integer.MAX_VALUE - 8);
        double[] scores = new double[k];
        byte[][] members = new byte[k][];
        int[] got = {0};
        if (k > 0) {
            z.walk(from, rev, (s, m) -> {
                scores[got[0]] = s;
                members[got[0]++] = m;
                return got[0] < k;
            });
        }
        return new Entries(scores, members, got[0]);
    }

    private static void reply(Entries p, boolean withScores, Reply r) {
        boolean pairs = withScores && r.protocol > 2;
        r.array(withScores && !pairs ? 2 * p.n() : p.n());
        try (Reply.Batch b = r.batch()) {
            for (int i = 0; i < p.n(); i++) {
                if (pairs) {
                    b.pair();
                }
                b.bulk(p.members()[i]);
                if (withScores) {
                    b.score(p.scores()[i]);
                }
            }
        }
    }

    /** The ranks {@code [start, end]} (negative from the end; counted from the highest if {@code rev}). */
    private static Picked byRank(ZSetCursor z, long start, long end, boolean rev) {
        long[] ranks = SortedSetCommands.ranks(start, end, z.count());
        if (ranks == null) {
            return new Picked(new int[0], new int[0], 0);
        }
        int n = (int) (ranks[1] - ranks[0] + 1);
        int from = (int) (rev ? z.count() - 1 - ranks[1] : ranks[0]);
        int[] at = new int[n];
        int[] rank = new int[n];
        int k = 0;
        while (k < n && z.next()) {
            if (z.index() >= from) {
                at[k] = z.entryAt();
                rank[k++] = z.index();
            }
        }
        if (rev) {
            reverse(at, n);
            reverse(rank, n);
        }
        return new Picked(at, rank, n);
    }

    /** The entries in {@code range}, then LIMIT's {@code offset} and {@code limit} as Redis applies them, in reply order. */
    private static Picked byRange(ZSetCursor z, ZRange range, boolean rev, long offset, long limit) {
        if (offset < 0 || (offset > 0 && offset >= z.count())) {
            return new Picked(new int[0], new int[0], 0); // Redis's offset loop runs past the end for a negative one
        }
        // Forward, the walk can end once offset + limit entries are in; reversed, the last ones are wanted
        long enough = !rev && limit >= 0 && limit <= Long.MAX_VALUE - offset ? offset + limit : Long.MAX_VALUE;
        int[] at = new int[8];
        int[] rank = new int[8];
        int n = 0;
        boolean in = false;
        while (n < enough && z.next()) {
            if (!in && !range.aboveMin(z)) {
                continue;
            }
            in = true;
            if (!range.belowMax(z)) {
                break;
            }
            if (n == at.length) {
                at = Arrays.copyOf(at, n * 2);
                rank = Arrays.copyOf(rank, n * 2);
            }
            at[n] = z.entryAt();
            rank[n++] = z.index();
        }
        if (n > 0 && !range.endsAdmit(z)) {
            n = 0;
        }
        if (rev) {
            reverse(at, n);
            reverse(rank, n);
        }
        int from = (int) Math.min(offset, n);
        int to = limit < 0 ? n : from + (int) Math.min(n - from, limit);
        return new Picked(Arrays.copyOfRange(at, from, to), Arrays.copyOfRange(rank, from, to), to - from);
    }

    private static void reverse(int[] a, int n) {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    /** The members (and scores: flat in RESP2, as pairs in RESP3, as Redis answers). */
    private static void reply(ZSetCursor z, Picked p, boolean withScores, Reply r) {
        boolean pairs = withScores && r.protocol > 2;
        r.array(withScores && !pairs ? 2 * p.n() : p.n());
        try (Reply.Batch b = r.batch()) {
            for (int i = 0; i < p.n(); i++) {
                z.seek(p.ranks()[i], p.at()[i]);
                z.next();
                if (pairs) {
                    b.pair();
                }
                b.accept(z.bytes(), z.memberAt(), z.memberLength());
                if (withScores) {
                    b.score(z.score());
                }
            }
        }
    }
}
