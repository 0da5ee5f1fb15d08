package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.colossal.codec.Codec;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locks left by writers that cannot hold them any more. {@link BytesMap#recoverLocks} repairs at once
 * the segments a killed writer left locked, and {@link BytesMap#repairs} counts them, so that a server
 * restarted after a crash can say what recovery took. And a copy of a map file made while a writer held a segment's lock ({@code cp} of a file in use, a
 * snapshot) carries that writer's lock word. Opened on the same machine while the writer lives on,
 * the copy's segment is repaired as after a crash: the writer maps the original, never the copy.
 * Before, every write to the segment waited for ever (an operator trial: a server on the copy hung
 * on its first SET there, SIGTERM could not stop it, and {@code verify} of the copy never ended).
 */
class AbandonedLockTest {

    private static final Codec<String> S = TestCodecs.STRING;

    @TempDir
    Path dir;

    @Test
    void aCopyMadeWhileALiveWriterHeldALockIsRepairedWhileTheOriginalStaysLocked() throws Exception {
        Path file = dir.resolve("live.map");
        Path copy = dir.resolve("copy.map");
        Path stderr = dir.resolve("holder.err");
        Path out = dir.resolve("holder.out");
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            expected.put("k" + i, "v" + i);
        }
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(8))) {
            map.putAll(expected);
        }
        Process holder = Children.hold(file, "held", stderr, out);
        try {
            Files.copy(file, copy);

            String inHeld;
            try (ColossalMap<String, String> map = ColossalMap.openReadOnly(copy, S, S)) {
                BytesMap raw = map.bytes();
                Segment held = raw.segmentFor(BytesMap.hash(seg("held")));
                inHeld = expected.keySet().stream().filter(k -> raw.segmentFor(BytesMap.hash(seg(k))) == held)
                        .findFirst().orElseThrow();
                Throwable t = within(5, () -> map.get(inHeld));
                IllegalStateException e = assertInstanceOf(IllegalStateException.class, t,
                        "a read-only read of the copy's segment reports it instead of waiting for the live writer");
                assertTrue(e.getMessage().contains("process " + holder.pid()) && e.getMessage().contains("does not map this file")
                        && e.getMessage().contains("open the map writable once"), e.getMessage());
            }

            writeTakesOverAndRepairs(copy, inHeld, expected);
            try (ColossalMap<String, String> map = ColossalMap.open(file, S, S)) {
                AtomicReference<Throwable> outcome = new AtomicReference<>();
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        map.put(inHeld, "original");
                    } catch (Throwable t) {
                        outcome.set(t);
                    }
                });
                writer.join(1_500);
                assertTrue(writer.isAlive(), () -> "the original's lock is the live writer's, who maps it: " + outcome.get());
                holder.destroyForcibly();
                writer.join(10_000);
                assertNull(outcome.get());
                assertEquals("original", map.get(inHeld), "taken over once the writer died");
            }
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCopyThisProcessMadeWhileItHeldALockIsTakenOverWhenItOpensTheCopy() throws Exception {
        Path file = dir.resolve("own.map");
        Path copy = dir.resolve("own-copy.map");
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            expected.put("k" + i, "v" + i);
        }
        String inHeld;
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(8))) {
            map.putAll(expected);
            BytesMap raw = map.bytes();
            Segment held = raw.segmentFor(BytesMap.hash(seg("held")));
            inHeld = expected.keySet().stream().filter(k -> raw.segmentFor(BytesMap.hash(seg(k))) == held)
                    .findFirst().orElseThrow();
            // The segment's lock and the file lock, each held by this process while the file is copied.
            map.compute("held", (k, v) -> {
                copyTo(file, copy);
                return null;
            });
            raw.file.underFileLock(m -> {
                copyTo(file, dir.resolve("own-copy-2.map"));
                return null;
            });
        }

        try (ColossalMap<String, String> map = ColossalMap.openReadOnly(copy, S, S)) {
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, within(5, () -> map.get(inHeld)),
                    "a read-only read of the copy's segment reports it instead of waiting for this process");
            assertTrue(e.getMessage().contains("(this one) before it opened the file")
                    && e.getMessage().contains("open the map writable once"), e.getMessage());
        }
        writeTakesOverAndRepairs(copy, inHeld, expected);
        // Not closed if the wait fails: close waits for the file lock the stuck writer is after.
        ColossalMap<String, String> grown = ColossalMap.open(dir.resolve("own-copy-2.map"), S, S);
        assertEquals(OwnerLock.SELF, Mem.getLongAcquire(grown.bytes().file.mem(), FileHeaderLayout.FILE_LOCK_OFFSET),
                "the copy's file lock names this process");
        long before = grown.bytes().file.size();
        assertNull(within(5, () -> {
            for (int i = 0; i < 20_000; i++) {
                grown.put("grow" + i, "x".repeat(100));   // the file grows under its file lock
            }
        }), "the copy's file lock is taken over");
        assertEquals(200 + 20_000, grown.size());
        assertTrue(grown.bytes().file.size() > before, "the file grew");
        grown.close();
    }

    /** A write to the copy's locked segment takes the lock over, repairs the segment once and keeps every entry. */
    private static void writeTakesOverAndRepairs(Path copy, String inHeld, Map<String, String> expected) throws Exception {
        try (ColossalMap<String, String> map = ColossalMap.open(copy, S, S)) {
            Segment held = map.bytes().segmentFor(BytesMap.hash(seg("held")));
            assertNull(within(5, () -> map.put(inHeld, "again")), "a write to the copy's segment takes the lock over");
            expected.put(inHeld, "again");
            assertEquals(expected, new HashMap<>(map));
            assertEquals(1, held.repairs(), "the segment was repaired, as after a crash");
            assertNull(within(5, () -> map.put(inHeld, "and again")), "and the lock is an ordinary one after");
        }
    }

    private static void copyTo(Path from, Path to) {
        try {
            Files.copy(from, to);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void recoverLocksRepairsNowWhatAKilledWriterLeftLockedAndRepairsCountsIt() throws Exception {
        Path file = dir.resolve("killed.map");
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S, MapOptions.DEFAULTS.withSegments(8))) {
            map.set("k", "v");
            assertEquals(0, map.bytes().recoverLocks(), "nothing to recover");
        }
        Path out = dir.resolve("holder.out");
        Process holder = Children.hold(file, "held", dir.resolve("holder.err"), out);
        holder.destroyForcibly();   // SIGKILL inside compute: the lock stays held
        assertTrue(holder.waitFor(10, TimeUnit.SECONDS));
        try (ColossalMap<String, String> map = ColossalMap.open(file, S, S)) {
            assertEquals(0, map.bytes().repairs(), "opening repairs nothing by itself");
            assertEquals(1, map.bytes().recoverLocks(), "the killed writer's segment");
            assertEquals(1, map.bytes().repairs());
            assertEquals(0, map.bytes().recoverLocks(), "once");
            assertEquals("v", map.get("k"));
        }
        try (BytesMap readOnly = BytesMap.openReadOnly(file)) {
            assertEquals(1, readOnly.repairs(), "kept in the file");
        }
    }

    /** Runs {@code action} on a daemon thread: what it threw, null if it returned, or a failure if it still ran after {@code seconds}. */
    private static Throwable within(int seconds, Runnable action) throws InterruptedException {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                action.run();
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        t.join(TimeUnit.SECONDS.toMillis(seconds));
        if (t.isAlive()) {
            fail("still waiting after " + seconds + " s for a lock the copy's named owner cannot hold");
        }
        return outcome.get();
    }

    private static MemorySegment seg(String key) {
        return MemorySegment.ofArray(key.getBytes(StandardCharsets.UTF_8));
    }
}
