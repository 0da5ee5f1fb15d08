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
 *
 * <p>In a segment that takes runs of more than {@link SegmentLayout#EXACT_CLASSES} blocks and whose
 * lists grew long enough for a walk to pass {@link #WALK_BEFORE_INDEX} runs, this process keeps a
 * {@link FreeRunIndex} of the lists: the smallest fit of a whole class instead of
 * the best of its first {@link #FIT_TRIES} runs, and joins with both neighbours of a freed run
 * without a walk. It is a hint, never the truth: dropped when the version at lock time is not the
 * one this process left (another process or open wrote), on a rebuild, when chunks are given back
 * and when an operation fails half way; each run it names is checked in the file ({@link
 * #matches}) before it is written through, and a mismatch drops it and falls back to the walks,
 * which report damage as before. The file's format and the order of its writes are unchanged.
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
    /** Runs one fill of the index walks at most: beyond, the segment goes on walking its lists. */
    private static final int MAX_INDEXED_RUNS = 1 << 16;
    /** Heap operations between a drop of the index and its next fill, at least. */
    private static final long MIN_OPS_BEFORE_FILL = 64;

    /**
     * This process's copy of the segment's free lists (see {@link FreeRunIndex}), or null;
     * set to null by the map's {@link FitBudget} (from any thread) when it takes the memory back.
     */
    private volatile FreeRunIndex fit;
    /** Runs of the index this process last filled, or -1 once it knows the index is gone. */
    private long fitRuns = -1;
    /** Heap operations to wait before the index may be filled again: a fill walks every list. */
    private long opsBeforeFill;
    /** The segment's version this process left at its last unlock: any other at the next lock means another wrote. */
    private long leftVersion = -1;
    /** Blocks a split must leave at least, unless it leaves none: room for a run header. */
    private final long minRest;
    /**
     * Runs a walk of a list may look at before the segment asks for an index: while its lists are
     * short (one key's value of 1 KiB overwritten over and over, whose freed run is the next one's
     * fit), a walk is one look, cheaper than keeping an index up to date (about a tenth of such a
     * SET's server CPU).
     */
    private static final int WALK_BEFORE_INDEX = 4;
    /** Whether this process saw a walk of this segment's lists longer than {@link #WALK_BEFORE_INDEX}. */
    private boolean walkedFar;

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
        this.minRest = (HeapLayout.MIN_BYTES + blockBytes - 1) >>> shift;
    }

    /**
     * Called as a write begins, with the segment's version before it: anything but the version
     * this process left means another process (or another open of the file) wrote, so the index
     * no longer matches the lists.
     */
    void lockedAt(long version) {
        if (version != leftVersion) {
            forget();
        }
    }

    /** Called as a write ends, with the version it leaves. */
    void unlockedAt(long version) {
        leftVersion = version;
    }

    /**
     * Drops the index, when the lists change beneath it (a rebuild, chunks given back, a failure
     * half way through an operation) or it is found wrong; it is filled again only after as many
     * heap operations as its fill walked runs, so a segment whose index keeps being dropped (two
     * writing processes in turn) pays about one run header more a put, not a walk of every list.
     */
    void forget() {
        FreeRunIndex f = fit;
        if (f != null) {
            fit = null;
            file.fitBudget.release(f);
        }
        paceFill();
    }

    private void paceFill() {
        if (fitRuns >= 0) {
            opsBeforeFill = Math.max(MIN_OPS_BEFORE_FILL, fitRuns);
            fitRuns = -1;
        }
    }

    /** The index if this process holds one that matches the lists, else null. */
    private FreeRunIndex index() {
        FreeRunIndex f = fit;
        if (f == null || f.evicted) {
            paceFill();   // the budget took it for a hotter segment's
            return null;
        }
        file.fitBudget.touch(f);
        return f;
    }

    /** Runs the index holds, or -1 while this process has none for the segment (for tests). */
    int indexedRuns() {
        FreeRunIndex f = fit;
        return f == null || f.evicted ? -1 : f.size();
    }

    /** Lets go of an index the budget took back (any thread). */
    private void evicted(FreeRunIndex index) {
        if (fit == index) {
            fit = null;
        }
    }

    /**
     * The index, filled by one walk of every list if there is none and its time has come; null if
     * it cannot be had (budget, too many runs, a run on a wrong list). Only a put of more than
     * {@link SegmentLayout#EXACT_CLASSES} blocks asks for it, once walks went far: a segment of
     * small entries finds its fits in one look at an exact list, and one of short lists in a look
     * or two, and neither pays for an index.
     */
    private FreeRunIndex indexForFit() {
        FreeRunIndex f = index();
        if (f != null || opsBeforeFill > 0) {
            return f;
        }
        f = file.fitBudget.open(this::evicted, shift);
        if (f == null) {
            opsBeforeFill = MIN_OPS_BEFORE_FILL;
            return null;
        }
        long walked = 0;
        MemorySegment m = file.mem();
        for (int c = 0; c < SegmentLayout.FREE_CLASSES; c++) {
            long link = base + SegmentLayout.freeHead(c);
            for (long run = Mem.getLong(m, link); run != 0; run = Mem.getLong(m, link)) {
                m = checkRun(run);
                long blocks = m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS);
                if (++walked > MAX_INDEXED_RUNS || SegmentLayout.freeClassOf(blocks) != c || !f.add(run, blocks, link)) {
                    file.fitBudget.release(f);
                    opsBeforeFill = Math.max(MIN_OPS_BEFORE_FILL, walked);
                    return null;
                }
                link = run + HeapLayout.RUN_NEXT;
            }
        }
        fit = f;
        fitRuns = walked;
        return f;
    }

    /**
     * Whether run {@code id} of the index is in the file as the index has it: a free run of its
     * blocks, pointed at by its link, which is its class's list head or the next-word of another
     * free run of that class. A run in a list always passes; anything else dropping the
     * index instead of being written through keeps a stale index from damaging the file.
     */
    private boolean matches(FreeRunIndex f, int id) {
        long run = f.pos(id);
        long link = f.link(id);
        long blocks = f.blocks(id);
        if (run + HeapLayout.RUN.byteSize() > file.allocEnd() || link + Long.BYTES > file.allocEnd()) {
            return false;
        }
        MemorySegment m = file.mem(Math.max(run + HeapLayout.RUN.byteSize(), link + Long.BYTES));
        if (m.get(JAVA_INT, run + HeapLayout.RUN_MAGIC) != HeapLayout.FREE_MAGIC
                || m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS) != blocks || Mem.getLong(m, link) != run) {
            return false;
        }
        int c = SegmentLayout.freeClassOf(blocks);
        if (link == base + SegmentLayout.freeHead(c)) {
            return true;
        }
        // The run the link is in, read from the line just read rather than looked up in the index:
        // a lookup in this process's heap cost as much as the miss it saves (a third of a put).
        long before = link - HeapLayout.RUN_NEXT;
        return before >= FileHeaderLayout.directoryEnd(file.segmentCount)
                && m.get(JAVA_INT, before + HeapLayout.RUN_MAGIC) == HeapLayout.FREE_MAGIC
                && SegmentLayout.freeClassOf(m.get(JAVA_INT, before + HeapLayout.RUN_BLOCKS)) == c;
    }

    /**
     * Takes the smallest run of the index that fits {@code blocks} and has at most {@code most}
     * blocks, writing the file as {@link #takeFit} does; 0 if none fits, -1 if the index proved
     * wrong (it is then dropped).
     */
    private long takeIndexed(FreeRunIndex f, long blocks, long most) {
        int id = f.fit(blocks, minRest, most);
        if (id < 0) {
            return 0;
        }
        if (!matches(f, id)) {
            forget();
            return -1;
        }
        long run = f.pos(id);
        long link = f.link(id);
        long runBlocks = f.blocks(id);
        MemorySegment m = file.mem(run + HeapLayout.RUN.byteSize());
        long next = m.get(JAVA_LONG, run + HeapLayout.RUN_NEXT);
        Mem.setLong(m, link, next);
        unlinked(f, id, next, link);
        CrashPoints.reach(CrashPoints.RUN_UNLINKED);
        if (runBlocks > blocks) {
            free(run + (blocks << shift), runBlocks - blocks);
        }
        return run;
    }

    /** Unlinks run {@code id} of the index, which {@link #matches} the file, from its list. */
    private void unlinkIndexed(FreeRunIndex f, int id) {
        long run = f.pos(id);
        long link = f.link(id);
        long next = Mem.getLong(file.mem(run + HeapLayout.RUN.byteSize()), run + HeapLayout.RUN_NEXT);
        Mem.setLong(file.mem(link + Long.BYTES), link, next);
        unlinked(f, id, next, link);
    }

    /** Updates the index for run {@code id} unlinked from the file: {@code next} now hangs from {@code link}. */
    private static void unlinked(FreeRunIndex f, int id, long next, long link) {
        f.remove(id);
        if (next != 0) {
            f.relink(next, link);
        }
    }

    /** Updates the index for a run a walk of its list unlinked. */
    private void unlinkedByWalk(FreeRunIndex f, long run, long next, long link) {
        int id = f.find(run);
        if (id < 0) {
            forget();
        } else {
            unlinked(f, id, next, link);
        }
    }

    /**
     * Unlinks the free run that ends at {@code pos}, if the index knows one, and returns where it
     * begins; else {@code pos}. Only the index knows that run: without one, such neighbours wait
     * for a rebuild.
     */
    private long joinBefore(FreeRunIndex f, long pos) {
        int left = f.findEndingAt(pos);
        if (left < 0 || f.blocks(left) >= HeapLayout.MAX_RUN_BLOCKS / 2) {
            return pos;
        }
        if (!matches(f, left)) {
            forget();
            return pos;
        }
        long from = f.pos(left);
        unlinkIndexed(f, left);
        return from;
    }

    /** Adds the run just pushed at {@code pos} to the index, in front of {@code first}. */
    private void pushed(FreeRunIndex f, long pos, long blocks, long head, long first) {
        if (!f.add(pos, blocks, head)) {
            forget();
        } else if (first != 0) {
            f.relink(first, pos + HeapLayout.RUN_NEXT);
        }
    }

    /**
     * Unlinks the free run at {@code pos} of {@code blocks} through the index and returns its
     * blocks, 0 if the index says it is no run of a list, or -1 if the index proved wrong (and is
     * dropped).
     */
    private long unlinkThroughIndex(FreeRunIndex f, long pos, long blocks) {
        int id = f.find(pos);
        if (id < 0) {
            return 0;   // the index holds every run of the lists: this one only looks like a run
        }
        if (f.blocks(id) == blocks && matches(f, id)) {
            unlinkIndexed(f, id);
            return blocks;
        }
        forget();
        return -1;
    }

    /** Most blocks of a run of non-exact class {@code c}. */
    private static long classEnd(int c) {
        return c == SegmentLayout.FREE_CLASSES - 1 ? Long.MAX_VALUE : (1L << (c - SegmentLayout.EXACT_CLASSES + 6)) - 1;
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
        try {
            return allocateRun(blocks);
        } catch (IOException | RuntimeException | Error e) {
            forget();   // the index may hold a step the file did not take
            throw e;
        }
    }

    /**
     * Takes {@code blocks} for an entry that replaces one of as many blocks: the run at the head of
     * their class's list if it has exactly that many, which is the run the previous such replace in
     * the segment gave back ({@link #freeReplaced}); 0 if that run is not there, and the caller
     * then takes them as {@link #allocate} does. A key overwritten with values of one size then
     * moves between two runs, each found in one look: the fit search, the split and the joins of
     * the general path were ~15% of the server CPU of an HSET into a big hash and of an LPUSH.
     */
    long takeReplacing(long blocks) {
        try {
            return takeHeadRun(blocks);
        } catch (RuntimeException | Error e) {
            forget();
            throw e;
        }
    }

    /** Unlinks the head run of the free list of {@code blocks}' class if it has exactly {@code blocks}; else 0. */
    private long takeHeadRun(long blocks) {
        MemorySegment m = file.mem();
        long link = base + SegmentLayout.freeHead(SegmentLayout.freeClassOf(blocks));
        long run = Mem.getLong(m, link);
        if (run == 0) {
            return 0;
        }
        m = checkRun(run);
        if (m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS) != blocks) {
            return 0;
        }
        if (opsBeforeFill > 0) {
            opsBeforeFill--;
        }
        unlink(m, run, link);
        return run;
    }

    /** Takes the free run {@code run} out of its list, whose word at {@code link} names it. */
    private void unlink(MemorySegment m, long run, long link) {
        long next = m.get(JAVA_LONG, run + HeapLayout.RUN_NEXT);
        Mem.setLong(m, link, next);
        FreeRunIndex f = index();
        if (f != null) {
            unlinkedByWalk(f, run, next, link);
        }
        CrashPoints.reach(CrashPoints.RUN_UNLINKED);
    }

    private long allocateRun(long blocks) throws IOException {
        if (opsBeforeFill > 0) {
            opsBeforeFill--;
        }
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
        boolean small = SegmentLayout.isExactClass(exact);
        FreeRunIndex f = small ? null : walkedFar ? indexForFit() : index();
        // The index's answer is final (it holds every run of the class); -1 says it was dropped.
        long run = f == null ? -1 : takeIndexed(f, blocks, classEnd(exact));
        if (run < 0) {
            run = takeFit(exact, blocks, small ? 1 : tries);
        }
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
            if (!SegmentLayout.isExactClass(c) && (f = index()) != null) {
                run = takeIndexed(f, blocks, Long.MAX_VALUE);   // the smallest of all larger runs
                if (run >= 0) {
                    return run;
                }
            }
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
        int t = 0;
        for (; t < tries; t++) {
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
        walkedFar |= tries > 1 && t > WALK_BEFORE_INDEX;
        if (best == 0) {
            return 0;
        }
        unlink(m, best, bestLink);
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
     * remainder, usually, which together with its entry makes the bigger run whole again) and,
     * with an index, with the free run that ends where they begin. A crash half way leaves lists
     * that the repair rebuilds from the table (a run unlinked for a join and not yet pushed is
     * leaked until then, as before).
     */
    void free(long pos, long blocks) {
        try {
            freeRun(pos, blocks, true);
        } catch (RuntimeException | Error e) {
            forget();
            throw e;
        }
    }

    /**
     * Gives back the {@code blocks} at {@code pos} of an entry just replaced by one that
     * {@link #takeReplacing} placed: pushed whole on its class's list, not joined with free
     * neighbours, so that the next replace of that size takes it back in one look. Only then: runs
     * left apart after every replace at a size that happened to match cost values of mixed sizes
     * ~7% more CPU a put in longer fit searches. Free neighbours
     * left apart from it are joined when the segment, about to grow while free runs are most of its
     * heap, merges them ({@code Segment.defragmentBeforeGrowth}).
     */
    void freeReplaced(long pos, long blocks) {
        try {
            freeRun(pos, blocks, false);
        } catch (RuntimeException | Error e) {
            forget();
            throw e;
        }
    }

    private void freeRun(long pos, long blocks, boolean join) {
        if (opsBeforeFill > 0) {
            opsBeforeFill--;
        }
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
        if (join && blocks < HeapLayout.MAX_RUN_BLOCKS / 2) {
            blocks += unlinkRunAt(end);
            FreeRunIndex f = index();
            if (f != null) {
                long from = joinBefore(f, pos);
                blocks += (pos - from) >>> shift;
                pos = from;
            }
        }
        while (blocks > 0) {
            // Pieces of a huge hole leave no single block behind either.
            long n = blocks <= HeapLayout.MAX_RUN_BLOCKS ? blocks : Math.min(HeapLayout.MAX_RUN_BLOCKS, blocks - 2);
            MemorySegment m = file.mem(pos + HeapLayout.RUN.byteSize());
            int c = SegmentLayout.freeClassOf(n);
            long head = base + SegmentLayout.freeHead(c);
            long first = Mem.getLong(m, head);
            m.set(JAVA_INT, pos + HeapLayout.RUN_MAGIC, HeapLayout.FREE_MAGIC);
            m.set(JAVA_INT, pos + HeapLayout.RUN_BLOCKS, (int) n);
            m.set(JAVA_LONG, pos + HeapLayout.RUN_NEXT, first);
            CrashPoints.reach(CrashPoints.RUN_WRITTEN);
            Mem.setLong(m, head, pos);
            FreeRunIndex f = index();
            if (f != null) {
                pushed(f, pos, n, head, first);
            }
            pos += n << shift;
            blocks -= n;
        }
    }

    /**
     * Unlinks the free run at {@code pos} if there is one, found through the index or else within a
     * few links of its list's head (where a run freed lately is), and returns its blocks; else 0. Bytes that only look like
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
        FreeRunIndex f = index();
        long joined = f == null ? -1 : unlinkThroughIndex(f, pos, blocks);
        if (joined >= 0) {
            return joined;
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
            walkedFar |= t >= WALK_BEFORE_INDEX;
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
        forget();
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
