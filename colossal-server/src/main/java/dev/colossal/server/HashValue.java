package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * A hash decoded for a write: its pairs in insertion order, changed in memory, then encoded whole
 * again ({@link HashLayout}). It also keeps the encoding Redis would report, which only grows
 * (listpack to hashtable), as in Redis.
 */
final class HashValue implements HashWrites {

    /** Below this many pairs a lookup compares fields one by one rather than building an index. */
    private static final int INDEX_FROM = 16;

    private final List<byte[]> fields;
    private final List<byte[]> values;
    /** Field to position, built at the first lookup in a larger hash; dropped when a removal shifts positions. */
    private HashMap<ByteBuffer, Integer> index;
    private byte encoding;
    /** A pair was set or removed since decoding: the hash is to be stored again. */
    private boolean changed;
    /** hash-max-listpack-value: a longer field or value makes the encoding a hashtable. */
    private long valueLimit = HashLayout.MAX_LISTPACK_VALUE;

    private HashValue(int capacity, byte encoding) {
        this.fields = new ArrayList<>(capacity);
        this.values = new ArrayList<>(capacity);
        this.encoding = encoding;
    }

    /** @return a hash with no pairs yet, a listpack */
    static HashValue empty() {
        return new HashValue(4, HashLayout.LISTPACK);
    }

    /** @return the one-value hash {@code e} holds, decoded */
    static HashValue of(KeyValueStore.Entry e) {
        return of(e.array(), e.offset(), null);
    }

    /**
     * @param bytes holds a {@link HashLayout} payload from {@code from} to its end
     * @param keep  which fields to keep (a bucket skips those that map elsewhere), or null for all
     * @return the pairs, decoded
     */
    static HashValue of(byte[] bytes, int from, java.util.function.Predicate<byte[]> keep) {
        HashCursor c = new HashCursor(bytes, from);
        HashValue h = new HashValue(c.count(), c.encoding());
        while (c.next()) {
            byte[] f = c.field();
            if (keep == null || keep.test(f)) {
                h.fields.add(f);
                h.values.add(c.value());
            }
        }
        return h;
    }

    @Override
    public boolean changed() {
        return changed;
    }

    @Override
    public void listpackValueLimit(long bytes) {
        valueLimit = bytes;
    }

    @Override
    public long count() {
        return fields.size();
    }

    /**
     * A hash read from an RDB payload (RESTORE, import-rdb), with the encoding Redis gives one it
     * loads: a listpack unless a field or value is past the length limit ({@link StoredHash#save}
     * buckets one past the count limit).
     *
     * @param fieldsAndValues its fields and values, alternately, no field twice
     */
    static HashValue loaded(List<byte[]> fieldsAndValues) {
        HashValue h = empty();
        for (int i = 0; i < fieldsAndValues.size(); i += 2) {
            h.put(fieldsAndValues.get(i), fieldsAndValues.get(i + 1));
        }
        return h;
    }

    int size() {
        return fields.size();
    }

    byte[] field(int i) {
        return fields.get(i);
    }

    byte[] value(int i) {
        return values.get(i);
    }

    /** @return {@link HashLayout#LISTPACK} or {@link HashLayout#HASHTABLE} */
    byte encoding() {
        return encoding;
    }

    /** @return the position of {@code field}, -1 if absent */
    int indexOf(byte[] field) {
        int n = fields.size();
        if (n < INDEX_FROM) {
            for (int i = 0; i < n; i++) {
                if (java.util.Arrays.equals(fields.get(i), field)) {
                    return i;
                }
            }
            return -1;
        }
        if (index == null) {
            index = HashMap.newHashMap(n);
            for (int i = 0; i < n; i++) {
                index.put(ByteBuffer.wrap(fields.get(i)), i);
            }
        }
        Integer i = index.get(ByteBuffer.wrap(field));
        return i == null ? -1 : i;
    }

    @Override
    public byte[] get(byte[] field) {
        int i = indexOf(field);
        return i < 0 ? null : values.get(i);
    }

    /** Sets {@code field} to {@code value}: in its place if present, else at the end. */
    @Override
    public boolean put(byte[] field, byte[] value) {
        changed = true;
        if (!HashLayout.fitsListpack(field.length, valueLimit) || !HashLayout.fitsListpack(value.length, valueLimit)) {
            encoding = HashLayout.HASHTABLE;
        }
        int i = indexOf(field);
        if (i >= 0) {
            values.set(i, value);
            return false;
        }
        fields.add(field);
        values.add(value);
        if (index != null) {
            index.put(ByteBuffer.wrap(field), fields.size() - 1);
        }
        return true;
    }

    @Override
    public boolean remove(byte[] field) {
        int i = indexOf(field);
        if (i < 0) {
            return false;
        }
        fields.remove(i);
        values.remove(i);
        index = null;
        changed = true;
        return true;
    }

    /** @return the payload ({@link HashLayout}) of this hash */
    byte[] encode() {
        return encode(0);
    }

    /** @return the payload ({@link HashLayout}) of this hash after {@code prefix} bytes left 0 for the caller (a bucket's serial) */
    byte[] encode(int prefix) {
        int n = fields.size();
        long length = prefix + HashLayout.COUNT_OFFSET + HashLayout.varintLength(n);
        for (int i = 0; i < n; i++) {
            int f = fields.get(i).length;
            int v = values.get(i).length;
            length += HashLayout.varintLength(f) + f + HashLayout.varintLength(v) + v;
        }
        if (length > StoredValue.MAX_PAYLOAD) {
            throw new ReplyException("ERR hash would exceed the largest value this server stores ("
                    + StoredValue.MAX_PAYLOAD + " bytes encoded); split it over several keys");
        }
        byte[] out = new byte[(int) length];
        out[prefix + HashLayout.ENCODING_OFFSET] = encoding;
        int at = HashLayout.putVarint(out, prefix + HashLayout.COUNT_OFFSET, n);
        for (int i = 0; i < n; i++) {
            at = put(out, at, fields.get(i));
            at = put(out, at, values.get(i));
        }
        return out;
    }

    private static int put(byte[] out, int at, byte[] b) {
        at = HashLayout.putVarint(out, at, b.length);
        System.arraycopy(b, 0, out, at, b.length);
        return at + b.length;
    }
}
