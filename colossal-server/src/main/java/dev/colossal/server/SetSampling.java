package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * SRANDMEMBER and SSCAN: the set commands that answer part of a set, with Redis 7.0's order of
 * checks and errors.
 *
 * <p>SSCAN of a set Redis would hold as an intset answers it whole with cursor 0, as Redis does. A
 * larger one is walked in the order of {@link HashSampling#place}, a 62-bit hash of each member,
 * the cursor being the next member's place: a member present for the whole scan is returned
 * exactly once whatever is added or removed meanwhile, since no member's place depends on the others.
 * A bucketed set ({@link StoredSet}) is walked bucket by bucket, as a bucketed hash is
 * ({@link HashSampling}); SRANDMEMBER picks from a random bucket, one bucket read a pick, so that a
 * small count does not read the whole set.
 */
final class SetSampling {

    private final ServerContext ctx;

    SetSampling(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("srandmember", -2, List.of("readonly"), 1, 1, 1, this::srandmember);
        t.add("sscan", -3, List.of("readonly"), 1, 1, 1, this::sscan);
    }

    private void srandmember(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        if (a.length > 3) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (a.length == 2) {
            KeyValueStore.Entry e = SetCommands.set(store, a[1]);
            e = SetCommands.bucketed(store, a[1], e, s -> r.bulk(s.random()));
            if (e == StoredHash.READ_BUCKETED) {
                return;
            }
            if (e == null) {
                r.nullBulk();
                return;
            }
            SetView v = new SetView(e);
            int i = ThreadLocalRandom.current().nextInt(v.count());
            r.bulk(v.bytes(), v.start(i), v.length(i));
            return;
        }
        Long parsed = RandomPicks.count(a, null, r);
        if (parsed == null) {
            return;
        }
        long count = parsed;
        KeyValueStore.Entry e = SetCommands.set(store, a[1]);
        if (e == null || count == 0) {
            r.array(0);
            return;
        }
        if (HashBuckets.isBucketed(e) && (count < 0 || count == 1) && RandomPicks.refused(count, "members", r)) {
            return;
        }
        e = SetCommands.bucketed(store, a[1], e, s -> reply(count < 0 || count == 1 ? s.repeated((int) Math.abs(count))
                : s.distinct(count), r));
        if (e == StoredHash.READ_BUCKETED) {
            return;
        }
        if (e == null) {
            r.array(0);
            return;
        }
        SetView v = new SetView(e);
        int n = v.count();
        int[] picks;
        if (count < 0 || count == 1) {
            if (RandomPicks.refused(count, "members", r)) {
                return;
            }
            picks = RandomPicks.repeated(n, (int) Math.abs(count));
        } else {
            picks = RandomPicks.distinct(n, (int) Math.min(count, n));
        }
        r.array(picks.length);
        for (int i : picks) {
            r.bulk(v.bytes(), v.start(i), v.length(i));
        }
    }

    /** SSCAN's reply for a missing key: the end cursor, nothing found. */
    private static void noneScanned(Reply r) {
        r.array(2);
        r.bulk("0");
        r.array(0);
    }

    /** The picked members, as an array (not a set: picks may repeat). */
    private static void reply(List<byte[]> picks, Reply r) {
        r.array(picks.size());
        for (byte[] m : picks) {
            r.bulk(m);
        }
    }

    private void sscan(Client c, byte[][] a, Reply r) {
        OptionalLong parsedCursor = Args.toCursor(a[2]);
        if (parsedCursor.isEmpty()) {
            r.error(Errors.INVALID_CURSOR);
            return;
        }
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = SetCommands.set(store, a[1]);
        if (e == null) {
            noneScanned(r);
            return;
        }
        ScanOptions o = ScanOptions.read(a, 3, false, r);
        if (o == null) {
            return;
        }
        e = StoredHash.locked(store, a[1], e, h -> HashSampling.scanBuckets(h, parsedCursor.getAsLong(), o.count(), o.pattern(), false, r));
        if (e == StoredHash.READ_BUCKETED) {
            return;
        }
        if (e == null) {
            noneScanned(r);
            return;
        }
        SetView v = new SetView(e);
        List<Integer> found = new ArrayList<>();
        long next = v.encoding() == SetLayout.INTSET ? all(v, found)
                : HashSampling.step(v.count(), v::member, parsedCursor.getAsLong(), o.count(), found);
        byte[] pattern = o.pattern();
        List<byte[]> matched = new ArrayList<>(found.size());
        for (int i : found) {
            byte[] m = v.member(i);
            if (pattern == null || Glob.matches(pattern, m)) {
                matched.add(m);
            }
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(next));
        r.array(matched.size());
        for (byte[] m : matched) {
            r.bulk(m);
        }
    }

    private static long all(SetView v, List<Integer> found) {
        for (int i = 0; i < v.count(); i++) {
            found.add(i);
        }
        return 0;
    }
}
