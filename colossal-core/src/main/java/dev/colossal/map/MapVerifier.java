package dev.colossal.map;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.IntConsumer;

/**
 * Checks a whole map file: the header, every segment's table, chunks and free lists, every
 * entry's checksum and slot tag, and that no two extents overlap. What {@code colossal verify}
 * runs. Segments are checked one at a time under their lock, so the map may be in use meanwhile; a
 * lock left by a dead process is taken over and its segment repaired first, as any user would. Who
 * owns each extent (the segments, the spare list) is read under the file lock, at one moment.
 */
public final class MapVerifier {

    private MapVerifier() {
    }

    /**
     * The outcome of a verification.
     *
     * @param file     the map file
     * @param entries  entries checked
     * @param problems damage found, each naming the offset where the bad bytes lie; empty if the
     *                 file is sound
     * @param notes    findings that are not damage, such as space leaked by a crash
     * @param repairable how many of the problems lie in state that {@link BytesMap#compact} rebuilds
     *                 (free lists, counters); the others are damaged data that only a copy restores
     */
    public record Result(Path file, long entries, List<String> problems, List<String> notes, int repairable) {

        /**
         * Copies the lists.
         *
         * @param file     the map file
         * @param entries  entries checked
         * @param problems damage found
         * @param notes    findings that are not damage
         * @param repairable how many problems compact repairs
         */
        public Result {
            problems = List.copyOf(problems);
            notes = List.copyOf(notes);
            if (repairable < 0 || repairable > problems.size()) {
                throw new IllegalArgumentException("repairable=" + repairable + " must be 0.." + problems.size());
            }
        }

        /**
         * A result none of whose problems compact repairs.
         *
         * @param file     the map file
         * @param entries  entries checked
         * @param problems damage found
         * @param notes    findings that are not damage
         */
        public Result(Path file, long entries, List<String> problems, List<String> notes) {
            this(file, entries, problems, notes, 0);
        }

        /**
         * Tells whether {@link BytesMap#compact} repairs every problem found.
         *
         * @return true if there are problems and compact repairs them all
         */
        public boolean isRepairable() {
            return !problems.isEmpty() && repairable == problems.size();
        }

        /**
         * Tells whether no damage was found.
         *
         * @return true if {@link #problems} is empty
         */
        public boolean isSound() {
            return problems.isEmpty();
        }
    }

    /**
     * Verifies the map in {@code file}.
     *
     * @param file     the map file; it is not created if absent
     * @param progress receives the percentage done after each segment (may be null)
     * @return what was found
     * @throws MapFormatException if the header is damaged, foreign, newer or the file truncated
     * @throws IOException        if the file cannot be read
     */
    public static Result verify(Path file, IntConsumer progress) throws IOException {
        Objects.requireNonNull(file, "file");
        List<String> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        long entries = 0;
        int repairable = 0;
        boolean allScanned = true;
        try (BytesMap map = BytesMap.openForTools(file)) {
            int n = map.segmentCount();
            for (int i = 0; i < n; i++) {
                Segment s = map.segment(i);
                int segment = i;
                try {
                    Findings f = s.readConsistently(() -> examine(map, s, segment, file));
                    problems.addAll(f.problems);
                    notes.addAll(f.notes);
                    repairable += f.repairable;
                    entries += f.entries;
                } catch (MapCorruptedException damaged) {
                    // Not the exception's message: that sends the reader to verify, which is running.
                    problems.add("offset=" + damaged.offset() + ": " + damaged.what() + "; the rest of segment=" + i
                            + " cannot be checked");
                    allScanned = false;
                } catch (IllegalStateException unreadable) {
                    if (!map.file.readOnly) {
                        throw unreadable;
                    }
                    // read-only: a dead writer's segment, or one writers never left alone
                    problems.add(unreadable.getMessage());
                    allScanned = false;
                }
                if (progress != null) {
                    progress.accept((int) ((i + 1) * 100L / n));
                }
            }
            Ownership o = map.file.readOnly ? ownershipSeenAlike(map, file) : map.file.underFileLock(m -> ownership(map, file));
            problems.addAll(o.problems);
            repairable += o.repairable;
            // A segment that could not be scanned owns extents nobody counted: no note about those.
            if (o.unowned != 0 && allScanned && o.complete) {
                notes.add(o.unowned + " bytes of the file belong to no segment and are not spare (taken by a writer "
                        + "that died before it could record them; 'colossal compact " + file + "' takes them back)");
            }
        }
        return new Result(file, entries, problems, notes, repairable);
    }

    /** What the owners of the file's extents (segments, the spare list) say together: overlaps and bytes no one owns. */
    private record Ownership(List<String> problems, int repairable, long unowned, boolean complete) {}

    /**
     * {@link #ownership} for a read-only open, which cannot hold the file lock: extents may change
     * hands between the reads of their owners, so a finding stands only if each of a few reads makes
     * it (damage stays where it is; a live writer's moves do not).
     */
    private static Ownership ownershipSeenAlike(BytesMap map, Path file) {
        Ownership o = null;
        for (int read = 0; read < 5; read++) {
            o = ownership(map, file);
            if (o.problems.isEmpty() && o.unowned == 0) {
                break;
            }
        }
        return o;
    }

    /**
     * Reads who owns each extent and checks that no two overlap and that every byte below the
     * allocation end is owned. Under the file lock no extent changes hands (taking one from the file
     * or the spare list and giving one back all hold it), so the owners are read at one moment; the
     * segments' scans before it read each at its own, and a live writer's moves between them showed
     * as overlaps and leaks that were not there.
     */
    private static Ownership ownership(BytesMap map, Path file) {
        List<String> problems = new ArrayList<>();
        List<long[]> extents = new ArrayList<>();
        int repairable = 0;
        boolean complete = true;
        int n = map.segmentCount();
        for (int i = 0; i < n; i++) {
            long[] ex;
            try {
                ex = SegmentScan.extentsOf(map.file, i);
            } catch (MapCorruptedException damaged) {
                complete = false;   // the segment's scan reported it
                continue;
            }
            // An extent moving between a segment's words (pending to chunk, table to retired) may be
            // read in both: the same start, one extent.
            Map<Long, Long> own = new TreeMap<>();
            for (int e = 0; e < ex.length; e += 2) {
                if (ex[e + 1] > 0 && ex[e] != 0) {
                    own.merge(ex[e], ex[e + 1], Math::max);
                }
            }
            int segment = i;
            own.forEach((start, bytes) -> extents.add(new long[] {start, bytes, segment}));
        }
        try {
            long[] spares = map.file.spares.list();
            for (int e = 0; e < spares.length; e += 2) {
                extents.add(new long[] {spares[e], spares[e + 1], SPARE});
            }
        } catch (MapCorruptedException damaged) {
            problems.add("offset=" + damaged.offset() + ": " + damaged.what());
            repairable++;
            complete = false;
        }
        extents.sort(Comparator.comparingLong(e -> e[0]));
        long owned = 0;
        for (long[] e : extents) {
            owned += e[1];
        }
        for (int i = 1; i < extents.size(); i++) {
            long[] a = extents.get(i - 1);
            long[] b = extents.get(i);
            if (a[0] + a[1] > b[0]) {
                problems.add("offset=" + b[0] + ": " + owner(b) + " has an extent that overlaps " + owner(a)
                        + "'s extent at offset=" + a[0] + " (" + a[1] + " bytes)");
                if (a[2] == SPARE || b[2] == SPARE) {
                    repairable++;   // compact rebuilds the spare list from what the segments own
                }
            }
        }
        long unowned = map.file.allocEnd() - FileHeaderLayout.directoryEnd(n) - owned;
        return new Ownership(problems, repairable, unowned, complete);
    }

    /** The owner of the spare extents in the list of extents, where segments have their index. */
    private static final long SPARE = -1;

    private static String owner(long[] extent) {
        return extent[2] == SPARE ? "the spare list" : "segment=" + extent[2];
    }

    /** What one segment's scan found; made anew by each attempt of a read-only scan. */
    private record Findings(List<String> problems, List<String> notes, int repairable, long entries) {}

    private static Findings examine(BytesMap map, Segment s, int i, Path file) {
        SegmentScan scan = SegmentScan.deep(map.file, i);
        long free = scan.freeBlocks();   // walking the free lists adds their problems
        List<String> problems = new ArrayList<>(scan.problems());
        List<String> notes = new ArrayList<>();
        long leaked = scan.heapBlocks() - scan.usedBlocks() - free;
        int repairable = scan.repairableProblems();
        if (leaked < 0 && problems.isEmpty()) {
            repairable++;
            // More free than the heap has room for: free space counted twice, never a crash's leak.
            problems.add("segment=" + i + ": its free lists and bump region hold " + (-leaked) + " blocks more than"
                    + " its heap has free: a damaged free run or header word (compact rebuilds them)");
        } else if (leaked > 0) {
            notes.add("segment=" + i + ": " + leaked + " blocks not on any free list (left by a crash; "
                    + "'colossal compact " + file + "' takes them back)");
        }
        if (scan.liveEntries() < s.liveEntries()) {
            // The segment was read consistently (a dead writer's segment repaired first, when
            // writable), so the count is exact: slots are gone, zeroed or overwritten, and their
            // keys read as absent.
            problems.add("segment=" + i + ": its entry counter says " + s.liveEntries() + " but its table holds "
                    + scan.liveEntries() + ": the slots of " + (s.liveEntries() - scan.liveEntries())
                    + " entries are lost (a damaged table), their keys read as absent");
        } else if (scan.liveEntries() > s.liveEntries()) {
            notes.add("segment=" + i + ": entry counter says " + s.liveEntries() + ", table holds "
                    + scan.liveEntries() + " ('colossal compact " + file + "' recounts)");
        }
        return new Findings(problems, notes, repairable, scan.liveEntries());
    }
}
