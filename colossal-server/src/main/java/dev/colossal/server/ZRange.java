package dev.colossal.server;

import java.util.Arrays;

/**
 * A range of a sorted set by score ({@code ZRANGEBYSCORE}'s {@code (1 +inf}) or by member
 * ({@code ZRANGEBYLEX}'s {@code [a (z}, {@code -}, {@code +}), as Redis parses and applies it. A
 * range read walks from the lowest entry, skips those {@linkplain #aboveMin below the minimum} and
 * takes entries while they are {@linkplain #belowMax within the maximum}: the entries are in
 * order, so it stops at the first past it, as Redis does.
 */
final class ZRange {

    static final String NOT_FLOAT = "ERR min or max is not a float";
    static final String NOT_LEX = "ERR min or max not valid string range item";

    private final boolean lex;
    private final double minScore;
    private final double maxScore;
    /** A lex bound's member, or null for {@code -} / {@code +} (with {@link #minInfinite} saying which end). */
    private final byte[] minMember;
    private final byte[] maxMember;
    private final boolean minExclusive;
    private final boolean maxExclusive;
    /** For a lex range: the minimum is {@code -} (true) or {@code +} when {@link #minMember} is null. */
    private final boolean minInfinite;
    private final boolean maxInfinite;

    private ZRange(boolean lex, double minScore, double maxScore, byte[] minMember, byte[] maxMember,
                   boolean minExclusive, boolean maxExclusive, boolean minInfinite, boolean maxInfinite) {
        this.lex = lex;
        this.minScore = minScore;
        this.maxScore = maxScore;
        this.minMember = minMember;
        this.maxMember = maxMember;
        this.minExclusive = minExclusive;
        this.maxExclusive = maxExclusive;
        this.minInfinite = minInfinite;
        this.maxInfinite = maxInfinite;
    }

    /** @return the score range {@code min max} ({@code (} before a bound excludes it), or null if either is not a float */
    static ZRange byScore(byte[] min, byte[] max) {
        boolean minEx = min.length > 0 && min[0] == '(';
        boolean maxEx = max.length > 0 && max[0] == '(';
        double lo = ZScore.parseBound(min, minEx ? 1 : 0);
        double hi = ZScore.parseBound(max, maxEx ? 1 : 0);
        if (Double.isNaN(lo) || Double.isNaN(hi)) {
            return null;
        }
        return new ZRange(false, lo, hi, null, null, minEx, maxEx, false, false);
    }

    /** @return the lex range {@code min max}, or null if either is not {@code -}, {@code +}, {@code [x} or {@code (x} */
    static ZRange byLex(byte[] min, byte[] max) {
        if (!lexItem(min) || !lexItem(max)) {
            return null;
        }
        return new ZRange(true, 0, 0, member(min), member(max), min[0] == '(', max[0] == '(', min[0] == '-', max[0] == '+');
    }

    private static boolean lexItem(byte[] b) {
        if (b.length == 0) {
            return false;
        }
        return ((b[0] == '+' || b[0] == '-') && b.length == 1) || b[0] == '(' || b[0] == '[';
    }

    private static byte[] member(byte[] item) {
        return item[0] == '(' || item[0] == '[' ? Arrays.copyOfRange(item, 1, item.length) : null;
    }

    /** @return whether the entry (score, member bytes {@code m[from, to)}) is at or past the minimum */
    boolean aboveMin(double score, byte[] m, int from, int to) {
        if (!lex) {
            return minExclusive ? score > minScore : score >= minScore;
        }
        if (minMember == null) {
            return minInfinite;
        }
        int c = Arrays.compareUnsigned(m, from, to, minMember, 0, minMember.length);
        return minExclusive ? c > 0 : c >= 0;
    }

    /** @return whether the entry is at or before the maximum */
    boolean belowMax(double score, byte[] m, int from, int to) {
        if (!lex) {
            return maxExclusive ? score < maxScore : score <= maxScore;
        }
        if (maxMember == null) {
            return maxInfinite;
        }
        int c = Arrays.compareUnsigned(m, from, to, maxMember, 0, maxMember.length);
        return maxExclusive ? c < 0 : c <= 0;
    }

    boolean aboveMin(ZSetCursor c) {
        return aboveMin(c.score(), c.bytes(), c.memberAt(), c.memberAt() + c.memberLength());
    }

    boolean belowMax(ZSetCursor c) {
        return belowMax(c.score(), c.bytes(), c.memberAt(), c.memberAt() + c.memberLength());
    }

    /**
     * Redis's {@code zzlIsInLexRange}, which a lex range read checks first: the set's first entry
     * must be within the maximum and its last past the minimum, else the range is empty. Entries of
     * one score are in member order and pass whenever the walk found some; with scores that differ
     * (where Redis leaves lex ranges undefined) this is what keeps the answer Redis's.
     *
     * @return false if a lex range's answer is empty for that reason; true for a score range
     */
    boolean endsAdmit(ZSetCursor z) {
        if (!lex) {
            return true;
        }
        z.rewind();
        if (!z.next() || !belowMax(z)) {
            return false;
        }
        while (z.index() < z.count() - 1) {
            z.next();
        }
        return aboveMin(z);
    }

    /** {@link #endsAdmit(ZSetCursor)} given a set's lowest entry (s0, m0) and its highest (s1, m1). */
    boolean endsAdmit(double s0, byte[] m0, double s1, byte[] m1) {
        return !lex || belowMax(s0, m0, 0, m0.length) && aboveMin(s1, m1, 0, m1.length);
    }

    /** @return the ranks {@code [from, to)} of {@code z}'s entries in this range */
    int[] ranks(ZSetValue z) {
        int from = 0;
        int n = z.size();
        while (from < n && !aboveMin(z.score(from), z.member(from), 0, z.member(from).length)) {
            from++;
        }
        int to = from;
        while (to < n && belowMax(z.score(to), z.member(to), 0, z.member(to).length)) {
            to++;
        }
        if (lex && to > from && !(belowMax(z.score(0), z.member(0), 0, z.member(0).length)
                && aboveMin(z.score(n - 1), z.member(n - 1), 0, z.member(n - 1).length))) {
            return new int[] {0, 0}; // see endsAdmit
        }
        return new int[] {from, to};
    }
}
