package dev.colossal.server;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * A big sorted set ({@link ZSetTreeLayout}) as a command sees it under its key's lock: the header
 * read once, its two trees' nodes decoded as the command reaches them, changed in memory, then
 * {@link #commit}ted: every changed node at a new position, then the header (the one commit
 * point), then the replaced nodes removed. Whatever a kill leaves, the header names a whole tree of
 * nodes written before it; the rest is garbage {@link ListCollector} frees.
 */
final class StoredZSet implements ZSetWrites {

    private final KeyValueStore store;
    private final byte[] key;
    private final ListElements elements;
    private final long expireAt;
    private long id;
    private long count;
    private long next;
    private long[] lastRetired = new long[0];
    private ZSetTree byScore;
    private ZSetTree byMember;
    private long[] retired = new long[8];
    private int nRetired;
    private boolean changed;
    private long maxListpackEntries;
    /** The member change the header read names ({@link ZSetMemberChange}), or null. */
    private ZSetMemberChange named;
    /** This command's member changes: how many, and the last one. */
    private int memberChanges;
    private ZSetMemberChange change;
    /** The trees' reads in place, for a set {@link #view}ed by a command that only reads it; else null. */
    private ZSetTreeReads scoreReads;
    private ZSetTreeReads memberReads;

    private StoredZSet(KeyValueStore store, byte[] key, ListElements elements, long expireAt) {
        this.store = store;
        this.key = key;
        this.elements = elements;
        this.expireAt = expireAt;
    }

    /**
     * The big sorted set header {@code e} holds under {@code key}; the caller holds the key's lock.
     *
     * @param maxListpackEntries zset-max-listpack-entries, which sizes the nodes this command writes
     */
    static StoredZSet read(KeyValueStore store, byte[] key, KeyValueStore.Entry e, long maxListpackEntries) {
        StoredZSet z = new StoredZSet(store, key, elementsOf(store, key), e.expireAtMillis());
        z.id = ZSetTreeLayout.get(e, ZSetTreeLayout.ID_OFFSET);
        z.count = ZSetTreeLayout.get(e, ZSetTreeLayout.COUNT_OFFSET);
        z.next = ZSetTreeLayout.get(e, ZSetTreeLayout.NEXT_OFFSET);
        z.lastRetired = ZSetTreeLayout.retired(e);
        z.named = ZSetTreeLayout.change(e);
        z.maxListpackEntries = maxListpackEntries;
        int max = ZSetTreeLayout.nodeEntries(maxListpackEntries);
        z.byScore = new ZSetTree(ZSetTreeLayout.get(e, ZSetTreeLayout.SCORE_ROOT_OFFSET), false, max, z::load, z::retire);
        z.byMember = new ZSetTree(ZSetTreeLayout.get(e, ZSetTreeLayout.MEMBER_ROOT_OFFSET), true, max, z::load, z::retire);
        return z;
    }

    /**
     * The big sorted set header {@code e} holds under {@code key}, for a command that only reads
     * it: its reads search the stored nodes in place ({@link ZSetTreeReads}) instead of decoding
     * them. The caller holds the key's lock. A change made through it all the same is kept right:
     * from then on its reads go to the changed trees.
     */
    static StoredZSet view(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        StoredZSet z = read(store, key, e, ZSetLayout.MAX_LISTPACK_ENTRIES);
        z.scoreReads = new ZSetTreeReads(z.elements, z.id, ZSetTreeLayout.get(e, ZSetTreeLayout.SCORE_ROOT_OFFSET), false);
        z.memberReads = new ZSetTreeReads(z.elements, z.id, ZSetTreeLayout.get(e, ZSetTreeLayout.MEMBER_ROOT_OFFSET), true);
        return z;
    }

    /** @return whether reads go to the stored nodes in place: a {@link #view} nothing changed */
    private boolean inPlace() {
        return scoreReads != null && !byScore.touched() && !byMember.touched();
    }

    /**
     * Stores {@code z}, a set Redis would hold as a skiplist, under {@code key} with deadline
     * {@code at} as a tree under a new id: every node first, the header last.
     */
    static void save(KeyValueStore store, byte[] key, ZSetValue z, long at, long maxListpackEntries) {
        ListElements elements = store.elements(true);
        StoredZSet t = new StoredZSet(store, key, elements, at);
        t.id = elements.newId(key);
        t.maxListpackEntries = maxListpackEntries;
        int max = ZSetTreeLayout.nodeEntries(maxListpackEntries);
        t.byScore = new ZSetTree(false, max, t::load, t::retire);
        t.byMember = new ZSetTree(true, max, t::load, t::retire);
        for (int i = 0; i < z.size(); i++) {
            t.byScore.insert(z.score(i), z.member(i));
            t.byMember.insert(z.score(i), z.member(i));
        }
        t.count = z.size();
        t.changed = true;
        t.commit();
    }

    // ZSetWrites

    @Override
    public int add(double score, byte[] member, int flags, double[] newScore) {
        Double current = byMember.scoreOf(member);
        if (current != null) {
            if ((flags & ZSetValue.NX) != 0) {
                return ZSetValue.NOP;
            }
            if ((flags & ZSetValue.INCR) != 0) {
                score += current;
                if (Double.isNaN(score)) {
                    return ZSetValue.NAN;
                }
            }
            if (((flags & ZSetValue.LT) != 0 && score >= current) || ((flags & ZSetValue.GT) != 0 && score <= current)) {
                return ZSetValue.NOP;
            }
            newScore[0] = score;
            if (score != current) {
                byScore.delete(current, member);
                byScore.insert(score, member);
                byMember.setScore(member, score);
                changedMember(member, true, score);
                return ZSetValue.UPDATED;
            }
            return 0;
        }
        if ((flags & ZSetValue.XX) != 0) {
            return ZSetValue.NOP;
        }
        byScore.insert(score, member);
        byMember.insert(score, member);
        count++;
        changedMember(member, true, score);
        newScore[0] = score;
        return ZSetValue.ADDED;
    }

    @Override
    public boolean remove(byte[] member) {
        Double s = byMember.scoreOf(member);
        if (s == null) {
            return false;
        }
        byScore.delete(s, member);
        byMember.delete(s, member);
        count--;
        changedMember(member, false, 0);
        return true;
    }

    private void changedMember(byte[] member, boolean present, double score) {
        changed = true;
        memberChanges++;
        change = new ZSetMemberChange(-1, member, present, score);
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public void removeRanks(long from, long to) {
        if (from >= to) {
            return;
        }
        int n = (int) (to - from);
        double[] s = new double[n];
        byte[][] m = new byte[n][];
        int[] k = {0};
        byScore.walk(from, false, (score, member) -> {
            s[k[0]] = score;
            m[k[0]++] = member;
            return k[0] < n;
        });
        for (int i = 0; i < k[0]; i++) {
            byScore.delete(s[i], m[i]);
            byMember.delete(s[i], m[i]);
            changedMember(m[i], false, 0);
        }
        count -= k[0];
        changed = true;
    }

    @Override
    public long[] ranks(ZRange range) {
        long from;
        long to;
        if (inPlace()) {
            from = scoreReads.rank(range::aboveMin);
            to = Math.max(from, scoreReads.rank((s, b, f, t) -> !range.belowMax(s, b, f, t)));
        } else {
            from = byScore.rank((s, m) -> range.aboveMin(s, m, 0, m.length));
            to = Math.max(from, byScore.rank((s, m) -> !range.belowMax(s, m, 0, m.length)));
        }
        Object[] lo = first(false);
        Object[] hi = first(true);
        if (to > from && !range.endsAdmit((double) lo[0], (byte[]) lo[1], (double) hi[0], (byte[]) hi[1])) {
            return new long[] {0, 0};
        }
        return new long[] {from, to};
    }

    @Override
    public void walk(long from, boolean reverse, ZSetTree.Visitor v) {
        if (inPlace()) {
            scoreReads.walk(from, reverse, v);
        } else {
            byScore.walk(from, reverse, v);
        }
    }

    @Override
    public boolean changed() {
        return changed;
    }

    /** @return the set's collection id: a new one for each set stored (and each {@link #rebuild}) */
    long id() {
        return id;
    }

    /**
     * @return the position past every node the set's writes have put: it grows with every changed
     *     write (by one at least, if all its nodes took retired positions), so with {@link #id} it
     *     names one state of the set's members and scores
     */
    long next() {
        return next;
    }

    /** @return the score of {@code member}, or null */
    Double scoreOf(byte[] member) {
        if (!inPlace()) {
            return byMember.scoreOf(member); // its leaves are read through load, which applies the named change
        }
        if (named != null && named.of(member)) {
            return named.present() ? named.score() : null;
        }
        return memberReads.scoreOf(member);
    }

    /** Hands {@code v} the entries from the first scored {@code min} or more on, lowest first, until it says stop. */
    void walkFromScore(double min, ZSetTree.Visitor v) {
        if (inPlace()) {
            scoreReads.walk((s, b, f, t) -> s >= min, v);
        } else {
            byScore.walk(byScore.rank((s, m) -> s >= min), false, v);
        }
    }

    /** @return the rank of {@code member} from the lowest, or -1 if absent */
    long rankOf(byte[] member) {
        Double s = scoreOf(member);
        return s == null ? -1 : inPlace() ? scoreReads.rank(s, member) : byScore.rank(s, member);
    }

    /** @return the lowest entry (the highest if {@code last}) as {score, member} */
    private Object[] first(boolean last) {
        Object[] out = new Object[2];
        walk(last ? count - 1 : 0, last, (s, m) -> {
            out[0] = s;
            out[1] = m;
            return false;
        });
        return out;
    }

    /**
     * @return the whole set as a one-value payload ({@link ZSetLayout}, encoding SKIPLIST): what the
     *     commands that read every member (SORT, GEO*, ZUNION and kin, DUMP) walk with a {@link ZSetCursor}
     */
    byte[] payload() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream((int) Math.min(1 << 26, count * 24 + 16));
        out.write(ZSetLayout.SKIPLIST);
        byte[] v = new byte[HashLayout.MAX_VARINT];
        out.write(v, 0, HashLayout.putVarint(v, 0, (int) count));
        byte[] score = new byte[ZSetLayout.SCORE_LENGTH];
        byScore.walk(0, false, (s, m) -> {
            ZSetLayout.putScore(score, 0, s);
            out.write(score, 0, score.length);
            out.write(v, 0, HashLayout.putVarint(v, 0, m.length));
            out.write(m, 0, m.length);
            return true;
        });
        return out.toByteArray();
    }

    /**
     * Writes the changes: the nodes, the header, then removes the nodes they replace. A set left
     * empty is deleted; a change that replaced more than {@link ZSetTreeLayout#MAX_RETIRED} nodes
     * rebuilds the set under a new id, so that a header stays small.
     */
    void commit() {
        if (!changed) {
            return;
        }
        changed = false;
        if (count == 0) {
            delete();
            return;
        }
        holdNamedChange();
        // A single member change that reshaped nothing rewrites its member leaf in place, after the header
        ZSetNode leaf = memberChanges == 1 ? byMember.soleChangedLeaf() : null;
        ZSetMemberChange inPlace = leaf == null ? null : new ZSetMemberChange(leaf.pos, change.member(), change.present(), change.score());
        memberChanges = 0;
        // The nodes the last header retired are dead: this write's nodes take their positions
        // first (a put over a dead entry, where a new key would cost a put and a removal), then
        // new ones from next on. A kill before the header leaves the retired positions retired.
        long[] dead = lastRetired;
        int[] reused = {0};
        long[] fresh = {next};
        LongSupplier position = () -> reused[0] < dead.length ? dead[reused[0]++] : fresh[0]++;
        java.util.List<ZSetNode> written = new java.util.ArrayList<>();
        long scoreRoot = byScore.write(position, this::putNode, written);
        long memberRoot = inPlace != null ? byMember.storedRoot() : byMember.write(position, this::putNode, written);
        if (nRetired > ZSetTreeLayout.MAX_RETIRED) {
            rebuild(); // the nodes just written are garbage once the new id's header lands
            return;
        }
        next = Math.max(fresh[0], next + 1); // a write whose nodes all took dead positions still moves it on: see next()
        byte[] header = ZSetTreeLayout.header(id, count, next, scoreRoot, memberRoot, retired, nRetired, inPlace);
        store.set(key, header, 0, header.length, expireAt, StoredValue.ZSET);
        elements.wrote();
        named = inPlace;
        if (inPlace != null) {
            // At its own position: readers apply the header's change until this lands (ZSetTreeLayout)
            writeInPlace(leaf);
        }
        for (ZSetNode node : written) {
            // only now: past a header that failed, a position is written again. Handed over, not
            // copied: the trees are dropped below, so nothing here changes these nodes again.
            elements.zsetNodes().handOver(id, node.pos, node);
        }
        for (int i = reused[0]; i < dead.length; i++) {
            elements.remove(id, dead[i]); // the new header no longer names them: they go now or never
            elements.wrote();
        }
        // A write that retired many keeps a few for the next to reuse, and only in a set big enough
        // that they are a small part of it: in one of 200 members the last write's ~4 dead nodes
        // would be half as much again as the live ones, in one of 4,096 a few percent.
        int keep = count >= ZSetTreeLayout.REUSE_FROM_NODES * (long) ZSetTreeLayout.nodeEntries(maxListpackEntries)
                ? Math.min(nRetired, ZSetTreeLayout.MAX_REUSED) : 0;
        for (int i = 0; i < nRetired; i++) {
            elements.zsetNodes().remove(id, retired[i]);
            if (i >= keep) {
                elements.remove(id, retired[i]);
                elements.wrote();
            }
        }
        lastRetired = Arrays.copyOf(retired, keep);
        nRetired = 0;
        // A later change through this set reads its nodes again (from the cache): each node it
        // changes is then its own copy, never one the cache hands to other commands.
        int max = ZSetTreeLayout.nodeEntries(maxListpackEntries);
        byScore = new ZSetTree(scoreRoot, false, max, this::load, this::retire);
        byMember = new ZSetTree(memberRoot, true, max, this::load, this::retire);
        scoreReads = null;
        memberReads = null;
    }

    /** Writes the whole set under a new id, then its header: the old id's nodes are garbage once it lands. */
    private void rebuild() {
        ZSetValue all = ZSetValue.of(new ZSetCursor(payload(), 0));
        long oldId = id;
        save(store, key, all, expireAt, maxListpackEntries);
        elements.removeRoot(oldId);
    }

    /** Removes the set: its header, then its root; the collector frees the nodes a root no longer names. */
    void delete() {
        store.delete(key);
        elements.removeRoot(id);
    }

    /** RENAME to {@code toKey}, whose header is {@code e}: only the header moves, whole or not at all after a kill ({@link HeaderRename}). */
    void renameTo(byte[] toKey, KeyValueStore.Entry e) {
        HeaderRename.run(store, elements, id, key, toKey, () -> store.set(toKey, e, expireAt));
    }

    /** Copies this set to {@code toKey} in {@code to} under a new id with deadline {@code at}: every live node, then the header. */
    void copyTo(KeyValueStore to, byte[] toKey, long at) {
        ListElements dst = to.elements(true);
        long newId = dst.newId(toKey);
        dst.wrote();
        long[] roots = {rootPos(byScore), rootPos(byMember)};
        nodes((p, raw, length) -> {
            dst.put(newId, p, raw, length);
            dst.wrote();
        });
        // The nodes are copied as stored, so the copy's header names the change this one names
        byte[] header = ZSetTreeLayout.header(newId, count, next, roots[0], roots[1], retired, 0, named);
        to.set(toKey, header, 0, header.length, at, StoredValue.ZSET);
    }

    /** @return the nodes of both trees as stored (what the collector keeps of this set, but its root) */
    long nodeCount() {
        long[] n = {0};
        nodes((p, raw, length) -> n[0]++);
        return n[0];
    }

    /** @return the bytes of the nodes' keys and values in the element map */
    long storedBytes() {
        long[] n = {0};
        nodes((p, raw, length) -> n[0] += ListLayout.ELEMENT_KEY_LENGTH + length);
        return n[0];
    }

    /** Hands each stored node of both trees, from the roots down, to {@code action}. */
    private void nodes(ZSetTree.PositionWriter action) {
        for (ZSetTree t : new ZSetTree[] {byScore, byMember}) {
            ArrayDeque<Long> todo = new ArrayDeque<>();
            todo.add(rootPos(t));
            while (!todo.isEmpty()) {
                long p = todo.poll();
                byte[] raw = raw(p);
                action.put(p, raw, raw.length);
                ZSetNode node = ZSetNode.decode(raw, p);
                for (int i = 0; !node.leaf && i < node.n; i++) {
                    todo.add(node.children[i]);
                }
            }
        }
    }

    private long rootPos(ZSetTree t) {
        if (t.root().pos < 0) {
            throw new IllegalStateException("copy of a sorted set with changes not committed");
        }
        return t.root().pos;
    }

    private void putNode(long pos, byte[] raw, int length) {
        elements.put(id, pos, raw, length);
        elements.wrote();
    }

    /**
     * Makes sure the member leaf the header read names a change of holds it, before a write's header
     * replaces that one: a kill may have come between that header and the leaf's rewrite. Known
     * done (the common case) when this process rewrote the leaf after that very header.
     */
    private void holdNamedChange() {
        if (named == null || elements.zsetNodes().holds(id, next)) {
            return;
        }
        ZSetNode stored = decode(named.leaf());
        if (named.applyTo(stored)) {
            writeInPlace(stored);
        } else {
            elements.zsetNodes().held(id, next);
        }
    }

    /** Rewrites member leaf {@code leaf} at its own position, with the change the header just written names. */
    private void writeInPlace(ZSetNode leaf) {
        long length = leaf.bytes();
        byte[] out = new byte[(int) Math.min(length, Integer.MAX_VALUE)];
        putNode(leaf.pos, out, leaf.encode(out));
        elements.zsetNodes().held(id, next);
    }

    private void retire(long pos) {
        if (nRetired == retired.length) {
            retired = Arrays.copyOf(retired, nRetired * 2);
        }
        retired[nRetired++] = pos;
    }

    private ZSetNode load(long pos) {
        ZSetNode kept = elements.zsetNodes().get(id, pos);
        if (kept != null) {
            return kept;
        }
        ZSetNode node = decode(pos);
        if (named != null && pos == named.leaf()) {
            named.applyTo(node);
        }
        elements.zsetNodes().put(id, pos, node);
        return node;
    }

    /** @return the node stored at {@code pos}, decoded */
    private ZSetNode decode(long pos) {
        // Through this thread's buffer: a leaf (read by every write) is decoded, never kept as bytes
        ZSetNodeBytes b = ZSetNodeBytes.acquire();
        ZSetNode node;
        try {
            b.readBytes(elements, id, pos);
            node = ZSetNode.decode(b.bytes(), b.length(), pos);
        } finally {
            b.release();
        }
        return node;
    }

    private byte[] raw(long pos) {
        byte[] raw = elements.get(id, pos);
        if (raw == null) {
            throw missing(elements, id, pos);
        }
        return raw;
    }

    /** @return the error of node {@code pos} of collection {@code id} found missing from {@code elements} */
    static IllegalStateException missing(ListElements elements, long id, long pos) {
        return new IllegalStateException("sorted set node " + pos + " of id=" + Long.toHexString(id) + " is missing from "
                + elements.path() + ": the element map is damaged; DEL the key");
    }

    private static ListElements elementsOf(KeyValueStore store, byte[] key) {
        return ListElements.of(store, key, "sorted set");
    }
}
