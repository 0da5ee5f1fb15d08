package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/** Structural checks the tests run on a map that nobody is writing. */
final class MapChecks {

    private MapChecks() {
    }

    /**
     * Every segment holds together, every checksum and tag is right, the maintained counters
     * match a recount, and heap blocks are exactly used + free (nothing leaked, nothing shared).
     */
    static void assertSound(BytesMap map) {
        for (int i = 0; i < map.segmentCount(); i++) {
            Segment s = map.segment(i);
            s.lockForRead();
            try {
                SegmentScan scan = SegmentScan.deep(map.file, i);
                long free = scan.freeBlocks();
                assertEquals(List.of(), scan.problems(), "segment=" + i);
                assertEquals(scan.liveEntries(), s.liveEntries(), "live entries of segment=" + i);
                assertEquals(scan.heapBlocks(), scan.usedBlocks() + free, "heap = used + free in segment=" + i);
            } finally {
                s.unlockForRead();
            }
        }
    }
}
