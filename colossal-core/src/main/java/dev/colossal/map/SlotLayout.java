package dev.colossal.map;

/**
 * Layout of a segment's hash table: an open-addressing array of 8-byte slots, linear probing, and
 * of the segment's {@code table} word that locates it.
 *
 * <pre>
 * slot (one long, written with release, so a reader sees a whole entry or none):
 *  63                40 39                                        0
 *  +-------------------+------------------------------------------+
 *  | tag: hash bits    | entry position / blockSize               |
 *  | 32..55            |                                          |
 *  +-------------------+------------------------------------------+
 *  EMPTY = 0, TOMBSTONE = 1 (units 0 and 1 lie in the file header, never an entry)
 *
 * table word:
 *  63                                                  6 5        0
 *  +----------------------------------------------------+----------+
 *  | table position (64-aligned)                         | log2     |
 *  |                                                      | (slots)  |
 *  +----------------------------------------------------+----------+
 *  0 = no table yet
 * </pre>
 *
 * <p>The segment is the top bits of the hash and the tag bits 32..55. A table of up to 2^24 slots
 * takes its bucket from the low bits of the tag, so doubling it (a rehash) places every slot from
 * the slot alone and reads no entry: the price is that the tag tells apart only by its remaining
 * {@code 24 - log2} bits the entries that share a bucket (those of other buckets differ anyway). A
 * larger table takes its bucket from the hash's low bits, independent of the tag, and its
 * rehash hashes every key again. Positions have 40 bits of blocks: the file can reach 2^40
 * blocks (16 TiB with the default 16-byte blocks, ext4's limit on a file).
 */
final class SlotLayout {

    static final long EMPTY = 0;
    static final long TOMBSTONE = 1;
    static final int POSITION_BITS = 40;
    static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    static final int TAG_BITS = 24;
    static final int MIN_LOG2_SLOTS = 4;
    static final int MAX_LOG2_SLOTS = 40;
    private static final long LOG2_MASK = 63;

    private SlotLayout() {
    }

    static long tag(long hash) {
        return (hash >>> 32) & ((1L << TAG_BITS) - 1);
    }

    static long slot(long hash, long position, int blockShift) {
        return tag(hash) << POSITION_BITS | position >>> blockShift;
    }

    /** The home slot of {@code hash} in a table of 2^log2 slots. */
    static long bucket(long hash, int log2) {
        return (log2 <= TAG_BITS ? tag(hash) : hash) & ((1L << log2) - 1);
    }

    /** The home slot of the entry in {@code slot}, from its tag alone: for tables of up to 2^24 slots. */
    static long bucketOfSlot(long slot, int log2) {
        return (slot >>> POSITION_BITS) & ((1L << log2) - 1);
    }

    static boolean isEntry(long slot) {
        return slot != EMPTY && slot != TOMBSTONE;
    }

    static boolean tagMatches(long slot, long hash) {
        return slot >>> POSITION_BITS == tag(hash);
    }

    static long position(long slot, int blockShift) {
        return (slot & POSITION_MASK) << blockShift;
    }

    static long maxFileBytes(int blockShift) {
        return 1L << (POSITION_BITS + blockShift);
    }

    static long tableWord(long position, int log2Slots) {
        return position | log2Slots;
    }

    static long tablePosition(long word) {
        return word & ~LOG2_MASK;
    }

    static int log2Slots(long word) {
        return (int) (word & LOG2_MASK);
    }

    static long slotOffset(long tablePosition, long index) {
        return tablePosition + index * Long.BYTES;
    }
}
