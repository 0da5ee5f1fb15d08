package dev.colossal.map;

/**
 * Layout of a segment's hash table: an open-addressing array of 8-byte slots, linear probing, and
 * of the segment's {@code table} word that locates it.
 *
 * <pre>
 * slot (one long, written with release, so a reader sees a whole entry or none):
 *  63                   38 37                                     0
 *  +----------------------+---------------------------------------+
 *  | tag: hash bits       | entry position / blockSize            |
 *  | 32..57               |                                       |
 *  +----------------------+---------------------------------------+
 *  EMPTY = 0, TOMBSTONE = 1 (units 0 and 1 lie in the file header, never an entry)
 *
 * table word:
 *  63        56 55                                         6 5     0
 *  +-----------+--------------------------------------------+-------+
 *  | size code | table position (64-aligned)                 | 0     |
 *  +-----------+--------------------------------------------+-------+
 *  0 = no table yet; slots = (4 + (code &amp; 3)) &lt;&lt; (code &gt;&gt;&gt; 2) for code 8..152:
 *  16, 20, 24, 28, 32, 40, ... up to 2^40, four sizes per doubling
 * </pre>
 *
 * <p>Four sizes per doubling let a segment keep its table between 64% and 80% full (it grows
 * by one size, 14-25%, when it reaches {@link #MAX_LOAD_NUM}/{@link #MAX_LOAD_DEN}): about 10-12
 * bytes of slot per entry, where doubling at 3/4 kept a load of 3/8 to 3/4 (11-21 bytes).
 *
 * <p>The home slot is the tag scaled to the table ({@code tag * slots >> 26}), so for tables of up
 * to 2^26 slots (about 53M entries per segment, 3.4G entries in the default 64 segments) a rehash
 * places every slot from its tag alone and reads no entry: growth to a billion entries never reads
 * a key. The price is that the tag tells apart only by its remaining {@code 26 - log2(slots)} bits
 * the entries that share a bucket (those of other buckets differ anyway). A larger table scales
 * the hash's low 32 bits instead, and its rehash hashes every key again: slow (a random read of
 * every entry) but no ceiling. The segment is chosen by the hash's lowest bits (see {@code
 * BytesMap}), so no segment count takes bits from the tag.
 *
 * <p>Positions have 38 bits of blocks: the file can reach 2^38 blocks, 2 TiB with the default
 * 8-byte blocks and 16 TiB (ext4's limit on a file) with 64-byte ones. Format 4 had 24-bit tags
 * and 40-bit positions, and read every key to grow a table past 2^24 slots (from ~860M entries).
 */
final class SlotLayout {

    static final long EMPTY = 0;
    static final long TOMBSTONE = 1;
    static final int POSITION_BITS = 38;
    static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    static final int TAG_BITS = 64 - POSITION_BITS;
    static final long MIN_SLOTS = 16;
    static final long MAX_SLOTS = 1L << 40;
    /** A table grows when live entries and tombstones would pass this fraction of its slots. */
    static final long MAX_LOAD_NUM = 4;
    static final long MAX_LOAD_DEN = 5;
    /**
     * Bytes of outgrown table per live entry a growth turns into heap: a slot at the load where
     * tables grow (8 bytes / 0.8).
     */
    static final long SLOTS_FREED_PER_ENTRY = Long.BYTES * MAX_LOAD_DEN / MAX_LOAD_NUM;
    /** A table is (re)built at most this full, so that it takes a few inserts to grow again. */
    static final long BUILD_LOAD_NUM = 3;
    static final long BUILD_LOAD_DEN = 4;
    private static final int CODE_SHIFT = 56;
    private static final int MIN_CODE = 8;
    private static final int MAX_CODE = 38 << 2;
    private static final long POSITION_BITS_OF_WORD = (1L << CODE_SHIFT) - 1;

    private SlotLayout() {
    }

    static long tag(long hash) {
        return (hash >>> 32) & ((1L << TAG_BITS) - 1);
    }

    /**
     * The segment of {@code hash}: its lowest bits, which neither the tag nor the home slot of a
     * table placed by tag uses ({@code segmentMask} is the segment count less one).
     */
    static int segmentOf(long hash, int segmentMask) {
        return (int) hash & segmentMask;
    }

    static long slot(long hash, long position, int blockShift) {
        return tag(hash) << POSITION_BITS | position >>> blockShift;
    }

    /** The home slot of {@code hash} in a table of {@code slots} slots: scaled from its tag up to 2^26 slots. */
    static long bucket(long hash, long slots) {
        return slots <= 1L << TAG_BITS ? tag(hash) * slots >>> TAG_BITS : Math.unsignedMultiplyHigh(hash << 32, slots);
    }

    /** The home slot of the entries tagged {@code tag}: for tables of up to 2^26 slots. */
    static long bucketOfTag(long tag, long slots) {
        return tag * slots >>> TAG_BITS;
    }

    /** The home slot of the entry in {@code slot}, from its tag alone: for tables of up to 2^26 slots. */
    static long bucketOfSlot(long slot, long slots) {
        return (slot >>> POSITION_BITS) * slots >>> TAG_BITS;
    }

    /** The slot after {@code idx} on a probe path, wrapping around. */
    static long next(long idx, long slots) {
        return idx + 1 == slots ? 0 : idx + 1;
    }

    /** The slot before {@code idx}, wrapping around. */
    static long previous(long idx, long slots) {
        return idx == 0 ? slots - 1 : idx - 1;
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

    // ------------------------------------------------------------------ table sizes and words

    private static long slotsOfCode(int code) {
        return (4L + (code & 3)) << (code >>> 2);
    }

    /**
     * The smallest table size that holds {@code entries} at most {@link #BUILD_LOAD_NUM}/{@link
     * #BUILD_LOAD_DEN} full, or {@code -1} if none up to {@link #MAX_SLOTS} does.
     */
    static long slotsFor(long entries) {
        for (int code = MIN_CODE; code <= MAX_CODE; code++) {
            if (entries * BUILD_LOAD_DEN <= slotsOfCode(code) * BUILD_LOAD_NUM) {
                return slotsOfCode(code);
            }
        }
        return -1;
    }

    /** Whether {@code used} live and deleted slots are more than a table of {@code slots} may hold. */
    static boolean overloaded(long used, long slots) {
        return used * MAX_LOAD_DEN > slots * MAX_LOAD_NUM;
    }

    private static int codeOf(long slots) {
        int exponent = 61 - Long.numberOfLeadingZeros(slots);
        return exponent << 2 | (int) (slots >>> exponent) - 4;
    }

    /** The word naming a table of {@code slots} slots (a size {@link #slotsFor} returns) at {@code position}. */
    static long tableWord(long position, long slots) {
        return (long) codeOf(slots) << CODE_SHIFT | position;
    }

    static long tablePosition(long word) {
        return word & POSITION_BITS_OF_WORD;
    }

    /** The slots of the table {@code word} names, or -1 if its size code or position is malformed. */
    static long slots(long word) {
        int code = (int) (word >>> CODE_SHIFT);
        if (code < MIN_CODE || code > MAX_CODE || (word & (FileHeaderLayout.EXTENT_ALIGN - 1)) != 0) {
            return -1;
        }
        return slotsOfCode(code);
    }

    static long tableBytes(long slots) {
        return slots * Long.BYTES;
    }

    static long slotOffset(long tablePosition, long index) {
        return tablePosition + index * Long.BYTES;
    }
}
