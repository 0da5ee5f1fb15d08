package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The inner nodes of big sorted sets ({@link ZSetTreeLayout}) decoded lately, in memory beside one
 * element map, by collection id and position: every command on a set passes its trees' upper levels,
 * and decoding them (a few KiB each) would cost more than the rest of a ZSCORE. A position holds
 * one node from its write until a header retires it, when the writer {@linkplain #remove forgets}
 * it here (the next write may put another node there), and ids are random, so a node found here
 * is the node stored there. Leaves are not kept: a command reads one leaf a
 * tree, and there are far more of them.
 */
final class ZSetNodeCache {

    /** Above this the whole cache is dropped: it refills from the sets still read. */
    private static final int MAX_NODES = 4096;

    /** A node's place: its collection and position. */
    private record Key(long id, long pos) {}

    private final ConcurrentHashMap<Key, ZSetNode> nodes = new ConcurrentHashMap<>();
    /**
     * By collection id, the {@code next} of the header whose member change ({@link ZSetMemberChange})
     * this process has seen its leaf hold: the next write then need not read the leaf to make sure.
     */
    private final ConcurrentHashMap<Long, Long> changesHeld = new ConcurrentHashMap<>();

    /** @return whether the member leaf of collection {@code id} holds the change its header of {@code next} names */
    boolean holds(long id, long next) {
        Long n = changesHeld.get(id);
        return n != null && n == next;
    }

    /** Notes that the member leaf of collection {@code id} holds the change its header of {@code next} names. */
    void held(long id, long next) {
        if (changesHeld.size() >= MAX_NODES) {
            changesHeld.clear();
        }
        changesHeld.put(id, next);
    }

    /** @return a copy of inner node {@code pos} of collection {@code id} for a command to change, or null if not kept */
    ZSetNode get(long id, long pos) {
        ZSetNode n = nodes.get(new Key(id, pos));
        return n == null ? null : n.copy();
    }

    /**
     * @return inner node {@code pos} of collection {@code id} as kept, not copied, or null: for a
     *     read, which must never change it (every command that may gets its own copy from {@link #get})
     */
    ZSetNode peek(long id, long pos) {
        return nodes.get(new Key(id, pos));
    }

    /** Keeps a copy of {@code node}, stored at {@code pos} of collection {@code id}, if it is an inner node. */
    void put(long id, long pos, ZSetNode node) {
        if (!node.leaf) {
            keep(id, pos, node.copy());
        }
    }

    /**
     * Keeps {@code node} itself, stored at {@code pos} of collection {@code id}, if it is an inner
     * node: for a caller that hands it over and never changes it again (a committed write, whose
     * trees are dropped after it). Its decoded children are let go, as a kept node must not hold them.
     */
    void handOver(long id, long pos, ZSetNode node) {
        if (!node.leaf) {
            java.util.Arrays.fill(node.loaded, null);
            keep(id, pos, node);
        }
    }

    private void keep(long id, long pos, ZSetNode node) {
        if (nodes.size() >= MAX_NODES) {
            nodes.clear();
        }
        nodes.put(new Key(id, pos), node);
    }

    /** Forgets node {@code pos} of collection {@code id}, removed from the map: a kept dead node only pushes live ones out. */
    void remove(long id, long pos) {
        nodes.remove(new Key(id, pos));
    }
}
