package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged files: flipped bytes in values, keys, lengths, slots and anywhere at random are
 * reported by reads as {@link MapCorruptedException} naming file and offset (or refused at open),
 * never a JVM crash, never a wrong value.
 */
class CorruptionTest {

    private static final int ENTRIES = 2000;

    @TempDir
    Path dir;

    private static String key(int i) {
        return "key-" + i;
    }

    private static String value(int i) {
        return "value-" + i + "-" + "v".repeat(i % 90);
    }

    private Path pristine() throws IOException {
        Path file = dir.resolve("pristine.map");
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING,
                MapOptions.DEFAULTS.withSegments(8))) {
            for (int i = 0; i < ENTRIES; i++) {
                map.put(key(i), value(i));
            }
            for (int i = 0; i < ENTRIES; i += 7) {
                map.remove(key(i));
            }
        }
        return file;
    }

    /** Position of the entry of {@code key} in the file. */
    private static long entryOf(Path file, String key) throws IOException {
        try (BytesMap map = BytesMap.open(file)) {
            MemorySegment k = MemorySegment.ofArray(key.getBytes(UTF_8));
            long h = BytesMap.hash(k);
            Segment s = map.segmentFor(h);
            s.lockForRead();
            try {
                return s.entryAt(s.find(k, h));
            } finally {
                s.unlockForRead();
            }
        }
    }

    /** The decoded header of the entry at {@code e} (see {@link EntryLayout#header}). */
    private static long headerOf(Path file, long e) throws IOException {
        try (BytesMap map = BytesMap.open(file)) {
            return EntryLayout.header(map.file.mem(), e);
        }
    }

    private static void flip(Path file, long offset) throws IOException {
        flip(file, offset, 0x10);
    }

    private static void flip(Path file, long offset, int bits) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ bits));
            ch.write(b.rewind(), offset);
        }
    }

    private void assertReadReports(Path file, String key, long expectedOffset) throws IOException {
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            MapCorruptedException e = assertThrows(MapCorruptedException.class, () -> map.get(key));
            assertEquals(file, e.file());
            assertEquals(expectedOffset, e.offset());
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("offset=" + expectedOffset),
                    e.getMessage());
            assertEquals(value(3), map.get(key(3)), "other entries still read");
        }
    }

    @Test
    void aDamagedFreeListHeadIsReportedAndRepairedNotCrashedOn() throws IOException {
        Path file = pristine();
        long head = nonZeroWord(file, SegmentLayout.freeHead(0), SegmentLayout.freeHead(SegmentLayout.FREE_CLASSES));
        flip(file, head, 0x03);   // off the block grid: read as an int there, FFM refused the access
        MapVerifier.Result damaged = MapVerifier.verify(file, null);
        assertTrue(damaged.isRepairable(), damaged.problems().toString());
        assertTrue(damaged.problems().get(0).contains("free-list link"), damaged.problems().toString());
        assertEquals(ENTRIES - (ENTRIES + 6) / 7, MapInspector.inspect(file).entries());
        Path copy = Files.copy(file, dir.resolve("repaired.map"));
        assertEquals(0, MapRepairer.repair(copy, null).dropped().length);
        assertTrue(MapVerifier.verify(copy, null).isSound(), "repair rebuilds the free lists too");
        MapCompactor.compact(file, null);
        assertTrue(MapVerifier.verify(file, null).isSound());
        assertAllEntriesRead(file);
    }

    @Test
    void aDamagedBumpRegionIsReportedAndRefusedBeforeAPutWritesOverEntries() throws IOException {
        Path file = pristine();
        long bumpEnd = nonZeroWord(file, SegmentLayout.BUMP_END, SegmentLayout.BUMP_END + 8);
        addTo(file, bumpEnd, 4096);   // past its chunk, over whatever lies there
        MapVerifier.Result damaged = MapVerifier.verify(file, null);
        assertTrue(damaged.isRepairable(), damaged.problems().toString());
        assertTrue(damaged.problems().get(0).contains("bump region"), damaged.problems().toString());
        int refused = 0;
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            for (int i = 0; i < 3000; i++) {
                try {
                    map.put("new-" + i, value(i));
                } catch (MapCorruptedException e) {
                    assertTrue(e.getMessage().contains("colossal compact"), e.getMessage());
                    refused++;
                }
            }
        }
        assertTrue(refused > 0);
        assertAllEntriesRead(file);
        MapCompactor.compact(file, null);
        assertTrue(MapVerifier.verify(file, null).isSound());
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            for (int i = 0; i < 3000; i++) {
                map.put("new-" + i, value(i));
            }
        }
        assertAllEntriesRead(file);
    }

    private static void addTo(Path file, long offset, long delta) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ch.read(b, offset);
            ch.write(b.putLong(0, b.getLong(0) + delta).rewind(), offset);
        }
    }

    /** The file offset of the first non-zero word among each segment's words in {@code [from, to)}. */
    private static long nonZeroWord(Path file, long from, long to) throws IOException {
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < map.segmentCount(); i++) {
                for (long at = FileHeaderLayout.segmentOffset(i) + from; at < FileHeaderLayout.segmentOffset(i) + to; at += 8) {
                    if (map.file.mem().get(java.lang.foreign.ValueLayout.JAVA_LONG, at) != 0) {
                        return at;
                    }
                }
            }
        }
        throw new AssertionError("no segment has a non-zero word there");
    }

    private static void assertAllEntriesRead(Path file) throws IOException {
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            for (int i = 0; i < ENTRIES; i++) {
                assertEquals(i % 7 == 0 ? null : value(i), map.get(key(i)), "key " + i);
            }
        }
    }

    @Test
    void verifyShouldReportSlotsThatWereZeroedAsLostEntries() throws IOException {
        Path file = pristine();
        long e = entryOf(file, key(11));
        long h = BytesMap.hash(MemorySegment.ofArray(key(11).getBytes(UTF_8)));
        long slot = SlotLayout.slot(h, e, 3);
        byte[] content = Files.readAllBytes(file);
        ByteBuffer le = ByteBuffer.wrap(content).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long at = -1;
        for (int i = 0; i + 8 <= content.length; i += 8) {
            if (le.getLong(i) == slot) {
                at = i;
            }
        }
        assertTrue(at > 0, "the slot of " + key(11));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8), at); // zeroed: an empty slot, as a zeroed page of the table reads
        }
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            assertEquals(null, map.get(key(11)), "a lost slot reads as absent: only verify can tell");
        }
        MapVerifier.Result r = MapVerifier.verify(file, null);
        assertTrue(r.problems().stream().anyMatch(p -> p.contains("the slots of 1 entries are lost")), r.toString());
        assertTrue(!r.isRepairable(), "compact would only recount: " + r);
    }

    @Test
    void dropDamagedShouldRemoveJustTheDamagedEntriesAndLeaveASoundMap() throws IOException {
        Path file = pristine();
        long value = entryOf(file, key(5));
        long keyByte = entryOf(file, key(6));
        long length = entryOf(file, key(8));
        long meta = entryOf(file, key(10));
        flip(file, EntryLayout.valueOffset(value, headerOf(file, value)) + 3);
        flip(file, EntryLayout.keyOffset(keyByte, headerOf(file, keyByte)) + 1);
        flip(file, length + EntryLayout.LENGTHS + EntryLayout.varintBytes(EntryLayout.keyLength(headerOf(file, length))));
        flip(file, meta + EntryLayout.META, 0x40);
        assertEquals(4, MapVerifier.verify(file, null).problems().size(), "verify sees the four");
        try (BytesMap map = BytesMap.open(file)) {
            long[] dropped = map.dropDamaged();
            java.util.Arrays.sort(dropped);
            long[] expected = {value, keyByte, length, meta};
            java.util.Arrays.sort(expected);
            assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(dropped));
            assertEquals(0, map.dropDamaged().length, "nothing left to drop");
        }
        assertTrue(MapVerifier.verify(file, null).isSound(), "sound after the salvage");
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            int live = 0;
            for (int i = 0; i < ENTRIES; i++) {
                boolean gone = i % 7 == 0 || i == 5 || i == 6 || i == 8 || i == 10;
                assertEquals(gone ? null : value(i), map.get(key(i)), key(i));
                live += gone ? 0 : 1;
            }
            assertEquals(live, map.size());
            for (int i = 0; i < 100; i++) {
                map.put("after-" + i, value(i)); // the freed space takes new entries
            }
            assertEquals(value(99), map.get("after-99"));
        }
        assertTrue(MapVerifier.verify(file, null).isSound());
    }

    /**
     * A copy of a file being written ({@code cp} of a map in use) holds table slots from one moment
     * and entries from another: slots past the heap's end, slots naming another key's entry. A
     * repair stopped at the first such slot and kept nothing of the segment (an operator's torn
     * copy: 0 of ~2.6M entries); it now drops those slots and keeps every other entry.
     */
    @Test
    void repairDropsSlotsFromAnotherMomentAndKeepsTheRestOfTheirSegment() throws IOException {
        Path file = pristine();
        long past = slotOffsetOf(file, key(5));
        addTo(file, past, 1L << 30);                                 // 8 GiB on: past the heap's end
        long other = slotOffsetOf(file, key(6));
        long seventh = slotOffsetOf(file, key(13));
        setWord(file, other, wordAt(file, seventh));                 // names key-13's entry, not its own
        assertFalse(MapVerifier.verify(file, null).isSound());
        MapRepairer.Result r = MapRepairer.repair(file, null);
        assertEquals(2, r.dropped().length, java.util.Arrays.toString(r.dropped()));
        assertTrue(MapVerifier.verify(file, null).isSound(), "sound after the repair");
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            int live = 0;
            for (int i = 0; i < ENTRIES; i++) {
                boolean gone = i % 7 == 0 || i == 5 || i == 6;
                assertEquals(gone ? null : value(i), map.get(key(i)), key(i));
                live += gone ? 0 : 1;
            }
            assertEquals(live, map.size(), "key-13 once, though two slots named it");
            assertEquals(live, map.keySet().stream().distinct().count());
        }
    }

    /** The file offset of the table slot that holds {@code key}. */
    private static long slotOffsetOf(Path file, String key) throws IOException {
        try (BytesMap map = BytesMap.open(file)) {
            MemorySegment k = MemorySegment.ofArray(key.getBytes(UTF_8));
            long h = BytesMap.hash(k);
            int index = SlotLayout.segmentOf(h, map.segmentCount() - 1);
            long table = map.file.mem().get(java.lang.foreign.ValueLayout.JAVA_LONG,
                    FileHeaderLayout.segmentOffset(index) + SegmentLayout.TABLE);
            Segment s = map.segmentFor(h);
            s.lockForRead();
            try {
                return SlotLayout.slotOffset(SlotLayout.tablePosition(table), s.find(k, h));
            } finally {
                s.unlockForRead();
            }
        }
    }

    private static long wordAt(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ch.read(b, offset);
            return b.getLong(0);
        }
    }

    private static void setWord(Path file, long offset, long word) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, word), offset);
        }
    }

    @Test
    void aScanThatIsToldOfDamageStepsOverTheDamagedEntriesAlone() throws IOException {
        Path file = pristine();
        long value = entryOf(file, key(5));
        long keyByte = entryOf(file, key(6));
        flip(file, EntryLayout.valueOffset(value, headerOf(file, value)) + 3);
        flip(file, EntryLayout.keyOffset(keyByte, headerOf(file, keyByte)) + 1);
        try (BytesMap map = BytesMap.open(file)) {
            java.util.Set<String> seen = new java.util.HashSet<>();
            List<Long> damaged = new ArrayList<>();
            long cursor = 0;
            do {
                cursor = map.scan(cursor, 10, (k, v) -> true, (k, v) -> seen.add(new String(k, UTF_8)),
                        e -> damaged.add(e.offset()));
            } while (cursor != 0);
            java.util.Collections.sort(damaged);
            assertEquals(java.util.stream.Stream.of(value, keyByte).sorted().toList(), damaged);
            assertEquals(map.size() - 2, seen.size(), "every other entry");
            assertFalse(seen.contains(key(5)));
            assertThrows(MapCorruptedException.class, () -> {
                for (long c = map.scan(0, 10, (k, v) -> true, (k, v) -> { }); c != 0; ) {
                    c = map.scan(c, 10, (k, v) -> true, (k, v) -> { });
                }
            }, "without the callback a scan still stops at damage");
        }
    }

    @Test
    void shouldReportAFlippedValueByteWithFileAndOffset() throws IOException {
        Path file = pristine();
        long e = entryOf(file, key(5));
        flip(file, EntryLayout.valueOffset(e, headerOf(file, e)) + 3);
        assertReadReports(file, key(5), e);
    }

    @Test
    void shouldReportAFlippedKeyByteInsteadOfReadingAbsent() throws IOException {
        Path file = pristine();
        long e = entryOf(file, key(6));
        flip(file, EntryLayout.keyOffset(e, headerOf(file, e)) + 1);
        assertReadReports(file, key(6), e);
    }

    @Test
    void shouldReportAFlippedLength() throws IOException {
        Path file = pristine();
        long e = entryOf(file, key(8));
        flip(file, e + EntryLayout.LENGTHS + EntryLayout.varintBytes(EntryLayout.keyLength(headerOf(file, e))));
        assertReadReports(file, key(8), e);
    }

    @Test
    void shouldReportAMalformedHeader() throws IOException {
        Path file = pristine();
        long notShortest = entryOf(file, key(9));
        long unknownMeta = entryOf(file, key(10));
        // The key length's continuation bit: the value length's byte joins it, no longer a shortest varint.
        flip(file, notShortest + EntryLayout.LENGTHS, 0x80);
        flip(file, unknownMeta + EntryLayout.META, 0x40);
        assertReadReports(file, key(9), notShortest);
        assertReadReports(file, key(10), unknownMeta);
    }

    @Test
    void shouldReportAFlippedByteInValuesSummedInSeveralChunks() throws IOException {
        // Entries longer than Crc32c.CHUNK are summed in several chunks.
        Path file = dir.resolve("large.map");
        String justOver = "j".repeat(Crc32c.CHUNK);
        String large = "L".repeat(300_000);
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            map.put(key(3), value(3));
            map.put("just-over", justOver);
            map.put("large", large);
            assertEquals(large, map.get("large"));
        }
        long over = entryOf(file, "just-over");
        long big = entryOf(file, "large");
        flip(file, EntryLayout.valueOffset(over, headerOf(file, over)) + Crc32c.CHUNK - 1);
        flip(file, EntryLayout.valueOffset(big, headerOf(file, big)) + 200_000);
        assertReadReports(file, "just-over", over);
        assertReadReports(file, "large", big);
        MapVerifier.Result r = MapVerifier.verify(file, null);
        assertEquals(2, r.problems().size(), r.problems().toString());
        assertTrue(r.problems().get(0).contains("checksum") && r.problems().get(1).contains("checksum"), r.problems().toString());
    }

    @Test
    void shouldLeaveDamageToVerifyWhenReadsDoNotCheckChecksums() throws IOException {
        Path file = pristine();
        long e = entryOf(file, key(5));
        flip(file, EntryLayout.valueOffset(e, headerOf(file, e)) + 3);
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING,
                MapOptions.DEFAULTS.withVerifyReads(false))) {
            String read = map.get(key(5));
            assertEquals(value(5).length(), read.length());
            assertTrue(!read.equals(value(5)), "the flipped byte is read as it is: " + read);
        }
        MapVerifier.Result r = MapVerifier.verify(file, null);
        assertEquals(1, r.problems().size(), r.problems().toString());
        assertTrue(r.problems().get(0).contains("offset=" + e), r.problems().toString());
        assertReadReports(file, key(5), e);
    }

    @Test
    void shouldRefuseAFlippedMagicAtOpen() throws IOException {
        Path file = pristine();
        flip(file, FileHeaderLayout.MAGIC_OFFSET + 2);
        assertTrue(assertThrows(MapFormatException.class, () -> BytesMap.open(file)).getMessage().contains("not a Colossal map"));
    }

    @Test
    void shouldNeverCrashNorReturnAWrongValueWhateverByteIsFlipped() throws IOException {
        Path pristine = pristine();
        long size = Files.size(pristine);
        long allocEnd;
        try (BytesMap map = BytesMap.open(pristine)) {
            allocEnd = map.file.allocEnd();
        }
        Random rnd = new Random(99);
        int reported = 0;
        for (int trial = 0; trial < 120; trial++) {
            Path file = dir.resolve("flipped.map");
            Files.copy(pristine, file, StandardCopyOption.REPLACE_EXISTING);
            long at = trial < 20 ? rnd.nextLong(FileHeaderLayout.directoryEnd(8)) : rnd.nextLong(allocEnd);
            flip(file, at);
            String where = "trial=" + trial + " flipped offset=" + at + " of " + size;
            try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
                for (int i = 0; i < ENTRIES; i++) {
                    try {
                        String v = map.get(key(i));
                        if (v != null && !v.equals(value(i))) {
                            fail(where + ": wrong value for " + key(i) + ": " + v);
                        }
                    } catch (MapCorruptedException expected) {
                        assertEquals(file, expected.file());
                        reported++;
                    }
                }
                try {
                    map.put("new", "entry");
                    map.remove(key(1));
                    map.entrySet().forEach(e -> { });
                } catch (MapCorruptedException expected) {
                    reported++;
                }
            } catch (MapFormatException refused) {
                reported++;
            } catch (RuntimeException other) {
                fail(where + ": unexpected " + other, other);
            }
        }
        assertTrue(reported > 10, "damage was reported: " + reported);
    }
}
