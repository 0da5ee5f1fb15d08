package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, as Redis's
 * {@code zunionInterDiffGenericCommand}: sources checked for their type before the options are
 * read, an intersection walked from the smallest source (so that scores add up in Redis's order),
 * a weighted score that is NaN ({@code inf * 0}) counted as 0, and so is a sum of {@code inf} and
 * {@code -inf}. Every key the command names is locked for the whole command. A big input is read
 * whole only when all its members are needed (see {@link Source}).
 */
final class SortedSetAlgebra {

    private static final int UNION = 0;
    private static final int INTER = 1;
    private static final int DIFF = 2;
    private static final int SUM = 0;
    private static final int MIN = 1;
    private static final int MAX = 2;
    /** A plain set's member's score. */
    private static final Double ONE = 1.0;

    private final ServerContext ctx;

    SortedSetAlgebra(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> ro = List.of("readonly", "movablekeys");
        List<String> w = List.of("write", "denyoom", "movablekeys");
        t.add("zunion", -3, ro, 0, 0, 0, (c, a, r) -> run(c, a, r, UNION, false, false));
        t.add("zinter", -3, ro, 0, 0, 0, (c, a, r) -> run(c, a, r, INTER, false, false));
        t.add("zdiff", -3, ro, 0, 0, 0, (c, a, r) -> run(c, a, r, DIFF, false, false));
        t.add("zintercard", -3, ro, 0, 0, 0, (c, a, r) -> run(c, a, r, INTER, false, true));
        t.add("zunionstore", -4, w, 1, 1, 1, (c, a, r) -> run(c, a, r, UNION, true, false));
        t.add("zinterstore", -4, w, 1, 1, 1, (c, a, r) -> run(c, a, r, INTER, true, false));
        t.add("zdiffstore", -4, w, 1, 1, 1, (c, a, r) -> run(c, a, r, DIFF, true, false));
    }

    /**
     * One input: its size, its weight, and its members' scores, read whole or looked up one by one.
     * A big set or sorted set is read whole only where every member is needed (a union, the
     * smallest source of an intersection, the first of a difference); the others answer look-ups in
     * place, so ZINTER of ten members and a million costs ten look-ups, not a read of the million.
     */
    private static final class Source {
        static final Source MISSING = new Source(null);

        final long size;
        private final Supplier<ZSetValue> whole;
        private final Function<byte[], Double> lookup;
        private ZSetValue set;
        double weight = 1;

        /** A source read already: a small value, or nothing (a missing key). */
        Source(ZSetValue set) {
            this.size = set == null ? 0 : set.size();
            this.set = set;
            this.whole = null;
            this.lookup = null;
        }

        /** A big source: {@code size} members, read by {@code whole} if all are needed. */
        Source(long size, Supplier<ZSetValue> whole, Function<byte[], Double> lookup) {
            this.size = size;
            this.whole = whole;
            this.lookup = lookup;
        }

        /** @return every member, in (score, member) order; null for a missing key */
        ZSetValue set() {
            if (set == null && whole != null) {
                set = whole.get();
            }
            return set;
        }

        /** @return the score of {@code member}, or null if the source has no such member */
        Double scoreOf(byte[] member) {
            if (lookup != null) {
                return lookup.apply(member);
            }
            return set == null ? null : set.scoreOf(member);
        }
    }

    /**
     * @return the input under {@code key} (the caller holds its lock), {@link Source#MISSING} if
     *     absent; a plain set reads as one whose members all score 1, as Redis reads it here
     * @throws ReplyException WRONGTYPE for another type
     */
    private static Source source(KeyValueStore db, byte[] key) {
        KeyValueStore.Entry e = db.get(key);
        if (e == null) {
            return Source.MISSING;
        }
        if (e.type() == StoredValue.ZSET) {
            if (ZSetTreeLayout.isTree(e)) {
                StoredZSet z = StoredZSet.view(db, key, e);
                return new Source(z.count(), () -> ZSetValue.of(SortedSetCommands.cursor(db, key, e)), z::scoreOf);
            }
            return new Source(ZSetValue.of(new ZSetCursor(e)));
        }
        if (e.type() != StoredValue.SET) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        if (HashBuckets.isBucketed(e)) {
            long[] count = new long[1];
            SetCommands.bucketed(db, key, e, s -> count[0] = s.count());
            return new Source(count[0], () -> allScoringOne(SetCommands.members(db, key, e)),
                    m -> StoredHash.find(db, key, e, m) != null ? ONE : null);
        }
        return new Source(allScoringOne(SetCommands.members(db, key, e)));
    }

    /** @return {@code members} as a sorted set whose scores are all 1: in member order, as Redis sorts them */
    private static ZSetValue allScoringOne(List<byte[]> members) {
        byte[][] sorted = members.toArray(byte[][]::new);
        Arrays.sort(sorted, Arrays::compareUnsigned);
        double[] ones = new double[sorted.length];
        Arrays.fill(ones, 1);
        return ZSetValue.built(ones, sorted, sorted.length);
    }

    private void run(Client c, byte[][] a, Reply r, int op, boolean store, boolean cardinality) {
        int numKeysAt = store ? 2 : 1;
        OptionalLong parsed = Args.toLong(a[numKeysAt]);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long setNum = parsed.getAsLong();
        if (setNum < 1) {
            r.error("ERR at least 1 input key is needed for '" + Args.lower(a[0]) + "' command");
            return;
        }
        if (setNum > a.length - (numKeysAt + 1)) {
            r.error(Errors.SYNTAX);
            return;
        }
        int n = (int) setNum;
        byte[][] keys = Arrays.copyOfRange(a, store ? 1 : 2, numKeysAt + 1 + n);
        if (store) {
            keys[1] = keys[0]; // the destination takes numkeys' place: every key the command names
        }
        KeyValueStore db = ctx.db(c);
        Lock[] ls = db.locks(keys);
        StringCommands.lockAll(ls);
        try {
            Source[] src = new Source[n];
            for (int i = 0; i < n; i++) {
                src[i] = source(db, a[numKeysAt + 1 + i]);
            }
            int aggregate = SUM;
            boolean withScores = false;
            long limit = 0;
            for (int j = numKeysAt + 1 + n; j < a.length; ) {
                int left = a.length - j;
                if (op != DIFF && !cardinality && left >= n + 1 && Args.is(a[j], "WEIGHTS")) {
                    j++;
                    for (int i = 0; i < n; i++, j++) {
                        src[i].weight = ZScore.parse(a[j]);
                        if (Double.isNaN(src[i].weight)) {
                            r.error("ERR weight value is not a float");
                            return;
                        }
                    }
                } else if (op != DIFF && !cardinality && left >= 2 && Args.is(a[j], "AGGREGATE")) {
                    byte[] how = a[j + 1];
                    aggregate = Args.is(how, "SUM") ? SUM : Args.is(how, "MIN") ? MIN : Args.is(how, "MAX") ? MAX : -1;
                    if (aggregate < 0) {
                        r.error(Errors.SYNTAX);
                        return;
                    }
                    j += 2;
                } else if (!store && !cardinality && Args.is(a[j], "WITHSCORES")) {
                    withScores = true;
                    j++;
                } else if (cardinality && left >= 2 && Args.is(a[j], "LIMIT")) {
                    OptionalLong l = Args.toLong(a[j + 1]);
                    if (l.isEmpty() || l.getAsLong() < 0) {
                        r.error("ERR LIMIT can't be negative");
                        return;
                    }
                    limit = l.getAsLong();
                    j += 2;
                } else {
                    r.error(Errors.SYNTAX);
                    return;
                }
            }
            if (op != DIFF) {
                // Redis's qsort by size (a merge sort in glibc, so ties keep their order)
                Arrays.sort(src, (x, y) -> Long.compare(x.size, y.size));
            }
            List<byte[]> members = new ArrayList<>();
            List<Double> scores = new ArrayList<>();
            if (op == INTER) {
                long count = inter(src, aggregate, members, scores, cardinality, limit);
                if (cardinality) {
                    r.integer(count);
                    return;
                }
            } else if (op == UNION) {
                union(src, aggregate, members, scores);
            } else {
                diff(src, members, scores);
            }
            int size = members.size();
            double[] s = new double[size];
            for (int i = 0; i < size; i++) {
                s[i] = scores.get(i);
            }
            byte[][] m = members.toArray(byte[][]::new);
            if (store) {
                if (size == 0) {
                    if (db.delete(a[1])) {
                        ctx.events.fire(KeyspaceEvents.GENERIC, "del", db, a[1]);
                    }
                    r.integer(0);
                } else {
                    SortedSetCommands.save(db, a[1], ZSetValue.builtUnder(s, m, size, ctx.zsetMaxListpackEntries),
                            StoredValue.NO_EXPIRY);
                    ctx.events.fire(KeyspaceEvents.ZSET, Args.lower(a[0]), db, a[1]);
                    SortedSetCommands.ready(ctx, db, a[1]);
                    r.integer(size);
                }
                return;
            }
            // A reply is read from Redis's skiplist, which keeps a -0 a listpack would make 0
            ZSetValue result = ZSetValue.built(s, m, size, ZSetLayout.SKIPLIST);
            boolean pairs = withScores && r.protocol > 2;
            r.array(withScores && !pairs ? 2 * size : size);
            for (int i = 0; i < size; i++) {
                if (pairs) {
                    r.array(2);
                }
                r.bulk(result.member(i));
                if (withScores) {
                    ZScore.reply(r, result.score(i));
                }
            }
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    private static double weighted(double score, double weight) {
        double v = score * weight;
        return Double.isNaN(v) ? 0 : v;
    }

    private static double aggregate(double target, double v, int how) {
        return switch (how) {
            case SUM -> {
                double sum = target + v;
                yield Double.isNaN(sum) ? 0 : sum;
            }
            case MIN -> v < target ? v : target;
            default -> v > target ? v : target;
        };
    }

    /** @return how many members every source has (at most {@code limit} if it is not 0) */
    private static long inter(Source[] src, int how, List<byte[]> members, List<Double> scores, boolean cardinality,
                              long limit) {
        if (src[0].size == 0) {
            return 0;
        }
        long count = 0;
        ZSetValue first = src[0].set();
        for (int i = 0; i < first.size(); i++) {
            double score = weighted(first.score(i), src[0].weight);
            int j = 1;
            for (; j < src.length; j++) {
                Double other = src[j].scoreOf(first.member(i));
                if (other == null) {
                    break;
                }
                score = aggregate(score, other * src[j].weight, how);
            }
            if (j < src.length) {
                continue;
            }
            count++;
            if (cardinality) {
                if (limit != 0 && count >= limit) {
                    break;
                }
            } else {
                members.add(first.member(i));
                scores.add(score);
            }
        }
        return count;
    }

    private static void union(Source[] src, int how, List<byte[]> members, List<Double> scores) {
        Map<ByteBuffer, double[]> acc = new LinkedHashMap<>();
        for (Source s : src) {
            ZSetValue set = s.set();
            for (int i = 0; i < s.size; i++) {
                double score = weighted(set.score(i), s.weight);
                double[] existing = acc.get(ByteBuffer.wrap(set.member(i)));
                if (existing == null) {
                    acc.put(ByteBuffer.wrap(set.member(i)), new double[] {score});
                } else {
                    existing[0] = aggregate(existing[0], score, how);
                }
            }
        }
        acc.forEach((k, v) -> {
            members.add(k.array());
            scores.add(v[0]);
        });
    }

    private static void diff(Source[] src, List<byte[]> members, List<Double> scores) {
        ZSetValue first = src[0].set();
        for (int i = 0; i < src[0].size; i++) {
            byte[] m = first.member(i);
            boolean elsewhere = false;
            for (int j = 1; j < src.length && !elsewhere; j++) {
                elsewhere = src[j].scoreOf(m) != null;
            }
            if (!elsewhere) {
                members.add(m);
                scores.add(first.score(i));
            }
        }
    }
}
