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
 *  | chunk header (16 B or  | blocks after it: entries and free runs, each   |
 *  |  one block if larger)  | at least 16 bytes                              |
 *  +------------------------+-----------------------------------------------+
 *
 * chunk header:                     free run (its first 16 bytes):
 *  0            8            16      0       4        8            16
 *  +------------+------------+       +-------+--------+------------+
 *  | nextChunk  | chunkBytes |       | magic | blocks | nextFree   |
 *  | (0 = last) | incl. hdr  |       | FREE  |        | (0 = last) |
 *  +------------+------------+       +-------+--------+------------+
 * </pre>
 *
 * <p>A freed run is joined with the free run after it when its list shows it near the head, and
 * with both neighbours when the process holds an index of the lists ({@link FreeRunIndex}); a
 * repair or {@code compact} rebuilds every list from the live entries, which merges every
 * neighbour and reclaims space leaked by a crash. A table that a
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

    /**
     * The smallest entry, free run and chunk header, in bytes: a free run's header. With 8-byte
     * blocks an entry takes at least two blocks and no allocation leaves a single block behind,
     * so every hole in a heap can hold a run header.
     */
    static final long MIN_BYTES = RUN.byteSize();

    /** "FREE" as a little-endian int. */
    static final int FREE_MAGIC = 0x45455246;
    static final long MAX_RUN_BLOCKS = Integer.MAX_VALUE;

    private HeapLayout() {
    }

    /** Bytes of a chunk's header: one block, or two 8-byte blocks. */
    static long chunkHeaderBytes(int blockShift) {
        return Math.max(MIN_BYTES, 1L << blockShift);
    }

    /**
     * Whether taking {@code bytes} from a hole of {@code have} bytes leaves nothing or a hole that
     * can still hold a free run.
     */
    static boolean leavesRun(long have, long bytes) {
        return have == bytes || have - bytes >= MIN_BYTES;
    }
}
