package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.colossal.codec.Codec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A map opened read-only ({@link BytesMap#openReadOnly}, {@link ColossalMap#openReadOnly}): every
 * read works on a file this user may only read and changes not a byte of it; every write is refused,
 * naming the file, before it locks anything; a writer in another JVM is seen as it writes and grows
 * the map; and a segment whose writer was killed holding its lock is reported, not read.
 */
class ReadOnlyMapTest {

    private static final Codec<String> S = TestCodecs.STRING;

    @TempDir
    Path dir;

    @Test
    void readsEveryEntryOfAFileThisUserMayNotWriteAndChangesNoByte() throws Exception {
        Path file = dir.resolve("users.map");
        Map<String, String> expected = new HashMap<>();
        long ttlAt;
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(8))) {
            for (int i = 0; i < 3_000; i++) {
                String v = "v" + i + "x".repeat(i % 600);
                map.set("k" + i, v);
                expected.put("k" + i, v);
            }
            map.set("ttl", "lives", Duration.ofHours(1));
            expected.put("ttl", "lives");
            ttlAt = map.expiresAt("ttl");
        }
        byte[] before = Unwritable.sha256(file);
        try (Unwritable unwritable = Unwritable.make(file)) {
            assumeTrue(unwritable.stopsThisUser(), "this user writes any file (root without chattr): nothing to show");
            try (BytesMap raw = BytesMap.openReadOnly(file);
                 ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S);
                 Arena arena = Arena.ofConfined()) {
                checkRawReads(raw, expected, ttlAt, arena);
                checkTypedReads(map, expected, ttlAt);
                raw.sync();
                map.sync();
            }
        }
        assertArrayEquals(before, Unwritable.sha256(file), "not a byte changed");
    }

    private static void checkRawReads(BytesMap raw, Map<String, String> expected, long ttlAt, Arena arena) {
        assertEquals(expected.size(), raw.size());
        MemorySegment dst = arena.allocate(1 << 16);
        for (Map.Entry<String, String> e : expected.entrySet()) {
            byte[] v = b(e.getValue());
            assertArrayEquals(v, raw.get(b(e.getKey())), e.getKey());
            assertEquals(v.length, raw.get(seg(e.getKey()), dst));
            assertArrayEquals(v, dst.asSlice(0, v.length).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(v.length, raw.get(seg(e.getKey()), dst, 7));
            assertArrayEquals(v, dst.asSlice(7, v.length).toArray(ValueLayout.JAVA_BYTE));
            assertTrue(raw.containsKey(seg(e.getKey())));
        }
        assertNull(raw.get(b("absent")));
        assertEquals(-1, raw.get(seg("absent"), dst));
        assertFalse(raw.containsKey(seg("absent")));
        assertEquals(ttlAt, raw.expiresAt(seg("ttl")));
        assertEquals(0, raw.expiresAt(seg("k1")));
        assertEquals(-1, raw.expiresAt(seg("absent")));

        List<String> names = new ArrayList<>(expected.keySet());
        names.add("absent");
        MemorySegment[] keys = names.stream().map(ReadOnlyMapTest::seg).toArray(MemorySegment[]::new);
        long[] lengths = new long[keys.length];
        for (int i = 0; i < keys.length; ) {
            int done = raw.getAll(keys, i, lengths, dst, 0);
            assertTrue(done > i, "64 KiB holds any one value");
            for (long at = 0; i < done; i++) {
                String want = expected.get(names.get(i));
                assertEquals(want == null ? -1 : b(want).length, lengths[i], names.get(i));
                if (want != null) {
                    assertEquals(want, new String(dst.asSlice(at, lengths[i]).toArray(ValueLayout.JAVA_BYTE), UTF_8));
                    at += lengths[i];
                }
            }
        }
        for (int i = 0; i < keys.length; ) {
            for (int end = raw.prefetch(keys, i); i < end; i++) {
                String want = expected.get(names.get(i));
                assertEquals(want == null ? -1 : b(want).length, raw.get(keys[i], dst), names.get(i));
            }
        }

        Map<String, String> seen = new HashMap<>();
        raw.forEach((k, v) -> seen.put(s(k), s(v)));
        assertEquals(expected, seen, "forEach");
        Map<String, String> long300 = new HashMap<>();
        long hits = raw.scan((k, v) -> v.byteSize() > 300, (k, v) -> long300.put(s(k), s(v)));
        Map<String, String> wantLong = expected.entrySet().stream().filter(e -> b(e.getValue()).length > 300)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertEquals(wantLong, long300, "scan with a filter");
        assertEquals(wantLong.size(), hits);
        Map<String, String> stepped = new HashMap<>();
        long cursor = 0;
        do {
            cursor = raw.scan(cursor, 100, (k, v) -> true, (k, v) -> assertNull(stepped.put(s(k), s(v)), "visited once"));
        } while (cursor != 0);
        assertEquals(expected, stepped, "resumable scan");
    }

    private static void checkTypedReads(ColossalMap<String, String> map, Map<String, String> expected, long ttlAt) {
        assertEquals(expected.size(), map.size());
        assertEquals(expected.size(), map.longSize());
        assertFalse(map.isEmpty());
        expected.forEach((k, v) -> {
            assertEquals(v, map.get(k), k);
            assertTrue(map.containsKey(k));
        });
        assertNull(map.get("absent"));
        assertEquals("dflt", map.getOrDefault("absent", "dflt"));
        assertFalse(map.containsKey("absent"));
        assertEquals(ttlAt, map.expiresAt("ttl"));
        assertEquals(-1, map.expiresAt("absent"));
        List<String> asked = List.of("k5", "absent", "ttl", "k2999");
        Map<String, String> found = new LinkedHashMap<>();
        for (String k : asked) {
            if (expected.containsKey(k)) {
                found.put(k, expected.get(k));
            }
        }
        assertEquals(found, map.getAll(asked));
        Map<String, String> handed = new LinkedHashMap<>();
        map.getAll(expected.keySet(), handed::put);
        assertEquals(expected, handed);

        assertEquals(expected, new HashMap<>(map), "entrySet iteration");
        assertEquals(expected.keySet(), new java.util.HashSet<>(map.keySet()));
        assertEquals(expected.values().stream().sorted().toList(), map.values().stream().sorted().toList());
        assertEquals(expected, map.entrySet().parallelStream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), "parallel stream of entries");
        assertEquals(expected.size(), map.keySet().parallelStream().distinct().count());
        assertTrue(map.values().parallelStream().anyMatch("lives"::equals));
        assertTrue(map.containsValue("lives"));
        assertEquals(expected, map);
        assertEquals(map, expected);
        assertEquals(expected.hashCode(), map.hashCode());
        // The first thousand entries in iteration order, then how many there are (a read-only map
        // writes nothing to say so).
        Map.Entry<?, ?> first = map.entrySet().iterator().next();
        String text = map.toString();
        assertTrue(text.startsWith("{" + first.getKey() + "=" + first.getValue()), "toString lists the entries");
        assertTrue(expected.size() <= 1000 || text.endsWith(" (1000 of " + expected.size() + " entries shown)}"), text.length() + " chars");
    }

    @Test
    void everyWriteIsRefusedNamingTheFileBeforeItLocksAnything() throws Exception {
        Path file = dir.resolve("refused.map");
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(4))) {
            for (int i = 0; i < 100; i++) {
                map.set("k" + i, "v" + i);
            }
        }
        byte[] before = Unwritable.sha256(file);
        AtomicInteger calls = new AtomicInteger();
        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S)) {
            BytesMap raw = map.bytes();
            MemorySegment k = seg("k1");
            MemorySegment v = seg("new");
            Map<String, Executable> writes = new LinkedHashMap<>();
            writes.put("raw put", () -> raw.put(k, v));
            writes.put("raw put bytes", () -> raw.put(b("k1"), b("new")));
            writes.put("raw put range", () -> raw.put(k, v, 1, 2));
            writes.put("raw put ttl", () -> raw.put(k, v, Duration.ofMinutes(1)));
            writes.put("raw putIfAbsent", () -> raw.putIfAbsent(seg("absent"), v));
            writes.put("raw putAll", () -> raw.putAll(new MemorySegment[] {k}, new MemorySegment[] {v}));
            writes.put("raw putAll of nothing", () -> raw.putAll(new MemorySegment[0], new MemorySegment[0]));
            writes.put("raw remove", () -> raw.remove(k));
            writes.put("raw remove absent", () -> raw.remove(b("absent")));
            writes.put("raw removeAll", () -> raw.removeAll(new MemorySegment[] {k}));
            writes.put("raw take", () -> raw.take(k, MemorySegment.ofArray(new byte[16]), 0));
            writes.put("raw removeAll of nothing", () -> raw.removeAll(new MemorySegment[0]));
            writes.put("raw clear", raw::clear);
            writes.put("raw compact", raw::compact);
            writes.put("raw dropDamaged", raw::dropDamaged);
            writes.put("raw purgeExpired", raw::purgeExpired);
            writes.put("put", () -> map.put("k1", "new"));
            writes.put("set", () -> map.set("k1", "new"));
            writes.put("set ttl", () -> map.set("k1", "new", Duration.ofMinutes(1)));
            writes.put("putIfAbsent", () -> map.putIfAbsent("absent", "new"));
            writes.put("remove", () -> map.remove("k1"));
            writes.put("remove absent", () -> map.remove("absent"));
            writes.put("remove(k, v)", () -> map.remove("k1", "v1"));
            writes.put("remove(k, null)", () -> map.remove("k1", null));
            writes.put("replace", () -> map.replace("k1", "new"));
            writes.put("replace(k, old, new)", () -> map.replace("k1", "v1", "new"));
            writes.put("compute", () -> map.compute("k1", (key, old) -> "n" + calls.incrementAndGet()));
            writes.put("computeIfAbsent", () -> map.computeIfAbsent("absent", key -> "n" + calls.incrementAndGet()));
            writes.put("computeIfPresent", () -> map.computeIfPresent("k1", (key, old) -> "n" + calls.incrementAndGet()));
            writes.put("merge", () -> map.merge("k1", "x", (a, c) -> "n" + calls.incrementAndGet()));
            writes.put("replaceAll", () -> map.replaceAll((key, old) -> "n" + calls.incrementAndGet()));
            writes.put("putAll", () -> map.putAll(Map.of("k1", "new")));
            writes.put("putAll of nothing", () -> map.putAll(Map.of()));
            writes.put("removeAll", () -> map.removeAll(List.of("k1")));
            writes.put("removeAll of nothing", () -> map.removeAll(List.of()));
            writes.put("clear", map::clear);
            writes.put("purgeExpired", map::purgeExpired);
            writes.put("entry setValue", () -> map.entrySet().iterator().next().setValue("new"));
            writes.put("iterator remove", () -> {
                Iterator<Map.Entry<String, String>> it = map.entrySet().iterator();
                it.next();
                it.remove();
            });
            writes.put("keySet remove", () -> map.keySet().remove("k1"));
            writes.put("values removeIf", () -> map.values().removeIf(x -> true));
            writes.put("entrySet clear", () -> map.entrySet().clear());
            for (Map.Entry<String, Executable> w : writes.entrySet()) {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, w.getValue(), w.getKey());
                assertTrue(e.getMessage().contains("file=" + file) && e.getMessage().contains("opened read-only"),
                        w.getKey() + ": " + e.getMessage());
            }
            assertEquals(0, calls.get(), "no function of a refused write ran: refused before the lock and the old value");
            map.sync();
            assertEquals("v1", map.get("k1"));
            assertEquals(100, map.size());
        }
        assertArrayEquals(before, Unwritable.sha256(file), "not a byte changed, no lock word taken");
    }

    @Test
    void seesAWriterInAnotherJvmWriteAndGrowTheMapAndNeverATornValue() throws Exception {
        Path file = dir.resolve("shared.map");
        Path stderr = dir.resolve("writer.err");
        int keys = 5_000;
        int rounds = 20;
        ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(8)).close();
        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S)) {
            BytesMap raw = map.bytes();
            long mappedAtStart = raw.file.mem().byteSize();
            Process writer = Children.start(stderr, dir.resolve("writer.out"), "rounds", file.toString(), "w",
                    Integer.toString(keys), Integer.toString(rounds));
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            AtomicLong midway = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            // One thread reads key by key, one in batches, one scans; each checks every value it reads.
            readers.add(reader(done, failure, () -> {
                int[] last = versionsUnseen(keys);
                while (!done.get()) {
                    int i = ThreadLocalRandom.current().nextInt(keys);
                    int version = checkVersion(i, map.get(MapChild.key("w", i)), last);
                    count(reads, midway, version, rounds);
                }
            }));
            readers.add(reader(done, failure, () -> {
                int[] last = versionsUnseen(keys);
                while (!done.get()) {
                    List<Integer> batch = ThreadLocalRandom.current().ints(32, 0, keys).boxed().toList();
                    Map<String, String> got = new HashMap<>();
                    map.getAll(batch.stream().map(i -> MapChild.key("w", i)).toList(), got::put);
                    for (int i : batch) {
                        count(reads, midway, checkVersion(i, got.get(MapChild.key("w", i)), last), rounds);
                    }
                }
            }));
            readers.add(reader(done, failure, () -> {
                while (!done.get()) {
                    long cursor = 0;
                    do {
                        cursor = raw.scan(cursor, 16, (k, v) -> true, (k, v) -> assertTrue(
                                ConcurrencyStressTest.isValueFor(s(k), s(v)), () -> "scan read " + s(k) + "=" + s(v)));
                    } while (cursor != 0 && !done.get());
                }
            }));
            try {
                assertTrue(writer.waitFor(60, TimeUnit.SECONDS), "writer finished");
                assertEquals(0, writer.exitValue(), () -> "writer failed: " + MultiProcessTest.readQuietly(stderr));
            } finally {
                done.set(true);
                writer.destroyForcibly();
                for (Thread t : readers) {
                    t.join();
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("a reader failed", failure.get());
            }
            assertTrue(midway.get() > 0, "the readers read while the writer wrote (" + reads.get() + " reads)");
            Map<String, String> expected = new HashMap<>();
            for (int i = 0; i < keys; i++) {
                String k = MapChild.key("w", i);
                expected.put(k, ConcurrencyStressTest.valueFor(k, rounds - 1));
                assertEquals(expected.get(k), map.get(k), "the final value of " + k);
            }
            assertEquals(keys, map.size());
            assertEquals(expected, new HashMap<>(map));
            assertTrue(raw.file.remaps > 0 && raw.file.mem().byteSize() > mappedAtStart,
                    "the file grew from " + mappedAtStart + " bytes and the read-only mapping followed it");
            for (int s = 0; s < raw.segmentCount(); s++) {
                long table = raw.file.readVolatile(FileHeaderLayout.segmentOffset(s) + SegmentLayout.TABLE);
                assertTrue(SlotLayout.slots(table) > raw.file.initialSlots, "segment " + s + "'s table grew");
            }
        }
    }

    private static int[] versionsUnseen(int keys) {
        int[] last = new int[keys];
        java.util.Arrays.fill(last, -1);
        return last;
    }

    /**
     * Checks that {@code value} is one the writer wrote for key {@code i} (all of it, none of another
     * version's bytes) and no older than what this reader saw of the key before; returns its version.
     */
    private static int checkVersion(int i, String value, int[] last) {
        String key = MapChild.key("w", i);
        if (value == null) {
            assertEquals(-1, last[i], key + " was seen, then read as absent: the writer removes nothing");
            return -1;
        }
        assertTrue(ConcurrencyStressTest.isValueFor(key, value), () -> key + " read as " + value);
        int version = Integer.parseInt(value.substring(key.length() + 1, value.indexOf('#', key.length() + 1)));
        assertTrue(version >= last[i], () -> key + " went back from version " + last[i] + " to " + version);
        last[i] = version;
        return version;
    }

    private static void count(AtomicLong reads, AtomicLong midway, int version, int rounds) {
        reads.incrementAndGet();
        if (version >= 0 && version < rounds - 1) {
            midway.incrementAndGet();
        }
    }

    /** A reading thread: stops all readers at its first failure, which the test reports. */
    private static Thread reader(AtomicBoolean done, AtomicReference<Throwable> failure, Executable body) {
        return Thread.ofPlatform().start(() -> {
            try {
                body.execute();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                done.set(true);
            }
        });
    }

    @Test
    void anExpiredEntryReadsAsAbsentAndStaysInTheFile() throws Exception {
        Path file = dir.resolve("expiring.map");
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(2))) {
            map.bytes().file.clock = () -> 1_000;
            map.set("soon", "gone", Duration.ofMinutes(1));
            map.set("later", "here", Duration.ofHours(1));
            map.set("never", "here");
        }
        byte[] before = Unwritable.sha256(file);
        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S)) {
            map.bytes().file.clock = () -> 1_000 + Duration.ofMinutes(2).toMillis();
            assertNull(map.get("soon"));
            assertFalse(map.containsKey("soon"));
            assertEquals(-1, map.expiresAt("soon"));
            assertNull(map.bytes().get(b("soon")));
            assertEquals(Map.of("later", "here", "never", "here"), map.getAll(List.of("soon", "later", "never")));
            assertEquals(Map.of("later", "here", "never", "here"), new HashMap<>(map));
            List<String> scanned = new ArrayList<>();
            map.bytes().forEach((k, v) -> scanned.add(s(k)));
            assertFalse(scanned.contains("soon"), "forEach skips it too");
            assertEquals(1_000 + Duration.ofHours(1).toMillis(), map.expiresAt("later"));
            assertEquals(3, map.size(), "size counts an expired entry until a writer removes it");
        }
        assertArrayEquals(before, Unwritable.sha256(file), "the expired entry was not purged");
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S)) {
            map.bytes().file.clock = () -> 1_000 + Duration.ofMinutes(2).toMillis();
            assertEquals(1, map.purgeExpired(), "it was still there for a writer to remove");
        }
    }

    @Test
    void readsOfABoundedMapMarkNothingForEviction() throws Exception {
        Path file = dir.resolve("bounded.map");
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S,
                MapOptions.DEFAULTS.withSegments(4).withMaxEntries(1_000))) {
            for (int i = 0; i < 500; i++) {
                map.set("k" + i, "v" + i);
            }
        }
        byte[] before = Unwritable.sha256(file);
        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S)) {
            for (int i = 0; i < 500; i++) {
                assertEquals("v" + i, map.get("k" + i));
            }
        }
        assertArrayEquals(before, Unwritable.sha256(file), "no entry marked referenced");
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S)) {
            for (int i = 0; i < 500; i++) {
                map.get("k" + i);
            }
        }
        assertFalse(java.util.Arrays.equals(before, Unwritable.sha256(file)), "the same gets through a writable open do mark");
    }

    @Test
    void aReadWaitsForALiveWriterAndReportsOneKilledHoldingItsLockUntilAWriterRepairsIt() throws Exception {
        Path file = dir.resolve("dead.map");
        Path stderr = dir.resolve("holder.err");
        Path out = dir.resolve("holder.out");
        Map<String, String> expected = new HashMap<>();
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(8))) {
            for (int i = 0; i < 200; i++) {
                map.set("k" + i, "v" + i);
                expected.put("k" + i, "v" + i);
            }
        }
        Process holder = Children.hold(file, "held", stderr, out);
        String inHeld;
        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S)) {
            BytesMap raw = map.bytes();
            Segment held = raw.segmentFor(BytesMap.hash(seg("held")));
            inHeld = expected.keySet().stream().filter(k -> raw.segmentFor(BytesMap.hash(seg(k))) == held).findFirst().orElseThrow();
            String elsewhere = expected.keySet().stream().filter(k -> raw.segmentFor(BytesMap.hash(seg(k))) != held)
                    .findFirst().orElseThrow();
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    outcome.set(new AssertionError("read " + map.get(inHeld) + " from a segment a writer holds"));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            reader.join(1_500);
            assertTrue(reader.isAlive(), () -> "a read waits for a live writer, as a locked read would; it ended with " + outcome.get());
            assertEquals(expected.get(elsewhere), map.get(elsewhere), "other segments read meanwhile");

            holder.destroyForcibly();   // SIGKILL: the lock stays held and the segment's version odd
            assertTrue(holder.waitFor(10, TimeUnit.SECONDS));
            reader.join(10_000);
            long owner = raw.file.readVolatile(FileHeaderLayout.segmentOffset(held.index) + SegmentLayout.LOCK_OWNER);
            assertEquals(holder.pid(), OwnerLock.pid(owner), "the killed child still owns the segment's lock");
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, outcome.get(), "the waiting read gave up");
            String m = e.getMessage();
            assertTrue(m.contains("segment=" + held.index + " of file=" + file) && m.contains("process " + holder.pid())
                    && m.contains("died") && m.contains("open the map writable once"), m);
            assertThrows(IllegalStateException.class, () -> map.get(inHeld), "so does every later read of the segment");
            assertThrows(IllegalStateException.class, () -> map.containsKey(inHeld));
            assertThrows(IllegalStateException.class, () -> new HashMap<>(map), "iteration reaches the segment");
            assertEquals(expected.get(elsewhere), map.get(elsewhere), "other segments read as ever");
            assertEquals(expected.size(), map.size());
        } finally {
            holder.destroyForcibly();   // when an assertion failed before the kill: the child would hold on for ever
        }
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S)) {
            assertEquals(expected.get(inHeld), map.get(inHeld), "a writable open takes the lock over and repairs");
        }
        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(file, S, S)) {
            assertEquals(expected, new HashMap<>(map));
        }
    }

    @Test
    void seesWhatAWritableOpenInThisProcessWritesAsTheFileGrows() throws Exception {
        Path file = dir.resolve("same.map");
        try (BytesMap writable = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4));
             BytesMap readOnly = BytesMap.openReadOnly(file)) {
            assertNull(readOnly.get(b("a")));
            writable.put(b("a"), b("1"));
            assertArrayEquals(b("1"), readOnly.get(b("a")));
            long mapped = readOnly.file.mem().byteSize();
            for (int i = 0; i < 20_000; i++) {
                writable.put(b("k" + i), value(i));
            }
            for (int i = 0; i < 20_000; i++) {
                assertArrayEquals(value(i), readOnly.get(b("k" + i)), "k" + i);
            }
            assertTrue(readOnly.file.mem().byteSize() > mapped && readOnly.file.remaps > 0, "remapped as the file grew");
            writable.remove(b("a"));
            assertNull(readOnly.get(b("a")));
            assertEquals(20_000, readOnly.size());
        }
    }

    @Test
    void opensOnlyAMapThatExists() throws Exception {
        Path missing = dir.resolve("missing.map");
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> BytesMap.openReadOnly(missing));
        assertEquals(missing.toString(), e.getFile());
        assertThrows(NoSuchFileException.class, () -> ColossalMap.openReadOnly(missing, S, S));
        assertFalse(Files.exists(missing), "nothing was created");
        Path junk = dir.resolve("junk.map");
        Files.write(junk, new byte[8192]);
        MapFormatException bad = assertThrows(MapFormatException.class, () -> BytesMap.openReadOnly(junk));
        assertTrue(bad.getMessage().contains(junk.toString()), bad.getMessage());
    }

    private static byte[] value(int i) {
        byte[] v = new byte[100 + i % 200];
        java.util.Arrays.fill(v, (byte) i);
        return v;
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static MemorySegment seg(String s) {
        return MemorySegment.ofArray(b(s));
    }

    private static String s(byte[] bytes) {
        return new String(bytes, UTF_8);
    }

    private static String s(MemorySegment bytes) {
        return s(bytes.toArray(ValueLayout.JAVA_BYTE));
    }
}
