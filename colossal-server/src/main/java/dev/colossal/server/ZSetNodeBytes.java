package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One stored node of a big sorted set's tree ({@link ZSetTreeLayout}) copied by the element map
 * into a buffer this thread reuses, and, for a leaf, where each entry's score and member lie in
 * it: what a read searches in place, allocating nothing per entry, and copying out only the
 * members its reply needs. Entries have no offsets table in the layout (members vary in length),
 * so {@link #read} finds them in one pass over the bytes; searches then go by index.
 *
 * <p>Every offset is checked against the node's own length, not the buffer's: past it lie the
 * bytes of a node read before, which a damaged node must never be read as.
 */
final class ZSetNodeBytes {

    private static final ThreadLocal<ZSetNodeBytes> MINE = ThreadLocal.withInitial(ZSetNodeBytes::new);
    /** A buffer grown past this for a node of huge members is let go after the read, not kept by the thread. */
    private static final int KEPT_BYTES = 64 * 1024;

    private final byte[] keyBytes = new byte[ListLayout.ELEMENT_KEY_LENGTH];
    private final MemorySegment key = MemorySegment.ofArray(keyBytes);
    private final int[] cursor = new int[1];
    /** A node's bytes: a node of two entries or more fits {@link ZSetTreeLayout#NODE_BYTES}, one of one entry may not. */
    private byte[] bytes = new byte[ZSetTreeLayout.NODE_BYTES];
    private MemorySegment segment = MemorySegment.ofArray(bytes);
    private int length;
    private boolean leaf;
    private int n;
    private int[] scoreAt = new int[ZSetTreeLayout.MAX_NODE_ENTRIES + 1];
    private int[] memberAt = new int[ZSetTreeLayout.MAX_NODE_ENTRIES + 1];
    private int[] memberLength = new int[ZSetTreeLayout.MAX_NODE_ENTRIES + 1];
    /** Whether a read of this thread holds it: a read nested in another's visitor gets a buffer of its own. */
    private boolean busy;

    private ZSetNodeBytes() {}

    /** @return this thread's buffer, or a new one if a read in progress holds it; {@link #release} it */
    static ZSetNodeBytes acquire() {
        ZSetNodeBytes b = MINE.get();
        if (b.busy) {
            return new ZSetNodeBytes();
        }
        b.busy = true;
        return b;
    }

    void release() {
        if (bytes.length > KEPT_BYTES) {
            bytes = new byte[ZSetTreeLayout.NODE_BYTES];
            segment = MemorySegment.ofArray(bytes);
        }
        busy = false;
    }

    /**
     * Reads node {@code pos} of collection {@code id}, and indexes its entries if it is a leaf.
     *
     * @throws IllegalStateException if it is missing or damaged
     */
    void read(ListElements elements, long id, long pos) {
        readBytes(elements, id, pos);
        if (leaf) {
            index();
        }
    }

    /**
     * Reads node {@code pos} of collection {@code id} as {@link #read} does, without indexing a
     * leaf's entries: for a caller that decodes it whole.
     *
     * @throws IllegalStateException if it is missing or shorter than a node's start
     */
    void readBytes(ListElements elements, long id, long pos) {
        ListLayout.putElementKey(keyBytes, 0, id, pos);
        long got;
        while ((got = elements.read(key, segment)) > bytes.length) {
            bytes = new byte[(int) got];
            segment = MemorySegment.ofArray(bytes);
        }
        if (got < 0) {
            throw StoredZSet.missing(elements, id, pos);
        }
        length = (int) got;
        if (length <= ZSetTreeLayout.N_OFFSET) {
            throw ZSetLayout.damaged("a tree node of " + length + " bytes", 0);
        }
        leaf = bytes[ZSetTreeLayout.KIND_OFFSET] == ZSetTreeLayout.LEAF;
    }

    private void index() {
        cursor[0] = ZSetTreeLayout.N_OFFSET;
        int count = HashLayout.getVarint(bytes, cursor, length);
        // an entry takes a score and a length byte at least: more than that is damage, not a size to allocate
        if ((long) count * (ZSetLayout.SCORE_LENGTH + 1) > length) {
            throw ZSetLayout.damaged("a tree node of " + length + " bytes holding " + count + " entries", 0);
        }
        if (count > scoreAt.length) {
            scoreAt = new int[count];
            memberAt = new int[count];
            memberLength = new int[count];
        }
        for (int i = 0; i < count; i++) {
            int at = cursor[0];
            if (at + ZSetLayout.SCORE_LENGTH > length) {
                throw ZSetLayout.damaged("a score runs past a tree node's end", at);
            }
            scoreAt[i] = at;
            cursor[0] = at + ZSetLayout.SCORE_LENGTH;
            int m = HashLayout.getVarint(bytes, cursor, length);
            at = cursor[0];
            if (at + m > length || at + m < 0) {
                throw ZSetLayout.damaged("a member runs past a tree node's end", at);
            }
            memberAt[i] = at;
            memberLength[i] = m;
            cursor[0] = at + m;
        }
        n = count;
    }

    /** @return whether the node read is a leaf (else the caller decodes it: {@link #bytes}, {@link #length}) */
    boolean leaf() {
        return leaf;
    }

    byte[] bytes() {
        return bytes;
    }

    int length() {
        return length;
    }

    /** @return a leaf's entries */
    int n() {
        return n;
    }

    double score(int i) {
        return ZSetLayout.getScore(bytes, scoreAt[i]);
    }

    /** @return a copy of entry {@code i}'s member */
    byte[] member(int i) {
        return Arrays.copyOfRange(bytes, memberAt[i], memberAt[i] + memberLength[i]);
    }

    /** @return whether entry {@code i}'s member is {@code m} */
    boolean memberIs(int i, byte[] m) {
        return Arrays.equals(bytes, memberAt[i], memberAt[i] + memberLength[i], m, 0, m.length);
    }

    /** @return how entry {@code i} compares with (s, m): by member alone if {@code byMember}, else by (score, member) */
    int compare(int i, boolean byMember, double s, byte[] m) {
        int from = memberAt[i];
        int to = from + memberLength[i];
        return byMember ? Arrays.compareUnsigned(bytes, from, to, m, 0, m.length) : ZSetLayout.compare(score(i), bytes, from, to, s, m);
    }

    /** @return what {@code bound} says of entry {@code i} */
    boolean test(int i, ZSetTreeReads.Bound bound) {
        return bound.test(score(i), bytes, memberAt[i], memberAt[i] + memberLength[i]);
    }
}
