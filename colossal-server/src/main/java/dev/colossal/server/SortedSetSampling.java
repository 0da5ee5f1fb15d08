package dev.colossal.server;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ZRANDMEMBER and ZSCAN: the sorted set commands that answer part of a set, with Redis 7.0's order
 * of checks and errors.
 *
 * <p>ZSCAN of a set Redis would hold as a listpack answers it whole with cursor 0, scores in the
 * listpack's text ({@link ZScore#listpackForm}), as Redis does. A larger one is walked in the
 * order of {@link HashSampling#place} of each member, as HSCAN walks a large hash, so that a
 * member present for the whole scan is returned exactly once; a big one ({@link StoredZSet}) in
 * that order as a {@link ZSetScanOrder} holds it, kept across steps ({@link ZSetScanOrders}), so
 * that a step costs O(COUNT + log n) once the scan's first step has read the set.
 *
 * <p>ZRANDMEMBER with a count on a big set walks the tree to each random rank, O(count log n),
 * unless the count asks for a good part of the set, which it then reads whole.
 */
final class SortedSetSampling {

    /**
     * A count of at most the set's size over this (a 32nd of the set) is answered by walks to random
     * ranks, a descent and a leaf read each; a larger one reads the whole set once, each leaf once.
     */
    private static final long SET_SIZE_PER_WALK = 32;

    /** Entries ZRANDMEMBER picked: member {@code i} scores {@code scores[i]}. */
    private record Picked(double[] scores, byte[][] members) {

        /** @return the entries at {@code at} of these, in that order */
        Picked at(int[] at) {
            double[] s = new double[at.length];
            byte[][] m = new byte[at.length][];
            for (int i = 0; i < at.length; i++) {
                s[i] = scores[at[i]];
                m[i] = members[at[i]];
            }
            return new Picked(s, m);
        }
    }

    private final ServerContext ctx;
    /** The scan orders of big sets, together at most an eighth of the heap, and 512 MiB. */
    private final ZSetScanOrders scanOrders = new ZSetScanOrders(Math.min(512L << 20, Runtime.getRuntime().maxMemory() / 8));

    SortedSetSampling(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("zrandmember", -2, List.of("readonly"), 1, 1, 1, this::zrandmember);
        t.add("zscan", -3, List.of("readonly"), 1, 1, 1, this::zscan);
    }

    private void zrandmember(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        if (a.length == 2) {
            KeyValueStore.Entry e = SortedSetCommands.zset(store, a[1]);
            if (e == null) {
                r.nullBulk();
                return;
            }
            if (SortedSetCommands.big(store, a[1], e, z -> z.walk(ThreadLocalRandom.current().nextLong(z.count()), false, (s, m) -> {
                r.bulk(m);
                return false;
            }))) {
                return;
            }
            KeyValueStore.Entry now = SortedSetCommands.small(store, a[1], e);
            if (now == null) { // a big set deleted since the look above
                r.nullBulk();
                return;
            }
            ZSetValue z = ZSetValue.of(SortedSetCommands.cursor(store, a[1], now));
            r.bulk(z.member(ThreadLocalRandom.current().nextInt(z.size())));
            return;
        }
        Long parsed = RandomPicks.count(a, "WITHSCORES", r);
        if (parsed == null) {
            return;
        }
        long count = parsed;
        boolean withScores = a.length == 4;
        KeyValueStore.Entry e = SortedSetCommands.zset(store, a[1]);
        if (e == null || count == 0) {
            r.array(0);
            return;
        }
        if (RandomPicks.refused(count, "members", r)) {
            return;
        }
        if (SortedSetCommands.big(store, a[1], e, z -> reply(picks(z, count), withScores, r))) {
            return;
        }
        KeyValueStore.Entry now = SortedSetCommands.small(store, a[1], e);
        if (now == null) { // a big set deleted since the look above
            r.array(0);
            return;
        }
        ZSetValue z = ZSetValue.of(SortedSetCommands.cursor(store, a[1], now));
        int n = z.size();
        int[] picks;
        if (count < 0) {
            picks = RandomPicks.repeated(n, (int) -count);
        } else if (count >= n) { // the whole set, from the highest, as Redis answers then
            picks = new int[n];
            for (int i = 0; i < n; i++) {
                picks[i] = n - 1 - i;
            }
        } else {
            picks = RandomPicks.distinct(n, (int) count);
        }
        double[] scores = new double[n];
        byte[][] members = new byte[n][];
        for (int i = 0; i < n; i++) {
            scores[i] = z.score(i);
            members[i] = z.member(i);
        }
        reply(new Picked(scores, members).at(picks), withScores, r);
    }

    /**
     * The members ZRANDMEMBER {@code count} (not 0) answers of a big set: all from the highest for
     * a count that covers the set, else random ranks, distinct for a positive count.
     */
    private static Picked picks(StoredZSet z, long count) {
        long n = z.count();
        if (count >= n) {
            return entries(z, n - 1, true, (int) n);
        }
        long k = Math.abs(count);
        if (k * SET_SIZE_PER_WALK > n) {
            Picked all = entries(z, 0, false, (int) n);
            int[] at = count < 0 ? RandomPicks.repeated((int) n, (int) k) : RandomPicks.distinct((int) n, (int) k);
            return all.at(at);
        }
        long[] ranks = count < 0 ? repeatedRanks(n, (int) k) : distinctRanks(n, (int) k);
        double[] scores = new double[ranks.length];
        byte[][] members = new byte[ranks.length][];
        for (int i = 0; i < ranks.length; i++) {
            int at = i;
            z.walk(ranks[i], false, (s, m) -> {
                scores[at] = s;
                members[at] = m;
                return false;
            });
        }
        return new Picked(scores, members);
    }

    /** @return the {@code howMany} entries of {@code z} from rank {@code from} on (towards 0 if {@code reverse}) */
    private static Picked entries(StoredZSet z, long from, boolean reverse, int howMany) {
        double[] scores = new double[howMany];
        byte[][] members = new byte[howMany][];
        int[] k = {0};
        z.walk(from, reverse, (s, m) -> {
            scores[k[0]] = s;
            members[k[0]++] = m;
            return k[0] < howMany;
        });
        return new Picked(scores, members);
    }

    /** @return {@code k} ranks of {@code 0..n-1}, each drawn on its own */
    private static long[] repeatedRanks(long n, int k) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long[] ranks = new long[k];
        for (int i = 0; i < k; i++) {
            ranks[i] = random.nextLong(n);
        }
        return ranks;
    }

    /**
     * @return {@code k} distinct ranks of {@code 0..n-1} in random order: Floyd's sampling (each
     *     k-subset equally likely, k draws), then shuffled, since it adds the high ranks late
     */
    private static long[] distinctRanks(long n, int k) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        HashSet<Long> chosen = new HashSet<>(k * 2);
        long[] ranks = new long[k];
        int filled = 0;
        for (long j = n - k; j < n; j++) {
            long t = random.nextLong(j + 1);
            long pick = chosen.contains(t) ? j : t; // j itself is never chosen yet: every earlier draw was below it
            chosen.add(pick);
            ranks[filled++] = pick;
        }
        for (int i = k - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long x = ranks[i];
            ranks[i] = ranks[j];
            ranks[j] = x;
        }
        return ranks;
    }

    /** ZRANDMEMBER's reply of the picked entries: flat with WITHSCORES in RESP2, pairs in RESP3, as Redis answers. */
    private static void reply(Picked picked, boolean withScores, Reply r) {
        double[] scores = picked.scores;
        byte[][] members = picked.members;
        boolean pairs = withScores && r.protocol > 2;
        r.array(withScores && !pairs ? 2 * members.length : members.length);
        for (int i = 0; i < members.length; i++) {
            if (pairs) {
                r.array(2);
            }
            r.bulk(members[i]);
            if (withScores) {
                ZScore.reply(r, scores[i]);
            }
        }
    }

    private void zscan(Client c, byte[][] a, Reply r) {
        OptionalLong parsedCursor = Args.toCursor(a[2]);
        if (parsedCursor.isEmpty()) {
            r.error(Errors.INVALID_CURSOR);
            return;
        }
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = SortedSetCommands.zset(store, a[1]);
        if (e == null) {
            noneScanned(r);
            return;
        }
        ScanOptions o = ScanOptions.read(a, 3, false, r);
        if (o == null) {
            return;
        }
        byte[] pattern = o.pattern();
        long cursor = parsedCursor.getAsLong();
        if (SortedSetCommands.big(store, a[1], e, z -> step(scanOrders.forStep(a[1], z, cursor == 0), z, a[1], cursor,
                o.count(), pattern, r))) {
            return;
        }
        KeyValueStore.Entry now = SortedSetCommands.small(store, a[1], e);
        if (now == null) { // a big set deleted since the look above
            noneScanned(r);
            return;
        }
        ZSetValue z = ZSetValue.of(SortedSetCommands.cursor(store, a[1], now));
        boolean listpack = z.encoding() == ZSetLayout.LISTPACK;
        List<Integer> found = new ArrayList<>();
        long next = 0;
        if (listpack) {
            for (int i = 0; i < z.size(); i++) {
                found.add(i);
            }
        } else {
            next = step(z, parsedCursor.getAsLong(), o.count(), found);
        }
        List<Integer> matched = new ArrayList<>(found.size());
        for (int i : found) {
            if (pattern == null || Glob.matches(pattern, z.member(i))) {
                matched.add(i);
            }
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(next));
        r.array(2 * matched.size());
        for (int i : matched) {
            r.bulk(z.member(i));
            r.bulk(listpack ? ZScore.listpackForm(z.score(i)) : ZScore.format(z.score(i)));
        }
    }

    /** ZSCAN's reply for a missing key: the end cursor, nothing found. */
    private static void noneScanned(Reply r) {
        r.array(2);
        r.bulk("0");
        r.array(0);
    }

    /**
     * A ZSCAN step of big set {@code z}: about {@code count} members of {@code order} from
     * {@code cursor}'s place on, and all of the same place as the last, those still in the set
     * (with their scores now) if {@code order} is older than the set's state.
     */
    private static void step(ZSetScanOrder order, StoredZSet z, byte[] key, long cursor, long count, byte[] pattern,
            Reply r) {
        boolean current = order.current(key, z);
        int from = order.firstAtOrAfter(cursor);
        int to = from;
        while (to < order.size() && (to - from < count || order.place(to) == order.place(to - 1))) {
            to++;
        }
        List<byte[]> members = new ArrayList<>(to - from);
        List<Double> scores = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            byte[] m = order.member(i);
            if (pattern != null && !Glob.matches(pattern, m)) {
                continue;
            }
            Double s = current ? Double.valueOf(order.score(i)) : z.scoreOf(m);
            if (s != null) {
                members.add(m);
                scores.add(s);
            }
        }
        r.array(2);
        r.bulk(to < order.size() ? Long.toUnsignedString(order.place(to)) : "0");
        r.array(2 * members.size());
        for (int i = 0; i < members.size(); i++) {
            r.bulk(members.get(i));
            r.bulk(ZScore.format(scores.get(i)));
        }
    }

    /**
     * About {@code count} members from {@code cursor} on in the order of {@link HashSampling#place},
     * and all members of the same place as the last: the step of a one-value set whose encoding is not
     * a listpack.
     *
     * @return the next step's cursor, 0 when done
     */
    private static long step(ZSetValue z, long cursor, long count, List<Integer> found) {
        int n = z.size();
        long[] places = new long[n];
        List<Integer> ahead = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            places[i] = HashSampling.place(z.member(i));
            if (places[i] >= cursor) {
                ahead.add(i);
            }
        }
        ahead.sort((x, y) -> Long.compare(places[x], places[y]));
        int k = 0;
        while (k < ahead.size() && (k < count || places[ahead.get(k)] == places[ahead.get(k - 1)])) {
            found.add(ahead.get(k++));
        }
        return k < ahead.size() ? places[ahead.get(k)] : 0;
    }
}
