package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One list as a command sees it under its key's lock: its header ({@link ListLayout}) read once,
 * changed in memory, and written back as the commit point of each change. The order of writes is
 * what makes a kill at any moment leave a list that reads right: a push writes its elements, then
 * the header; a pop or a trim writes the header, then removes the elements it dropped; a change in
 * the middle writes the whole new list under a new id, then switches the header to it. What a
 * crash leaves behind is garbage {@link ListCollector} frees, never a hole or a wrong element.
 *
 * <p>A small list is packed: its elements ride in the header itself ({@link ListLayout}), so a push
 * or a pop onto it is one read and one write of one entry, and a range is one read. A write that
 * would take it past {@link ListLayout#PACKED_COUNT} elements or {@link ListLayout#PACKED_BYTES}
 * bytes (one element: {@link ListLayout#PACKED_ONE_BYTES}) moves the elements to the element map
 * first, under a new id, committed with the header as any change in the middle is; a push keeps a
 * list unpacked until it is emptied or rewritten whole (LINSERT, LREM), which packs it if it fits.
 */
final class StoredList {

    /** A packed list of no elements, where a new list's first push starts: read, never written. */
    private static final byte[] NO_ELEMENTS = new byte[ListLayout.HEADER_LENGTH];

    private final KeyValueStore store;
    private final byte[] key;
    private ListElements elements;
    private long id;
    private long first;
    private long count;
    private long sets;
    private long expireAt = StoredValue.NO_EXPIRY;
    private boolean exists;
    /** A packed list's header payload (the fixed fields, then the elements from {@link #packedAt} + {@link ListLayout#HEADER_LENGTH}); null when unpacked. */
    private byte[] packed;
    private int packedAt;
    /** Where the packed elements end in {@link #packed}. */
    private int packedEnd;

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

    /**
     * @return the list under {@code key}, an empty one (created by its first push) if there is none
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static StoredList readOrEmpty(KeyValueStore store, byte[] key) {
        StoredList l = new StoredList(store, key);
        KeyValueStore.Entry e = store.get(key);
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
        l.id = ListLayout.getLong(b, e.offset() + ListLayout.ID_OFFSET);
        l.first = ListLayout.getLong(b, e.offset() + ListLayout.FIRST_OFFSET);
        l.count = ListLayout.getLong(b, e.offset() + ListLayout.COUNT_OFFSET);
        l.sets = ListLayout.getLong(b, e.offset() + ListLayout.SETS_OFFSET);
        l.expireAt = e.expireAtMillis();
        l.exists = true;
        if (e.length() > ListLayout.HEADER_LENGTH) {
            l.packed = b;
            l.packedAt = e.offset();
            l.packedEnd = e.offset() + e.length();
            if (l.packedOffset(l.count) != l.packedEnd) {
                throw l.damagedPacked();
            }
            return l;
        }
        l.elements = store.elements(false);
        if (l.elements == null) {
            throw new IllegalStateException("list under a key of length=" + key.length + " has no element map file "
                    + ListElements.fileFor(store.path()) + ": was it deleted? DEL the key");
        }
        return l;
    }

    long size() {
        return count;
    }

    /** @return whether the elements are packed into the header, not entries of the element map */
    boolean packed() {
        return packed != null;
    }

    /** @return the collection id of an unpacked list's elements (0 for a packed list) */
    long id() {
        return id;
    }

    /** @return an unpacked list's position of element 0 (0 for a packed list) */
    long first() {
        return first;
    }

    /** @return element {@code index}, {@code 0 <= index < size()} */
    byte[] get(long index) {
        if (packed != null) {
            int at = packedOffset(index);
            return Arrays.copyOfRange(packed, at + ListLayout.PACKED_LENGTH_BYTES, at + ListLayout.packedSize(packed, at));
        }
        byte[] v = elements.get(id, first + index);
        if (v == null) {
            throw new IllegalStateException("list element index=" + index + " of id=" + Long.toHexString(id)
                    + " is missing from " + ListElements.fileFor(store.path()) + ": the element map is damaged");
        }
        return v;
    }

    /** Appends elements {@code [from, to)} to {@code r}, in order, each a bulk reply. */
    void reply(long from, long to, Reply r) {
        if (packed == null) {
            elements.reply(id, first + from, first + to, r);
            return;
        }
        for (int at = packedOffset(from), end = packedOffset(at, to - from); at < end; ) {
            int next = ListLayout.packedSize(packed, at);
            r.bulk(packed, at + ListLayout.PACKED_LENGTH_BYTES, next - ListLayout.PACKED_LENGTH_BYTES);
            at += next;
        }
    }

    /** @return elements {@code [from, to)} */
    List<byte[]> range(long from, long to) {
        List<byte[]> out = new ArrayList<>((int) Math.min(to - from, 1 << 16));
        if (packed != null) {
            for (int at = packedOffset(from), end = packedOffset(at, to - from); at < end; ) {
                int next = ListLayout.packedSize(packed, at);
                out.add(Arrays.copyOfRange(packed, at + ListLayout.PACKED_LENGTH_BYTES, at + next));
                at += next;
            }
            return out;
        }
        for (long i = from; i < to; i++) {
            out.add(get(i));
        }
        return out;
    }

    /** @return where packed element {@code index} starts in {@link #packed} */
    private int packedOffset(long index) {
        return packedOffset(packedAt + ListLayout.HEADER_LENGTH, index);
    }

    /** @return where the packed element {@code n} after the one at {@code at} starts (the end for the last's next) */
    private int packedOffset(int at, long n) {
        for (long i = 0; i < n; i++) {
            if (packedEnd - at < ListLayout.PACKED_LENGTH_BYTES) {
                throw damagedPacked();
            }
            int size = ListLayout.packedSize(packed, at);
            if (size < ListLayout.PACKED_LENGTH_BYTES || size > packedEnd - at) {
                throw damagedPacked();
            }
            at += size;
        }
        return at;
    }

    private IllegalStateException damagedPacked() {
        return new IllegalStateException("packed list header of key length=" + key.length + " does not hold its count=" + count
                + " elements: the map file is damaged; run 'colossal repair'");
    }

    /** Pushes {@code values[from, to)} one after another, each to the head ({@code left}) or the tail. */
    void push(boolean left, byte[][] values, int from, int to) {
        if (!exists) {
            packed = NO_ELEMENTS;
            packedAt = 0;
            packedEnd = packed.length;
            count = 0;
            sets = 0;
            expireAt = StoredValue.NO_EXPIRY;
        }
        if (packed != null) {
            long bytes = packedEnd - packedAt;
            for (int i = from; i < to; i++) {
                bytes += ListLayout.PACKED_LENGTH_BYTES + values[i].length;
            }
            if (fitsPacked(count + to - from, bytes)) {
                byte[] b = new byte[(int) bytes];
                int at = ListLayout.HEADER_LENGTH;
                if (left) {
                    for (int i = to - 1; i >= from; i--) {
                        at = ListLayout.putPacked(b, at, values[i], 0, values[i].length);
                    }
                }
                int old = packedEnd - packedAt - ListLayout.HEADER_LENGTH;
                System.arraycopy(packed, packedAt + ListLayout.HEADER_LENGTH, b, at, old);
                at += old;
                if (!left) {
                    for (int i = from; i < to; i++) {
                        at = ListLayout.putPacked(b, at, values[i], 0, values[i].length);
                    }
                }
                count += to - from;
                commitPacked(b, 0, b.length);
                return;
            }
            unpack();
        }
        long f = first;
        long n = count;
        for (int i = from; i < to; i++) {
            if (left) {
                elements.put(id, --f, values[i]);
            } else {
                elements.put(id, f + n, values[i]);
            }
            n++;
        }
        first = f;
        count = n;
        commit();
        exists = true;
    }

    void push(boolean left, byte[] value) {
        push(left, new byte[][] {value}, 0, 1);
    }

    /**
     * Removes and returns up to {@code n} elements from the head ({@code left}) or the tail, in the
     * order popped. Each is read as it is removed, after the header's commit: a kill in between
     * leaves the rest as garbage outside the header's range, and a damaged map's missing element
     * fails the pop as a read would have.
     */
    List<byte[]> pop(boolean left, long n) {
        long k = Math.min(n, count);
        if (packed != null) {
            List<byte[]> out = range(left ? 0 : count - k, left ? k : count);
            if (!left) {
                java.util.Collections.reverse(out);
            }
            dropPacked(left, k);
            return out;
        }
        long from = left ? first : first + count - 1;
        shrink(left, k);
        List<byte[]> out = new ArrayList<>((int) Math.min(k, 1 << 16));
        for (long i = 0; i < k; i++) {
            out.add(elements.take(id, left ? from + i : from - i));
        }
        if (count == 0) {
            elements.removeRoot(id);
        }
        return out;
    }

    byte[] pop(boolean left) {
        if (packed != null) {
            byte[] v = get(left ? 0 : count - 1);
            dropPacked(left, 1);
            return v;
        }
        long p = left ? first : first + count - 1;
        shrink(left, 1);
        byte[] v = elements.take(id, p);
        if (count == 0) {
            elements.removeRoot(id);
        }
        return v;
    }

    /** Pops one element from the head ({@code left}) or the tail into {@code r}, a bulk reply copied by the map. */
    void pop(boolean left, Reply r) {
        if (packed != null) {
            byte[] b = packed;
            int at = packedOffset(left ? 0 : count - 1);
            int size = ListLayout.packedSize(b, at);
            dropPacked(left, 1);
            r.bulk(b, at + ListLayout.PACKED_LENGTH_BYTES, size - ListLayout.PACKED_LENGTH_BYTES);
            return;
        }
        long p = left ? first : first + count - 1;
        shrink(left, 1);
        elements.take(id, p, r);
        if (count == 0) {
            elements.removeRoot(id);
        }
    }

    /** Drops {@code k <= size()} elements from the head ({@code left}) or the tail of the header, and commits it. */
    private void shrink(boolean left, long k) {
        if (left) {
            first += k;
        }
        count -= k;
        commit();
    }

    /** Overwrites element {@code index}, then counts the LSET in the header, for WATCH to see. */
    void set(long index, byte[] value) {
        if (packed != null) {
            List<byte[]> all = range(0, count);
            all.set((int) index, value);
            sets++;
            replaceAll(all);
            return;
        }
        elements.put(id, first + index, value);
        sets++;
        commit();
    }

    /** Keeps elements {@code [from, to)} only (an empty range empties the list). */
    void trim(long from, long to) {
        if (packed != null) {
            if (from >= to) {
                count = 0;
                commit();
            } else {
                int start = packedOffset(from);
                int end = packedOffset(start, to - from);
                byte[] b = new byte[ListLayout.HEADER_LENGTH + end - start];
                System.arraycopy(packed, start, b, ListLayout.HEADER_LENGTH, end - start);
                count = to - from;
                commitPacked(b, 0, b.length);
            }
            return;
        }
        long oldFirst = first;
        long oldCount = count;
        if (from >= to) {
            first = oldFirst;
            count = 0;
        } else {
            first = oldFirst + from;
            count = to - from;
        }
        commit();
        for (long p = oldFirst; p < oldFirst + oldCount; p++) {
            if (count == 0 || p < first || p >= first + count) {
                elements.remove(id, p);
            }
        }
        if (count == 0) {
            elements.removeRoot(id);
        }
    }

    /** Makes {@code all} the list's elements: written under a new id, then the header switched to it, then the old ones freed. */
    void replaceAll(List<byte[]> all) {
        boolean wasPacked = packed != null || !exists;
        long oldId = id;
        long oldFirst = first;
        long oldCount = count;
        long bytes = ListLayout.HEADER_LENGTH;
        for (byte[] v : all) {
            bytes += ListLayout.PACKED_LENGTH_BYTES + v.length;
        }
        if (all.isEmpty()) {
            count = 0;
            commit();
        } else if (fitsPacked(all.size(), bytes)) {
            byte[] b = new byte[(int) bytes];
            int at = ListLayout.HEADER_LENGTH;
            for (byte[] v : all) {
                at = ListLayout.putPacked(b, at, v, 0, v.length);
            }
            count = all.size();
            commitPacked(b, 0, b.length);
        } else {
            if (elements == null) {
                elements = store.elements(true);
            }
            packed = null;
            id = elements.newId(key);
            elements.wrote();
            first = 0;
            count = 0;
            for (byte[] v : all) {
                elements.put(id, count++, v);
                elements.wrote();
            }
            commit();
        }
        if (!wasPacked) {
            elements.drop(oldId, oldFirst, oldFirst + oldCount);
        }
    }

    /**
     * Copies this list to {@code toKey} in {@code to} (maybe another database) under a new id, with
     * deadline {@code at}: COPY's and MOVE's O(n), as Redis's are. The caller holds both keys' locks.
     */
    void copyTo(KeyValueStore to, byte[] toKey, long at) {
        if (packed != null) {
            to.set(toKey, packed, packedAt, packedEnd - packedAt, at, StoredValue.LIST);
            return;
        }
        ListElements dst = to.elements(true);
        long newId = dst.newId(toKey);
        dst.wrote();
        for (long i = 0; i < count; i++) {
            dst.put(newId, i, get(i));
            dst.wrote();
        }
        to.set(toKey, ListLayout.header(newId, 0, count, 0), 0, ListLayout.HEADER_LENGTH, at, StoredValue.LIST);
    }

    /** RENAME of this list to {@code toKey}: only the header moves, whole or not at all after a kill ({@link HeaderRename}). */
    void renameTo(byte[] toKey) {
        if (packed != null) {
            store.set(toKey, packed, packedAt, packedEnd - packedAt, expireAt, StoredValue.LIST);
            store.delete(key);
            return;
        }
        HeaderRename.run(store, elements, id, key, toKey, () -> store.set(toKey, ListLayout.header(id, first, count, sets), 0,
                ListLayout.HEADER_LENGTH, expireAt, StoredValue.LIST));
    }

    /** Removes the list: its header, then its elements and root (DEL may free at once what the collector would later). */
    void delete() {
        store.delete(key);
        if (packed == null) {
            elements.drop(id, first, first + count);
        }
        exists = false;
    }

    /**
     * Stores {@code all} as the list under {@code key} with deadline {@code at}, replacing what the
     * key held (RESTORE, import-rdb): packed, or elements under a new id, then the header.
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
     * empty, whose caller then removes the elements and the root itself.
     */
    private void commit() {
        if (count == 0) {
            store.deleteHeader(key);
            exists = false;
        } else {
            store.set(key, ListLayout.header(id, first, count, sets), 0, ListLayout.HEADER_LENGTH, expireAt, StoredValue.LIST);
        }
    }

    /**
     * Makes {@code b[at, at + length)} (the fixed fields' room, then {@link #count} packed elements)
     * the list, and writes it: the commit point of a change to a packed list.
     */
    private void commitPacked(byte[] b, int at, int length) {
        packed = b;
        packedAt = at;
        packedEnd = at + length;
        id = 0;
        first = 0;
        ListLayout.putLong(b, at + ListLayout.ID_OFFSET, 0);
        ListLayout.putLong(b, at + ListLayout.FIRST_OFFSET, 0);
        ListLayout.putLong(b, at + ListLayout.COUNT_OFFSET, count);
        ListLayout.putLong(b, at + ListLayout.SETS_OFFSET, sets);
        store.set(key, b, at, length, expireAt, StoredValue.LIST);
        exists = true;
    }

    /** Drops {@code k <= size()} packed elements from the head ({@code left}) or the tail, and commits. */
    private void dropPacked(boolean left, long k) {
        count -= k;
        if (count == 0) {
            commit();
            return;
        }
        int start = left ? packedOffset(k) : packedAt + ListLayout.HEADER_LENGTH;
        int end = left ? packedEnd : packedOffset(count);
        byte[] b = new byte[ListLayout.HEADER_LENGTH + end - start];
        System.arraycopy(packed, start, b, ListLayout.HEADER_LENGTH, end - start);
        commitPacked(b, 0, b.length);
    }

    /**
     * Moves a packed list's elements into the element map under a new id, uncommitted: the write
     * that follows commits them with its own change, or a crash leaves them as garbage.
     */
    private void unpack() {
        List<byte[]> all = range(0, count);
        elements = store.elements(true);
        id = elements.newId(key);
        elements.wrote();
        first = 0;
        for (int i = 0; i < all.size(); i++) {
            elements.put(id, i, all.get(i));
            elements.wrote();
        }
        packed = null;
    }

    private static boolean fitsPacked(long elements, long headerBytes) {
        long bytes = headerBytes - ListLayout.HEADER_LENGTH;
        return elements <= ListLayout.PACKED_COUNT && bytes <= ListLayout.PACKED_BYTES
                || elements == 1 && bytes <= ListLayout.PACKED_ONE_BYTES;
    }
}
