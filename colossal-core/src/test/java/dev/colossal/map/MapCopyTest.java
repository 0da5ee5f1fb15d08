package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link BytesMap#copyTo} and {@link MapCopier}: packed copies, with other layouts, beside writers. */
class MapCopyTest {

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(UTF_8);
    }

    private static Map<String, String> contents(BytesMap map) {
        Map<String, String> all = new HashMap<>();
        map.forEach((k, v) -> all.put(new String(k, UTF_8), new String(v, UTF_8)));
        return all;
    }

    @Test
    void shouldGiveBackTheSpaceOfDeletedEntriesAndKeepEveryLiveOne() throws IOException {
        Path file = dir.resolve("big.map");
        Path copy = dir.resolve("packed.map");
        Random random = new Random(7);
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(8))) {
            for (int i = 0; i < 40_000; i++) {
                map.put(key(i), new byte[100 + random.nextInt(400)]);
            }
            for (int i = 0; i < 40_000; i++) {
                if (i % 10 != 0) {
                    map.remove(key(i));
                }
            }
            map.put(MemorySegment.ofArray(key(-1)), MemorySegment.ofArray("lives".getBytes(UTF_8)), Duration.ofHours(1));
            long expiresAt = map.expiresAt(MemorySegment.ofArray(key(-1)));

            assertEquals(4001, map.copyTo(copy));

            try (BytesMap packed = BytesMap.open(copy)) {
                assertEquals(contents(map), contents(packed));
                assertEquals(expiresAt, packed.expiresAt(MemorySegment.ofArray(key(-1))), "the expiry time travels");
                assertEquals(0, packed.expiresAt(MemorySegment.ofArray(key(10))));
                assertEquals(8, packed.file.layout().segments(), "the source's layout");
            }
            long before = Files.size(file);
            long after = Files.size(copy);
            assertTrue(after * 4 < before, "a tenth of the entries should take far less than the file: " + after + " of " + before);
        }
        assertEquals(List.of(), MapVerifier.verify(copy, null).problems());
    }

    @Test
    void shouldCopyATypedMap() throws IOException {
        try (ColossalMap<String, Long> map = ColossalMap.open(dir.resolve("typed.map"), dev.colossal.codec.Codecs.string(),
                dev.colossal.codec.Codecs.int64())) {
            map.put("a", 1L);
            map.put("b", 2L);
            assertEquals(2, map.copyTo(dir.resolve("typed-copy.map")));
            map.compact();
        }
        try (ColossalMap<String, Long> copy = ColossalMap.open(dir.resolve("typed-copy.map"), dev.colossal.codec.Codecs.string(),
                dev.colossal.codec.Codecs.int64())) {
            assertEquals(Map.of("a", 1L, "b", 2L), new HashMap<>(copy));
        }
    }

    @Test
    void shouldLeaveExpiredEntriesBehind() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("ttl.map"))) {
            long[] now = {1_000_000};
            map.file.clock = () -> now[0];
            map.put(MemorySegment.ofArray(key(1)), MemorySegment.ofArray(new byte[8]), Duration.ofSeconds(1));
            map.put(key(2), new byte[8]);
            now[0] += 2000;
            assertEquals(1, map.copyTo(dir.resolve("copy.map")));
        }
        try (BytesMap copy = BytesMap.open(dir.resolve("copy.map"))) {
            assertNull(copy.get(key(1)));
            assertEquals(1, copy.size());
        }
    }

    @Test
    void shouldGiveTheCopyTheLayoutAsked() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("a.map"), MapOptions.DEFAULTS.withSegments(4))) {
            for (int i = 0; i < 5000; i++) {
                map.put(key(i), ("v" + i).getBytes(UTF_8));
            }
            map.copyTo(dir.resolve("b.map"), MapOptions.DEFAULTS.withSegments(64).withChecksums(false));
            try (BytesMap b = BytesMap.open(dir.resolve("b.map"))) {
                assertEquals(64, b.file.layout().segments());
                assertFalse(b.file.layout().checksums());
                assertEquals(contents(map), contents(b));
            }
        }
        MapCopier.Result r = MapCopier.copy(dir.resolve("a.map"), dir.resolve("c.map"), o -> o.withSegments(1), null);
        assertEquals(5000, r.entries());
        try (BytesMap c = BytesMap.open(dir.resolve("c.map"))) {
            assertEquals(1, c.file.layout().segments());
            assertTrue(c.file.layout().checksums(), "kept from the source");
        }
    }

    @Test
    void shouldNeverOverwriteAFileNorShowAHalfCopy() throws IOException {
        Path target = dir.resolve("taken.map");
        Files.writeString(target, "mine");
        try (BytesMap map = BytesMap.open(dir.resolve("src.map"), MapOptions.DEFAULTS.withSegments(16))) {
            for (int i = 0; i < 2000; i++) {
                map.put(key(i), new byte[50]);
            }
            FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class, () -> map.copyTo(target));
            assertTrue(e.getMessage().contains("taken.map"), e.getMessage());
            assertEquals("mine", Files.readString(target));

            Path fresh = dir.resolve("fresh.map");
            List<Integer> seen = new ArrayList<>();
            MapCopier.copy(map, fresh, null, percent -> {
                assertFalse(Files.exists(fresh), "the target appears only once complete");
                seen.add(percent);
            });
            assertEquals(16, seen.size());
            assertEquals(100, seen.getLast());
            assertTrue(Files.exists(fresh));
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().startsWith(".")).toList(), "no temporary left");
        }
    }

    @Test
    void shouldRemoveWhatAKilledCopyLeftAndNameTheTargetWhenItCannotBeWritten() throws Exception {
        Path target = dir.resolve("t.map");
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path dead = Files.write(dir.resolve(".t.map.copying-" + gone.pid() + "-1"), new byte[1 << 20]);
        Path live = Files.write(dir.resolve(".t.map.copying-" + ProcessHandle.current().pid() + "-1"), new byte[10]);
        Path foreign = Files.write(dir.resolve(".t.map.copying-notes"), new byte[10]);
        try (BytesMap map = BytesMap.open(dir.resolve("s.map"))) {
            map.put(key(1), key(1));
            map.copyTo(target);
            assertFalse(Files.exists(dead), "a dead process's partial copy is removed");
            assertTrue(Files.exists(live) && Files.exists(foreign), "a live process's copy and other files stay");

            java.nio.file.NoSuchFileException e = assertThrows(java.nio.file.NoSuchFileException.class,
                    () -> map.copyTo(dir.resolve("none/x.map")));
            assertEquals(dir.resolve("none").toString(), e.getFile());
        }
    }

    @Test
    void shouldStopAtDamageAndLeaveNoTarget() throws IOException {
        Path file = dir.resolve("damaged.map");
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < 500; i++) {
                map.put(key(i), ("value " + i).getBytes(UTF_8));
            }
        }
        byte[] content = Files.readAllBytes(file);
        int at = new String(content, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("value 250");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~content[at + 3]}), at + 3);
        }
        Path target = dir.resolve("out.map");
        MapCorruptedException e = assertThrows(MapCorruptedException.class, () -> MapCopier.copy(file, target, null, null));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "neither the target nor a temporary is left");
        }
    }

    @Test
    void shouldCopyAMapThisUserMayNotWrite() throws Exception {
        Path file = dir.resolve("frozen.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4))) {
            for (int i = 0; i < 3000; i++) {
                map.put(key(i), ("v" + i).getBytes(UTF_8));
            }
        }
        try (Unwritable frozen = Unwritable.make(file)) {
            assumeTrue(frozen.stopsThisUser(), "this user writes any file (root without chattr): nothing to show");
            assertEquals(3000, MapCopier.copy(file, dir.resolve("thawed.map"), null, null).entries());
        }
        try (BytesMap copy = BytesMap.open(dir.resolve("thawed.map"))) {
            assertEquals("v2999", new String(copy.get(key(2999)), UTF_8));
            assertEquals(3000, copy.size());
        }
    }

    /**
     * Writers keep replacing values while the copy runs: every value in the copy is one a writer
     * wrote for that key, and keys no writer touched are all there.
     */
    @Test
    void shouldCopyAMapInUse() throws Exception {
        Path file = dir.resolve("busy.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(16))) {
            for (int i = 0; i < 20_000; i++) {
                map.put(key(i), value(i, 0));
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int seed = w;
                writers.add(Thread.ofPlatform().start(() -> {
                    Random random = new Random(seed);
                    for (int round = 1; !stop.get(); round++) {
                        int k = random.nextInt(10_000);
                        map.put(key(k), value(k, round));
                        map.remove(key(20_000 + random.nextInt(1000)));
                        map.put(key(20_000 + random.nextInt(1000)), value(20_000, round));
                    }
                }));
            }
            try {
                Thread.sleep(50);
                for (int copy = 0; copy < 3; copy++) {
                    Path target = dir.resolve("busy-" + copy + ".map");
                    map.copyTo(target);
                    try (BytesMap c = BytesMap.open(target)) {
                        for (int i = 0; i < 20_000; i++) {
                            byte[] v = c.get(key(i));
                            assertTrue(v != null && new String(v, UTF_8).startsWith(i + "/"), "key " + i + ": " + (v == null ? null : new String(v, UTF_8)));
                            if (i >= 10_000) {
                                assertArrayEquals(value(i, 0), v, "untouched key " + i);
                            }
                        }
                    }
                }
            } finally {
                stop.set(true);
                for (Thread t : writers) {
                    t.join();
                }
            }
        }
    }

    private static byte[] value(int k, int round) {
        return (k + "/" + round + "/" + "x".repeat(k % 200)).getBytes(UTF_8);
    }
}
