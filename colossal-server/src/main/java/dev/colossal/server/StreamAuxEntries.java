package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The auxiliary entries (consumer groups' directories, group entries, pending-list chunks:
 * {@link GroupsLayout}) of the streams written lately, in memory beside one element map. Every
 * group command reads the directory, its group's entry and the chunks it touches; from the map
 * each read hashes, probes, copies and checks a checksum, where a job queue's XREADGROUP, XACK
 * and XPENDING come back to the same few entries on every call.
 *
 * <p>Only {@link StoredStream} writes a stream's auxiliary entries, under the key's lock, and it
 * tells this cache each entry it wrote after the map took it and each it removed; the server holds
 * its data directory alone ({@link DataDirLock}). An entry is written into a slot no committed
 * header names, and a slot is named only by a commit after its write, so any slot a header names
 * holds here what the map holds (or nothing). Entries are immutable arrays, shared with callers
 * that only read them. Stream ids are random and not reused while live.
 */
final class StreamAuxEntries {

    /** Above either bound the whole cache is dropped: it refills from the streams still used. */
    private static final int MAX_ENTRIES = 1 << 16;
    private static final long MAX_BYTES = 64L << 20;
    /** An entry bigger than this (a group entry of a huge pending list) is read from the map each time. */
    private static final int MAX_ENTRY_BYTES = 64 << 10;

    private record Key(long id, long slot) {}

    private final ConcurrentHashMap<Key, byte[]> entries = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();

    /** @return the entry at {@code slot} of stream {@code id} as the map holds it, or null if not held */
    byte[] get(long id, long slot) {
        return entries.get(new Key(id, slot));
    }

    /** Remembers {@code value} (not to be changed after) as what the map now holds at {@code slot} of stream {@code id}. */
    void put(long id, long slot, byte[] value) {
        if (value.length > MAX_ENTRY_BYTES) {
            forget(id, slot);
            return;
        }
        byte[] old = entries.put(new Key(id, slot), value);
        long total = bytes.addAndGet(value.length - (old == null ? 0 : old.length));
        if (total > MAX_BYTES || entries.size() > MAX_ENTRIES) {
            entries.clear();
            bytes.set(0);
        }
    }

    /** Drops what is held for {@code slot} of stream {@code id}. */
    void forget(long id, long slot) {
        byte[] old = entries.remove(new Key(id, slot));
        if (old != null) {
            bytes.addAndGet(-old.length);
        }
    }
}
