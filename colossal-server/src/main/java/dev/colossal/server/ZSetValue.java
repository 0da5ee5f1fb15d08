package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;

/**
 * A sorted set decoded for a write: its entries in (score, member) order in two arrays, changed in
 * memory, then encoded whole again ({@link ZSetLayout}). A member's score is found through an
 * index built at the first lookup, its place by binary search on (score, member). It also keeps the
 * encoding Redis would report, which only grows (listpack to skiplist) as in Redis.
 */
final class ZSetValue implements ZSetWrites {

    /** ZADD's flags, as Redis's {@code ZADD_IN_*}. */
    static final int NX = 1;
    static final int XX = 2;
    static final int GT = 4;
    static final int LT = 8;
    static final int INCR = 16;

    /** What {@link #add} did, as Redis's {@code ZADD_OUT_*}: nothing, added a member, changed a score. */
    static final int NOP = 1;
    static final int ADDED = 2;
    static final int UPDATED = 4;
    /** The increment gave NaN (inf + -inf): nothing changed, Redis answers an error. */
    static final int NAN = 8;

    private double[] scores;
    private byte[][] members;
    private int size;
    private HashMap<ByteBuffer, Double> index;
    private byte encoding;
    private boolean changed;
    /** zset-max-listpack-entries: past it a listpack set turns into a skiplist one. */
    private long maxEntries = ZSetLayout.MAX_LISTPACK_ENTRIES;

    private ZSetValue(int capacity, byte encoding) {
        this.scores = new double[Math.max(4, capacity)];
        this.members = new byte[Math.max(4, capacity)][];
        this.encoding = encoding;
    }

    /**
     * A new set for ZADD, as Redis 7.0 makes one: a listpack unless the first member it adds is
     * longer than a listpack member (whatever the number of members: 200 pairs of one member stay one).
     */
    static ZSetValue created(int firstMemberLength) {
        return new ZSetValue(4, ZSetLayout.fitsListpack(0, firstMemberLength) ? ZSetLayout.LISTPACK : ZSetLayout.SKIPLIST);
    }

    /** @return the sorted set {@code e} holds, decoded */
    static ZSetValue of(KeyValueStore.Entry e) {
        return of(new ZSetCursor(e));
    }

    /** @return the sorted set {@code c} walks from its start, decoded */
    static ZSetValue of(ZSetCursor c) {
        ZSetValue z = new ZSetValue(c.count(), c.encoding());
        while (c.next()) {
            z.scores[z.size] = c.score();
            z.members[z.size++] = c.member();
        }
        return z;
    }

    /**
     * A set made whole by a command that stores a result (ZUNIONSTORE, ZRANGESTORE) or read from an
     * RDB payload: a listpack if it fits Redis's limits, as Redis converts such a result.
     *
     * @param scores  the scores, in any order, {@code members}' in the same places; no member twice
     */
    static ZSetValue built(double[] scores, byte[][] members, int n) {
        return builtUnder(scores, members, n, ZSetLayout.MAX_LISTPACK_ENTRIES);
    }

    /** {@link #built(double[], byte[][], int)} under zset-max-listpack-entries {@code max}. */
    static ZSetValue builtUnder(double[] scores, byte[][] members, int n, long max) {
        long longest = 0;
        for (int i = 0; i < n; i++) {
            longest = Math.max(longest, members[i].length);
        }
        boolean listpack = ZSetLayout.fitsListpack(0, longest) && n <= max;
        return built(scores, members, n, listpack ? ZSetLayout.LISTPACK : ZSetLayout.SKIPLIST).limit(max);
    }

    /**
     * A set read from an RDB payload (RESTORE, import-rdb), with the encoding Redis 7.0 gives one
     * it loads under zset-max-listpack-entries {@code max}: one dumped as a listpack stays one up to {@code max}
     * members whatever their length; one dumped as a skiplist becomes a listpack if it fits.
     *
     * @param fromListpack whether the dump held a listpack (or a ziplist)
     */
    static ZSetValue loaded(java.util.List<byte[]> members, double[] scores, boolean fromListpack, long max) {
        byte[][] m = members.toArray(byte[][]::new);
        if (fromListpack) {
            return built(scores, m, m.length, m.length <= max ? ZSetLayout.LISTPACK : ZSetLayout.SKIPLIST).limit(max);
        }
        return builtUnder(scores, m, m.length, max);
    }

    /** {@link #built(double[], byte[][], int)} with the encoding given. */
    static ZSetValue built(double[] scores, byte[][] members, int n, byte encoding) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> ZSetLayout.compare(scores[x], members[x], 0, members[x].length, scores[y], members[y]));
        ZSetValue z = new ZSetValue(n, encoding);
        for (int i : order) {
            z.scores[z.size] = encoding == ZSetLayout.LISTPACK && scores[i] == 0 ? 0.0 : scores[i];
            z.members[z.size++] = members[i];
        }
        z.changed = true;
        return z;
    }

    /** Sets zset-max-listpack-entries for this set's writes; @return this */
    ZSetValue limit(long maxListpackEntries) {
        this.maxEntries = maxListpackEntries;
        return this;
    }

    /** @return zset-max-listpack-entries as this set's writes apply it */
    long maxEntries() {
        return maxEntries;
    }

    /** @return whether an entry was added, removed or re-scored since decoding */
    @Override
    public boolean changed() {
        return changed;
    }

    int size() {
        return size;
    }

    double score(int i) {
        return scores[i];
    }

    byte[] member(int i) {
        return members[i];
    }

    /** @return {@link ZSetLayout#LISTPACK} or {@link ZSetLayout#SKIPLIST} */
    byte encoding() {
        return encoding;
    }

    /** @return the score of {@code member}, null if absent */
    Double scoreOf(byte[] member) {
        if (index == null) {
            index = HashMap.newHashMap(size);
            for (int i = 0; i < size; i++) {
                index.put(ByteBuffer.wrap(members[i]), scores[i]);
            }
        }
        return index.get(ByteBuffer.wrap(member));
    }

    /** @return the place of the entry (score, member), or of the first after it if it is absent */
    private int position(double score, byte[] member) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ZSetLayout.compare(scores[mid], members[mid], 0, members[mid].length, score, member) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** @return the rank of {@code member} from the lowest, -1 if absent */
    int rankOf(byte[] member) {
        Double s = scoreOf(member);
        return s == null ? -1 : position(s, member);
    }

    /**
     * ZADD of one member, as Redis's {@code zsetAdd}: with {@link #INCR} the score is added to the
     * member's; NX, XX, GT and LT as ZADD's options.
     *
     * @param newScore gets the member's score after the call, unless the result is {@link #NOP} or {@link #NAN}
     * @return {@link #ADDED}, {@link #UPDATED}, {@link #NOP} (nothing to do), or 0 (present with
     *         that score already), or {@link #NAN}
     */
    @Override
    public int add(double score, byte[] member, int flags, double[] newScore) {
        Double current = scoreOf(member);
        if (current != null) {
            if ((flags & NX) != 0) {
                return NOP;
            }
            if ((flags & INCR) != 0) {
                score += current;
                if (Double.isNaN(score)) {
                    return NAN;
                }
            }
            if (((flags & LT) != 0 && score >= current) || ((flags & GT) != 0 && score <= current)) {
                return NOP;
            }
            newScore[0] = score;
            if (score != current) {
                removeAt(position(current, member));
                insert(score, member);
                return UPDATED;
            }
            return 0;
        }
        if ((flags & XX) != 0) {
            return NOP;
        }
        insert(score, member);
        newScore[0] = score;
        return ADDED;
    }

    /** Adds {@code member}, absent, at its place; turns a listpack past Redis's limits into a skiplist. */
    private void insert(double score, byte[] member) {
        if (encoding == ZSetLayout.LISTPACK && !(ZSetLayout.fitsListpack(0, member.length) && size + 1L <= maxEntries)) {
            encoding = ZSetLayout.SKIPLIST;
        }
        if (encoding == ZSetLayout.LISTPACK && score == 0) {
            score = 0.0; // a listpack holds -0 as the integer 0
        }
        int at = position(score, member);
        if (size == scores.length) {
            scores = Arrays.copyOf(scores, size * 2);
            members = Arrays.copyOf(members, size * 2);
        }
        System.arraycopy(scores, at, scores, at + 1, size - at);
        System.arraycopy(members, at, members, at + 1, size - at);
        scores[at] = score;
        members[at] = member;
        size++;
        if (index != null) {
            index.put(ByteBuffer.wrap(member), score);
        }
        changed = true;
    }

    @Override
    public boolean remove(byte[] member) {
        Double s = scoreOf(member);
        if (s == null) {
            return false;
        }
        removeAt(position(s, member));
        return true;
    }

    private void removeAt(int i) {
        if (index != null) {
            index.remove(ByteBuffer.wrap(members[i]));
        }
        removeRange(i, i + 1);
    }

    /** Removes the entries of ranks {@code [from, to)}. */
    void removeRange(int from, int to) {
        if (from >= to) {
            return;
        }
        if (index != null && to - from > 1) {
            index = null;
        }
        System.arraycopy(scores, to, scores, from, size - to);
        System.arraycopy(members, to, members, from, size - to);
        Arrays.fill(members, size - (to - from), size, null);
        size -= to - from;
        changed = true;
    }

    @Override
    public long count() {
        return size;
    }

    @Override
    public void removeRanks(long from, long to) {
        removeRange((int) from, (int) to);
    }

    @Override
    public long[] ranks(ZRange range) {
        int[] r = range.ranks(this);
        return new long[] {r[0], r[1]};
    }

    @Override
    public void walk(long from, boolean reverse, ZSetTree.Visitor v) {
        for (long i = from; i >= 0 && i < size; i += reverse ? -1 : 1) {
            if (!v.visit(scores[(int) i], members[(int) i])) {
                return;
            }
        }
    }

    /** @return the payload ({@link ZSetLayout}) of this set */
    byte[] encode() {
        long length = ZSetLayout.COUNT_OFFSET + HashLayout.varintLength(size);
        for (int i = 0; i < size; i++) {
            length += ZSetLayout.SCORE_LENGTH + HashLayout.varintLength(members[i].length) + members[i].length;
        }
        if (length > StoredValue.MAX_PAYLOAD) {
            throw new ReplyException("ERR sorted set would exceed the largest value this server stores ("
                    + StoredValue.MAX_PAYLOAD + " bytes encoded); split it over several keys");
        }
        byte[] out = new byte[(int) length];
        out[ZSetLayout.ENCODING_OFFSET] = encoding;
        int at = HashLayout.putVarint(out, ZSetLayout.COUNT_OFFSET, size);
        for (int i = 0; i < size; i++) {
            ZSetLayout.putScore(out, at, scores[i]);
            at = HashLayout.putVarint(out, at + ZSetLayout.SCORE_LENGTH, members[i].length);
            System.arraycopy(members[i], 0, out, at, members[i].length);
            at += members[i].length;
        }
        return out;
    }
}
