package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * One list as a command sees it under its key's lock: its header ({@link ListLayout}) read once,
 * changed in memory, and written back as the commit point of each change. The order of writes is
 * what makes a kill at any moment leave a list that reads right: a push writes its elements, then
 * the header; a pop or a trim writes the header, then removes the elements it dropped; a change in
 * the middle writes the whole new list under a new id, then switches the header to it. What a
 * crash leaves behind is garbage {@link ListCollector} frees, never a hole or a wrong element.
 */
final class StoredList {

    private final KeyValueStore store;
    private final byte[] key;
    private ListElements elements;
    private long id;
    private long first;
    private long count;
    private long sets;
    private long expireAt = StoredValue.NO_EXPIRY;
    private boolean exists;

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
        if (e.length() != ListLayout.HEADER_LENGTH) {
            throw new IllegalStateException("list header of key length=" + key.length + " has length=" + e.length()
                    + ", not " + ListLayout.HEADER_LENGTH + ": the map file is damaged; run 'colossal repair'");
        }
        byte[] b = e.array();
        l.id = ListLayout.getLong(b, e.offset() + ListLayout.ID_OFFSET);
        l.first = ListLayout.getLong(b, e.offset() + ListLayout.FIRST_OFFSET);
        l.count = ListLayout.getLong(b, e.offset() + ListLayout.COUNT_OFFSET);
        l.sets = ListLayout.getLong(b, e.offset() + ListLayout.SETS_OFFSET);
        l.expireAt = e.expireAtMillis();
        l.elements = store.elements(false);
        if (l.elements == null) {
            throw new IllegalStateException("list under a key of length=" + key.length + " has no element map file "
                    + ListElements.fileFor(store.path()) + ": was it deleted? DEL the key");
        }
        l.exists = true;
        return l;
    }

    long size() {
        return count;
    }

    long id() {
        return id;
    }

    long first() {
        return first;
    }

    long expireAt() {
        return expireAt;
    }

    /** @return element {@code index}, {@code 0 <= index < size()} */
    byte[] get(long index) {
        byte[] v = elements.get(id, first + index);
        if (v == null) {
            throw new IllegalStateException("list element index=" + index + " of id=" + Long.toHexString(id)
                    + " is missing from " + ListElements.fileFor(store.path()) + ": the element map is damaged");
        }
        return v;
    }

    /** Appends elements {@code [from, to)} to {@code r}, in order, each a bulk reply. */
    void reply(long from, long to, Reply r) {
        elements.reply(id, first + from, first + to, r);
    }

    /** @return elements {@code [from, to)} */
    List<byte[]> range(long from, long to) {
        List<byte[]> out = new ArrayList<>((int) Math.min(to - from, 1 << 16));
        for (long i = from; i < to; i++) {
            out.add(get(i));
        }
        return out;
    }

    /** Pushes {@code values[from, to)} one after another, each to the head ({@code left}) or the tail. */
    void push(boolean left, byte[][] values, int from, int to) {
        if (!exists) {
            elements = store.elements(true);
            id = elements.newId(key);
            first = 0;
            count = 0;
            expireAt = StoredValue.NO_EXPIRY;
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
        elements.put(id, first + index, value);
        sets++;
        commit();
    }

    /** Keeps elements {@code [from, to)} only (an empty range empties the list). */
    void trim(long from, long to) {
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
        long oldId = id;
        long oldFirst = first;
        long oldCount = count;
        if (all.isEmpty()) {
            count = 0;
            commit();
        } else {
            id = elements.newId(key);
            first = 0;
            count = 0;
            for (byte[] v : all) {
                elements.put(id, count++, v);
            }
            commit();
        }
        elements.drop(oldId, oldFirst, oldFirst + oldCount);
    }

    /**
     * Copies this list to {@code toKey} in {@code to} (maybe another database) under a new id, with
     * deadline {@code at}: COPY's and MOVE's O(n), as Redis's are. The caller holds both keys' locks.
     */
    void copyTo(KeyValueStore to, byte[] toKey, long at) {
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
        HeaderRename.run(store, elements, id, key, toKey, () -> store.set(toKey, ListLayout.header(id, first, count, sets), 0,
                ListLayout.HEADER_LENGTH, expireAt, StoredValue.LIST));
    }

    /** Removes the list: its header, then its elements and root (DEL may free at once what the collector would later). */
    void delete() {
        store.delete(key);
        elements.drop(id, first, first + count);
        exists = false;
    }

    /**
     * Stores {@code all} as the list under {@code key} with deadline {@code at}, replacing what the
     * key held (RESTORE, import-rdb): elements under a new id, then the header.
     */
    static void load(KeyValueStore store, byte[] key, List<byte[]> all, long at) {
        StoredList l = new StoredList(store, key);
        l.elements = store.elements(true);
        l.id = l.elements.newId(key);
        l.expireAt = at;
        for (byte[] v : all) {
            l.elements.put(l.id, l.count++, v);
        }
        if (all.isEmpty()) {
            store.delete(key); // what the key held goes to the collector, which frees its elements
        } else {
            l.commit();
        }
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
}
