package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The inner nodes of big sorted sets ({@link ZSetTreeLayout}) decoded lately, in memory beside one
 * element map, by collection id and position: every command on a set passes its trees' upper levels,
 * and decoding them (a few KiB each) would cost more than the rest of a ZSCORE. A position is
 * written once and never changed (a change writes new nodes at new positions), and ids are random,
 * so a node found here is the node stored there. Leaves are not kept: a command reads one leaf a
 * tree, and there are far more of them. It also remembers which headers' retired nodes are
 * already removed, so that the next write need not remove them again.
 */
final class ZSetNodeCache {

    /** Above this the whole cache is dropped: it refills from the sets still read. */
    private static final int MAX_NODES = 4096;

    /** A node's place: its collection and position. */
    private record Key(long id, long pos) {}

    private final ConcurrentHashMap<Key, ZSetNode> nodes = new ConcurrentHashMap<>();
    /**
     * By collection id, the {@code next} of the last header whose retired nodes this process
     * removed: the write after it skips removing them again (six map lookups of a ZADD that
     * found nothing). Each changed write grows {@code next}, so it names one header.
     */
    private final ConcurrentHashMap<Long, Long> retiredGone = new ConcurrentHashMap<>();

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
        if (node.leaf) {
            return;
        }
        if (nodes.size() >= MAX_NODES) {
            nodes.clear();
        }
        nodes.put(new Key(id, pos), node.copy());
    }

    /** Notes that the nodes the header of collection {@code id} with {@code next} retires are removed. */
    void noteRetiredRemoved(long id, long next) {
        if (retiredGone.size() >= MAX_NODES) {
            retiredGone.clear();
        }
        retiredGone.put(id, next);
    }

    /** @return whether this process removed the nodes the header of collection {@code id} with {@code next} retires */
    boolean retiredRemoved(long id, long next) {
        Long gone = retiredGone.get(id);
        return gone != null && gone == next;
    }
}
