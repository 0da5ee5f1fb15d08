package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;

/**
 * HRANDFIELD and HSCAN: the hash commands that answer part of a hash, with Redis 7.0's order of
 * checks and errors.
 *
 * <p>HSCAN of a hash Redis would hold as a listpack answers it whole with cursor 0, as Redis does.
 * A larger one is walked in the order of a 62-bit hash of each field, the cursor being the next
 * field's hash: a field present for the whole scan is returned exactly once whatever is added or
 * removed meanwhile, since no field's place depends on the others. A bucketed hash
 * ({@link StoredHash}) is walked bucket by bucket, the cursor naming the next bucket: buckets only
 * grow, and a split moves fields to a new bucket past every other, so a field present for the
 * whole scan is returned at least once (twice if its bucket split behind the cursor, as in Redis).
 */
final class HashSampling {

    private final ServerContext ctx;

    HashSampling(ServerContext ctx) {
        this.ctx = ctx;
    }

    void hrandfield(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        if (a.length == 2) {
            KeyValueStore.Entry e = HashCommands.hash(store, a[1]);
            if (e == null) {
                r.nullBulk();
                return;
            }
            KeyValueStore.Entry now = HashCommands.bucketed(store, a[1], e, h -> r.bulk(randomField(h)));
            if (now != StoredHash.READ_BUCKETED) {
                if (now == null) {
                    r.nullBulk();
                    return;
                }
                HashValue h = HashValue.of(now);
                r.bulk(h.field(ThreadLocalRandom.current().nextInt(h.size())));
            }
            return;
        }
        Long parsed = RandomPicks.count(a, "WITHVALUES", r);
        if (parsed == null) {
            return;
        }
        long count = parsed;
        boolean withValues = a.length == 4;
        KeyValueStore.Entry e = HashCommands.hash(store, a[1]);
        if (e == null || count == 0) {
            r.array(0);
            return;
        }
        if (RandomPicks.refused(count, "fields", r)) {
            return;
        }
        HashValue[] all = new HashValue[1];
        KeyValueStore.Entry now = HashCommands.bucketed(store, a[1], e, big -> {
            if (count < 0 || count * StoredSet.PICKS_PER_MEMBER <= big.count()) {
                replyPairs(count < 0 ? repeatedPairs(big, -count) : distinctPairs(big, count), withValues, r);
            } else {
                all[0] = big.all();
            }
        });
        if (now == StoredHash.READ_BUCKETED && all[0] == null) {
            return;
        }
        if (all[0] == null) {
            all[0] = now == null ? HashValue.empty() : HashValue.of(now);
        }
        HashValue h = all[0];
        int n = h.size();
        int[] picks = count < 0 ? RandomPicks.repeated(n, (int) -count) : RandomPicks.distinct(n, (int) Math.min(count, n));
        reply(h, picks, withValues, r);
    }

    /** @return {@code k} fields with their values of a bucketed hash, each picked by {@link #randomPair}: some may repeat */
    private static List<byte[][]> repeatedPairs(StoredHash h, long k) {
        List<byte[][]> out = new ArrayList<>((int) k);
        for (long i = 0; i < k; i++) {
            out.add(randomPair(h));
        }
        return out;
    }

    /**
     * @return {@code k} distinct fields with their values of a bucketed hash of at least
     *     {@link StoredSet#PICKS_PER_MEMBER} times as many, picked one bucket read a pick until
     *     enough are distinct (a larger count reads the whole hash instead)
     */
    private static List<byte[][]> distinctPairs(StoredHash h, long k) {
        Map<ByteBuffer, byte[][]> seen = new LinkedHashMap<>();
        while (seen.size() < k) {
            byte[][] pair = randomPair(h);
            seen.putIfAbsent(ByteBuffer.wrap(pair[0]), pair);
        }
        return new ArrayList<>(seen.values());
    }

    /** The picked fields (with their values: flat in RESP2, as pairs in RESP3, as Redis answers). */
    private static void replyPairs(List<byte[][]> picks, boolean withValues, Reply r) {
        boolean pairs = withValues && r.protocol >= 3;
        r.array(withValues && !pairs ? 2 * picks.size() : picks.size());
        for (byte[][] p : picks) {
            if (pairs) {
                r.array(2);
            }
            r.bulk(p[0]);
            if (withValues) {
                r.bulk(p[1]);
            }
        }
    }

    /** The fields at {@code picks} of {@code h}, as {@link #replyPairs} writes them. */
    private static void reply(HashValue h, int[] picks, boolean withValues, Reply r) {
        List<byte[][]> picked = new ArrayList<>(picks.length);
        for (int i : picks) {
            picked.add(new byte[][] {h.field(i), h.value(i)});
        }
        replyPairs(picked, withValues, r);
    }

    void hscan(Client c, byte[][] a, Reply r) {
        OptionalLong parsedCursor = Args.toCursor(a[2]);
        if (parsedCursor.isEmpty()) {
            r.error(Errors.INVALID_CURSOR);
            return;
        }
        KeyValueStore.Entry e = HashCommands.hash(ctx.db(c), a[1]);
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
        KeyValueStore.Entry now = HashCommands.bucketed(ctx.db(c), a[1], e,
                big -> scanBuckets(big, parsedCursor.getAsLong(), o.count(), pattern, true, r));
        if (now == StoredHash.READ_BUCKETED) {
            return;
        }
        HashValue h = now == null ? HashValue.empty() : HashValue.of(now);
        List<Integer> found = new ArrayList<>();
        long next = h.encoding() == HashLayout.LISTPACK ? all(h, found)
                : step(h.size(), h::field, parsedCursor.getAsLong(), o.count(), found);
        List<Integer> matched = new ArrayList<>(found.size());
        for (int i : found) {
            if (pattern == null || Glob.matches(pattern, h.field(i))) {
                matched.add(i);
            }
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(next));
        r.array(2 * matched.size());
        for (int i : matched) {
            r.bulk(h.field(i));
            r.bulk(h.value(i));
        }
    }

    /**
     * An HSCAN (or SSCAN) step over whole buckets from the cursor's on, until about {@code count}
     * fields are found: with their values, or not (a set's members have none).
     */
    static void scanBuckets(StoredHash h, long cursor, long count, byte[] pattern, boolean withValues, Reply r) {
        long b = cursor >= StoredHash.SCAN_CURSOR_BASE ? cursor - StoredHash.SCAN_CURSOR_BASE : 0;
        List<byte[]> out = new ArrayList<>();
        long seen = 0;
        while (b < h.buckets() && seen < count) {
            HashValue v = h.bucketAt(b++);
            for (int i = 0; i < v.size(); i++) {
                seen++;
                if (pattern == null || Glob.matches(pattern, v.field(i))) {
                    out.add(v.field(i));
                    if (withValues) {
                        out.add(v.value(i));
                    }
                }
            }
        }
        r.array(2);
        r.bulk(b < h.buckets() ? Long.toUnsignedString(StoredHash.SCAN_CURSOR_BASE + b) : "0");
        r.array(out.size());
        for (byte[] x : out) {
            r.bulk(x);
        }
    }

    /**
     * @return a field of a bucketed hash: of a random bucket that has one (a bucket's share of the
     *     fields varies, so this is near uniform, as Redis's pick from a random table slot is)
     */
    static byte[] randomField(StoredHash h) {
        return randomPair(h)[0];
    }

    /** @return a field and its value, picked as {@link #randomField} picks */
    private static byte[][] randomPair(StoredHash h) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int tries = 0; tries < 64; tries++) {
            HashValue v = h.bucketAt(random.nextLong(h.buckets()));
            if (v.size() > 0) {
                int i = random.nextInt(v.size());
                return new byte[][] {v.field(i), v.value(i)};
            }
        }
        HashValue all = h.all(); // nearly every bucket empty: a hash HDEL shrank a lot
        int i = random.nextInt(all.size());
        return new byte[][] {all.field(i), all.value(i)};
    }

    private static long all(HashValue h, List<Integer> found) {
        for (int i = 0; i < h.size(); i++) {
            found.add(i);
        }
        return 0;
    }

    /**
     * About {@code count} of the {@code n} fields (or set members) from {@code cursor} on in the
     * order of {@link #place}, and all of the same place as the last, so that the next step starts
     * past them: HSCAN's and SSCAN's step.
     *
     * @param key the field (or member) at a position
     * @return the next step's cursor, 0 when done
     */
    static long step(int n, IntFunction<byte[]> key, long cursor, long count, List<Integer> found) {
        long[] places = new long[n];
        List<Integer> ahead = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            places[i] = place(key.apply(i));
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

    /** A field's place in a scan's order: 1 to 2^62, never 0 (the cursor that starts and ends a scan), and positive as a long. */
    static long place(byte[] field) {
        long x = 0xcbf29ce484222325L;
        for (byte b : field) {
            x = (x ^ (b & 0xff)) * 0x100000001b3L;
        }
        // Spread the low bits' changes over the whole word, so that neighbouring fields scatter
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        return (x >>> 2) + 1;
    }
}
