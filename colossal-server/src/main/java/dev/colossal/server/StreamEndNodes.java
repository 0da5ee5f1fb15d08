package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The first and last nodes of the streams written lately, in memory beside one element map. An
 * XADD MAXLEN ~ on a stream at its bound needs both on every call: the last node to append to and
 * the first node's live count to decide a trim; reading them from the map copies up to
 * stream-node-max-bytes twice and walks the first node's entries each time.
 *
 * <p>Only a stream's own command writes its nodes, under the key's lock, and it tells this cache
 * what it wrote after the map took it; the server holds its data directory alone
 * ({@link DataDirLock}). So a cached node is the node in the map, except a last node whose XADD
 * failed before its header: the caller compares its length with the header's tail bytes. A node
 * left behind (a stream deleted elsewhere, a FLUSHDB) lingers until the bounds drop it, never
 * asked for: ids are random and not reused while live, and a position comes back into a stream
 * only by a write, which replaces what is cached for it.
 */
final class StreamEndNodes {

    /** Above either bound the whole cache is dropped: it refills from the streams still written. */
    private static final int MAX_NODES = 4096;
    private static final long MAX_BYTES = 64L << 20;
    /** A node bigger than this (stream-node-max-bytes raised) is read from the map each time. */
    private static final int MAX_NODE_BYTES = 64 << 10;

    /**
     * One cached node; immutable, replaced on each change.
     *
     * @param bytes   the node, as committed
     * @param entries its entries, deleted ones too, or -1 if not counted yet
     * @param skip    the head skip {@code live} was counted after
     * @param live    its live entries after the first {@code skip}, or -1 if not counted yet
     */
    record Node(byte[] bytes, int entries, long skip, int live) {

        static Node of(byte[] bytes) {
            return new Node(bytes, -1, 0, -1);
        }
    }

    private record Key(long id, long position) {}

    private final ConcurrentHashMap<Key, Node> nodes = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();

    /** @return the cached node at {@code position} of stream {@code id}, or null */
    Node get(long id, long position) {
        return nodes.get(new Key(id, position));
    }

    /** Remembers {@code node} as the one the map now holds at {@code position} of stream {@code id}. */
    void put(long id, long position, Node node) {
        if (node.bytes().length > MAX_NODE_BYTES) {
            forget(id, position);
            return;
        }
        Node old = nodes.put(new Key(id, position), node);
        long total = bytes.addAndGet(node.bytes().length - (old == null ? 0 : old.bytes().length));
        if (total > MAX_BYTES || nodes.size() > MAX_NODES) {
            nodes.clear();
            bytes.set(0);
        }
    }

    /** Drops what is cached for {@code position} of stream {@code id}. */
    void forget(long id, long position) {
        Node old = nodes.remove(new Key(id, position));
        if (old != null) {
            bytes.addAndGet(-old.bytes().length);
        }
    }
}
