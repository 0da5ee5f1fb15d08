package dev.colossal.swap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.array.BigArray;
import dev.colossal.array.DoubleArray;
import dev.colossal.array.LongArray;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SwapSpaceTest extends TinySpaces {

    @Test
    void shouldKeepEveryValueUnderATinyBudgetWithRandomAccess() {
        SplittableRandom random = new SplittableRandom(11);
        try (SwapSpace space = tiny(40_000).build()) {
            List<SwappableArray<LongArray>> handles = new ArrayList<>();
            List<long[]> models = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                int length = 200 + random.nextInt(2500); // up to 20 KB, some not a whole chunk
                handles.add(space.allocate(LongArray.class, length));
                models.add(new long[length]);
            }
            for (int step = 0; step < 1500; step++) {
                int k = random.nextInt(handles.size());
                long[] model = models.get(k);
                try (LongArray a = handles.get(k).acquire()) {
                    check(a, model, "array " + k + " at step " + step);
                    for (int w = random.nextInt(20); w >= 0; w--) {
                        int i = random.nextInt(model.length);
                        model[i] = random.nextLong();
                        a.set(i, model[i]);
                    }
                }
                if (random.nextInt(10) == 0) {
                    handles.get(random.nextInt(handles.size())).prefetch();
                }
                SwapSpace.Stats stats = space.stats();
                assertTrue(stats.residentBytes() <= 40_000, "resident=" + stats.residentBytes() + " over the budget");
            }
            for (int k = 0; k < handles.size(); k++) {
                try (LongArray a = handles.get(k).acquire()) {
                    check(a, models.get(k), "array " + k + " at the end");
                }
            }
            SwapSpace.Stats stats = space.stats();
            assertTrue(stats.swapOuts() > 100 && stats.swapIns() > 100, stats.toString());
        }
        assertEquals(0, pool.stats().chunksInUse(), "every chunk back in the pool after close");
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedUnpinnedObject() throws Exception {
        try (SwapSpace space = tiny(3 * 8192).build()) {
            var a = space.allocate(LongArray.class, 1024);
            var b = space.allocate(LongArray.class, 1024);
            var c = space.allocate(LongArray.class, 1024);
            a.acquire().close(); // a is now more recent than b
            var d = space.allocate(LongArray.class, 1024);
            assertFalse(b.isResident(), "b was the least recently used");
            assertTrue(a.isResident() && c.isResident() && d.isResident());
            try (LongArray pinned = c.acquire()) {
                pinned.set(0, 7);
                space.allocate(LongArray.class, 2048); // needs two evictions: a and d go, pinned c stays
                assertTrue(c.isResident());
                assertFalse(a.isResident());
                assertFalse(d.isResident());
                IllegalStateException e = assertThrows(IllegalStateException.class, c::swapOut);
                assertTrue(e.getMessage().contains("pinned"), e.getMessage());
            }
            c.swapOut();
            assertFalse(c.isResident());
            try (LongArray back = c.acquire()) {
                assertEquals(7, back.get(0));
            }
        }
    }

    @Test
    void shouldSayWhenPinnedArraysFillTheBudget() {
        try (SwapSpace space = tiny(8192).build()) {
            space.pinWaitNanos = 50_000_000;
            var a = space.allocate(LongArray.class, 1024);
            try (LongArray pinned = a.acquire()) {
                SwapException e = assertThrows(SwapException.class, () -> space.allocate(LongArray.class, 16));
                assertTrue(e.getMessage().contains("pinned") && e.getMessage().contains("budget=8192"), e.getMessage());
                assertEquals(0, pinned.get(0));
            }
        }
    }

    /** A record for the codec path. */
    public record Note(String title, long[] values) {}

    @Test
    void shouldSwapCodecObjectsOutAndBack() {
        Codec<Note> codec = Codecs.of(Note.class, java.lang.invoke.MethodHandles.lookup());
        SplittableRandom random = new SplittableRandom(5);
        try (SwapSpace space = tiny(20_000).build()) {
            List<SwappableObject<Note>> notes = new ArrayList<>();
            List<long[]> models = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                long[] values = random.longs(100 + random.nextInt(800)).toArray();
                notes.add(space.store(new Note("note " + i, values), codec));
                models.add(values);
            }
            for (int step = 0; step < 300; step++) {
                int k = random.nextInt(notes.size());
                Note n = notes.get(k).get();
                assertEquals("note " + k, n.title());
                assertTrue(java.util.Arrays.equals(models.get(k), n.values()), "note " + k);
            }
            assertTrue(space.stats().swapOuts() > 0 && space.stats().swapIns() > 0);
            assertTrue(space.stats().residentBytes() <= 20_000);
        }
        try (SwapSpace space = tiny(8L << 20).build()) {
            long[] values = random.longs(400_000).toArray(); // 3.2 MB: checksummed beside the I/O
            SwappableObject<Note> big = space.store(new Note("big", values), codec);
            big.swapOut();
            assertFalse(big.isResident());
            assertTrue(java.util.Arrays.equals(values, big.get().values()));
        }
    }

    /**
     * A stored value should not change, but a list stored and then added to (or cut) must not be
     * lost for it: a swap-out of another length is refused, saying why, and the value stays in
     * memory; a persistent space saves it on close as it is then.
     */
    @Test
    void aStoredValueChangedAfterwardsIsKeptNotLost() {
        Codec<List<String>> strings = Codecs.list(Codecs.string());
        java.nio.file.Path file = dir.resolve("changed.swap");
        long grownId;
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            List<String> grown = new ArrayList<>(List.of("a"));
            List<String> cut = new ArrayList<>(List.of("a", "a much longer second element"));
            SwappableObject<List<String>> g = space.store(grown, strings);
            SwappableObject<List<String>> c = space.store(cut, strings);
            grown.add("b");
            cut.remove(1);
            for (SwappableObject<List<String>> changed : List.of(g, c)) {
                SwapException e = assertThrows(SwapException.class, changed::swapOut);
                assertTrue(e.getMessage().contains("was changed after it was stored")
                        && !e.getMessage().contains("Free disk space"), e.getMessage());
                assertTrue(changed.isResident());
            }
            assertEquals(List.of("a", "b"), g.get());
            assertEquals(List.of("a"), c.get());
            grownId = g.id();
        }
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            assertEquals(List.of("a", "b"), space.object(grownId, strings).get(), "saved as it was at close");
        }
    }

    @Test
    void shouldReopenAPersistentSpaceWithItsCatalog() {
        java.nio.file.Path file = dir.resolve("kept.swap");
        Codec<String> strings = Codecs.string();
        long arrayId;
        long textId;
        long doublesId;
        try (SwapSpace space = tiny(32_768).persistent(file).build()) {
            var longs = space.allocate(LongArray.class, 3000);
            try (LongArray a = longs.acquire()) {
                for (int i = 0; i < 3000; i++) {
                    a.set(i, i * 31L);
                }
            }
            var doubles = space.allocate(DoubleArray.class, 2000);
            try (DoubleArray d = doubles.acquire()) {
                d.fill(2.5);
            }
            arrayId = longs.id();
            doublesId = doubles.id();
            textId = space.store("kept across reopening", strings).id();
            assertFalse(longs.isResident(), "40 KB under a 32 KB budget: the older one is swapped out");
        }
        assertTrue(java.nio.file.Files.exists(file) && java.nio.file.Files.exists(CatalogLayout.pathOf(file)));
        try (SwapSpace space = tiny(32_768).persistent(file).build()) {
            assertEquals(List.of(arrayId, doublesId, textId), space.ids());
            try (LongArray a = space.array(arrayId, LongArray.class).acquire()) {
                for (int i = 0; i < 3000; i++) {
                    assertEquals(i * 31L, a.get(i));
                }
            }
            try (DoubleArray d = space.array(doublesId, DoubleArray.class).acquire()) {
                assertEquals(2.5, d.get(1999));
            }
            assertEquals("kept across reopening", space.object(textId, strings).get());
            assertThrows(IllegalArgumentException.class, () -> space.array(textId, LongArray.class));
            var other = assertThrows(IllegalArgumentException.class,
                    () -> space.object(textId, Codecs.list(Codecs.string())));
            assertTrue(other.getMessage().contains("stored with a codec of string"), other.getMessage());
            assertEquals("kept across reopening", space.object(textId, Codecs.string()).get());
            long fresh = space.store("new", strings).id();
            assertTrue(fresh > textId, "ids continue after reopening");
        }
    }

    public record Point(int x, int y) {}

    public record Label(String text) {}

    @Test
    void aReopenedObjectRefusesACodecOfAnotherSchema() throws Exception {
        java.nio.file.Path file = dir.resolve("schema.swap");
        Codec<Point> points = Codecs.of(Point.class);
        long pointId;
        long foreignId;
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            pointId = space.store(new Point(3, 4), points).id();
            foreignId = space.store("mine", new Utf8()).id();
        }
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            var other = assertThrows(IllegalArgumentException.class, () -> space.object(pointId, Codecs.of(Label.class)));
            assertTrue(other.getMessage().contains("object id=" + pointId) && other.getMessage().contains("Label"),
                    other.getMessage());
            assertEquals(new Point(3, 4), space.object(pointId, points).get(), "refused, then given the right one");
            assertEquals("mine", space.object(foreignId, new Utf8()).get(), "a codec of one's own has no schema to check");
        }
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            space.object(pointId, points); // the fingerprint survives a session that never decoded the object
        }
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            assertThrows(IllegalArgumentException.class, () -> space.object(pointId, Codecs.of(Label.class)));
        }

        // A catalog of format version 1 (entries of 32 bytes, no fingerprint) opens, unchecked as it was.
        java.nio.file.Path catalog = CatalogLayout.pathOf(file);
        java.nio.ByteBuffer v2 = java.nio.ByteBuffer.wrap(java.nio.file.Files.readAllBytes(catalog))
                .order(java.nio.ByteOrder.nativeOrder());
        int count = (int) v2.getLong(8);
        java.nio.ByteBuffer v1 = java.nio.ByteBuffer.allocate(48 + 32 * count).order(java.nio.ByteOrder.nativeOrder());
        v1.put(v2.array(), 0, 48);
        for (int i = 0; i < count; i++) {
            v1.put(v2.array(), 48 + 40 * i, 32);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(v1.array(), 48, 32 * count);
        v1.putLong(0, 0x0001_4c54_4143_4c43L).putInt(40, (int) crc.getValue());
        java.nio.file.Files.write(catalog, v1.array());
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            assertEquals(List.of(pointId, foreignId), space.ids());
            assertEquals(new Point(3, 4), space.object(pointId, points).get());
        }
    }

    /** A codec not made by {@link Codecs}: UTF-8 bytes, the length kept by the block. */
    private static final class Utf8 implements Codec<String> {
        @Override
        public long encodedSize(String value) {
            return value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }

        @Override
        public long encode(String value, java.lang.foreign.MemorySegment target, long offset) {
            long size = encodedSize(value);
            java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(
                    value.getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0, target, offset, size);
            return size;
        }

        @Override
        public String decode(java.lang.foreign.MemorySegment source) {
            return new String(source.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void shouldRefuseATruncatedOrUncataloguedPersistentFile() throws Exception {
        java.nio.file.Path file = dir.resolve("cut.swap");
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            space.allocate(LongArray.class, 5000);
        }
        long size = java.nio.file.Files.size(file);
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(size - 100);
        }
        SwapCorruptedException e = assertThrows(SwapCorruptedException.class, () -> tiny(1 << 20).persistent(file).build());
        assertTrue(e.getMessage().contains("truncated") && e.getMessage().contains(file.toString()), e.getMessage());
        java.nio.file.Files.delete(CatalogLayout.pathOf(file));
        SwapException missing = assertThrows(SwapException.class, () -> tiny(1 << 20).persistent(file).build());
        assertTrue(missing.getMessage().contains("no catalog"), missing.getMessage());
    }

    @Test
    void shouldKeepObjectsResidentAndSayWhyWhenTheSwapFileIsFull() {
        try (SwapSpace space = tiny(3 * 8192).maxFileBytes(20_000).build()) {
            SwapException failure = fillUntilFullThenCheckNothingIsLost(space, 1024, 2);
            assertTrue(failure.getMessage().contains("limit"), failure.getMessage());
        }
    }

    @Test
    void shouldKeepObjectsResidentAndSayWhyWhenTheDiskIsFull() throws Exception {
        java.nio.file.Path small = java.nio.file.Files.createDirectories(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor() == 0,
                "cannot mount a 256 KiB tmpfs here (needs root); the maxFileBytes test covers the same path");
        try (SwapSpace space = SwapSpace.builder().directory(small).budget(3 * 65536).alignment(64).ioSize(8192)
                .pool(pool).build()) {
            SwapException failure = fillUntilFullThenCheckNothingIsLost(space, 8192, -1);
            assertTrue(failure.getMessage().contains("No space left on device"), failure.getMessage());
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    /**
     * Allocates random arrays until making room fails, then checks every array: resident ones first
     * (dropping them makes room), then those in the swap file.
     */
    private SwapException fillUntilFullThenCheckNothingIsLost(SwapSpace space, int length, int expectSwapped) {
        List<SwappableArray<LongArray>> handles = new ArrayList<>();
        List<long[]> models = new ArrayList<>();
        SwapException failure = null;
        for (int i = 0; i < 100 && failure == null; i++) {
            try {
                var h = space.allocate(LongArray.class, length);
                long[] model = new SplittableRandom(i).longs(length).toArray();
                try (LongArray a = h.acquire()) {
                    a.copyFrom(model, 0, 0, length);
                }
                handles.add(h);
                models.add(model);
            } catch (SwapException e) {
                failure = e;
            }
        }
        assertTrue(failure != null, "the swap file never filled up");
        assertTrue(failure.getMessage().contains("stays in memory") && failure.getMessage().contains(space.file().toString()),
                failure.getMessage());
        List<Integer> swapped = new ArrayList<>();
        for (int k = 0; k < handles.size(); k++) {
            if (handles.get(k).isResident()) {
                try (LongArray a = handles.get(k).acquire()) {
                    check(a, models.get(k), "resident array " + k + " after the failure");
                }
                handles.get(k).close();
            } else {
                swapped.add(k);
            }
        }
        assertFalse(swapped.isEmpty());
        if (expectSwapped >= 0) {
            assertEquals(expectSwapped, swapped.size());
        }
        for (int k : swapped) {
            try (LongArray a = handles.get(k).acquire()) {
                check(a, models.get(k), "swapped array " + k + " after the failure");
            }
        }
        return failure;
    }

    @Test
    void shouldKeepEveryValueWithSeveralThreadsPinningAndEvicting() throws Exception {
        int threads = 4;
        int arrays = 16;
        int length = 2048;
        try (SwapSpace space = tiny(10L * length * 8).build()) {
            List<SwappableArray<LongArray>> handles = new ArrayList<>();
            long[][] models = new long[arrays][length];
            for (int k = 0; k < arrays; k++) {
                var h = space.allocate(LongArray.class, length);
                try (LongArray a = h.acquire()) {
                    a.set(0, k);
                }
                models[k][0] = k;
                handles.add(h);
            }
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int self = t;
                workers.add(Thread.ofPlatform().start(() -> {
                    SplittableRandom random = new SplittableRandom(self);
                    try {
                        start.await();
                        for (int step = 0; step < 600; step++) {
                            int k = random.nextInt(arrays);
                            var h = handles.get(k);
                            // Others' arrays are only read: read-only pins, and clean evictions beside the writes.
                            try (LongArray a = k % threads == self ? h.acquire() : h.acquireReadOnly()) {
                                assertEquals(k, a.get(0), "element 0 of array " + k);
                                if (k % threads == self) { // each thread writes only its own arrays
                                    check(a, models[k], "array " + k + " in thread " + self);
                                    int i = 1 + random.nextInt(length - 1);
                                    models[k][i] = random.nextLong();
                                    a.set(i, models[k][i]);
                                }
                            }
                            switch (random.nextInt(8)) {
                                case 0 -> handles.get(random.nextInt(arrays)).prefetch();
                                case 1 -> {
                                    try {
                                        handles.get(random.nextInt(arrays)).swapOut();
                                    } catch (IllegalStateException pinnedByAnotherThread) {
                                        // expected now and then
                                    }
                                }
                                default -> { }
                            }
                            assertTrue(space.stats().residentBytes() <= 10L * length * 8);
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            if (!errors.isEmpty()) {
                throw new AssertionError(errors.size() + " thread(s) failed; first: " + errors.get(0), errors.get(0));
            }
            for (int k = 0; k < arrays; k++) {
                try (LongArray a = handles.get(k).acquire()) {
                    check(a, models[k], "array " + k + " at the end");
                }
            }
            assertTrue(space.stats().swapIns() > 50 && space.stats().cleanEvictions() > 10, space.stats().toString());
        }
    }

    @Test
    void shouldNeverLoseWritesMadeWhileASwapOutIsInFlight() throws Exception {
        try (SwapSpace space = tiny(1 << 20).build()) {
            var h = space.allocate(LongArray.class, 64 * 1024);
            for (int round = 1; round <= 200; round++) {
                Thread out = Thread.ofPlatform().start(() -> {
                    try {
                        h.swapOut();
                    } catch (IllegalStateException pinnedMeanwhile) {
                        // acquired by the main thread first: nothing to swap out
                    }
                });
                try (LongArray a = h.acquire()) {
                    a.set(round, round);
                }
                out.join();
                try (LongArray a = h.acquire()) {
                    for (int r = 1; r <= round; r++) {
                        assertEquals(r, a.get(r), "round " + round);
                    }
                }
            }
        }
    }

    @Test
    void shouldRefuseAnObjectLargerThanTheBudget() {
        try (SwapSpace space = tiny(8192).build()) {
            SwapException e = assertThrows(SwapException.class, () -> space.allocate(LongArray.class, 1025));
            assertTrue(e.getMessage().contains("8200 bytes cannot fit under budget=8192"), e.getMessage());
        }
    }

    @Test
    void shouldRemoveTheDirectoriesItCreatedOnClose(@TempDir Path dir) throws Exception {
        Path nested = dir.resolve("a/b/c");
        try (SwapSpace space = tiny(1 << 20).directory(nested).build()) {
            space.allocate(LongArray.class, 10);
            assertTrue(Files.isDirectory(nested));
        }
        assertFalse(Files.exists(dir.resolve("a")), "a, a/b and a/b/c were made for the swap file");
        Path mine = Files.createDirectories(dir.resolve("mine"));
        Files.writeString(mine.resolve("keep.txt"), "the caller's");
        try (SwapSpace space = tiny(1 << 20).directory(mine).build()) {
            space.allocate(LongArray.class, 10);
        }
        try (var left = Files.list(mine)) {
            assertEquals(List.of(mine.resolve("keep.txt")), left.toList(), "a directory given is left as it was");
        }
    }

    @Test
    void aReleasedArrayIsNotTrackedAndAnArrayReleasedUnderTheSpaceDoesNotStopItsClose() throws Exception {
        Path swapDir = dir.resolve("own");
        SwapSpace space = SwapSpace.builder().directory(swapDir).budget(1 << 20).build();
        LongArray released = LongArray.contiguous(100);
        released.close();
        var e = assertThrows(IllegalArgumentException.class, () -> space.track(released));
        assertTrue(e.getMessage().contains("was released"), e.getMessage());
        LongArray twice = LongArray.contiguous(100);
        SwappableArray<LongArray> first = space.track(twice);
        // Two handles on one array: evicting one would release what the other still hands out.
        var again = assertThrows(IllegalArgumentException.class, () -> space.track(twice));
        assertTrue(again.getMessage().contains("tracked already, as object id=" + first.id()), again.getMessage());
        try (LongArray a = first.acquire()) {
            a.set(99, 7);
            assertThrows(IllegalArgumentException.class, () -> space.track(a), "nor one it handed out");
        }
        assertEquals(List.of(first.id()), space.ids(), "the refused tracks left nothing behind");
        first.swapOut();
        try (LongArray a = first.acquireReadOnly()) {
            assertEquals(7, a.get(99), "the first handle works on");
        }
        space.close();
        assertFalse(Files.exists(swapDir), "closed through and through: its file and directory are gone");
        assertThrows(IllegalStateException.class, space.pool()::acquire, "and its own pool closed");
    }

    @Test
    void shouldRejectUseAfterClose() {
        SwappableArray<LongArray> h;
        try (SwapSpace space = tiny(1 << 20).build()) {
            h = space.allocate(LongArray.class, 10);
            var g = space.allocate(LongArray.class, 10);
            g.close();
            assertThrows(IllegalStateException.class, g::acquire);
            assertEquals(List.of(h.id()), space.ids());
        }
        assertThrows(IllegalStateException.class, h::acquire);
        assertThrows(IllegalArgumentException.class, () -> SwapSpace.builder().alignment(100));
        assertThrows(IllegalArgumentException.class, () -> SwapSpace.builder().budget(0));
        assertThrows(IllegalArgumentException.class, () -> Kind.of(BigArray.class));
    }
}
