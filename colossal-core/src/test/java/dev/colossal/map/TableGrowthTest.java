package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment's table grown past 2^24 slots, where format 4 began to hash every key again (a random
 * read of every entry: hours for a billion entries on disk): format 5 still places every slot by
 * its tag. {@link Segment#growTable} forces the size, so a table of ~21M slots (168 MB) is reached
 * with tens of thousands of entries instead of 17 million.
 */
class TableGrowthTest {

    /** A table size past format 4's 2^24-slot limit and within format 5's 2^26. */
    static final long PAST_OLD_LIMIT = SlotLayout.slotsFor(14_000_000);

    @TempDir
    Path dir;

    @Test
    void shouldGrowATablePast2To24SlotsWithoutReadingAnEntry() throws IOException {
        assertTrue(PAST_OLD_LIMIT > 1L << 24 && PAST_OLD_LIMIT <= 1L << SlotLayout.TAG_BITS, "slots=" + PAST_OLD_LIMIT);
        Path file = dir.resolve("grown.map");
        int n = 60_000;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(8);
            MemorySegment value = arena.allocate(8);
            try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(1))) {
                for (long i = 0; i < n; i++) {
                    put(map, i, key, value);
                }
                // Every entry's header is made unreadable first: a growth that read one would throw.
                List<Long> entries = markEveryEntry(map.file, 0x80);
                assertEquals(n, entries.size());
                map.segmentFor(0).growTable(PAST_OLD_LIMIT);
                entries.forEach(e -> EntryLayout.setMeta(map.file.mem(), e, 0));
                assertEquals(PAST_OLD_LIMIT, SegmentScan.of(map.file, 0).tableSlots());
                assertPresent(map, 0, n, key, value);
                for (long i = n; i < 2 * n; i++) {
                    put(map, i, key, value);
                    if (i % 3 == 0) {
                        assertTrue(map.remove(key(key, i - n)));
                    }
                }
            }
            MapVerifier.Result verified = MapVerifier.verify(file, null);
            assertTrue(verified.isSound(), verified.problems().toString());
            MapInspector.Summary summary = MapInspector.inspect(file);
            assertEquals(PAST_OLD_LIMIT, summary.tableSlots());
            assertEquals(2L * n - n / 3, summary.entries());
            try (BytesMap map = BytesMap.open(file)) {
                assertEquals(2L * n - n / 3, map.size());
                for (long i = 0; i < 2 * n; i++) {
                    boolean removed = i < n && (i + n) % 3 == 0;
                    assertEquals(removed ? -1 : 8, map.get(key(key, i), value), "key=" + i);
                    if (!removed) {
                        assertEquals(i * 31, value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "key=" + i);
                    }
                }
            }
        }
    }

    @Test
    void shouldRecoverFromAKillDuringAGrowthPast2To24Slots() throws Exception {
        Path stderr = dir.resolve("grow.err");
        for (int site : new int[] {CrashPoints.REHASH_HALF_COPIED, CrashPoints.REHASH_PUBLISHED}) {
            String run = "grow" + site;
            Path file = dir.resolve(run + ".map");
            Path acks = dir.resolve(run + ".acks");
            // Sized for its ops: the only rehash after building the first table is the growth.
            int at = site == CrashPoints.REHASH_PUBLISHED ? 2 : 1;
            Process p = Children.start(stderr, acks,
                    List.of("-Dcolossal.map.crashSite=" + site, "-Dcolossal.map.crashAt=" + at),
                    "grow", file.toString(), run, "3000");
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), run + " finished");
            assertEquals(77, p.exitValue(), () -> run + " crashed at its crash point: "
                    + MultiProcessTest.readQuietly(stderr));
            assertEquals(2999, Acks.last(acks), run + ": every op was acknowledged before the growth");
            try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
                MapChecks.assertSound(map.bytes());
                Acks.check(map, run, Acks.last(acks));
                long slots = SegmentScan.of(map.bytes().file, 0).tableSlots();
                if (site == CrashPoints.REHASH_PUBLISHED) {
                    assertEquals(PAST_OLD_LIMIT, slots, run + ": the grown table was published");
                } else {
                    assertTrue(slots < 1L << 24, run + ": the old table stayed, slots=" + slots);
                }
                map.put("after", "crash");
                assertEquals("crash", map.get("after"));
            }
            MapVerifier.Result verified = MapVerifier.verify(file, null);
            assertTrue(verified.isSound(), run + ": " + verified.problems());
            assertEquals(List.of(), verified.notes(), run + ": the half-built or the old table went back to the heap");
        }
        assertEquals("", MultiProcessTest.readQuietly(stderr));
    }

    /** Sets {@code meta} on every entry the table of segment 0 names; returns their positions. */
    private static List<Long> markEveryEntry(MapFile file, int meta) {
        MemorySegment m = file.mem();
        long table = Mem.getLong(m, FileHeaderLayout.segmentOffset(0) + SegmentLayout.TABLE);
        long tpos = SlotLayout.tablePosition(table);
        List<Long> entries = new java.util.ArrayList<>();
        for (long i = 0; i < SlotLayout.slots(table); i++) {
            long s = Mem.getLong(m, SlotLayout.slotOffset(tpos, i));
            if (SlotLayout.isEntry(s)) {
                long e = SlotLayout.position(s, file.blockShift);
                EntryLayout.setMeta(m, e, meta);
                entries.add(e);
            }
        }
        return entries;
    }

    private static MemorySegment key(MemorySegment key, long i) {
        key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
        return key;
    }

    private static void put(BytesMap map, long i, MemorySegment key, MemorySegment value) {
        value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i * 31);
        map.put(key(key, i), value);
    }

    private static void assertPresent(BytesMap map, long from, long to, MemorySegment key, MemorySegment value) {
        for (long i = from; i < to; i++) {
            assertEquals(8, map.get(key(key, i), value), "key=" + i);
            assertEquals(i * 31, value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "key=" + i);
        }
    }
}
