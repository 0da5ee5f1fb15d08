package dev.colossal.map;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * Compacts a whole map file as {@link BytesMap#compact} does, one segment at a time under its
 * lock, and says how much free space that took back. What {@code colossal compact} runs; the map
 * may be in use meanwhile.
 */
public final class MapCompactor {

    private MapCompactor() {
    }

    /**
     * The outcome of a compaction.
     *
     * @param file        the map file
     * @param entries     live entries
     * @param freeBytes   bytes free afterwards: on segments' free lists, in their bump regions, and
     *                    in the spare extents any segment takes from
     * @param takenBack   how much more that is than before: the {@code leakedBytes}, and on a map
     *                    that never crashed the headers of chunks emptied into spare extents (which
     *                    count whole there) and tables given back
     * @param leakedBytes how much of {@code takenBack} no free list, segment or spare extent held
     *                    before: space leaked by writers that died (in a segment, or taken from the
     *                    file and not yet recorded), or lost to damaged free lists. 0 unless a
     *                    process died writing or the file was damaged.
     */
    public record Result(Path file, long entries, long freeBytes, long takenBack, long leakedBytes) {
    }

    /**
     * Compacts the map in {@code file}.
     *
     * @param file     the map file; it is not created if absent
     * @param progress receives the percentage done after each segment (may be null)
     * @return what compaction changed
     * @throws MapFormatException    if the header is damaged, foreign, newer or the file truncated
     * @throws MapCorruptedException if a segment's table or chunks are damaged: the segments before
     *                               it are compacted, it and those after it are left as they were
     * @throws IOException           if the file cannot be read
     */
    public static Result compact(Path file, IntConsumer progress) throws IOException {
        Objects.requireNonNull(file, "file");
        long entries = 0;
        long freeBefore = 0;
        long freeAfter = 0;
        try (BytesMap map = BytesMap.openExisting(file)) {
            int shift = map.file.blockShift;
            long spareBefore = spareBytes(map);
            long leaked = leakedFromFile(map);
            int n = map.segmentCount();
            for (int i = 0; i < n; i++) {
                Segment s = map.segment(i);
                s.lock();
                try {
                    SegmentScan before = SegmentScan.of(map.file, i);
                    long free = before.freeBlocks();
                    freeBefore += free << shift;
                    // What a segment that never lost a writer always adds up to (see MapVerifier).
                    leaked += (Math.max(0, before.heapBlocks() - before.usedBlocks() - free) << shift)
                            + before.adoptableBytes();
                    s.evacuate();
                    SegmentScan after = SegmentScan.of(map.file, i);
                    entries += after.liveEntries();
                    freeAfter += after.freeBlocks() << shift;
                } finally {
                    s.unlock();
                }
                if (progress != null) {
                    progress.accept((int) ((i + 1) * 100L / n));
                }
            }
            long spareAfter = map.rebuildSpares();
            long takenBack = Math.max(0, freeAfter + spareAfter - freeBefore - spareBefore);
            return new Result(file, entries, freeAfter + spareAfter, takenBack, Math.min(leaked, takenBack));
        }
    }

    /** Bytes of the file that no segment owns nor the spare list holds; 0 if that cannot be told. */
    private static long leakedFromFile(BytesMap map) {
        map.file.pin(0);
        try {
            return map.file.spares.leaked();
        } catch (MapCorruptedException damaged) {
            return 0; // a damaged segment: the compaction stops at it and says so
        } finally {
            map.file.unpin(0);
        }
    }

    /** The spare list's bytes; a damaged list counts as none (the compaction rebuilds it). */
    private static long spareBytes(BytesMap map) {
        try {
            return map.file.spares.bytes();
        } catch (MapCorruptedException damaged) {
            return 0;
        }
    }
}
