package dev.colossal.map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * Layout of a segment's heap: a singly linked list of chunks (extents of the file), each cut into
 * blocks of {@code blockSize} bytes. Free space is kept as runs of blocks on per-class lists.
 *
 * <pre>
 * chunk:
 *  +------------------------+-----------------------------------------------+
 *  | block 0: chunk header  | blocks 1..n: entries and free runs            |
 *  +------------------------+-----------------------------------------------+
 *
 * chunk header (first block):       free run (first block of the run):
 *  0            8            16      0       4        8            16
 *  +------------+------------+       +-------+--------+------------+
 *  | nextChunk  | chunkBytes |       | magic | blocks | nextFree   |
 *  | (0 = last) | incl. hdr  |       | FREE  |        | (0 = last) |
 *  +------------+------------+       +-------+--------+------------+
 * </pre>
 *
 * <p>Runs are never merged on the hot path; a repair or {@code compact} rebuilds every list from
 * the live entries, which merges neighbours and reclaims space leaked by a crash. A table that a
 * segment outgrew becomes a chunk of that segment.
 */
final class HeapLayout {

    static final StructLayout CHUNK = MemoryLayout.structLayout(
            JAVA_LONG.withName("nextChunk"),
            JAVA_LONG.withName("chunkBytes"));
    static final StructLayout RUN = MemoryLayout.structLayout(
            JAVA_INT.withName("magic"),
            JAVA_INT.withName("blocks"),
            JAVA_LONG.withName("nextFree"));

    static final long NEXT_CHUNK = CHUNK.byteOffset(groupElement("nextChunk"));
    static final long CHUNK_BYTES = CHUNK.byteOffset(groupElement("chunkBytes"));
    static final long RUN_MAGIC = RUN.byteOffset(groupElement("magic"));
    static final long RUN_BLOCKS = RUN.byteOffset(groupElement("blocks"));
    static final long RUN_NEXT = RUN.byteOffset(groupElement("nextFree"));

    /** "FREE" as a little-endian int. */
    static final int FREE_MAGIC = 0x45455246;
    static final long MAX_RUN_BLOCKS = Integer.MAX_VALUE;

    private HeapLayout() {
    }
}
