package dev.colossal.map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * Layout of one segment header in the segment directory. A segment owns one hash table (see
 * {@link SlotLayout}) and a heap of blocks made of chunks (see {@link HeapLayout}); it grows them
 * on its own, so the map never rehashes globally.
 *
 * <pre>
 *  0             8             16            24            32            40
 *  +-------------+-------------+-------------+-------------+-------------+
 *  | lockOwner   | version     | table       | liveEntries | tombstones  |
 *  | OwnerLock   | seqlock,odd | position |  |             |             |
 *  | word        | = writing   | size code   |             |             |
 *  +-------------+-------------+-------------+-------------+-------------+
 *  40            48            56            64            72            80
 *  +-------------+-------------+-------------+-------------+-------------+
 *  | usedBlocks  | chunks      | bumpPos     | bumpEnd     | lastChunk   |
 *  | by entries  | list head   | free tail of newest chunk | Bytes       |
 *  +-------------+-------------+-------------+-------------+-------------+
 *  80            88            96            104           112           120          128
 *  +-------------+-------------+-------------+-------------+-------------+------------+
 *  | pending     | pending     | repairs     | clockHand   | retired     | mayExpire  |
 *  | Extent      | Bytes       | count       | (eviction)  | Table word  | 0 = none   |
 *  +-------------+-------------+-------------+-------------+-------------+------------+
 *  128                                                                  640
 *  +--------------------------------------------------------------------+
 *  | freeHeads[FREE_CLASSES]: first free run of each size class            |
 *  +--------------------------------------------------------------------+
 * </pre>
 *
 * <p>Every field is written only by the holder of {@code lockOwner}, between the odd and the even
 * value of {@code version}. {@code pendingExtent} names an extent taken from the file but not yet
 * linked into the segment, and {@code retiredTable} a table being replaced that is not yet heap,
 * so a repair after a crash can reclaim them instead of leaking them. {@code mayExpire} is 0 only
 * while no entry of the segment carries an expiry time (set before such an entry is written,
 * cleared by a purge that found none), so a segment that never held one skips the purge that
 * precedes a rehash instead of reading every entry.
 */
final class SegmentLayout {

    static final int EXACT_CLASSES = 32;
    static final int FREE_CLASSES = 64;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("lockOwner"),
            JAVA_LONG.withName("version"),
            JAVA_LONG.withName("table"),
            JAVA_LONG.withName("liveEntries"),
            JAVA_LONG.withName("tombstones"),
            JAVA_LONG.withName("usedBlocks"),
            JAVA_LONG.withName("chunks"),
            JAVA_LONG.withName("bumpPos"),
            JAVA_LONG.withName("bumpEnd"),
            JAVA_LONG.withName("lastChunkBytes"),
            JAVA_LONG.withName("pendingExtent"),
            JAVA_LONG.withName("pendingBytes"),
            JAVA_LONG.withName("repairs"),
            JAVA_LONG.withName("clockHand"),
            JAVA_LONG.withName("retiredTable"),
            JAVA_LONG.withName("mayExpire"),
            MemoryLayout.sequenceLayout(FREE_CLASSES, JAVA_LONG).withName("freeHeads"));

    static final long BYTES = LAYOUT.byteSize();

    static final long LOCK_OWNER = offset("lockOwner");
    static final long VERSION = offset("version");
    static final long TABLE = offset("table");
    static final long LIVE_ENTRIES = offset("liveEntries");
    static final long TOMBSTONES = offset("tombstones");
    static final long USED_BLOCKS = offset("usedBlocks");
    static final long CHUNKS = offset("chunks");
    static final long BUMP_POS = offset("bumpPos");
    static final long BUMP_END = offset("bumpEnd");
    static final long LAST_CHUNK_BYTES = offset("lastChunkBytes");
    static final long PENDING_EXTENT = offset("pendingExtent");
    static final long PENDING_BYTES = offset("pendingBytes");
    static final long REPAIRS = offset("repairs");
    static final long CLOCK_HAND = offset("clockHand");
    static final long RETIRED_TABLE = offset("retiredTable");
    static final long MAY_EXPIRE = offset("mayExpire");
    static final long FREE_HEADS = offset("freeHeads");

    static final long MIN_CHUNK_BYTES = 4096;
    static final long MAX_CHUNK_BYTES = 64L << 20;

    /**
     * The size of a segment's next heap chunk: a 32nd of what its entries use, between 4 KiB and
     * 64 MiB, so the unused tail of the newest chunk stays near 3% of the segment's data (an
     * eighth cost 12%; a chunk list of a few hundred chunks per segment is still short to walk).
     */
    static long nextChunkBytes(long usedBytes) {
        long step = (usedBytes / 32 + MIN_CHUNK_BYTES - 1) & -MIN_CHUNK_BYTES;
        return Math.clamp(step, MIN_CHUNK_BYTES, MAX_CHUNK_BYTES);
    }

    private SegmentLayout() {
    }

    private static long offset(String name) {
        return LAYOUT.byteOffset(groupElement(name));
    }

    static long freeHead(int freeClass) {
        return FREE_HEADS + (long) freeClass * Long.BYTES;
    }

    /**
     * The free-list class of a run: one class per exact size up to {@link #EXACT_CLASSES} blocks
     * (entries are small and their sizes repeat, so they mostly find an exact fit), then one class
     * per power of two.
     */
    static int freeClassOf(long blocks) {
        if (blocks <= EXACT_CLASSES) {
            return (int) blocks - 1;
        }
        return Math.min(FREE_CLASSES - 1, EXACT_CLASSES + 58 - Long.numberOfLeadingZeros(blocks));
    }

    /** Whether every run of class {@code c} holds exactly the blocks of that class. */
    static boolean isExactClass(int c) {
        return c < EXACT_CLASSES;
    }
}
