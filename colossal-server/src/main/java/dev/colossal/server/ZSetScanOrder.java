package dev.colossal.server;

import java.util.Arrays;

/**
 * The members of a big sorted set ({@link StoredZSet}) with their scores, in ZSCAN's order
 * ({@link HashSampling#place} of each member, ascending), as they were at one state of the set:
 * the one its key, {@link StoredZSet#id} and {@link StoredZSet#next} name. Built in one walk of
 * the set, O(n log n); a ZSCAN step then finds its cursor's place by binary search and answers the
 * members from there on, O(COUNT + log n). Immutable once built, so several event loops may read it.
 *
 * <p>The members lie end to end in one byte array, so that a million of them cost about 28 bytes
 * each beyond their own bytes (a place, a score, a start) rather than an object each.
 */
final class ZSetScanOrder {

    /** The key the set was under when this was built. */
    final byte[] key;
    /** The set's {@link StoredZSet#id} then. */
    final long id;
    /** The set's {@link StoredZSet#next} then. */
    final long next;
    private final long[] places;
    private final double[] scores;
    /** Member {@code i} is {@code members[starts[i]] .. members[starts[i + 1]]}. */
    private final int[] starts;
    private final byte[] members;

    private ZSetScanOrder(byte[] key, long id, long next, long[] places, double[] scores, int[] starts, byte[] members) {
        this.key = key;
        this.id = id;
        this.next = next;
        this.places = places;
        this.scores = scores;
        this.starts = starts;
        this.members = members;
    }

    /**
     * Reads the whole of {@code z} (under its key's lock, held by the caller) into scan order.
     *
     * @throws ReplyException for a set whose members do not fit one array (past 2 GiB)
     */
    static ZSetScanOrder of(byte[] key, StoredZSet z) {
        int n = Math.toIntExact(z.count());
        long[] place = new long[n];
        double[] score = new double[n];
        byte[][] member = new byte[n][];
        long[] total = {0};
        int[] k = {0};
        z.walk(0, false, (s, m) -> {
            int i = k[0]++;
            place[i] = HashSampling.place(m);
            score[i] = s;
            member[i] = m;
            total[0] += m.length;
            return k[0] < n;
        });
        if (k[0] != n) {
            throw new IllegalStateException("sorted set " + new String(key, java.nio.charset.StandardCharsets.UTF_8)
                    + " counts " + n + " members but its tree holds " + k[0]);
        }
        if (total[0] > Integer.MAX_VALUE - 16) {
            throw new ReplyException("ERR ZSCAN of a sorted set whose members pass 2 GiB is not supported here");
        }
        int[] order = byPlace(place);
        long[] sorted = new long[n];
        double[] scores = new double[n];
        int[] starts = new int[n + 1];
        for (int j = 0; j < n; j++) {
            int i = order[j];
            sorted[j] = place[i];
            scores[j] = score[i];
            starts[j + 1] = starts[j] + member[i].length;
        }
        byte[] bytes = new byte[starts[n]];
        for (int j = 0; j < n; j++) {
            byte[] m = member[order[j]];
            System.arraycopy(m, 0, bytes, starts[j], m.length);
        }
        return new ZSetScanOrder(key.clone(), z.id(), z.next(), sorted, scores, starts, bytes);
    }

    /**
     * @return the positions of {@code place} in ascending order of their places
     */
    static int[] byPlace(long[] place) {
        int n = place.length;
        // A primitive sort of each place's high bits with its position in the low bits (a sort of
        // positions by a comparator would box them; a binary search of each place in a sorted copy
        // costs a cache miss a step), then each run that shares its high bits sorted again by the
        // low bits, with the position again: both fit a long, as a position takes at most 31 bits
        int shift = 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1));
        long mask = (1L << shift) - 1;
        long[] keyed = new long[n];
        for (int i = 0; i < n; i++) {
            keyed[i] = (place[i] >>> shift) << shift | i;
        }
        Arrays.sort(keyed);
        int[] order = new int[n];
        for (int from = 0, to; from < n; from = to) {
            long high = keyed[from] >>> shift;
            to = from + 1;
            while (to < n && keyed[to] >>> shift == high) {
                to++;
            }
            if (to - from > 1) {
                for (int j = from; j < to; j++) {
                    int i = (int) (keyed[j] & mask);
                    keyed[j] = (place[i] & mask) << shift | i;
                }
                Arrays.sort(keyed, from, to);
            }
            for (int j = from; j < to; j++) {
                order[j] = (int) (keyed[j] & mask);
            }
        }
        return order;
    }

    /** @return whether this is the state {@code z}, under {@code key}, is in now */
    boolean current(byte[] key, StoredZSet z) {
        return id == z.id() && next == z.next() && Arrays.equals(this.key, key);
    }

    /** @return how many members it holds */
    int size() {
        return places.length;
    }

    /** @return about the heap bytes it holds */
    long bytes() {
        return 64L + 20L * places.length + members.length + key.length;
    }

    /** @return the position of the first member whose place is at or past {@code place} (signed), {@link #size} if none */
    int firstAtOrAfter(long place) {
        int lo = 0;
        int hi = places.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (places[mid] < place) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** @return the place of the member at {@code i} */
    long place(int i) {
        return places[i];
    }

    /** @return the score of the member at {@code i}, as it was when this was built */
    double score(int i) {
        return scores[i];
    }

    /** @return a copy of the member at {@code i} */
    byte[] member(int i) {
        return Arrays.copyOfRange(members, starts[i], starts[i + 1]);
    }
}
