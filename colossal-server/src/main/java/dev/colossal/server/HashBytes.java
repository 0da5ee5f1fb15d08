package dev.colossal.server;

/**
 * A one-value hash as a write command changes it under its key's lock, edited in its stored bytes
 * ({@link BucketEdits}) instead of decoded: an HSET of a field or two into a hash of some dozens
 * costs one pass and one copy of its bytes, not an array for every field and value and an encoding
 * of them all. Past a few edits, or a long field or value, it decodes the hash once
 * ({@link HashValue}) and goes on there, where many edits cost less than a copy each.
 */
final class HashBytes implements HashWrites {

    /** Edits in the bytes before a decode pays: each copies the whole hash (a command of more decodes from the start). */
    static final int MAX_EDITS = 4;
    /** A field or value longer than this goes to {@link HashValue}, which words the error of a hash too large. */
    private static final int MAX_EDITED_LENGTH = 1024;

    /** The stored value: its header, then the payload ({@link HashLayout}) from {@link #from} to the end. */
    private byte[] bytes;
    private final int from;
    private int count;
    private int edits;
    private boolean changed;
    /** The hash decoded, once it was; every call goes there from then on. */
    private HashValue decoded;
    /** hash-max-listpack-value: a longer field or value makes the encoding a hashtable. */
    private long valueLimit = HashLayout.MAX_LISTPACK_VALUE;

    /** A hash of the one value {@code e} holds, read where it lies. */
    HashBytes(KeyValueStore.Entry e) {
        this.bytes = e.array();
        this.from = e.offset();
        this.count = new HashCursor(bytes, from).count();
    }

    @Override
    public byte[] get(byte[] field) {
        if (decoded != null) {
            return decoded.get(field);
        }
        HashCursor c = new HashCursor(bytes, from);
        return c.find(field) ? c.value() : null;
    }

    @Override
    public void listpackValueLimit(long bytes) {
        valueLimit = bytes;
        if (decoded != null) {
            decoded.listpackValueLimit(bytes);
        }
    }

    @Override
    public boolean put(byte[] field, byte[] value) {
        if (decoded == null && (edits >= MAX_EDITS || field.length > MAX_EDITED_LENGTH || value.length > MAX_EDITED_LENGTH)) {
            decode();
        }
        if (decoded != null) {
            return decoded.put(field, value);
        }
        boolean[] added = new boolean[1];
        byte[] out = BucketEdits.put(bytes, from, field, value, added);
        if (!HashLayout.fitsListpack(field.length, valueLimit) || !HashLayout.fitsListpack(value.length, valueLimit)) {
            out[from + HashLayout.ENCODING_OFFSET] = HashLayout.HASHTABLE; // only grows, as HashValue's
        }
        edited(out, added[0] ? 1 : 0);
        return added[0];
    }

    @Override
    public boolean remove(byte[] field) {
        if (decoded == null && edits >= MAX_EDITS) {
            decode();
        }
        if (decoded != null) {
            return decoded.remove(field);
        }
        byte[] out = BucketEdits.remove(bytes, from, field);
        if (out == null) {
            return false;
        }
        edited(out, -1);
        return true;
    }

    @Override
    public long count() {
        return decoded != null ? decoded.count() : count;
    }

    @Override
    public boolean changed() {
        return decoded != null ? decoded.changed() || changed : changed;
    }

    /**
     * Stores the hash under {@code key} with deadline {@code at}, as {@link StoredHash#save}: one
     * value while it has at most {@code maxListpackEntries} fields, else bucketed; none deletes the key.
     */
    void save(KeyValueStore store, byte[] key, long at, long maxListpackEntries) {
        if (decoded == null && count > 0 && count <= maxListpackEntries) {
            store.set(key, bytes, from, bytes.length - from, at, StoredValue.HASH);
            return;
        }
        if (decoded == null) {
            decode();
        }
        StoredHash.save(store, key, decoded, at, maxListpackEntries);
    }

    private void edited(byte[] out, int delta) {
        bytes = out;
        count += delta;
        edits++;
        changed = true;
    }

    private void decode() {
        decoded = HashValue.of(bytes, from, null);
        decoded.listpackValueLimit(valueLimit);
    }
}
