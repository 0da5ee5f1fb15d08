package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * A consumer group's pending entries list (PEL), kept in chunks of at most {@link #MAX_CHUNK}
 * entries, each chunk an auxiliary entry of the stream ({@link GroupsLayout} draws both). A command
 * reads only the chunks it touches, and {@link StreamGroups#save} writes only the chunks that
 * changed: an XREADGROUP or XACK costs a chunk and the group's chunk table, not the whole PEL.
 *
 * <p>Chunk {@code i} holds the entries with IDs in {@code [low(i), low(i + 1))}; the first chunk's
 * low bound drops with an insert below it. Changes to a {@link ConsumerGroup.Pending} a command got
 * from here are found at save by comparing each loaded chunk with the bytes it was read from. Every
 * entry put, replaced or removed here moves its consumer's pending count with it.
 */
final class PendingList {

    /** A chunk's entries at most: its rewrite per change against the chunk table's size (~28 B per chunk). */
    static final int MAX_CHUNK = 256;
    /** {@link #MAX_CHUNK}, but tests make chunks tiny to split and merge them on every few commands. */
    private static int maxChunk = MAX_CHUNK;

    /** One chunk: its low bound, its entries once read, and the slot and bytes it was read from. */
    static final class Chunk {
        StreamId low;
        int count;
        /** Its auxiliary slot, or -1 until first written. */
        long slot;
        /** Its entries, or null until read. */
        TreeMap<StreamId, ConsumerGroup.Pending> entries;
        /** The bytes its slot holds (null while unwritten or unread): a loaded chunk equal to them needs no write. */
        byte[] stored;

        Chunk(StreamId low, int count, long slot) {
            this.low = low;
            this.count = count;
            this.slot = slot;
        }
    }

    /** Sets the chunks' bound for the tests that follow ({@link #MAX_CHUNK} again when done). */
    static void chunkBoundForTests(int entries) {
        maxChunk = entries;
    }

    private final List<Chunk> chunks;
    private final LongFunction<byte[]> read;
    private final Function<byte[], TreeMap<StreamId, ConsumerGroup.Pending>> decode;
    private final List<Long> retired = new ArrayList<>();
    /** The group's consumers by number, what a stored entry names: for {@link #view}'s walk of stored bytes. */
    private final Map<Integer, ConsumerGroup.Consumer> byNumber;
    private long size;

    /**
     * @param chunks the chunk table as stored (chunks not read yet)
     * @param read   reads the bytes of the chunk at a slot
     * @param decode   decodes a chunk's bytes
     * @param byNumber the group's consumers by number
     */
    PendingList(List<Chunk> chunks, LongFunction<byte[]> read, Function<byte[], TreeMap<StreamId, ConsumerGroup.Pending>> decode,
                Map<Integer, ConsumerGroup.Consumer> byNumber) {
        this.chunks = chunks;
        this.read = read;
        this.decode = decode;
        this.byNumber = byNumber;
        for (Chunk c : chunks) {
            size += c.count;
        }
    }

    /** An empty list, every chunk of which will be new. */
    PendingList() {
        this(new ArrayList<>(), slot -> {
            throw new IllegalStateException("a new pending list has no stored chunk " + slot);
        }, null, Map.of());
    }

    long size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the chunks, in ID order (read or not) */
    List<Chunk> chunks() {
        return chunks;
    }

    /** @return the slots of chunks dropped since the last save: free once the save commits */
    List<Long> retired() {
        return retired;
    }

    /** @return chunk {@code i}'s entries, read from its slot the first time */
    TreeMap<StreamId, ConsumerGroup.Pending> entries(int i) {
        Chunk c = chunks.get(i);
        if (c.entries == null) {
            if (c.stored == null) {
                c.stored = read.apply(c.slot);
            }
            c.entries = decode.apply(c.stored);
            if (c.entries.size() != c.count) {
                throw new IllegalStateException("pending entries chunk at auxiliary slot=" + c.slot + " holds "
                        + c.entries.size() + " entries where its group counts " + c.count + ": the element map is damaged");
            }
        }
        return c.entries;
    }

    /** @return the index of the chunk whose range holds {@code id}, or -1 if {@code id} is below the first */
    private int locate(StreamId id) {
        int lo = 0;
        int hi = chunks.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (chunks.get(mid).low.compareTo(id) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    ConsumerGroup.Pending get(StreamId id) {
        int i = locate(id);
        return i < 0 ? null : entries(i).get(id);
    }

    /** Adds or replaces entry {@code id}. */
    void put(StreamId id, ConsumerGroup.Pending p) {
        if (chunks.isEmpty()) {
            Chunk c = new Chunk(id, 0, -1);
            c.entries = new TreeMap<>();
            chunks.add(c);
        }
        int i = locate(id);
        if (i < 0) {
            i = 0;
            chunks.getFirst().low = id;
        }
        TreeMap<StreamId, ConsumerGroup.Pending> es = entries(i);
        if (i == chunks.size() - 1 && es.size() >= maxChunk && id.compareTo(es.lastKey()) > 0) {
            // appends (XREADGROUP's new entries) start a chunk rather than split the full one
            Chunk c = new Chunk(id, 0, -1);
            c.entries = new TreeMap<>();
            chunks.add(c);
            i++;
            es = c.entries;
        }
        ConsumerGroup.Pending old = es.put(id, p);
        if (old == null) {
            chunks.get(i).count++;
            size++;
        } else {
            old.counted(-1);
        }
        p.counted(1);
        if (es.size() > maxChunk) {
            split(i);
        }
    }

    private void split(int i) {
        TreeMap<StreamId, ConsumerGroup.Pending> es = chunks.get(i).entries;
        StreamId middle = new ArrayList<>(es.keySet()).get(es.size() / 2);
        Chunk upper = new Chunk(middle, 0, -1);
        upper.entries = new TreeMap<>(es.tailMap(middle, true));
        upper.count = upper.entries.size();
        es.tailMap(middle, true).clear();
        chunks.get(i).count = es.size();
        chunks.add(i + 1, upper);
    }

    /** @return the entry removed, or null if {@code id} was not pending */
    ConsumerGroup.Pending remove(StreamId id) {
        int i = locate(id);
        if (i < 0) {
            return null;
        }
        ConsumerGroup.Pending p = entries(i).remove(id);
        if (p != null) {
            chunks.get(i).count--;
            size--;
            p.counted(-1);
        }
        return p;
    }

    /** @return the lowest pending ID, read from the first chunk's bytes without decoding it (XPENDING's summary) */
    StreamId firstKey() {
        for (int i = 0; i < chunks.size(); i++) {
            if (chunks.get(i).count > 0) {
                return edge(i, true);
            }
        }
        throw new NoSuchElementException("no entry is pending");
    }

    /** @return the highest pending ID, read from the last chunk's bytes without decoding it */
    StreamId lastKey() {
        for (int i = chunks.size() - 1; i >= 0; i--) {
            if (chunks.get(i).count > 0) {
                return edge(i, false);
            }
        }
        throw new NoSuchElementException("no entry is pending");
    }

    /** @return the first or last ID of chunk {@code i} (not empty): from its entries if read, else from its stored bytes */
    private StreamId edge(int i, boolean first) {
        Chunk c = chunks.get(i);
        if (c.entries != null) {
            return first ? c.entries.firstKey() : c.entries.lastKey();
        }
        return GroupsLayout.pendingId(stored(c), first ? 0 : c.count - 1);
    }

    /** @return the bytes of chunk {@code c}, not read into entries yet, from its slot the first time */
    private byte[] stored(Chunk c) {
        if (c.stored == null) {
            c.stored = read.apply(c.slot);
        }
        if (c.stored.length != (long) c.count * GroupsLayout.PENDING_BYTES) {
            throw new IllegalStateException("pending entries chunk at auxiliary slot=" + c.slot + " has length="
                    + c.stored.length + " where its group counts " + c.count + " entries: the element map is damaged");
        }
        return c.stored;
    }

    /**
     * @return the entries from {@code start} on, in ID order, to be read and not changed: a chunk
     *     not read yet is walked in its stored bytes, entry by entry, without building its tree
     *     (XPENDING's extended form shows a few entries of chunks of hundreds); changes to what it
     *     returns are not kept
     */
    Iterator<Map.Entry<StreamId, ConsumerGroup.Pending>> view(StreamId start) {
        return new Iterator<>() {
            private int chunk = Math.max(0, locate(start));
            /** The loaded chunk's entries left, or null while walking stored bytes. */
            private Iterator<Map.Entry<StreamId, ConsumerGroup.Pending>> within;
            private byte[] raw;
            private int at;

            {
                if (chunk < chunks.size()) {
                    open(start);
                }
            }

            private void open(StreamId from) {
                Chunk c = chunks.get(chunk);
                if (c.entries != null) {
                    within = c.entries.tailMap(from, true).entrySet().iterator();
                    raw = null;
                    return;
                }
                within = null;
                raw = stored(c);
                int lo = 0;
                int hi = c.count;
                while (lo < hi) { // the first stored entry at or above from
                    int mid = (lo + hi) >>> 1;
                    if (GroupsLayout.pendingId(raw, mid).compareTo(from) < 0) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                at = lo;
            }

            private boolean more() {
                return within != null ? within.hasNext() : raw != null && at < raw.length / GroupsLayout.PENDING_BYTES;
            }

            @Override
            public boolean hasNext() {
                while (chunk < chunks.size() && !more()) {
                    if (++chunk < chunks.size()) {
                        open(StreamId.MIN);
                    }
                }
                return chunk < chunks.size();
            }

            @Override
            public Map.Entry<StreamId, ConsumerGroup.Pending> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                if (within != null) {
                    return within.next();
                }
                StreamId id = GroupsLayout.pendingId(raw, at);
                ConsumerGroup.Pending p = GroupsLayout.pending(raw, at, byNumber);
                at++;
                return new java.util.AbstractMap.SimpleImmutableEntry<>(id, p);
            }
        };
    }

    /** @return every entry in ID order */
    Iterable<Map.Entry<StreamId, ConsumerGroup.Pending>> entries() {
        return () -> from(StreamId.MIN);
    }

    /** @return the entries from {@code start} on, in ID order; its {@code remove} removes the last returned */
    Iterator<Map.Entry<StreamId, ConsumerGroup.Pending>> from(StreamId start) {
        return new Iterator<>() {
            private int chunk = Math.max(0, locate(start));
            private Iterator<Map.Entry<StreamId, ConsumerGroup.Pending>> within =
                    chunks.isEmpty() ? null : entries(chunk).tailMap(start, true).entrySet().iterator();
            private int lastChunk = -1;
            /** The iterator {@link #next} took the last entry from: {@link #hasNext} may have moved on since. */
            private Iterator<Map.Entry<StreamId, ConsumerGroup.Pending>> lastWithin;
            private ConsumerGroup.Pending last;

            @Override
            public boolean hasNext() {
                while (within != null && !within.hasNext()) {
                    if (++chunk >= chunks.size()) {
                        within = null;
                    } else if (chunks.get(chunk).count > 0) {
                        within = entries(chunk).entrySet().iterator();
                    }
                }
                return within != null;
            }

            @Override
            public Map.Entry<StreamId, ConsumerGroup.Pending> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                lastChunk = chunk;
                lastWithin = within;
                Map.Entry<StreamId, ConsumerGroup.Pending> e = within.next();
                last = e.getValue();
                return e;
            }

            @Override
            public void remove() {
                if (lastWithin == null) {
                    throw new IllegalStateException("remove() without next()");
                }
                lastWithin.remove();
                lastWithin = null;
                chunks.get(lastChunk).count--;
                size--;
                last.counted(-1);
            }
        };
    }

    /**
     * Before a save: drops empty chunks (their slots retired) and merges a chunk into its successor
     * where both together fill at most half a chunk, so acknowledged runs leave no trail of small chunks.
     */
    void compact() {
        for (int i = 0; i < chunks.size(); i++) {
            Chunk c = chunks.get(i);
            if (c.count == 0 && chunks.size() > 1) {
                retire(chunks.remove(i--));
                continue;
            }
            if (i + 1 < chunks.size() && c.count + chunks.get(i + 1).count <= maxChunk / 2
                    && (c.entries != null || chunks.get(i + 1).entries != null)) {
                entries(i).putAll(entries(i + 1));
                c.count = c.entries.size();
                retire(chunks.remove(i + 1));
                i--;
            }
        }
        if (chunks.size() == 1 && chunks.getFirst().count == 0) {
            retire(chunks.removeFirst());
        }
    }

    private void retire(Chunk c) {
        if (c.slot >= 0) {
            retired.add(c.slot);
        }
    }

    /** @return whether chunk {@code c} must be written: new, or read and changed since */
    static boolean changed(Chunk c, byte[] encoded) {
        return c.slot < 0 || !Arrays.equals(c.stored, encoded);
    }
}
