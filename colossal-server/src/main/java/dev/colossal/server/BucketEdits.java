package dev.colossal.server;

/**
 * Sets and removes one field of a bucket ({@link HashBuckets}) in its bytes: the pairs before and
 * after it are copied as they are, not decoded, so that an HSET into a bucket of some dozens of
 * fields costs one pass and one copy of it.
 */
final class BucketEdits {

    private static final int COUNT_AT = HashBuckets.BUCKET_PAIRS_OFFSET + HashLayout.COUNT_OFFSET;

    private BucketEdits() {}

    /**
     * @param added set to whether {@code field} is new
     * @return the bucket's bytes with {@code field} set to {@code value} (in its place, or last)
     */
    static byte[] put(byte[] bucket, byte[] field, byte[] value, boolean[] added) {
        HashCursor c = new HashCursor(bucket, HashBuckets.BUCKET_PAIRS_OFFSET);
        if (c.find(field)) {
            added[0] = false;
            int from = c.valueAt() - HashLayout.varintLength(c.valueLength());
            int to = c.valueAt() + c.valueLength();
            byte[] out = allocate((long) bucket.length - (to - from) + HashLayout.varintLength(value.length) + value.length);
            System.arraycopy(bucket, 0, out, 0, from);
            int at = copy(value, out, from);
            System.arraycopy(bucket, to, out, at, bucket.length - to);
            return out;
        }
        added[0] = true;
        return append(bucket, c.count(), field, value);
    }

    /** @return the bucket's bytes with {@code field} added last, or null if it has the field already */
    static byte[] add(byte[] bucket, byte[] field, byte[] value) {
        HashCursor c = new HashCursor(bucket, HashBuckets.BUCKET_PAIRS_OFFSET);
        return c.find(field) ? null : append(bucket, c.count(), field, value);
    }

    /** @return the bucket's bytes, of {@code count} pairs, with one more pair last */
    private static byte[] append(byte[] bucket, int count, byte[] field, byte[] value) {
        int pairsAt = COUNT_AT + HashLayout.varintLength(count);
        long pair = HashLayout.varintLength(field.length) + (long) field.length + HashLayout.varintLength(value.length) + value.length;
        byte[] out = allocate(bucket.length - (pairsAt - COUNT_AT) + HashLayout.varintLength(count + 1) + pair);
        System.arraycopy(bucket, 0, out, 0, COUNT_AT);
        int at = HashLayout.putVarint(out, COUNT_AT, count + 1);
        System.arraycopy(bucket, pairsAt, out, at, bucket.length - pairsAt);
        at += bucket.length - pairsAt;
        copy(value, out, copy(field, out, at));
        return out;
    }

    /** @return the bucket's bytes without {@code field}, or null if it has no such field */
    static byte[] remove(byte[] bucket, byte[] field) {
        HashCursor c = new HashCursor(bucket, HashBuckets.BUCKET_PAIRS_OFFSET);
        if (!c.find(field)) {
            return null;
        }
        int from = c.fieldAt() - HashLayout.varintLength(c.fieldLength());
        int to = c.valueAt() + c.valueLength();
        int count = c.count();
        int pairsAt = COUNT_AT + HashLayout.varintLength(count);
        byte[] out = new byte[bucket.length - (to - from) - (pairsAt - COUNT_AT) + HashLayout.varintLength(count - 1)];
        System.arraycopy(bucket, 0, out, 0, COUNT_AT);
        int at = HashLayout.putVarint(out, COUNT_AT, count - 1);
        System.arraycopy(bucket, pairsAt, out, at, from - pairsAt);
        at += from - pairsAt;
        System.arraycopy(bucket, to, out, at, bucket.length - to);
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
