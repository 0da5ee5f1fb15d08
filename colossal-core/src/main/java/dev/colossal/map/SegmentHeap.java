package dev.colossal.map;

import static dev.colossal.map.SegmentLayout.BUMP_END;
import static dev.colossal.map.SegmentLayout.BUMP_POS;
import static dev.colossal.map.SegmentLayout.CHUNKS;
import static dev.colossal.map.SegmentLayout.LAST_CHUNK_BYTES;
import static dev.colossal.map.SegmentLayout.PENDING_BYTES;
import static dev.colossal.map.SegmentLayout.PENDING_EXTENT;
import static dev.colossal.map.SegmentLayout.USED_BLOCKS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * One segment's heap of blocks (see {@link HeapLayout}): takes runs of blocks for entries and
 * gives them back, from exact-size free lists, the bump region of the newest chunk, or new
 * chunks taken from the file. Used only under the segment's lock. Every step leaves the chunk list
 * walkable, so a repair can rebuild the rest.
 */
final class SegmentHeap {

    private final MapFile file;
    private final int index;
    private final long base;
    private final int shift;
    private final long blockBytes;
    private final long chunkHeader;

    SegmentHeap(MapFile file, int index, long base) {
        this.file = file;
        this.index = index;
        this.base = base;
        this.shift = file.blockShift;
        this.blockBytes = 1L << shift;
        this.chunkHeader = HeapLayout.chunkHeaderBytes(shift);
    }

    /** Writes a chunk header at {@code pos} and makes the chunk the head of the segment's list. */
    void linkChunk(long pos, long bytes) {
        MemorySegment m = file.mem(pos + bytes);
        m.set(JAVA_LONG, pos + HeapLayout.NEXT_CHUNK, Mem.getLong(m, base + CHUNKS));
        m.set(JAVA_LONG, pos + HeapLayout.CHUNK_BYTES, bytes);
        Mem.setLongRelease(m, base + CHUNKS, pos);
    }

    /** Links the extent at {@code pos} into the chunk list and frees all of it but its header. */
    void adoptChunk(long pos, long bytes) {
        linkChunk(pos, bytes);
        CrashPoints.reach(CrashPoints.CHUNK_LINKED);
        if (bytes > chunkHeader) {
            free(pos + chunkHeader, (bytes - chunkHeader) >>> shift);
        }
    }

    /**
     * Takes {@code blocks} contiguous blocks: an exact fit from the free lists, else the bump
     * region of the newest chunk, else a split of a larger free run, else a new chunk.
     */
    long allocate(long blocks) throws IOException {
        MemorySegment m = file.mem();
        int exact = SegmentLayout.freeClassOf(blocks);
        long run = takeFit(exact, blocks, SegmentLayout.isExactClass(exact) ? 1 : 8);
        if (run != 0) {
            return run;
        }
        long bytes = blocks << shift;
        long bump = Mem.getLong(m, base + BUMP_POS);
        if (bump != 0 && Mem.getLong(m, base + BUMP_END) - bump >= bytes
                && HeapLayout.leavesRun(Mem.getLong(m, base + BUMP_END) - bump, bytes)) {
            Mem.setLong(m, base + BUMP_POS, bump + bytes);
            return bump;
        }
        for (int c = exact + 1; c < SegmentLayout.FREE_CLASSES; c++) {
            run = takeFit(c, blocks, 1);
            if (run != 0) {
                return run;
            }
        }
        newChunk(bytes);
        bump = Mem.getLong(file.mem(), base + BUMP_POS);
        Mem.setLong(file.mem(), base + BUMP_POS, bump + bytes);
        return bump;
    }

    /** Takes a run of at least {@code blocks} from class {@code c}, looking at most {@code tries} runs. */
    private long takeFit(int c, long blocks, int tries) {
        MemorySegment m = file.mem();
        long link = base + SegmentLayout.freeHead(c);
        for (int t = 0; t < tries; t++) {
            long run = Mem.getLong(m, link);
            if (run == 0) {
                return 0;
            }
            m = checkRun(run);
            long runBlocks = m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS);
            if (runBlocks >= blocks && HeapLayout.leavesRun(runBlocks << shift, blocks << shift)) {
                Mem.setLong(m, link, m.get(JAVA_LONG, run + HeapLayout.RUN_NEXT));
                CrashPoints.reach(CrashPoints.RUN_UNLINKED);
                if (runBlocks > blocks) {
                    free(run + (blocks << shift), runBlocks - blocks);
                }
                return run;
            }
            link = run + HeapLayout.RUN_NEXT;
        }
        return 0;
    }

    private MemorySegment checkRun(long run) {
        long allocEnd = file.allocEnd();
        if (run < FileHeaderLayout.directoryEnd(file.segmentCount) || (run & (blockBytes - 1)) != 0 || run >= allocEnd) {
            throw file.corrupt(run, "segment=" + index + " has a free run outside the heap");
        }
        MemorySegment m = file.mem(run + HeapLayout.RUN.byteSize());
        int blocks = m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS);
        if (m.get(JAVA_INT, run + HeapLayout.RUN_MAGIC) != HeapLayout.FREE_MAGIC || blocks <= 0
                || run + ((long) blocks << shift) > allocEnd) {
            throw file.corrupt(run, "segment=" + index + " has a damaged free run (blocks=" + blocks + ")");
        }
        return m;
    }

    void free(long pos, long blocks) {
        if (blocks << shift < HeapLayout.MIN_BYTES) {
            // No allocation leaves such a hole; if one appears anyway, leaking it is safe, while a
            // run header written into it would overwrite the entry after it.
            return;
        }
        while (blocks > 0) {
            // Pieces of a huge hole leave no single block behind either.
            long n = blocks <= HeapLayout.MAX_RUN_BLOCKS ? blocks : Math.min(HeapLayout.MAX_RUN_BLOCKS, blocks - 2);
            MemorySegment m = file.mem(pos + HeapLayout.RUN.byteSize());
            long head = base + SegmentLayout.freeHead(SegmentLayout.freeClassOf(n));
            m.set(JAVA_INT, pos + HeapLayout.RUN_MAGIC, HeapLayout.FREE_MAGIC);
            m.set(JAVA_INT, pos + HeapLayout.RUN_BLOCKS, (int) n);
            m.set(JAVA_LONG, pos + HeapLayout.RUN_NEXT, Mem.getLong(m, head));
            CrashPoints.reach(CrashPoints.RUN_WRITTEN);
            Mem.setLong(m, head, pos);
            pos += n << shift;
            blocks -= n;
        }
    }

    private void newChunk(long bytesNeeded) throws IOException {
        MemorySegment m = file.mem();
        long next = SegmentLayout.nextChunkBytes(Mem.getLong(m, base + USED_BLOCKS) << shift);
        long size = FileHeaderLayout.alignExtent(Math.max(next, bytesNeeded + chunkHeader));
        if (!HeapLayout.leavesRun(size - chunkHeader, bytesNeeded)) {
            size += FileHeaderLayout.EXTENT_ALIGN;
        }
        long pos = file.allocateExtent(size);
        m = file.mem();
        Mem.setLong(m, base + PENDING_BYTES, size);
        Mem.setLongRelease(m, base + PENDING_EXTENT, pos);
        linkChunk(pos, size);
        m = file.mem();
        CrashPoints.reach(CrashPoints.NEW_CHUNK_LINKED);
        long bump = Mem.getLong(m, base + BUMP_POS);
        long bumpEnd = Mem.getLong(m, base + BUMP_END);
        if (bump != 0 && bumpEnd > bump) {
            free(bump, (bumpEnd - bump) >>> shift);
        }
        Mem.setLong(m, base + BUMP_POS, pos + chunkHeader);
        Mem.setLong(m, base + BUMP_END, pos + size);
        Mem.setLong(m, base + LAST_CHUNK_BYTES, size);
        Mem.setLongRelease(m, base + PENDING_EXTENT, 0);
    }
}
