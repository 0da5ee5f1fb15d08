package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The field counts of the bucketed hashes written lately, in memory beside one element map, by
 * the collection id and serial of the write that left them ({@link HashBuckets}). A write needs
 * its hash's count; from the header alone that takes a read of the last write's bucket, to see
 * whether its intent landed. A serial is never reused within an id, and ids are random, so a
 * count found here is the count: what a crash lost is never asked for again.
 */
final class HashCounts {

    /** Above this the whole cache is dropped: it refills from the hashes still written. */
    private static final int MAX_ENTRIES = 4096;

    private final ConcurrentHashMap<Long, long[]> counts = new ConcurrentHashMap<>();

    /** @return the count hash {@code id} had after write {@code serial}, or -1 if not known */
    long count(long id, long serial) {
        long[] c = counts.get(id);
        return c != null && c[0] == serial ? c[1] : -1;
    }

    void put(long id, long serial, long count) {
        if (counts.size() >= MAX_ENTRIES) {
            counts.clear();
        }
        counts.put(id, new long[] {serial, count});
    }

    void remove(long id) {
        counts.remove(id);
    }
}
