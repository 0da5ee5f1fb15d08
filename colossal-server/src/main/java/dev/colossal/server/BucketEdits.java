package dev.colossal.server;

/**
 * Sets and removes one field of a bucket ({@link HashBuckets}) or of a one-value hash
 * ({@link HashBytes}) in its bytes: the pairs before and after it are copied as they are, not
 * decoded, so that an HSET into a bucket of some dozens of fields costs one pass and one copy of
 * it. The bytes before the payload (a bucket's serial, a stored value's header) are copied as
 * they are.
 */
final class BucketEdits {

    private BucketEdits() {}

    /**
     * @param added set to whether {@code field} is new
     * @return the bucket's bytes with {@code field} set to {@code value} (in its place, or last)
     */
    static byte[] put(byte[] bucket, byte[] field, byte[] value, boolean[] added) {
        return put(bucket, HashBuckets.BUCKET_PAIRS_OFFSET, field, value, added);
    }

    /**
     * @param from   where the payload ({@link HashLayout}) starts in {@code bytes}; it runs to the end
     * @param added  set to whether {@code field} is new
     * @return {@code bytes} with {@code field} set to {@code value} (in its place, or last)
     */
    static byte[] put(byte[] bytes, int from, byte[] field, byte[] value, boolean[] added) {
        HashCursor c = new HashCursor(bytes, from);
        if (c.find(field)) {
            added[0] = false;
            int at = c.valueAt() - HashLayout.varintLength(c.valueLength());
            int to = c.valueAt() + c.valueLength();
            byte[] out = allocate((long) bytes.length - (to - at) + HashLayout.varintLength(value.length) + value.length);
            System.arraycopy(bytes, 0, out, 0, at);
            int after = copy(value, out, at);
            System.arraycopy(bytes, to, out, after, bytes.length - to);
            return out;
        }
        added[0] = true;
        return append(bytes, from, c.count(), field, value);
    }

    /** @return the bucket's bytes with {@code field} added last, or null if it has the field already */
    static byte[] add(byte[] bucket, byte[] field, byte[] value) {
        HashCursor c = new HashCursor(bucket, HashBuckets.BUCKET_PAIRS_OFFSET);
        return c.find(field) ? null : append(bucket, HashBuckets.BUCKET_PAIRS_OFFSET, c.count(), field, value);
    }

    /** @return the bytes, a payload of {@code count} pairs from {@code from}, with one more pair last */
    private static byte[] append(byte[] bytes, int from, int count, byte[] field, byte[] value) {
        int countAt = from + HashLayout.COUNT_OFFSET;
        int pairsAt = countAt + HashLayout.varintLength(count);
        long pair = HashLayout.varintLength(field.length) + (long) field.length + HashLayout.varintLength(value.length) + value.length;
        byte[] out = allocate(bytes.length - (pairsAt - countAt) + HashLayout.varintLength(count + 1) + pair);
        System.arraycopy(bytes, 0, out, 0, countAt);
        int at = HashLayout.putVarint(out, countAt, count + 1);
        System.arraycopy(bytes, pairsAt, out, at, bytes.length - pairsAt);
        at += bytes.length - pairsAt;
        copy(value, out, copy(field, out, at));
        return out;
    }

    /** @return the bucket's bytes without {@code field}, or null if it has no such field */
    static byte[] remove(byte[] bucket, byte[] field) {
        return remove(bucket, HashBuckets.BUCKET_PAIRS_OFFSET, field);
    }

    /** @return {@code bytes}, a payload from {@code from}, without {@code field}, or null if it has no such field */
    static byte[] remove(byte[] bytes, int from, byte[] field) {
        HashCursor c = new HashCursor(bytes, from);
        if (!c.find(field)) {
            return null;
        }
        int at = c.fieldAt() - HashLayout.varintLength(c.fieldLength());
        int to = c.valueAt() + c.valueLength();
        int count = c.count();
        int countAt = from + HashLayout.COUNT_OFFSET;
        int pairsAt = countAt + HashLayout.varintLength(count);
        byte[] out = new byte[bytes.length - (to - at) - (pairsAt - countAt) + HashLayout.varintLength(count - 1)];
        System.arraycopy(bytes, 0, out, 0, countAt);
        int after = HashLayout.putVarint(out, countAt, count - 1);
        System.arraycopy(bytes, pairsAt, out, after, at - pairsAt);
        after += at - pairsAt;
        System.arraycopy(bytes, to, out, after, bytes.length - to);
        return out;
    }

    private static int copy(byte[] b, byte[] out, int at) {
        at = HashLayout.putVarint(out, at, b.length);
        System.arraycopy(b, 0, out, at, b.length);
        return at + b.length;
    }

    private static byte[] allocate(long length) {
        if (length > StoredValue.MAP_MAX_VALUE) {
            throw new ReplyException("ERR a bucket of this hash would exceed the largest entry this server stores ("
                    + StoredValue.MAP_MAX_VALUE + " bytes); keep large values under keys of their own");
        }
        return new byte[(int) length];
    }
}
