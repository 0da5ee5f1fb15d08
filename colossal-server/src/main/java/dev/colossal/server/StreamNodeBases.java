package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The first IDs (bases) of stream nodes, in memory beside one element map: what the binary
 * search for the node holding an ID compares. Reading a base from the map copies its whole node
 * (up to stream-node-max-bytes), and a search reads one per halving, so an XREADGROUP, XCLAIM or
 * XRANGE into a long stream's middle copied kilobytes per step only to compare 16 bytes.
 *
 * <p>A node keeps its base while it lives (an XADD appends after it, an XDEL marks an entry in
 * it), and {@link StoredStream} puts the base of every node it writes here, so what is held is
 * the base of the node the map holds at that position, for any position a header names: a node
 * no longer named (trimmed, or a crash's garbage) is never asked for, and its position comes back
 * into a stream only by a write. Stream ids are random and not reused while live.
 */
final class StreamNodeBases {

    /** Above this many the whole cache is dropped: it refills from the searches still made. */
    private static final int MAX_BASES = 1 << 20;

    private record Key(long id, long position) {}

    private final ConcurrentHashMap<Key, StreamId> bases = new ConcurrentHashMap<>();

    /** @return the base of the node at {@code position} of stream {@code id}, or null if not held */
    StreamId get(long id, long position) {
        return bases.get(new Key(id, position));
    }

    /** Remembers {@code base} as that of the node the map now holds at {@code position} of stream {@code id}. */
    void put(long id, long position, StreamId base) {
        if (bases.size() >= MAX_BASES) {
            bases.clear();
        }
        bases.put(new Key(id, position), base);
    }

    /** Drops the base held for {@code position} of stream {@code id}. */
    void forget(long id, long position) {
        bases.remove(new Key(id, position));
    }
}
