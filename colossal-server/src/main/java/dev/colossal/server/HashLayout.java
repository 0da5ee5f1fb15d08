package dev.colossal.server;

/**
 * Layout of a hash's payload: the bytes after the {@link StoredValue} header of a value whose
 * flags have the {@link StoredValue#HASH} bit. The pairs are in insertion order, as Redis keeps a
 * small hash's listpack, so that HGETALL and HKEYS answer in Redis's order.
 *
 * <pre>
 *  0          1
 *  +----------+--------------+-------------------------------------------------------------+
 *  | encoding | count        | count pairs:                                                |
 *  | (1 byte) | (varint)     | field length (varint) | field | value length (varint) | value |
 *  +----------+--------------+-------------------------------------------------------------+
 *  encoding 0 = LISTPACK: Redis would hold this hash as a listpack;
 *           1 = HASHTABLE: a field or value outgrew hash-max-listpack-value bytes once, and Redis
 *               never converts back;
 *           2 = {@link HashBuckets#BUCKETED}: not this layout but a bucketed hash's header, which a hash
 *               of more than hash-max-listpack-entries fields becomes (the encoding byte tells them apart).
 *  varint   = unsigned, 7 bits a byte, least significant first; the top bit says another follows.
 * </pre>
 *
 * <p>A write reads, changes and rewrites the whole payload (as Redis rewrites a listpack), so it
 * costs O(the hash's size): the layout holds hashes up to hash-max-listpack-entries fields, and
 * each bucket of a bucketed one.
 */
final class HashLayout {

    static final int ENCODING_OFFSET = 0;
    static final int COUNT_OFFSET = ENCODING_OFFSET + Byte.BYTES;
    static final byte LISTPACK = 0;
    static final byte HASHTABLE = 1;
    /** Redis 7.0's {@code hash-max-listpack-entries} default (128 is zset's); CONFIG SET moves the server's. */
    static final int MAX_LISTPACK_ENTRIES = 512;
    /** Redis's {@code hash-max-listpack-value} default. */
    static final int MAX_LISTPACK_VALUE = 64;
    /** The most bytes a varint of an int takes. */
    static final int MAX_VARINT = 5;

    private HashLayout() {}

    /** @return how many bytes {@link #putVarint} writes for {@code v} */
    static int varintLength(int v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    /** Writes {@code v} at {@code at}; @return the offset after it */
    static int putVarint(byte[] out, int at, int v) {
        while ((v & ~0x7F) != 0) {
            out[at++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }

    /**
     * Reads the varint at {@code pos[0]} and moves {@code pos[0]} past it.
     *
     * @throws IllegalStateException if it runs past {@code end} or past an int: a damaged value
     */
    static int getVarint(byte[] in, int[] pos, int end) {
        int v = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            if (pos[0] >= end) {
                throw damaged("a length runs past the value's end", pos[0]);
            }
            byte b = in[pos[0]++];
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                if (v < 0) {
                    break;
                }
                return v;
            }
        }
        throw damaged("a length is not a varint of an int", pos[0]);
    }

    /** @return the encoding byte of the hash {@code e} holds: {@link #LISTPACK}, {@link #HASHTABLE} or {@link HashBuckets#BUCKETED} */
    static byte encoding(KeyValueStore.Entry e) {
        if (e.length() <= ENCODING_OFFSET) {
            throw damaged("no encoding byte", 0);
        }
        return e.array()[e.offset() + ENCODING_OFFSET];
    }

    /**
     * @param limit hash-max-listpack-value as the server has it
     * @return whether a field or value of {@code length} bytes keeps a hash a listpack in Redis
     */
    static boolean fitsListpack(int length, long limit) {
        return length <= limit;
    }

    static IllegalStateException damaged(String what, int at) {
        return new IllegalStateException("a stored hash is damaged (" + what + ", at payload offset=" + at
                + "); DEL the key, or run 'colossal verify' on the map file");
    }
}
