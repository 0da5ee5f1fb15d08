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
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * One segment's heap of blocks (see {@link HeapLayout}): takes runs of blocks for entries and
 * gives them back, from exact-size free lists, the bump region of the newest chunk, or new
 * chunks taken from the file. Used only under the segment's lock. Every step leaves the chunk list
 * walkable, so a repair can rebuild the rest.
 */
final class SegmentHeap {

    /**
     * Runs of a size class looked at for a fit (the exact-size classes need one): enough to find an
     * exact fit or a close one among entries of mixed sizes (with 8, values of random sizes still
     * grew the file by ~3 bytes an overwrite), few enough to keep a put's misses bounded.
     */
    private static final int FIT_TRIES = 32;
    /**
     * Runs looked at right after a merge, once per growth: every run of a sane list, while a list
     * that damage made a cycle still ends (under the segment's lock) in a few milliseconds.
     */
    private static final int DEFRAGMENTED_TRIES = 1 << 20;
    /** Links followed to find the free run after a freed one; runs freed lately sit near the head. */
    private static final int JOIN_TRIES = 16;

    private final MapFile file;
    private final int index;
    private final long base;
    private final int shift;
    private final long blockBytes;
    private final long chunkHeader;
    /** The bump region end this process last found to be a chunk's end (see {@link #checkBumpRegion}). */
    private long checkedBumpEnd = -1;
    /** Links of a chunk list followed before it is taken for a cycle. */
    private static final long MAX_CHUNK_LINKS = 1 << 20;
    /**
     * The chunk list's head when this process last counted {@link #heapBlocks}, and that count:
     * the count is asked at every growth, and walking a list of hundreds of chunks (one cache
     * miss each) then was 7% of a long LPUSH run's CPU. A chunk this process links keeps the
     * count; another process's link changes the head and so forces a walk; chunks given back
     * behind an unchanged head leave it too high, which costs at most one merge that was not
     * needed (the count only decides whether {@code Segment} merges free runs).
     */
    private long countedHead = -1;
    private long countedBlocks;

    /** What the segment runs before the heap grows: true if it rebuilt the free lists (see {@link #allocate}). */
    private final BooleanSupplier defragment;
    /** Where new chunks come from: the segment's {@link Segment#takeExtent}. */
    private final ExtentSource extents;

    /** Takes an extent of at least {@code minBytes} ({@code wantBytes} if it can) for the segment. */
    interface ExtentSource {
        long take(long minBytes, long wantBytes) throws IOException;
    }

    SegmentHeap(MapFile file, int index, long base, BooleanSupplier defragment, ExtentSource extents) {
        this.defragment = defragment;
        this.extents = extents;
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
        long head = Mem.getLong(m, base + CHUNKS);
        m.set(JAVA_LONG, pos + HeapLayout.NEXT_CHUNK, head);
        m.set(JAVA_LONG, pos + HeapLayout.CHUNK_BYTES, bytes);
        Mem.setLongRelease(m, base + CHUNKS, pos);
        if (head == countedHead) {
            countedHead = pos;
            countedBlocks += (bytes - chunkHeader) >>> shift;
        }
    }

    /**
     * Takes {@code blocks} contiguous blocks: an exact fit from the free lists, else the bump
     * region of the newest chunk, else a split of a larger free run, else (after the segment had a
     * chance to merge its free runs, when they are most of its heap) a new chunk.
     */
    long allocate(long blocks) throws IOException {
        long run = takeFree(blocks, FIT_TRIES);
        if (run == 0 && defragment.getAsBoolean()) {
            run = takeFree(blocks, DEFRAGMENTED_TRIES);   // once per growth: (almost) the whole list
        }
        if (run != 0) {
            return run;
        }
        newChunk(blocks << shift);
        long bump = Mem.getLong(file.mem(), base + BUMP_POS);
        Mem.setLong(file.mem(), base + BUMP_POS, bump + (blocks << shift));
        return bump;
    }

    /**
     * Takes {@code blocks} from the free lists or the bump region, looking at up to {@code tries}
     * runs of their class; 0 if none of that offers room for them.
     */
    private long takeFree(long blocks, int tries) {
        MemorySegment m = file.mem();
        int exact = SegmentLayout.freeClassOf(blocks);
        long run = takeFit(exact, blocks, SegmentLayout.isExactClass(exact) ? 1 : tries);
        if (run != 0) {
            return run;
        }
        long bytes = blocks << shift;
        long bump = Mem.getLong(m, base + BUMP_POS);
        long bumpEnd = Mem.getLong(m, base + BUMP_END);
        if (bump != 0 && bumpEnd - bump >= bytes && HeapLayout.leavesRun(bumpEnd - bump, bytes)) {
            checkBumpRegion(m, bump, bumpEnd);
            Mem.setLong(m, base + BUMP_POS, bump + bytes);
            return bump;
        }
        for (int c = exact + 1; c < SegmentLayout.FREE_CLASSES; c++) {
            run = takeFit(c, blocks, 1);
            if (run != 0) {
                return run;
            }
        }
        return 0;
    }

    /**
     * Refuses a bump region that is not the tail of one of the segment's chunks (a damaged word in
     * the segment header): taking blocks from it would write over other entries, or other
     * segments'. The region's end moves only when a chunk is added or the segment rebuilt, so the
     * chunk list is walked once per end seen in this process; a wrong position inside the chunk is
     * beyond this check (verify finds it).
     */
    private void checkBumpRegion(MemorySegment m, long bump, long bumpEnd) {
        if (bumpEnd == checkedBumpEnd) {
            return;
        }
        long allocEnd = file.allocEnd();
        for (long c = Mem.getLong(m, base + CHUNKS), links = 0; c > 0 && c < allocEnd && links < MAX_CHUNK_LINKS; links++) {
            MemorySegment h = file.mem(c + HeapLayout.CHUNK.byteSize());
            if (c + h.get(JAVA_LONG, c + HeapLayout.CHUNK_BYTES) == bumpEnd && bump >= c + chunkHeader) {
                checkedBumpEnd = bumpEnd;
                return;
            }
            c = h.get(JAVA_LONG, c + HeapLayout.NEXT_CHUNK);
        }
        throw file.corrupt(base + BUMP_END, "segment=" + index + " has a damaged bump region (bumpPos=" + bump
                + ", bumpEnd=" + bumpEnd + "); 'colossal compact " + file.path + "' rebuilds it");
    }

    /**
     * Blocks of all the segment's chunks, less their headers: what used and free blocks add up to
     * (after another process gave chunks back, possibly more: see {@link #countedHead}).
     */
    long heapBlocks() {
        MemorySegment m = file.mem();
        long head = Mem.getLong(m, base + CHUNKS);
        if (head == countedHead) {
            return countedBlocks;
        }
        long blocks = 0;
        for (long chunk = head; chunk != 0; chunk = m.get(JAVA_LONG, chunk + HeapLayout.NEXT_CHUNK)) {
            m = file.mem(chunk + HeapLayout.CHUNK.byteSize());
            blocks += (m.get(JAVA_LONG, chunk + HeapLayout.CHUNK_BYTES) - chunkHeader) >>> shift;
        }
        countedHead = head;
        countedBlocks = blocks;
        return blocks;
    }

    /**
     * Takes a run of at least {@code blocks} from class {@code c}, looking at most {@code tries} runs:
     * the first of exactly that size, else the smallest that fits. Splitting a bigger run when an
     * exact one lay a few links further leaves a remainder that only smaller entries can use: with
     * values of two sizes in one class, half the file became such remainders.
     */
    private long takeFit(int c, long blocks, int tries) {
        MemorySegment m = file.mem();
        long link = base + SegmentLayout.freeHead(c);
        long bestLink = 0;
        long best = 0;
        long bestBlocks = Long.MAX_VALUE;
        for (int t = 0; t < tries; t++) {
            long run = Mem.getLong(m, link);
            if (run == 0) {
                break;
            }
            m = checkRun(run);
            long runBlocks = m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS);
            if (runBlocks >= blocks && runBlocks < bestBlocks && HeapLayout.leavesRun(runBlocks << shift, blocks << shift)) {
                bestLink = link;
                best = run;
                bestBlocks = runBlocks;
                if (runBlocks == blocks) {
                    break;
                }
            }
            link = run + HeapLayout.RUN_NEXT;
        }
        if (best == 0) {
            return 0;
        }
        Mem.setLong(m, bestLink, m.get(JAVA_LONG, best + HeapLayout.RUN_NEXT));
        CrashPoints.reach(CrashPoints.RUN_UNLINKED);
        if (bestBlocks > blocks) {
            free(best + (blocks << shift), bestBlocks - blocks);
        }
        return best;
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

    /**
     * Gives {@code blocks} at {@code pos} back: to the bump region if they end where it starts, else
     * to a free list, joined with the free run that follows them if there is one (a split's
     * remainder, usually, which together with its entry makes the bigger run whole again). A crash
     * half way leaves lists that the repair rebuilds from the table.
     */
    void free(long pos, long blocks) {
        if (blocks << shift < HeapLayout.MIN_BYTES) {
            // No allocation leaves such a hole; if one appears anyway, leaking it is safe, while a
            // run header written into it would overwrite the entry after it.
            return;
        }
        long end = pos + (blocks << shift);
        MemorySegment header = file.mem();
        if (end == Mem.getLong(header, base + BUMP_POS)) {
            Mem.setLong(header, base + BUMP_POS, pos);
            return;
        }
        if (blocks < HeapLayout.MAX_RUN_BLOCKS / 2) {
            blocks += unlinkRunAt(end);
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

    /**
     * Unlinks the free run at {@code pos} if there is one, found within a few links of its list's
     * head (where a run freed lately is), and returns its blocks; else 0. Bytes that only look like
     * a run (an entry's checksum equal to the magic, a chunk header) are never in a list, so they
     * are never taken.
     */
    private long unlinkRunAt(long pos) {
        if (pos + HeapLayout.RUN.byteSize() > file.allocEnd()) {
            return 0;
        }
        MemorySegment m = file.mem(pos + HeapLayout.RUN.byteSize());
        int blocks = m.get(JAVA_INT, pos + HeapLayout.RUN_BLOCKS);
        if (m.get(JAVA_INT, pos + HeapLayout.RUN_MAGIC) != HeapLayout.FREE_MAGIC || blocks <= 0) {
            return 0;
        }
        long link = base + SegmentLayout.freeHead(SegmentLayout.freeClassOf(blocks));
        for (int t = 0; t < JOIN_TRIES; t++) {
            long run = Mem.getLong(m, link);
            if (run == 0) {
                return 0;
            }
            if (run == pos) {
                Mem.setLong(m, link, m.get(JAVA_LONG, pos + HeapLayout.RUN_NEXT));
                return blocks;
            }
            m = checkRun(run);
            link = run + HeapLayout.RUN_NEXT;
        }
        return 0;
    }

    /**
     * Bytes of a chunk of at least {@code bytes} that holds an entry of {@code bytesNeeded}
     * and leaves no hole behind it too small for a free run.
     */
    private long chunkFor(long bytesNeeded, long bytes) {
        long size = FileHeaderLayout.alignExtent(Math.max(bytes, bytesNeeded + chunkHeader));
        return HeapLayout.leavesRun(size - chunkHeader, bytesNeeded) ? size : size + FileHeaderLayout.EXTENT_ALIGN;
    }

    /**
     * Gives the chunks at {@code chunks} (ascending, holding nothing live; the newest only if the
     * bump region was reset) to the file's spare extents, for any segment to take: what a {@code
     * clear} or {@code compact} frees then serves every segment, not only this one.
     */
    void giveBack(long[] chunks) {
        countedHead = -1;
        long link = base + CHUNKS;
        for (long c = Mem.getLong(file.mem(), link); c != 0 && chunks.length > 0; c = Mem.getLong(file.mem(), link)) {
            if (Arrays.binarySearch(chunks, c) >= 0) {
                file.spares.give(base, link, c);
            } else {
                link = c + HeapLayout.NEXT_CHUNK;
            }
        }
    }

    private void newChunk(long bytesNeeded) throws IOException {
        MemorySegment m = file.mem();
        long next = SegmentLayout.nextChunkBytes(Mem.getLong(m, base + USED_BLOCKS) << shift);
        // The least chunk that holds the entry, which is what a removed entry had to itself: on a
        // full disk, a spare extent of that size is what there may be.
        long least = chunkFor(bytesNeeded, 0);
        long pos = extents.take(least, chunkFor(bytesNeeded, next));
        m = file.mem();
        long size = Mem.getLong(m, base + PENDING_BYTES);   // a spare extent may be larger
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
