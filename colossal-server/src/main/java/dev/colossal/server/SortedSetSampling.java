package dev.colossal.server;

import java.util.ArrayList;
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
 * member present for the whole scan is returned exactly once.
 */
final class SortedSetSampling {

    private final ServerContext ctx;

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
            ZSetValue z = ZSetValue.of(SortedSetCommands.cursor(store, a[1], e));
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
        ZSetValue z = ZSetValue.of(SortedSetCommands.cursor(store, a[1], e));
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
        boolean pairs = withScores && r.protocol > 2;
        r.array(withScores && !pairs ? 2 * picks.length : picks.length);
        for (int i : picks) {
            if (pairs) {
                r.array(2);
            }
            r.bulk(z.member(i));
            if (withScores) {
                ZScore.reply(r, z.score(i));
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
            r.array(2);
            r.bulk("0");
            r.array(0);
            return;
        }
        ScanOptions o = ScanOptions.read(a, 3, false, r);
        if (o == null) {
            return;
        }
        byte[] pattern = o.pattern();
        ZSetValue z = ZSetValue.of(SortedSetCommands.cursor(store, a[1], e));
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

    /**
     * About {@code count} members from {@code cursor} on in the order of {@link HashSampling#place},
     * and all members of the same place as the last.
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
