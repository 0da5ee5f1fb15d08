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
        long[] sorted = place.clone();
        Arrays.sort(sorted);
        // Each member's slot: the first of its place's run not yet taken (two members share a place
        // once in about 2^62 / n^2 sets, so the probe is nearly always one step)
        int[] slotOf = new int[n];
        boolean[] taken = new boolean[n];
        int[] lengthAt = new int[n];
        for (int i = 0; i < n; i++) {
            int slot = firstAtOrAfter(sorted, n, place[i]);
            while (taken[slot]) {
                slot++;
            }
            taken[slot] = true;
            slotOf[i] = slot;
            lengthAt[slot] = member[i].length;
        }
        int[] starts = new int[n + 1];
        for (int j = 0; j < n; j++) {
            starts[j + 1] = starts[j] + lengthAt[j];
        }
        byte[] bytes = new byte[starts[n]];
        double[] scores = new double[n];
        for (int i = 0; i < n; i++) {
            int slot = slotOf[i];
            System.arraycopy(member[i], 0, bytes, starts[slot], member[i].length);
            scores[slot] = score[i];
        }
        return new ZSetScanOrder(key.clone(), z.id(), z.next(), sorted, scores, starts, bytes);
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
        return firstAtOrAfter(places, places.length, place);
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

    private static int firstAtOrAfter(long[] sorted, int n, long place) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < place) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
