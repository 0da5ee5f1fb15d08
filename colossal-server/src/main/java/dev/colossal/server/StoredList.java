package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One list as a command sees it under its key's lock: its header ({@link ListLayout}) read once,
 * changed in memory, and written back as the commit point of each change. A small list is packed:
 * its elements ride in the header itself, so a push or a pop onto it is one read and one write of
 * one entry, and a range is one read. A write that would take it past
 * {@link ListLayout#PACKED_COUNT} elements or {@link ListLayout#PACKED_BYTES} bytes (one element:
 * {@link ListLayout#PACKED_ONE_BYTES}) makes it a big list ({@link ListNodes}): nodes in the element
 * map under a new id, written before the header that holds them, and the pushes after it gather
 * at the list's ends in the header's runs; a push keeps a list big until it is emptied or
 * rewritten whole (LINSERT, LREM), which packs it if it fits. What a crash leaves behind is garbage {@link ListCollector} frees,
 * never a hole or a wrong element.
 *
 * <p>A list written before big lists had nodes (a 32-byte header, one element-map entry per
 * element) is read as it is, and made a big list by its first change, in that change's commit.
 */
final class StoredList {

    private final KeyValueStore store;
    private final byte[] key;
    private ListElements elements;
    /** A big list's state; null for a packed one and one of a 32-byte header. */
    private ListNodes nodes;
    /** A 32-byte header's collection id and first position (0 otherwise). */
    private long id;
    private long first;
    /** A packed list's or a 32-byte header's count and LSETs (a big list's are in {@link #nodes}). */
    private long count;
    private long sets;
    private long expireAt = StoredValue.NO_EXPIRY;
    private boolean exists;
    /** A packed list's elements (behind the header's fixed fields); null for a list of another form. */
    private PackedRun packed;

    private StoredList(KeyValueStore store, byte[] key) {
        this.store = store;
        this.key = key;
    }

    /**
     * @return the list under {@code key}, or null if there is none
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static StoredList read(KeyValueStore store, byte[] key) {
        StoredList l = readOrEmpty(store, key);
        return l.exists ? l : null;
    }

    /** @return whether it exists: an empty one is made by its first push */
    boolean exists() {
        return exists;
    }

    /**
     * @return the list under {@code key}, an empty one (created by its first push) if there is none
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static StoredList readOrEmpty(KeyValueStore store, byte[] key) {
        return of(store, key, store.get(key));
    }

    /**
     * @return the list that {@code e}, the value read under {@code key} (null for none), holds, an
     *         empty one if there is none: the way on for a change {@link ListEnds} read and left
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static StoredList of(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        StoredList l = new StoredList(store, key);
        if (e == null) {
            return l;
        }
        if (e.type() != StoredValue.LIST) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        if (e.length() < ListLayout.HEADER_LENGTH) {
            throw new IllegalStateException("list header of key length=" + key.length + " has length=" + e.length()
                    + ", under " + ListLayout.HEADER_LENGTH + ": the map file is damaged; run 'colossal repair'");
        }
        byte[] b = e.array();
        l.expireAt = e.expireAtMillis();
        l.exists = true;
        if (ListLayout.hasNodes(b, e.offset(), e.length())) {
            l.elements = ListElements.of(store, key, "list");
            l.nodes = ListNodes.read(l.elements, b, e.offset(), e.length());
            return l;
        }
        l.id = ListLayout.getLong(b, e.offset() + ListLayout.ID_OFFSET);
        l.first = ListLayout.getLong(b, e.offset() + ListLayout.FIRST_OFFSET);
        l.count = ListLayout.getLong(b, e.offset() + ListLayout.COUNT_OFFSET);
        l.sets = ListLayout.getLong(b, e.offset() + ListLayout.SETS_OFFSET);
        if (e.length() > ListLayout.HEADER_LENGTH) {
            int end = e.offset() + e.length();
            l.packed = PackedRun.of(b, e.offset() + ListLayout.HEADER_LENGTH, end, l.count,
                    new PackedRun.Origin("packed list header of key length=", key.length, false));
            return l;
        }
        l.elements = ListElements.of(store, key, "list");
        return l;
    }

    long size() {
        return nodes != null ? nodes.count() : count;
    }

    /** @return whether the elements are packed into the header, not in the element map */
    boolean packed() {
        return packed != null;
    }

    /** @return whether this is a big list: nodes in the element map, its ends in the header */
    boolean big() {
        return nodes != null;
    }

    /** @return the entries it has in the element map: a big list's nodes, count entries and root, a 32-byte header's elements and root, none for a packed list */
    long elementEntries() {
        return nodes != null ? nodes.entries() + 1 : packed != null ? 0 : count + 1;
    }

    /** @return element {@code index}, {@code 0 <= index < size()} */
    byte[] get(long index) {
        if (packed != null) {
            return packed.element((int) index);
        }
        if (nodes != null) {
            return nodes.get(index);
        }
        byte[] v = elements.get(id, first + index);
        if (v == null) {
            throw new IllegalStateException("list element index=" + index + " of id=" + Long.toHexString(id)
                    + " is missing from " + ListElements.fileFor(store.path()) + ": the element map is damaged");
        }
        return v;
    }

    /**
     * Hands the elements to {@code test} from the head, or from the tail if {@code fromTail}, until
     * it answers true (LPOS, LINSERT's pivot): a big list reads each node once.
     */
    void scan(boolean fromTail, PackedRun.ElementTest test) {
        if (nodes != null) {
            nodes.scan(fromTail, test);
            return;
        }
        if (packed != null) {
            packed.scan(fromTail, test);
            return;
        }
        long n = size();
        for (long k = 0; k < n; k++) {
            byte[] v = get(fromTail ? n - 1 - k : k);
            if (test.test(v, 0, v.length)) {
                return;
            }
        }
    }

    /** Appends elements {@code [from, to)} to {@code r}, in order, each a bulk reply. */
    void reply(long from, long to, Reply r) {
        if (packed == null && nodes == null) {
            elements.reply(id, first + from, first + to, r);
            return;
        }
        try (Reply.Batch b = r.batch()) {
            if (nodes != null) {
                nodes.forEach(from, to, b);
            } else {
                packed.forEach((int) from, (int) to, b);
            }
        }
    }

    /** @return elements {@code [from, to)} */
    List<byte[]> range(long from, long to) {
        List<byte[]> out = new ArrayList<>((int) Math.min(to - from, 1 << 16));
        if (packed != null || nodes != null) {
            PackedRun.ElementSink add = (b, o, l) -> out.add(Arrays.copyOfRange(b, o, o + l));
            if (packed != null) {
                packed.forEach((int) from, (int) to, add);
            } else {
                nodes.forEach(from, to, add);
            }
            return out;
        }
        for (long i = from; i < to; i++) {
            out.add(get(i));
        }
        return out;
    }

    /** Pushes {@code values[from, to)} one after another, each to the head ({@code left}) or the tail. */
    void push(boolean left, byte[][] values, int from, int to) {
        if (!exists) {
            packed = PackedRun.empty();
            count = 0;
            sets = 0;
            expireAt = StoredValue.NO_EXPIRY;
        }
        if (packed != null) {
            long bytes = packed.length();
            for (int i = from; i < to; i++) {
                bytes += PackedRun.sizeOf(values[i]);
            }
            if (fitsPacked(count + to - from, bytes)) {
                for (int i = from; i < to; i++) {
                    if (left) {
                        packed.prepend(values[i]);
                    } else {
                        packed.append(values[i]);
                    }
                }
                count += to - from;
                commitPacked();
                return;
            }
        }
        toNodes();
        for (int i = from; i < to; i++) {
            nodes.push(left, values[i]);
        }
        commit();
    }

    void push(boolean left, byte[] value) {
        push(left, new byte[][] {value}, 0, 1);
    }

    /**
     * Removes and returns up to {@code n} elements from the head ({@code left}) or the tail, in the
     * order popped: the header without them is written, then the nodes they emptied are removed.
     */
    List<byte[]> pop(boolean left, long n) {
        long k = Math.min(n, size());
        if (packed != null) {
            List<byte[]> out = new ArrayList<>((int) k);
            packed.copyInto(left ? 0 : (int) (count - k), left ? (int) k : (int) count, !left, out);
            dropPacked(left, k);
            return out;
        }
        toNodes();
        List<byte[]> out = new ArrayList<>((int) Math.min(k, 1 << 16));
        nodes.take(left, k, out);
        commit();
        return out;
    }

    byte[] pop(boolean left) {
        return pop(left, 1).get(0);
    }

    /** Pops one element from the head ({@code left}) or the tail into {@code r}, as a bulk reply. */
    void pop(boolean left, Reply r) {
        r.bulk(pop(left));
    }

    /**
     * Replaces element {@code index}, counting the LSET in the header for WATCH to see: a big list's
     * node is written anew where the header does not look yet, and the header's write commits it.
     */
    void set(long index, byte[] value) {
        if (packed != null) {
            List<byte[]> all = range(0, count);
            all.set((int) index, value);
            sets++;
            replaceAll(all);
            return;
        }
        toNodes();
        nodes.set(index, value);
        commit();
    }

    /** Keeps elements {@code [from, to)} only (an empty range empties the list). */
    void trim(long from, long to) {
        if (packed != null) {
            if (from >= to) {
                count = 0;
                commit();
            } else {
                packed.removeLast((int) (count - to));
                packed.removeFirst((int) from);
                count = to - from;
                commitPacked();
            }
            return;
        }
        if (from >= to) {
            Runnable freeOld = freeOld();
            nodes = null;
            count = 0;
            commit();
            freeOld.run();
            return;
        }
        toNodes();
        long after = nodes.count() - to;
        nodes.take(true, from, null);
        nodes.take(false, after, null);
        commit();
    }

    /** Makes {@code all} the list's elements: written under a new id, then the header switched to it, then the old ones freed. */
    void replaceAll(List<byte[]> all) {
        Runnable freeOld = freeOld();
        long bytes = 0;
        for (byte[] v : all) {
            bytes += PackedRun.sizeOf(v);
        }
        long lsets = nodes != null ? nodes.sets() : sets;
        nodes = null;
        if (all.isEmpty()) {
            count = 0;
            commit();
        } else if (fitsPacked(all.size(), bytes)) {
            packed = PackedRun.of(all);
            count = all.size();
            sets = lsets;
            commitPacked();
        } else {
            elements = store.elements(true);
            nodes = ListNodes.create(elements, key, all, lsets);
            packed = null;
            commit();
        }
        freeOld.run();
    }

    /** @return what frees this list's elements in the element map once a header no longer holds them */
    private Runnable freeOld() {
        if (nodes != null) {
            return nodes::drop;
        }
        if (packed != null || !exists) {
            return () -> { };
        }
        ListElements e = elements;
        long oldId = id;
        long oldFirst = first;
        long oldCount = count;
        return () -> e.drop(oldId, oldFirst, oldFirst + oldCount);
    }

    /**
     * Copies this list to {@code toKey} in {@code to} (maybe another database) under a new id, with
     * deadline {@code at}: COPY's and MOVE's O(n), as Redis's are. The caller holds both keys' locks.
     */
    void copyTo(KeyValueStore to, byte[] toKey, long at) {
        if (packed != null) {
            byte[] h = packedHeader();
            to.set(toKey, h, 0, h.length, at, StoredValue.LIST);
            return;
        }
        ListElements dst = to.elements(true);
        byte[] h = nodes != null ? nodes.copyTo(dst, toKey) : ListNodes.create(dst, toKey, range(0, count), 0).header();
        to.set(toKey, h, 0, h.length, at, StoredValue.LIST);
    }

    /** RENAME of this list to {@code toKey}: only the header moves, whole or not at all after a kill ({@link HeaderRename}). */
    void renameTo(byte[] toKey) {
        if (packed != null) {
            byte[] h = packedHeader();
            store.set(toKey, h, 0, h.length, expireAt, StoredValue.LIST);
            store.delete(key);
            return;
        }
        byte[] h = nodes != null ? nodes.header() : ListLayout.header(id, first, count, sets);
        HeaderRename.run(store, elements, nodes != null ? nodes.id() : id, key, toKey,
                () -> store.set(toKey, h, 0, h.length, expireAt, StoredValue.LIST));
    }

    /** Removes the list: its header, then its elements and root (DEL may free at once what the collector would later). */
    void delete() {
        Runnable freeOld = freeOld();
        store.delete(key);
        freeOld.run();
        exists = false;
    }

    /**
     * Stores {@code all} as the list under {@code key} with deadline {@code at}, replacing what the
     * key held (RESTORE, import-rdb): packed, or nodes under a new id, then the header.
     */
    static void load(KeyValueStore store, byte[] key, List<byte[]> all, long at) {
        if (all.isEmpty()) {
            store.delete(key); // what the key held goes to the collector, which frees its elements
            return;
        }
        StoredList l = new StoredList(store, key);
        l.expireAt = at;
        l.replaceAll(all);
    }

    /**
     * Writes the header: the commit point of every change, or the key's removal once the list is
     * empty; then removes what a big list's change emptied.
     */
    private void commit() {
        if (size() == 0) {
            store.deleteHeader(key);
            exists = false;
        } else if (nodes != null) {
            HeaderBuffer buf = HeaderBuffer.mine();
            int n = nodes.header(buf.room(nodes.headerLength()), HeaderBuffer.AT);
            buf.store(store, key, n, expireAt, StoredValue.LIST);
            exists = true;
        } else {
            throw new IllegalStateException("only a big list's header is written by commit");
        }
        if (nodes != null) {
            nodes.removeTaken();
        }
        afterCommit.run();
        afterCommit = () -> { };
    }

    /** What the next {@link #commit} runs after the header's write: freeing a 32-byte header's elements once a big list replaced them. */
    private Runnable afterCommit = () -> { };

    /**
     * Makes this list a big one in memory, uncommitted, if it is not: a packed list's elements or a
     * 32-byte header's go to nodes under a new id, which the change that follows commits with its
     * own, or a crash leaves as garbage.
     */
    private void toNodes() {
        if (nodes != null) {
            return;
        }
        Runnable freeOld = freeOld();
        List<byte[]> all = range(0, count);
        elements = store.elements(true);
        nodes = ListNodes.create(elements, key, all, sets);
        packed = null;
        afterCommit = freeOld;
    }

    /** Writes {@link #packed} behind the fixed fields: the commit point of a change to a packed list. */
    private void commitPacked() {
        HeaderBuffer buf = HeaderBuffer.mine();
        int n = ListLayout.HEADER_LENGTH + packed.length();
        packedHeader(buf.room(n), HeaderBuffer.AT);
        buf.store(store, key, n, expireAt, StoredValue.LIST);
        id = 0;
        first = 0;
        exists = true;
    }

    /** @return a packed list's header: the fixed fields (id and first 0), then its elements */
    private byte[] packedHeader() {
        byte[] h = new byte[ListLayout.HEADER_LENGTH + packed.length()];
        packedHeader(h, 0);
        return h;
    }

    /** Writes a packed list's header at {@code at} of {@code h}, which has room for it there. */
    private void packedHeader(byte[] h, int at) {
        ListLayout.putLong(h, at + ListLayout.ID_OFFSET, 0);
        ListLayout.putLong(h, at + ListLayout.FIRST_OFFSET, 0);
        ListLayout.putLong(h, at + ListLayout.COUNT_OFFSET, count);
        ListLayout.putLong(h, at + ListLayout.SETS_OFFSET, sets);
        packed.copyTo(h, at + ListLayout.HEADER_LENGTH);
    }

    /** Drops {@code k <= size()} packed elements from the head ({@code left}) or the tail, and commits. */
    private void dropPacked(boolean left, long k) {
        count -= k;
        if (count == 0) {
            commit();
            return;
        }
        if (left) {
            packed.removeFirst((int) k);
        } else {
            packed.removeLast((int) k);
        }
        commitPacked();
    }

    /** @return whether a list of {@code elements} taking {@code bytes} (lengths included) is packed into its header */
    static boolean fitsPacked(long elements, long bytes) {
        return elements <= ListLayout.PACKED_COUNT && bytes <= ListLayout.PACKED_BYTES
                || elements == 1 && bytes <= ListLayout.PACKED_ONE_BYTES;
    }
}
