package dev.colossal.server;

import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The random places HRANDFIELD, SRANDMEMBER, ZRANDMEMBER and SPOP pick, in Redis's two cases: a
 * negative count draws independently (repeats allowed), a positive one distinct places.
 */
final class RandomPicks {

    /**
     * The most places a negative count may ask for: Redis builds whatever reply is asked for (and
     * dies of it in the billions); this server refuses beyond about what fits one reply.
     */
    static final long MAX_REPEATS = 1L << 24;

    private RandomPicks() {}

    /**
     * Reads the count ({@code a[2]}) of HRANDFIELD, SRANDMEMBER or ZRANDMEMBER, and the flag that
     * may follow it, with Redis's errors in Redis's order.
     *
     * @param flag {@code WITHVALUES} or {@code WITHSCORES}, null for a command that takes none
     * @return the count (the flag is there if {@code a} has four parts), or null once the error is answered
     */
    static Long count(byte[][] a, String flag, Reply r) {
        OptionalLong parsed = Args.toLong(a[2]);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return null;
        }
        long count = parsed.getAsLong();
        if (count == Long.MIN_VALUE) {
            r.error("ERR value is out of range, value must between " + -Long.MAX_VALUE + " and " + Long.MAX_VALUE);
            return null;
        }
        if (flag == null) {
            return count;
        }
        boolean with = a.length == 4 && Args.is(a[3], flag);
        if (a.length > 3 && !with) {
            r.error(Errors.SYNTAX);
            return null;
        }
        if (with && Math.abs(count) > Long.MAX_VALUE / 2) {
            r.error("ERR value is out of range");
            return null;
        }
        return count;
    }

    /**
     * Answers the error for a negative {@code count} past {@link #MAX_REPEATS}.
     *
     * @param what what is picked, {@code fields} or {@code members}
     * @return whether it refused
     */
    static boolean refused(long count, String what, Reply r) {
        if (-count > MAX_REPEATS) {
            r.error("ERR count " + count + " asks for more " + what + " than one reply holds here (at most " + MAX_REPEATS
                    + " with a negative count); ask in several calls");
            return true;
        }
        return false;
    }

    /** @return {@code howMany} places of {@code 0..n-1}, each drawn on its own */
    static int[] repeated(int n, int howMany) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int[] picks = new int[howMany];
        for (int i = 0; i < howMany; i++) {
            picks[i] = random.nextInt(n);
        }
        return picks;
    }

    /**
     * @return {@code k} distinct places of {@code 0..n-1} in random order (the first k of a partial
     *         shuffle), or all of them in order when {@code k == n}, as Redis answers a count that
     *         covers the whole
     */
    static int[] distinct(int n, int k) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        if (k < n) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < k; i++) {
                int j = i + random.nextInt(n - i);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        return java.util.Arrays.copyOf(order, k);
    }
}
