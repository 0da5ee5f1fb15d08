package dev.colossal.server;

/**
 * Layout of a bucketed hash: one that outgrew {@code hash-max-listpack-entries} keeps a small
 * header under the user's key and its fields in buckets, one entry each in the database's element
 * map ({@link ListElements}), so that a write rewrites one bucket and the header, whatever the
 * hash's size. The buckets grow by linear hashing: one bucket splits at a time. A set that outgrew
 * {@code set-max-intset-entries} is bucketed the same way ({@link StoredSet}): the header is a
 * stored value of type {@link StoredValue#SET} (whose {@link SetLayout} encoding byte sits at the
 * same offset), and its members are a bucket's fields, each with an empty value.
 *
 * <pre>
 *  Header: the payload of a stored value of type {@link StoredValue#HASH} whose first byte, where a
 *  small hash has its {@link HashLayout} encoding, is {@link #BUCKETED}; big-endian longs after it
 *  0          1        9        17        25       33       41       49
 *  +----------+--------+--------+---------+--------+--------+--------+
 *  | encoding | id     | count  | buckets | serial | intent | delta  |
 *  +----------+--------+--------+---------+--------+--------+--------+
 *  id      = the collection's id: its buckets' keys are id | bucket index, its root's id ({@link ListLayout})
 *  count   = fields, not counting the last write's delta
 *  buckets = B: the buckets are [0, B)
 *  serial  = the number of the last write; it only grows
 *  intent  = the bucket the last write went to; delta = what that write did to the count
 *  The hash holds count + delta fields if bucket intent carries the serial, else count.
 *
 *  Bucket: an element-map entry's value
 *  0          8
 *  +----------+-------------------------------------------------------------------+
 *  | serial   | a {@link HashLayout} payload: encoding, count (varint), the pairs |
 *  +----------+-------------------------------------------------------------------+
 *  serial = the header's serial of the last write that put this bucket
 * </pre>
 *
 * <p>A field is in bucket {@link #index}{@code (h, B)} of its 62-bit hash h: h mod 2^L, or h mod
 * 2^(L+1) below B - 2^L, with 2^L the largest power of two up to B. Growing B by one splits bucket
 * B - 2^L only, into itself and the new bucket B. A bucket may hold entries of fields that map
 * elsewhere (a split a kill cut short): every reader skips them, and the bucket's next write drops
 * them. Why a kill at any moment leaves a hash that reads right is {@link StoredHash}'s.
 */
final class HashBuckets {

    /** The encoding byte of a bucketed hash's header ({@link HashLayout}'s 0 and 1 are one-value hashes). */
    static final byte BUCKETED = 2;
    static final int ENCODING_OFFSET = HashLayout.ENCODING_OFFSET;
    static final int ID_OFFSET = ENCODING_OFFSET + Byte.BYTES;
    static final int COUNT_OFFSET = ID_OFFSET + Long.BYTES;
    static final int BUCKETS_OFFSET = COUNT_OFFSET + Long.BYTES;
    static final int SERIAL_OFFSET = BUCKETS_OFFSET + Long.BYTES;
    static final int INTENT_OFFSET = SERIAL_OFFSET + Long.BYTES;
    static final int DELTA_OFFSET = INTENT_OFFSET + Long.BYTES;
    static final int HEADER_LENGTH = DELTA_OFFSET + Long.BYTES;

    static final int BUCKET_SERIAL_OFFSET = 0;
    /** Where a bucket's {@link HashLayout} payload starts. */
    static final int BUCKET_PAIRS_OFFSET = BUCKET_SERIAL_OFFSET + Long.BYTES;

    /** Fields a bucket holds on average at most, at the default {@code hash-max-listpack-entries}. */
    static final int MAX_BUCKET_FIELDS = 64;

    private HashBuckets() {}

    /**
     * @return the fields a bucket holds on average before one splits: an eighth of the listpack
     *     limit, within [2, {@link #MAX_BUCKET_FIELDS}], since a bucket is rewritten whole as a
     *     listpack is (a lowered limit thus splits buckets often, which tests use)
     */
    static long fieldsPerBucket(long maxListpackEntries) {
        return Math.clamp(maxListpackEntries / 8, 2, MAX_BUCKET_FIELDS);
    }

    /** @return the 62-bit hash that places {@code field}: its HSCAN place ({@link HashSampling#place}) less one */
    static long hash(byte[] field) {
        return HashSampling.place(field) - 1;
    }

    /** @return the bucket, of {@code buckets}, that holds a field of hash {@code h} */
    static long index(long h, long buckets) {
        long low = Long.highestOneBit(buckets);
        long i = h & (low - 1);
        return i < buckets - low ? h & (2 * low - 1) : i;
    }

    /** @return the bucket that splits when {@code buckets} grows by one */
    static long splitSource(long buckets) {
        return buckets - Long.highestOneBit(buckets);
    }

    /** @return a header's payload */
    static byte[] header(long id, long count, long buckets, long serial, long intent, long delta) {
        byte[] h = new byte[HEADER_LENGTH];
        h[ENCODING_OFFSET] = BUCKETED;
        ListLayout.putLong(h, ID_OFFSET, id);
        ListLayout.putLong(h, COUNT_OFFSET, count);
        ListLayout.putLong(h, BUCKETS_OFFSET, buckets);
        ListLayout.putLong(h, SERIAL_OFFSET, serial);
        ListLayout.putLong(h, INTENT_OFFSET, intent);
        ListLayout.putLong(h, DELTA_OFFSET, delta);
        return h;
    }

    /** @return whether the hash or set {@code e} holds is bucketed */
    static boolean isBucketed(KeyValueStore.Entry e) {
        return hasBuckets(e.type()) && e.length() > ENCODING_OFFSET && e.array()[e.offset() + ENCODING_OFFSET] == BUCKETED;
    }

    /** @return whether the stored form {@code stored} of a value is a bucketed hash's or set's header */
    static boolean isBucketed(byte[] stored) {
        int at = StoredValue.payloadOffset(stored) + ENCODING_OFFSET;
        return hasBuckets(StoredValue.type(stored)) && at < stored.length && stored[at] == BUCKETED;
    }

    /** @return whether a value of this type may be bucketed: a hash or a set */
    static boolean hasBuckets(byte type) {
        return type == StoredValue.HASH || type == StoredValue.SET;
    }

    /** @return the long at {@code at} of the header {@code e} holds */
    static long get(KeyValueStore.Entry e, int at) {
        if (e.length() != HEADER_LENGTH) {
            throw HashLayout.damaged("a bucketed hash's header has length " + e.length() + ", not " + HEADER_LENGTH, 0);
        }
        return ListLayout.getLong(e.array(), e.offset() + at);
    }

    /** @return the {@link ListCollector}'s view of header {@code e}: the bucket range {@code {0, B}} if it holds collection {@code id}, else null */
    static long[] held(KeyValueStore.Entry e, long id) {
        if (!isBucketed(e) || e.length() != HEADER_LENGTH || get(e, ID_OFFSET) != id) {
            return null;
        }
        return new long[] {0, get(e, BUCKETS_OFFSET)};
    }
}
