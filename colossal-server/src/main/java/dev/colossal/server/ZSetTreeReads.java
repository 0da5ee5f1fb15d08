package dev.colossal.server;

import java.util.Arrays;

/**
 * The reads of one stored tree of a big sorted set ({@link ZSetTreeLayout}) that change nothing:
 * what {@link ZSetTree} answers from decoded nodes, answered instead from the stored nodes as they
 * are. Inner nodes are the ones {@link ZSetNodeCache} keeps, looked at where they are kept (a read
 * never changes them, so it needs no copy); a leaf is searched in its stored bytes
 * ({@link ZSetNodeBytes}), and only the members a reply needs are copied out of it.
 *
 * <p>The caller holds the set's key's lock, as for {@link ZSetTree}: no write of this set runs
 * meanwhile, and a position holds the same node until it is removed (or, for the member leaf a
 * write rewrites in place, until the next write). A member leaf may lack the change its header
 * names ({@link ZSetMemberChange}): the caller answers for that member itself.
 */
final class ZSetTreeReads {

    /** A monotone test over the tree's order, of an entry's score and member bytes {@code [from, to)}. */
    @FunctionalInterface
    interface Bound {
        boolean test(double score, byte[] bytes, int from, int to);
    }

    /**
     * The levels a walk's path holds before it grows: a tree of members too big for two to share a
     * node (past {@link ZSetTreeLayout#NODE_BYTES} each) gets a level per such member.
     */
    private static final int DEPTH = 16;

    private final ListElements elements;
    private final long id;
    private final long rootPos;
    private final boolean byMember;

    /**
     * @param id       the set's collection id
     * @param rootPos  the tree's root position
     * @param byMember member order (the score index), else (score, member) order
     */
    ZSetTreeReads(ListElements elements, long id, long rootPos, boolean byMember) {
        this.elements = elements;
        this.id = id;
        this.rootPos = rootPos;
        this.byMember = byMember;
    }

    /** @return the score of {@code member} in a member-ordered tree, or null */
    Double scoreOf(byte[] member) {
        ZSetNodeBytes b = ZSetNodeBytes.acquire();
        try {
            descend(b, 0, member, false);
            int i = leafIndex(b, 0, member);
            return i < b.n() && b.memberIs(i, member) ? b.score(i) : null;
        } finally {
            b.release();
        }
    }

    /** @return the rank of the entry (s, m), or of the first after it if it is absent */
    long rank(double s, byte[] m) {
        ZSetNodeBytes b = ZSetNodeBytes.acquire();
        try {
            return descend(b, s, m, true) + leafIndex(b, s, m);
        } finally {
            b.release();
        }
    }

    /**
     * Reads the leaf whose range holds (s, m) into {@code b}.
     *
     * @param counted whether to count the entries before that leaf (a rank), else 0 is returned
     * @return the rank of the leaf's first entry
     */
    private long descend(ZSetNodeBytes b, double s, byte[] m, boolean counted) {
        long r = 0;
        ZSetNode node;
        long pos = rootPos;
        while ((node = node(pos, b)) != null) {
            int i = ZSetTree.childIndex(node, byMember, s, m);
            if (counted) {
                r += countBefore(node, i);
            }
            pos = node.children[i];
        }
        return r;
    }

    /** @return how many entries fail {@code bound}: the rank of the first that passes */
    long rank(Bound bound) {
        ZSetNodeBytes b = ZSetNodeBytes.acquire();
        try {
            long r = 0;
            ZSetNode node;
            long pos = rootPos;
            // a scan from the left, as ZSetTree's, so that a bound that is not monotone (a lex range over
            // mixed scores) picks the same entries
            while ((node = node(pos, b)) != null) {
                int i = 0;
                while (i + 1 < node.n && !bound.test(node.scores[i + 1], node.members[i + 1], 0, node.members[i + 1].length)) {
                    i++;
                }
                r += countBefore(node, i);
                pos = node.children[i];
            }
            int i = 0;
            while (i < b.n() && !b.test(i, bound)) {
                i++;
            }
            return r + i;
        } finally {
            b.release();
        }
    }

    /**
     * Hands the entries from rank {@code from} on to {@code v} (towards rank 0 if {@code reverse})
     * until it says stop or the entries end.
     */
    void walk(long from, boolean reverse, ZSetTree.Visitor v) {
        if (from >= 0) {
            walk(from, null, reverse, v);
        }
    }

    /**
     * Hands the entries from the first that passes {@code bound} ({@link #rank(Bound)}'s) on to
     * {@code v}, lowest first, until it says stop: one descent where a rank and then a walk from
     * it take two (a GEO search starts nine walks a search).
     */
    void walk(Bound bound, ZSetTree.Visitor v) {
        walk(0, bound, false, v);
    }

    /** A walk from rank {@code from}, or from the first entry that passes {@code bound} if it is not null. */
    private void walk(long from, Bound bound, boolean reverse, ZSetTree.Visitor v) {
        ZSetNodeBytes b = ZSetNodeBytes.acquire();
        try {
            // The path down to the leaf of the first entry: each level's inner node and the child index taken
            ZSetNode[] nodes = new ZSetNode[DEPTH];
            int[] at = new int[DEPTH];
            int depth = 0;
            long r = from;
            ZSetNode node;
            long pos = rootPos;
            while ((node = node(pos, b)) != null) {
                int i = 0;
                if (bound != null) {
                    while (i + 1 < node.n && !bound.test(node.scores[i + 1], node.members[i + 1], 0, node.members[i + 1].length)) {
                        i++;
                    }
                } else {
                    while (i < node.n && r >= node.counts[i]) {
                        r -= node.counts[i++];
                    }
                    if (i == node.n) {
                        return; // past the last entry
                    }
                }
                if (depth == nodes.length) {
                    nodes = Arrays.copyOf(nodes, depth * 2);
                    at = Arrays.copyOf(at, depth * 2);
                }
                nodes[depth] = node;
                at[depth++] = i;
                pos = node.children[i];
            }
            int i = 0;
            if (bound != null) {
                while (i < b.n() && !b.test(i, bound)) {
                    i++;
                }
            } else {
                i = (int) Math.min(r, b.n());
            }
            while (true) {
                for (; i >= 0 && i < b.n(); i += reverse ? -1 : 1) {
                    if (!v.visit(b.score(i), b.member(i))) {
                        return;
                    }
                }
                // Up to the first level with a next child, then down its near edge
                int d = ZSetTree.nextLevel(nodes, at, depth, reverse);
                if (d < 0) {
                    return;
                }
                pos = nodes[d].children[at[d]];
                for (d++; d < depth; d++) {
                    node = node(pos, b);
                    if (node == null) {
                        throw ZSetLayout.damaged("a leaf at position " + pos + " where the tree has inner nodes", 0);
                    }
                    nodes[d] = node;
                    at[d] = reverse ? node.n - 1 : 0;
                    pos = node.children[at[d]];
                }
                if (node(pos, b) != null) {
                    throw ZSetLayout.damaged("an inner node at position " + pos + " where the tree has leaves", 0);
                }
                i = reverse ? b.n() - 1 : 0;
            }
        } finally {
            b.release();
        }
    }

    /**
     * @return inner node {@code pos} as {@link ZSetNodeCache} keeps it (decoded and kept now if it
     *     was not), or null once leaf {@code pos} is read into {@code b}
     */
    private ZSetNode node(long pos, ZSetNodeBytes b) {
        ZSetNode kept = elements.zsetNodes().peek(id, pos);
        if (kept != null) {
            return kept;
        }
        b.read(elements, id, pos);
        if (b.leaf()) {
            return null;
        }
        ZSetNode node = ZSetNode.decode(b.bytes(), b.length(), pos);
        elements.zsetNodes().put(id, pos, node);
        return node;
    }

    /** @return the first index of the leaf in {@code b} whose entry is at or after (s, m) */
    private int leafIndex(ZSetNodeBytes b, double s, byte[] m) {
        int lo = 0;
        int hi = b.n();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (b.compare(mid, byMember, s, m) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static long countBefore(ZSetNode node, int i) {
        long r = 0;
        for (int j = 0; j < i; j++) {
            r += node.counts[j];
        }
        return r;
    }
}
