package dev.colossal.server;

import java.util.Arrays;

/**
 * The one member change a big sorted set's header names ({@link ZSetTreeLayout}'s trailing record):
 * the last write changed one member's entry in one leaf of the member tree, and rewrote that leaf
 * at its own position after the header instead of copying it and every node above it. Until that
 * rewrite lands (a kill may come between), the leaf may lack the change, so every reader of the
 * leaf applies it; applying it twice changes nothing, as it says what the entry is, not what to do.
 *
 * @param leaf    the member tree leaf's position
 * @param member  the member
 * @param present whether the member is in the set (with {@code score}) or absent
 * @param score   its score, if present
 */
record ZSetMemberChange(long leaf, byte[] member, boolean present, double score) {

    /** @return the record's bytes in a header ({@link ZSetTreeLayout}) */
    int length() {
        return ZSetTreeLayout.CHANGE_MEMBER_OFFSET + HashLayout.varintLength(member.length) + member.length;
    }

    /** Writes the record at {@code at} of {@code out}. */
    void put(byte[] out, int at) {
        ListLayout.putLong(out, at + ZSetTreeLayout.CHANGE_LEAF_OFFSET, leaf);
        out[at + ZSetTreeLayout.CHANGE_PRESENT_OFFSET] = (byte) (present ? 1 : 0);
        ZSetLayout.putScore(out, at + ZSetTreeLayout.CHANGE_SCORE_OFFSET, present ? score : 0);
        int m = HashLayout.putVarint(out, at + ZSetTreeLayout.CHANGE_MEMBER_OFFSET, member.length);
        System.arraycopy(member, 0, out, m, member.length);
    }

    /**
     * @return the record at {@code [from, to)} of {@code in}
     * @throws IllegalStateException if it is not one (the offset it gives is the record's own)
     */
    static ZSetMemberChange get(byte[] in, int from, int to) {
        if (to - from < ZSetTreeLayout.CHANGE_MEMBER_OFFSET + 1) {
            throw ZSetLayout.damaged("a big sorted set's header ends in " + (to - from) + " bytes, not a member change", 0);
        }
        int[] at = {from + ZSetTreeLayout.CHANGE_MEMBER_OFFSET};
        int m = HashLayout.getVarint(in, at, to);
        if (at[0] + m != to) {
            throw ZSetLayout.damaged("a member change's member of " + m + " bytes does not end the header", at[0] - from);
        }
        boolean present = in[from + ZSetTreeLayout.CHANGE_PRESENT_OFFSET] != 0;
        return new ZSetMemberChange(ListLayout.getLong(in, from + ZSetTreeLayout.CHANGE_LEAF_OFFSET),
                Arrays.copyOfRange(in, at[0], to), present, ZSetLayout.getScore(in, from + ZSetTreeLayout.CHANGE_SCORE_OFFSET));
    }

    /** @return whether this is the change of {@code m} */
    boolean of(byte[] m) {
        return Arrays.equals(member, m);
    }

    /**
     * Makes member leaf {@code node} (the one at {@link #leaf}) hold the change.
     *
     * @return whether that changed it (false: the leaf was rewritten with it already)
     */
    boolean applyTo(ZSetNode node) {
        int lo = 0;
        int hi = node.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(node.members[mid], member) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        boolean there = lo < node.n && Arrays.equals(node.members[lo], member);
        if (!present) {
            if (there) {
                node.close(lo, lo + 1);
            }
            return there;
        }
        if (there && Double.compare(node.scores[lo], score) == 0) {
            return false;
        }
        if (!there) {
            node.open(lo);
        }
        node.set(lo, score, member);
        return true;
    }
}
