package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BytesMapTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void anExistingFileKeepsItsLayoutAndSaysWhichItIs() throws IOException {
        Path file = dir.resolve("layout.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(16).withChecksums(false))) {
            map.put(b("a"), b("1"));
        }
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4))) {
            assertEquals(16, map.options().segments());
            assertFalse(map.options().checksums());
            assertArrayEquals(b("1"), map.get(b("a")));
        }
    }

    @Test
    void shouldPutGetRemoveAndReopen() throws IOException {
        Path file = dir.resolve("m.map");
        try (BytesMap map = BytesMap.open(file)) {
            assertNull(map.get(b("a")));
            map.put(b("a"), b("1"));
            map.put(b("b"), b("2"));
            map.put(b("a"), b("3"));
            assertArrayEquals(b("3"), map.get(b("a")));
            assertEquals(2, map.size());
            assertTrue(map.remove(b("b")));
            assertFalse(map.remove(b("b")));
            assertEquals(1, map.size());
        }
        try (BytesMap map = BytesMap.open(file)) {
            assertArrayEquals(b("3"), map.get(b("a")));
            assertNull(map.get(b("b")));
            assertEquals(1, map.size());
        }
    }

    @Test
    void theChangeStampMovesOnEveryWriteOfAnyOpenAndOnNoRead() throws IOException {
        Path file = dir.resolve("stamp.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4));
             BytesMap other = BytesMap.open(file)) {
            long s0 = map.changeStamp();
            map.get(b("a"));
            assertEquals(s0, map.changeStamp(), "a read is no change");
            map.put(b("a"), b("1"));
            long s1 = map.changeStamp();
            assertTrue(s1 != s0, "a put");
            map.get(b("a"));
            map.remove(b("missing"));
            long s2 = map.changeStamp();
            other.remove(b("a"));
            assertTrue(map.changeStamp() != s2, "a remove through another open of the file");
            long s3 = map.changeStamp();
            map.clear();
            assertTrue(map.changeStamp() != s3, "a clear");
            assertEquals(map.changeStamp(), other.changeStamp(), "both opens read the file's counters");
        }
    }

    @Test
    void aReadOnlyDestinationIsTheCallersMistakeNotADamagedMap() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("ro.map"));
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            map.put(b("k"), b("value"));
            java.lang.foreign.MemorySegment key = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, b("k"));
            java.lang.foreign.MemorySegment readOnly = arena.allocate(200).asReadOnly();
            for (var call : List.<org.junit.jupiter.api.function.Executable>of(
                    () -> map.get(key, readOnly),
                    () -> map.get(key, readOnly, 0),
                    () -> map.getAll(new java.lang.foreign.MemorySegment[] {key}, 0, new long[1], readOnly, 0))) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
                assertTrue(e.getMessage().contains("dst is read-only"), e.getMessage());
            }
            assertArrayEquals(b("value"), map.get(b("k")));
        }
    }

    @Test
    void aTtlTooLongForMillisecondsNeverExpiresAndANullTtlIsNamed() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("ttl.map"))) {
            java.lang.foreign.MemorySegment key = java.lang.foreign.MemorySegment.ofArray(b("k"));
            map.put(key, java.lang.foreign.MemorySegment.ofArray(b("v")), java.time.Duration.ofSeconds(Long.MAX_VALUE));
            assertEquals(Long.MAX_VALUE, map.expiresAt(key));
            assertArrayEquals(b("v"), map.get(b("k")));
            NullPointerException e = assertThrows(NullPointerException.class,
                    () -> map.put(key, java.lang.foreign.MemorySegment.ofArray(b("w")), null));
            assertTrue(e.getMessage().contains("ttl is null"), e.getMessage());
            assertArrayEquals(b("v"), map.get(b("k")), "nothing changed");
            java.lang.foreign.MemorySegment nullKey = null;
            for (org.junit.jupiter.api.function.Executable call : List.<org.junit.jupiter.api.function.Executable>of(
                    () -> map.put(nullKey, key), () -> map.get(nullKey, key.asSlice(0)), () -> map.remove(nullKey),
                    () -> map.containsKey(nullKey), () -> map.expire(nullKey, java.time.Duration.ofSeconds(1)))) {
                assertEquals("key", assertThrows(NullPointerException.class, call).getMessage(), "the argument is named");
            }
        }
    }

    @Test
    void aPositiveTtlUnderAMillisecondStillStoresAnEntryThatCanBeRead() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("short.map"))) {
            long[] now = {1_000_000};
            map.file.clock = () -> now[0];
            java.lang.foreign.MemorySegment key = java.lang.foreign.MemorySegment.ofArray(b("k"));
            java.lang.foreign.MemorySegment value = java.lang.foreign.MemorySegment.ofArray(b("v"));
            // Cut down to whole milliseconds it was 0: the entry expired as it was written.
            map.put(key, value, java.time.Duration.ofNanos(999_999));
            assertEquals(now[0] + 1, map.expiresAt(key));
            assertArrayEquals(b("v"), map.get(b("k")));
            map.put(key, value, java.time.Duration.ofNanos(1_500_000));
            assertEquals(now[0] + 2, map.expiresAt(key), "rounded up, never down");
            now[0] += 2;
            assertNull(map.get(b("k")));
        }
    }

    @Test
    void compareAndSetOnRawBytesCountsEveryIncrementOfConcurrentThreads() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("cas.map"))) {
            java.lang.foreign.MemorySegment key = java.lang.foreign.MemorySegment.ofArray(b("counter"));
            map.put(key, java.lang.foreign.MemorySegment.ofArray(new byte[8]));
            int threads = 4;
            int increments = 5_000;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            java.util.List<java.util.concurrent.Future<Integer>> retries = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                retries.add(pool.submit(() -> {
                    java.lang.foreign.MemorySegment seen = java.lang.foreign.MemorySegment.ofArray(new byte[8]);
                    java.lang.foreign.MemorySegment next = java.lang.foreign.MemorySegment.ofArray(new byte[8]);
                    int failed = 0;
                    for (int i = 0; i < increments; i++) {
                        do {
                            assertEquals(8, map.get(key, seen));
                            next.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0,
                                    seen.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0) + 1);
                        } while (!map.replace(key, seen, next) && ++failed > 0);
                    }
                    return failed;
                }));
            }
            int failed = 0;
            for (java.util.concurrent.Future<Integer> f : retries) {
                failed += f.get();
            }
            pool.shutdown();
            byte[] count = map.get(b("counter"));
            assertEquals((long) threads * increments, java.lang.foreign.MemorySegment.ofArray(count)
                    .get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0), "every increment counted once (" + failed + " retries)");
            assertFalse(map.remove(key, java.lang.foreign.MemorySegment.ofArray(new byte[8])), "other bytes: kept");
            assertTrue(map.remove(key, java.lang.foreign.MemorySegment.ofArray(count)));
            assertNull(map.get(b("counter")));
            assertFalse(map.replace(key, java.lang.foreign.MemorySegment.ofArray(count), java.lang.foreign.MemorySegment.ofArray(count)),
                    "absent: nothing replaced");
            assertNull(map.get(b("counter")), "and nothing stored");
        }
    }

    @Test
    void expiryCanBeSetRenewedAndDroppedKeepingTheValue() throws IOException {
        Path file = dir.resolve("lease.map");
        java.lang.foreign.MemorySegment key = java.lang.foreign.MemorySegment.ofArray(b("lease"));
        java.lang.foreign.MemorySegment other = java.lang.foreign.MemorySegment.ofArray(b("other"));
        long[] now = {1_000_000};
        try (BytesMap map = BytesMap.open(file)) {
            map.file.clock = () -> now[0];
            assertFalse(map.expire(key, java.time.Duration.ofSeconds(1)), "absent: nothing to expire");
            assertFalse(map.persist(key));
            assertEquals(-1, map.expiresAt(key), "and nothing was stored");
            assertTrue(map.putIfAbsent(key, java.lang.foreign.MemorySegment.ofArray(b("holder-1")), java.time.Duration.ofMillis(30)));
            assertFalse(map.putIfAbsent(key, java.lang.foreign.MemorySegment.ofArray(b("holder-2")), java.time.Duration.ofMillis(30)),
                    "a live lease is not taken");
            assertEquals(now[0] + 30, map.expiresAt(key));
            now[0] += 20;
            assertTrue(map.expire(key, java.time.Duration.ofMillis(30)), "renewed");
            assertEquals(now[0] + 30, map.expiresAt(key));
            assertArrayEquals(b("holder-1"), map.get(b("lease")));
            map.put(other, java.lang.foreign.MemorySegment.ofArray(new byte[5000]));
            assertTrue(map.expire(other, java.time.Duration.ofMillis(10)), "an entry stored without expiry gets one");
            assertTrue(map.persist(key));
            assertEquals(0, map.expiresAt(key));
            now[0] += 60;
            assertArrayEquals(b("holder-1"), map.get(b("lease")), "persisted: lives on");
            assertNull(map.get(b("other")), "expired");
            assertFalse(map.expire(other, java.time.Duration.ofSeconds(1)), "an expired entry is absent");
            assertTrue(map.putIfAbsent(other, java.lang.foreign.MemorySegment.ofArray(b("x")), java.time.Duration.ofMillis(5)),
                    "an expired entry does not hold its key");
            assertThrows(IllegalArgumentException.class, () -> map.expire(key, java.time.Duration.ZERO));
            assertEquals(0, map.expiresAt(key), "a refused ttl changes nothing");
            MapChecks.assertSound(map);
        }
        try (BytesMap map = BytesMap.open(file)) {
            map.file.clock = () -> now[0];
            assertArrayEquals(b("holder-1"), map.get(b("lease")));
            assertEquals(now[0] + 5, map.expiresAt(other), "kept across a reopen");
        }
    }

    @Test
    void anEntryStoredWhileItsSegmentMergesFreeSpaceStillExpires() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("merge.map"), MapOptions.DEFAULTS.withSegments(1))) {
            long[] now = {1_000_000};
            map.file.clock = () -> now[0];
            for (int i = 0; i < 4000; i++) {
                map.put(b("k" + i), new byte[100]);
            }
            for (int i = 0; i < 4000; i++) {
                if (i % 4 != 0) {
                    map.remove(b("k" + i));
                }
            }
            // Free runs are most of the heap and none holds this value: before the heap grows it
            // merges them, a rebuild that recounts which entries expire. It ran after the segment
            // was marked as holding one that expires and before that entry existed, so it unmarked
            // it: the entry then never expired for writers (putIfAbsent found it, purges skipped it).
            java.lang.foreign.MemorySegment key = java.lang.foreign.MemorySegment.ofArray(b("ttl"));
            map.put(key, java.lang.foreign.MemorySegment.ofArray(new byte[64 << 10]), java.time.Duration.ofMillis(10));
            now[0] += 10;
            assertTrue(map.putIfAbsent(key, java.lang.foreign.MemorySegment.ofArray(b("v"))), "the entry expired");
            assertArrayEquals(b("v"), map.get(b("ttl")));
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldCreateTheFileReadableByItsOwnerOnly() throws IOException {
        Path file = dir.resolve("private.map");
        try (BytesMap map = BytesMap.open(file)) {
            map.put(b("k"), b("v"));
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }

    @Test
    void shouldStoreEmptyKeysAndValuesAndLargeValues() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map"))) {
            map.put(new byte[0], new byte[0]);
            assertArrayEquals(new byte[0], map.get(new byte[0]));
            map.put(b("e"), new byte[0]);
            assertArrayEquals(new byte[0], map.get(b("e")));
            byte[] big = new byte[64 << 20];
            for (int i = 0; i < big.length; i += 4093) {
                big[i] = (byte) i;
            }
            map.put(b("big"), big);
            map.put(big, b("big key"));
            assertArrayEquals(big, map.get(b("big")));
            assertArrayEquals(b("big key"), map.get(big));
            assertEquals(4, map.size());
        }
    }

    @Test
    void shouldStoreAValueCutFromALargerBuffer() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map"))) {
            MemorySegment request = MemorySegment.ofArray(b("*3 SET key hello-world\r\n"));
            MemorySegment key = MemorySegment.ofArray(b("key"));
            map.put(key, request, 11, 11);
            assertArrayEquals(b("hello-world"), map.get(b("key")));
            map.put(key, request, 0, 0);
            assertArrayEquals(new byte[0], map.get(b("key")));
            IndexOutOfBoundsException past = assertThrows(IndexOutOfBoundsException.class, () -> map.put(key, request, 20, 5));
            assertTrue(past.getMessage().contains("20"), past.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> map.put(key, request, -1, 2));
            assertArrayEquals(new byte[0], map.get(b("key")), "a refused put changes nothing");
        }
    }

    @Test
    void shouldReadIntoACallerBufferWithoutAllocating() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map")); Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocateFrom("key");
            map.put(key, arena.allocateFrom("value"));
            MemorySegment small = arena.allocate(2);
            assertEquals(6, map.get(key, small), "too small: length returned, nothing copied");
            assertEquals(0, small.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            MemorySegment dst = arena.allocate(64);
            assertEquals(6, map.get(key, dst));
            assertEquals("value", dst.getString(0));
            assertEquals(-1, map.get(arena.allocateFrom("nope"), dst));
            assertEquals(6, map.get(key, dst, 58), "fits exactly at the end");
            assertEquals("value", dst.getString(58));
            assertEquals(6, map.get(key, dst, 59), "one byte short: length returned, nothing copied");
            assertEquals('a', dst.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 59), "untouched");
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> map.get(key, dst, 65));
            assertTrue(e.getMessage().contains("dstOffset=65"), e.getMessage());
        }
    }

    @Test
    void shouldGrowEachSegmentFromASmallStartWithoutHints() throws IOException {
        Path file = dir.resolve("grow.map");
        int n = 200_000;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4))) {
            assertTrue(Files.size(file) < 1 << 20, "starts small: " + Files.size(file));
            for (int i = 0; i < n; i++) {
                map.put(b("key" + i), b("value" + i));
            }
            assertEquals(n, map.size());
        }
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < n; i++) {
                assertArrayEquals(b("value" + i), map.get(b("key" + i)), "key" + i);
            }
        }
    }

    @Test
    void shouldReuseTheSpaceOfDeletedAndReplacedEntries() throws IOException {
        Path file = dir.resolve("reuse.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(2))) {
            for (int i = 0; i < 5_000; i++) {
                map.put(b("k" + i), new byte[100 + i % 50]);
            }
            long sizeAfterFill = Files.size(file);
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 5_000; i++) {
                    if ((i + round) % 3 == 0) {
                        map.remove(b("k" + i));
                    } else {
                        map.put(b("k" + i), new byte[100 + (i + round) % 50]);
                    }
                }
                for (int i = 0; i < 5_000; i++) {
                    map.put(b("k" + i), new byte[100 + i % 50]);
                }
            }
            MapChecks.assertSound(map);
            assertTrue(Files.size(file) <= sizeAfterFill * 2, "file grew from " + sizeAfterFill + " to " + Files.size(file));
            assertEquals(5_000, map.size());
        }
    }

    @Test
    void shouldCompactAndClear() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map"))) {
            for (int i = 0; i < 1000; i++) {
                map.put(b("k" + i), b("v" + i));
            }
            for (int i = 0; i < 1000; i += 2) {
                map.remove(b("k" + i));
            }
            map.compact();
            MapChecks.assertSound(map);
            assertEquals(500, map.size());
            for (int i = 1; i < 1000; i += 2) {
                assertArrayEquals(b("v" + i), map.get(b("k" + i)));
            }
            Map<String, String> seen = new HashMap<>();
            map.forEach((k, v) -> seen.put(new String(k, UTF_8), new String(v, UTF_8)));
            assertEquals(500, seen.size());
            assertEquals("v7", seen.get("k7"));
            map.clear();
            assertEquals(0, map.size());
            assertNull(map.get(b("k7")));
            map.put(b("again"), b("yes"));
            assertArrayEquals(b("yes"), map.get(b("again")));
        }
    }

    @Test
    void shouldRefuseAForeignFileAndLeaveItUntouched() throws IOException {
        Path file = dir.resolve("foreign.bin");
        byte[] content = new byte[8192];
        Arrays.fill(content, (byte) 7);
        Files.write(file, content);
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(file));
        assertTrue(e.getMessage().contains("not a Colossal map") && e.getMessage().contains(file.toString()), e.getMessage());
        assertArrayEquals(content, Files.readAllBytes(file));
        Files.write(file, new byte[10]);
        assertTrue(assertThrows(MapFormatException.class, () -> BytesMap.open(file)).getMessage().contains("10 bytes"));
        Files.write(file, new byte[0]);
        assertEquals("file=" + file + " is empty, not a map; to create a map there, delete the file first (open creates it,"
                + " mode 0600; for a temporary map take a fresh name in a temporary directory)",
                assertThrows(MapFormatException.class, () -> BytesMap.open(file)).getMessage());
        assertEquals(0, Files.size(file));
    }

    @Test
    void shouldRefuseAFileOfANewerFormat() throws IOException {
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(withFormatVersion(99)));
        assertTrue(e.getMessage().contains("formatVersion=99") && e.getMessage().contains("newer"), e.getMessage());
    }

    @ParameterizedTest(name = "formatVersion={0}")
    @CsvSource({"1, tables place keys differently", "2, entries have 16-byte headers",
        "3, tables have power-of-two sizes and its entry checksums are XXH64",
        "4, slots have 24-bit tags, so tables past 2^24 slots grew by reading every key"})
    void shouldRefuseAFileOfAnOlderFormatSayingWhatChanged(int version, String why) throws IOException {
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(withFormatVersion(version)));
        assertTrue(e.getMessage().contains("formatVersion=" + version) && e.getMessage().contains("older")
                && e.getMessage().contains(why) && e.getMessage().contains("recreate"), e.getMessage());
    }

    private Path withFormatVersion(int version) throws IOException {
        Path file = dir.resolve("v" + version + ".map");
        BytesMap.open(file).close();
        setFormatVersion(file, version);
        return file;
    }

    private static void setFormatVersion(Path file, int version) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, version),
                    FileHeaderLayout.FORMAT_VERSION_OFFSET);
        }
    }

    @Test
    void shouldReadAFormat5FileAsItIsSinceItsBlocksAreAtLeast16Bytes() throws IOException {
        Path file = dir.resolve("v5.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withBlockSize(16))) {
            for (int i = 0; i < 1000; i++) {
                map.put(b("k" + i), b("v" + i));
            }
        }
        setFormatVersion(file, 5);
        try (BytesMap map = BytesMap.open(file)) {
            assertEquals(1000, map.size());
            assertArrayEquals(b("v999"), map.get(b("k999")));
            map.put(b("k1000"), b("v1000"));
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldRefuseAFormat5HeaderThatClaims8ByteBlocks() throws IOException {
        Path file = dir.resolve("v5-8.map");
        BytesMap.open(file, MapOptions.DEFAULTS.withBlockSize(8)).close();
        setFormatVersion(file, 5);
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(file));
        assertTrue(e.getMessage().contains("blockSize=8") && e.getMessage().contains("formatVersion=5"), e.getMessage());
    }

    @Test
    void shouldLeaveNoHoleTooSmallForAFreeRunWith8ByteBlocks() throws IOException {
        // Entries of 2 to 7 blocks, replaced and removed at random: chunk tails and split runs
        // that left a single 8-byte block would get a 16-byte run header written over the next
        // entry or past the chunk (a damaged entry), or leak (heap != used + free).
        java.util.Random rnd = new java.util.Random(42);
        Map<String, byte[]> model = new HashMap<>();
        try (BytesMap map = BytesMap.open(dir.resolve("holes.map"), MapOptions.DEFAULTS.withSegments(1).withBlockSize(8))) {
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 500; i++) {
                    String k = "k" + rnd.nextInt(800);
                    byte[] v = new byte[rnd.nextInt(40)];
                    rnd.nextBytes(v);
                    map.put(b(k), v);
                    model.put(k, v);
                }
                for (int i = 0; i < 200; i++) {
                    String k = "k" + rnd.nextInt(800);
                    map.remove(b(k));
                    model.remove(k);
                }
                MapChecks.assertSound(map);
            }
            assertEquals(model.size(), map.size());
            model.forEach((k, v) -> assertArrayEquals(v, map.get(b(k)), k));
        }
    }

    @Test
    void shouldFindEveryKeyAfterTablesGrewByTheirTagsAlone() throws IOException {
        // Two segments, so each table grows from 16 slots to 2^15 (four sizes per doubling) while
        // 40,000 keys go in, a rehash at each step placing slots by tag; removals leave tombstones for same-size rehashes.
        Path file = dir.resolve("grown.map");
        int n = 40_000;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(2))) {
            for (int i = 0; i < n; i++) {
                map.put(b("key" + i), b("v" + i));
                if (i % 3 == 0) {
                    assertTrue(map.remove(b("key" + (i / 3))));
                    map.put(b("key" + (i / 3)), b("v" + (i / 3)));
                }
            }
            MapChecks.assertSound(map);
        }
        try (BytesMap map = BytesMap.open(file)) {
            assertEquals(n, map.size());
            for (int i = 0; i < n; i++) {
                assertArrayEquals(b("v" + i), map.get(b("key" + i)), "key" + i);
            }
            assertNull(map.get(b("key" + n)));
        }
    }

    @ParameterizedTest(name = "valueBytes={0}")
    @CsvSource({"80, 20480", "1, 28672"})
    void shouldGrowATableWhenItIsFourFifthsFullBySoMuchThatEntriesFillTheOutgrownOne(int valueBytes,
            long grownSlots) throws IOException {
        // The hint sizes the table at 2^14 slots (3/4 of it for 12,288 entries); 13,107 entries
        // fill it to 4/5, and the next insert grows the table, not doubling it
        // (tables at a load of 3/8 cost 21 bytes a slot): by one size, to 5 x 2^12 slots, for
        // ~96-byte entries; for 16-byte ones by more, to 7 x 2^12, so that the entries inserted
        // until the next growth use up the 128 KiB the outgrown table gives back to the heap.
        MapOptions options = MapOptions.DEFAULTS.withSegments(1).withExpectedEntries(12_288);
        try (BytesMap map = BytesMap.open(dir.resolve("grow.map"), options)) {
            for (int i = 0; i < 13_107; i++) {
                map.put(b(String.format("key%05d", i)), new byte[valueBytes]);
            }
            assertEquals(1L << 14, SegmentScan.of(map.file, 0).tableSlots());
            map.put(b("one more"), new byte[valueBytes]);
            assertEquals(grownSlots, SegmentScan.of(map.file, 0).tableSlots());
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldStillPurgeAnExpiringEntryWhoseInsertGrewTheTable() throws IOException {
        // 12 entries without expiry fill 16 slots to the brim; the 13th, with a TTL, grows the
        // table. The purge before growing found nothing expiring and cleared the segment's
        // mayExpire word after the insert had set it, so later growths never purged the entry.
        try (BytesMap map = BytesMap.open(dir.resolve("purge.map"), MapOptions.DEFAULTS.withSegments(1));
             Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < 12; i++) {
                map.put(b("key" + i), b("v"));
            }
            map.put(arena.allocateFrom("expiring"), arena.allocateFrom("v"), java.time.Duration.ofHours(1));
            assertTrue(SegmentScan.of(map.file, 0).tableSlots() > 16, "the table grew");
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldRefuseATruncatedFile() throws IOException {
        Path file = dir.resolve("cut.map");
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < 10_000; i++) {
                map.put(b("k" + i), new byte[50]);
            }
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 3);
        }
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(file));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void shouldAdviseRestoringADamagedHeaderNotVerifyingIt() throws IOException {
        Path file = dir.resolve("header.map");
        BytesMap.open(file).close();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 3), FileHeaderLayout.SEGMENT_COUNT_OFFSET);
        }
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(file));
        // verify stops at the same header check: sending the user there would go round in circles.
        assertEquals("file=" + file + " has a damaged or unknown header (formatVersion=" + FileHeaderLayout.FORMAT_VERSION
                + " segments=3 blockSize=8 flags=0x1); restore the file from a copy", e.getMessage());
        assertEquals(file, e.file());
        assertTrue(e.problem().startsWith("has a damaged or unknown header (") && e.problem().endsWith(")"), e.problem());
    }

    @Test
    void shouldRejectBadOptionsNamingTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MapOptions.DEFAULTS.withSegments(3));
        assertTrue(e.getMessage().contains("segments=3"), e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MapOptions.DEFAULTS.withBlockSize(48))
                .getMessage().contains("blockSize=48"));
    }

    @Test
    void shouldKeepAnInMemoryMapInNoVisibleFile() throws IOException {
        try (ColossalMap<String, Long> cache = ColossalMap.inMemory(TestCodecs.STRING, TestCodecs.LONG, MapOptions.DEFAULTS)) {
            for (long i = 0; i < 10_000; i++) {
                cache.put("k" + i, i);
            }
            assertEquals(4242L, cache.get("k4242"));
            assertFalse(Files.exists(cache.bytes().path()), "the file is unlinked at once");
        }
    }

    @Test
    void shouldRefuseAHeaderWhoseAllocEndFellBelowTheData() throws IOException {
        Path file = dir.resolve("alloc.map");
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < 5_000; i++) {
                map.put(b("k" + i), new byte[100]);
            }
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(0, FileHeaderLayout.directoryEnd(64) + 4096), FileHeaderLayout.ALLOC_END_OFFSET);
        }
        MapFormatException e = assertThrows(MapFormatException.class, () -> BytesMap.open(file));
        assertTrue(e.getMessage().startsWith("file=" + file + " records allocEnd=" + (FileHeaderLayout.directoryEnd(64) + 4096)
                + " in its header (offset=" + FileHeaderLayout.ALLOC_END_OFFSET + "), but "), e.getMessage());
        assertTrue(e.getMessage().endsWith(": the header or that word is damaged; restore the file from a copy"), e.getMessage());
    }

    @Test
    void shouldExpireEntriesAndReuseTheirSpace() throws IOException {
        Path file = dir.resolve("ttl.map");
        long[] now = {5_000};
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4))) {
            map.file.clock = () -> now[0];
            MemorySegment k = MemorySegment.ofArray(b("forever"));
            map.put(k, MemorySegment.ofArray(b("v")));
            for (int i = 0; i < 1000; i++) {
                map.put(MemorySegment.ofArray(b("t" + i)), MemorySegment.ofArray(new byte[64]), java.time.Duration.ofMillis(10));
            }
            assertEquals(5_010, map.expiresAt(MemorySegment.ofArray(b("t7"))));
            assertEquals(0, map.expiresAt(k));
            assertEquals(-1, map.expiresAt(MemorySegment.ofArray(b("absent"))));
            now[0] += 9;
            assertArrayEquals(new byte[64], map.get(b("t7")));
            now[0] += 1;
            assertNull(map.get(b("t7")), "expired at its expiry time");
            assertEquals(1001, map.size(), "expired entries count until removed");
            assertEquals(1000, map.purgeExpired());
            assertEquals(1, map.size());
            assertThrows(IllegalArgumentException.class, () -> map.put(k, k, java.time.Duration.ZERO));
            long sizeAfterFirstRound = 0;
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < 1000; i++) {
                    map.put(MemorySegment.ofArray(b("r" + round + "-" + i)), MemorySegment.ofArray(new byte[64]),
                            java.time.Duration.ofMillis(5));
                }
                now[0] += 10;
                if (round == 1) {
                    sizeAfterFirstRound = Files.size(file);
                }
            }
            assertTrue(Files.size(file) <= sizeAfterFirstRound * 2, "a cache of expiring entries keeps its size: "
                    + sizeAfterFirstRound + " -> " + Files.size(file));
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldSizeTablesFromTheHintAndGrowPastIt() throws IOException {
        Path file = dir.resolve("hint.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4).withExpectedEntries(100_000))) {
            for (int i = 0; i < 100_000; i++) {
                map.put(b("k" + i), b("v"));
            }
        }
        // 25,000 entries a segment: 40,960 slots (at most 3/4 full) from the start, never grown.
        assertEquals(4 * 40_960, MapInspector.inspect(file).tableSlots(), "no table grew while filling to the hint");
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 100_000; i < 250_000; i++) {
                map.put(b("k" + i), b("v"));
            }
            assertEquals(250_000, map.size());
        }
        assertTrue(MapInspector.inspect(file).tableSlots() > 4 * 65_536, "and the map grows past the hint");
    }

    @Test
    void shouldTreatAnExpiredEntryAsAbsentInWritesAfterItsInsertGrewTheTable() throws IOException {
        // Writes look at an entry's expiry time only in segments whose mayExpire word is set. The
        // 13th entry fills 16 slots past 3/4 and grows the table; the purge before growing must
        // not clear the word that this insert, the segment's first with a TTL, set.
        try (BytesMap map = BytesMap.open(dir.resolve("ttl-grow.map"), MapOptions.DEFAULTS.withSegments(1));
             Arena arena = Arena.ofConfined()) {
            long[] now = {1_000_000};
            map.file.clock = () -> now[0];
            for (int i = 0; i < 12; i++) {
                map.put(b("key" + i), b("v"));
            }
            MemorySegment key = arena.allocateFrom("expiring");
            map.put(key, arena.allocateFrom("old"), java.time.Duration.ofMinutes(1));
            now[0] += 120_000;
            assertTrue(map.putIfAbsent(key, arena.allocateFrom("new")), "the expired entry counts as absent");
            assertArrayEquals(b("new\0"), map.get(key.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
            MapChecks.assertSound(map);
        }
    }

    @Test
    void shouldThrowAfterClose() throws IOException {
        BytesMap map = BytesMap.open(dir.resolve("m.map"));
        map.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> map.get(b("k")));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
