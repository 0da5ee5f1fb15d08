package dev.colossal.map;

import java.lang.foreign.MemorySegment;

/**
 * Told of each entry a bounded map's CLOCK hand removes to make room ({@link BytesMap#onEviction}):
 * a cache that mirrors keys elsewhere (a server's client-side caches, keyspace notifications) learns
 * what went without scanning for it.
 *
 * <p>Called on the writing thread, under the lock of the entry's segment, just before the entry is
 * deleted: keep it short, copy the key if it is needed later (the segment is valid only during the
 * call), and do not call the map from it (that segment's lock is held).
 */
@FunctionalInterface
public interface EvictionListener {

    /**
     * @param key     the entry's key, read-only, valid during the call only
     * @param value   the entry's value, read-only, valid during the call only: for a listener that
     *                frees what the value refers to elsewhere (a server's collection elements kept
     *                in another map), or counts what went
     * @param expired whether the entry had expired (removed, not counted in {@link BytesMap#evictions})
     */
    void evicted(MemorySegment key, MemorySegment value, boolean expired);
}
