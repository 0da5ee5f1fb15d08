package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The file's spare extents: heap chunks that segments gave back whole (a {@code clear}, a
 * {@code compact} or a repair found nothing live in them), tables they replaced, and space that
 * belongs to nobody, kept for any segment to take before the file grows. A segment's free runs serve only that
 * segment; without this list, on a full disk, after a FLUSHALL only the keys of the segments
 * that had held entries fitted again.
 *
 * <pre>
 * file header                 lowest offset first; neighbours merged when given back
 *  spareExtents ──► extent ──► extent ──► ... ──► 0
 *
 * spare extent (its first 16 bytes, the shape of a chunk header):
 *  0            8            16
 *  +------------+------------+----------------------------+
 *  | next spare | bytes      | rest of the extent (stale) |
 *  | (0 = last) | (64-mult.) |                            |
 *  +------------+------------+----------------------------+
 * </pre>
 *
 * <p>Guarded by the file lock, as {@code allocEnd} is. Every change is published by one write
 * and ordered so that a writer dying half way leaks an extent at worst: it never leaves one in the
 * list that a segment also owns. An extent handed out is recorded as the taking segment's {@code
 * pendingExtent} before the lock is let go, and a chunk given back leaves its segment's list under
 * the lock too, so that, holding the lock, every extent below {@code allocEnd} is in a segment, in
 * the list or leaked. That is what lets {@link #rebuild} (run by {@code compact}) put every leaked
 * byte back into the list without stopping the segments.
 */
final class SpareExtents {

    static final long NEXT = 0;
    static final long BYTES = 8;
    /** The smallest spare extent, and the unit of every size and offset in the list. */
    private static final long ALIGN = FileHeaderLayout.EXTENT_ALIGN;
    private static final long HEAD = FileHeaderLayout.SPARE_EXTENTS_OFFSET;

    /**
     * Of the takes that {@link #noneFrom} turns away, one in this many walks the list all the
     * same: it finds what other processes gave back meanwhile, which this one does not hear of.
     */
    private static final int WALK_ANYWAY_EVERY = 64;

    private final MapFile file;
    /**
     * Extents of this many bytes or more are not in the list, as far as this process knows: the
     * last walk found none (so a take asking that much grows the file without walking), and this
     * process gave back nothing that large since. A growing file takes a chunk for every few new entries, and
     * walking a list of tables the segments outgrew, none large enough, cost each take a cache
     * miss per extent (a fifth of the server's CPU in an XADD of 100-byte entries). Read and set
     * without the file lock, as the list's head is in {@link #take}: a stale value only makes a take
     * grow the file where a spare extent would have done, or walk for nothing.
     */
    private volatile long noneFrom = Long.MAX_VALUE;
    /** Takes turned away by {@link #noneFrom}; racy increments only shift when the next walk comes. */
    private int turnedAway;

    SpareExtents(MapFile file) {
        this.file = file;
    }

    /**
     * Takes an extent of at least {@code minBytes} for segment {@code segmentBase}: the lowest that
     * fits, cut to {@code wantBytes} if the rest can stay spare, else whole. The extent is recorded
     * as the segment's pending extent before the file lock is released, and comes back zeroed.
     * Under the segment's lock.
     *
     * @return the extent's position; its size is then the segment's {@code pendingBytes}; 0 if no
     *     spare extent is large enough
     */
    long take(long minBytes, long wantBytes, long segmentBase) {
        if (Mem.getLongAcquire(file.mem(), HEAD) == 0) {
            return 0;   // the common case, without the lock; a racing give is only missed this once
        }
        if (minBytes >= noneFrom && ++turnedAway % WALK_ANYWAY_EVERY != 0) {
            return 0;
        }
        long[] taken = file.underFileLock(m -> {
            long link = HEAD;
            long end = 0;
            long largest = 0;
            for (long p = Mem.getLong(m, link); p != 0; p = Mem.getLong(m, link)) {
                long bytes = check(m, p, link, end);
                largest = Math.max(largest, bytes);
                if (bytes >= minBytes) {
                    long cut = bytes - wantBytes >= ALIGN ? wantBytes : bytes;
                    if (cut < bytes) {
                        m.set(JAVA_LONG, p + cut + NEXT, Mem.getLong(m, p + NEXT));
                        m.set(JAVA_LONG, p + cut + BYTES, bytes - cut);
                        Mem.setLongRelease(m, link, p + cut);
                    } else {
                        Mem.setLongRelease(m, link, Mem.getLong(m, p + NEXT));
                    }
                    // Out of the list first: a death before the next two writes leaks it, one after
                    // them leaves it pending for the segment's repair to adopt.
                    CrashPoints.reach(CrashPoints.SPARE_TAKEN);
                    Mem.setLong(m, segmentBase + SegmentLayout.PENDING_BYTES, cut);
                    Mem.setLongRelease(m, segmentBase + SegmentLayout.PENDING_EXTENT, p);
                    return new long[] {p, cut};
                }
                end = p + bytes;
                link = p + NEXT;
            }
            noneFrom = largest + 1; // under the file lock: no give ran since the walk
            return null;
        });
        if (taken == null) {
            return 0;
        }
        file.mem(taken[0] + taken[1]).asSlice(taken[0], taken[1]).fill((byte) 0);
        return taken[0];
    }

    /**
     * Gives the chunk at {@code chunk} of segment {@code segmentBase} back: unlinks it from the
     * segment's chunk list at {@code linkAt} (the list head or the previous chunk's next link) and
     * adds it to the spare list, merged with spare neighbours. Under the segment's lock.
     */
    void give(long segmentBase, long linkAt, long chunk) {
        file.underFileLock(m -> {
            long bytes = Mem.getLong(m, chunk + HeapLayout.CHUNK_BYTES);
            Mem.setLongRelease(m, linkAt, Mem.getLong(m, chunk + HeapLayout.NEXT_CHUNK));
            CrashPoints.reach(CrashPoints.CHUNK_GIVEN);
            insert(m, chunk, FileHeaderLayout.alignExtent(bytes));
            return null;
        });
    }

    /**
     * Gives the table segment {@code segmentBase} has just replaced, named by its {@code
     * retiredTable} word, to the spare list: for that segment's next rebuild of its table, or any
     * segment's chunk. The word is cleared first, under the lock: a death between the two leaks
     * the table, and never leaves it both retired (which the repair adopts) and spare.
     */
    void giveRetired(long segmentBase, long table, long bytes) {
        file.underFileLock(m -> {
            Mem.setLongRelease(m, segmentBase + SegmentLayout.RETIRED_TABLE, 0);
            CrashPoints.reach(CrashPoints.TABLE_RETIRED);
            insert(m, table, bytes);
            return null;
        });
    }

    private void insert(MemorySegment m, long pos, long bytes) {
        // No extent reaches noneFrom but, maybe, this one or what it merges into: the bound moves
        // past that at the end (a damaged list found on the way leaves it unknown)
        long before = noneFrom;
        noneFrom = Long.MAX_VALUE;
        long link = HEAD;
        long prev = 0;
        long prevBytes = 0;
        long next;
        while ((next = Mem.getLong(m, link)) != 0 && next < pos) {
            prevBytes = check(m, next, link, prev + prevBytes);
            prev = next;
            link = next + NEXT;
        }
        long nextBytes = next == 0 ? 0 : check(m, next, link, prev + prevBytes);
        if (prev + prevBytes > pos || next != 0 && pos + bytes > next) {
            throw file.corrupt(pos, "a chunk given back overlaps a spare extent (at 0x"
                    + Long.toHexString(pos + bytes > next && next != 0 ? next : prev) + "); 'colossal compact "
                    + file.path + "' rebuilds the spare list");
        }
        boolean joinsNext = next != 0 && pos + bytes == next;
        if (prev != 0 && prev + prevBytes == pos) {
            if (joinsNext) {
                // Dropping the next extent first: a death between the two writes leaks it.
                Mem.setLongRelease(m, prev + NEXT, Mem.getLong(m, next + NEXT));
            }
            long merged = prevBytes + bytes + (joinsNext ? nextBytes : 0);
            Mem.setLongRelease(m, prev + BYTES, merged);
            noneFrom = Math.max(before, merged + 1);
            return;
        }
        long merged = bytes + (joinsNext ? nextBytes : 0);
        m.set(JAVA_LONG, pos + NEXT, joinsNext ? Mem.getLong(m, next + NEXT) : next);
        m.set(JAVA_LONG, pos + BYTES, merged);
        Mem.setLongRelease(m, link, pos);
        noneFrom = Math.max(before, merged + 1);
    }

    /**
     * Replaces the list by every extent below {@code allocEnd} that no segment owns: the extents
     * given back, and those leaked by writers that died between taking an extent and recording it.
     * Holds the file lock, so no extent changes hands meanwhile (see the class comment); a segment
     * whose structure is damaged leaves the list as it was.
     *
     * @return the bytes in the list afterwards
     * @throws MapCorruptedException if a segment's table word or chunk list is damaged
     */
    long rebuild() {
        return file.underFileLock(m -> {
            List<long[]> gaps = unowned(m);
            // Emptied first, so that a death while the new list is written leaks it all instead of
            // leaving old links into extents the new headers changed.
            Mem.setLongRelease(m, HEAD, 0);
            long head = 0;
            long total = 0;
            for (int g = gaps.size() - 1; g >= 0; g--) {
                long pos = gaps.get(g)[0];
                m.set(JAVA_LONG, pos + NEXT, head);
                m.set(JAVA_LONG, pos + BYTES, gaps.get(g)[1]);
                head = pos;
                total += gaps.get(g)[1];
            }
            Mem.setLongRelease(m, HEAD, head);
            noneFrom = Long.MAX_VALUE;
            return total;
        });
    }

    /** Every extent below {@code allocEnd} that no segment owns, ascending. Under the file lock. */
    private List<long[]> unowned(MemorySegment m) {
        List<long[]> owned = new ArrayList<>();
        for (int i = 0; i < file.segmentCount; i++) {
            long[] ex = SegmentScan.extentsOf(file, i);
            for (int e = 0; e < ex.length; e += 2) {
                owned.add(new long[] {ex[e], ex[e + 1]});
            }
        }
        owned.sort((a, b) -> Long.compare(a[0], b[0]));
        List<long[]> gaps = new ArrayList<>();
        long cursor = FileHeaderLayout.directoryEnd(file.segmentCount);
        long allocEnd = Mem.getLongAcquire(m, FileHeaderLayout.ALLOC_END_OFFSET);
        for (long[] o : owned) {
            addGap(gaps, cursor, o[0]);
            cursor = Math.max(cursor, o[0] + o[1]);
        }
        addGap(gaps, cursor, allocEnd);
        return gaps;
    }

    /**
     * The bytes that no segment owns and the list does not hold either: what writers that died
     * between taking an extent and recording it leaked, and what {@link #rebuild} would take back.
     * A damaged list counts as empty.
     *
     * @throws MapCorruptedException if a segment's table word or chunk list is damaged
     */
    long leaked() {
        return file.underFileLock(m -> {
            long unowned = 0;
            for (long[] gap : unowned(m)) {
                unowned += gap[1];
            }
            long listed;
            try {
                listed = bytes();
            } catch (MapCorruptedException damaged) {
                listed = 0;
            }
            return Math.max(0, unowned - listed);
        });
    }

    private static void addGap(List<long[]> gaps, long from, long to) {
        // Extents start and end on the alignment; anything else is a damaged word, and a gap
        // built on it is left out rather than risked.
        if (to - from >= ALIGN && from % ALIGN == 0 && to % ALIGN == 0) {
            gaps.add(new long[] {from, to - from});
        }
    }

    /**
     * The spare extents as pairs (position, bytes), for verify and inspect; read without the lock,
     * so on a live file a snapshot that may be stale.
     *
     * @throws MapCorruptedException if the list is damaged
     */
    long[] list() {
        MemorySegment m = file.mem(file.allocEnd());
        long[] out = new long[0];
        long link = HEAD;
        long end = 0;
        for (long p = Mem.getLongAcquire(m, link); p != 0; p = Mem.getLongAcquire(m, link)) {
            long bytes = check(m, p, link, end);
            out = java.util.Arrays.copyOf(out, out.length + 2);
            out[out.length - 2] = p;
            out[out.length - 1] = bytes;
            end = p + bytes;
            link = p + NEXT;
        }
        return out;
    }

    /**
     * The bytes of all spare extents, read as {@link #list} reads them.
     *
     * @throws MapCorruptedException if the list is damaged
     */
    long bytes() {
        long[] spares = list();
        long bytes = 0;
        for (int i = 1; i < spares.length; i += 2) {
            bytes += spares[i];
        }
        return bytes;
    }

    /**
     * Checks the spare extent at {@code p}, linked from {@code linkAt}, and returns its size. The list
     * is kept in ascending order, so requiring each extent to start past the end of the one before
     * ({@code after}) also rules out a cycle.
     */
    private long check(MemorySegment m, long p, long linkAt, long after) {
        long allocEnd = Mem.getLongAcquire(m, FileHeaderLayout.ALLOC_END_OFFSET);
        if (p < FileHeaderLayout.directoryEnd(file.segmentCount) || p % ALIGN != 0 || p >= allocEnd || p < after) {
            throw damaged(linkAt, "a link to 0x" + Long.toHexString(p));
        }
        long bytes = Mem.getLong(m, p + BYTES);
        if (bytes < ALIGN || bytes % ALIGN != 0 || bytes > allocEnd - p) {
            throw damaged(p + BYTES, "an extent at 0x" + Long.toHexString(p) + " of bytes=" + bytes);
        }
        return bytes;
    }

    private MapCorruptedException damaged(long offset, String what) {
        return file.corrupt(offset, "the list of spare extents holds " + what + "; 'colossal compact " + file.path
                + "' rebuilds it");
    }
}
