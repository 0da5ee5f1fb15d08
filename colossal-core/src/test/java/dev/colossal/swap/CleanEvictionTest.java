package dev.colossal.swap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.array.LongArray;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** An object read back and only read since keeps its block: evicting it again writes nothing. */
class CleanEvictionTest extends TinySpaces {

    @Test
    void shouldWriteADirtyObjectAndOnlyDropACleanOne() {
        try (SwapSpace space = tiny(1 << 20).build()) {
            var h = space.allocate(LongArray.class, 1000);
            try (LongArray a = h.acquire()) {
                a.set(7, 70);
            }
            h.swapOut();
            assertEquals(8000, space.stats().bytesWritten(), "a new object is dirty: written");
            for (int round = 0; round < 3; round++) {
                try (LongArray a = h.acquireReadOnly()) {
                    assertEquals(70, a.get(7));
                    assertThrows(IllegalArgumentException.class, () -> a.set(7, 1));
                }
                h.swapOut();
                assertFalse(h.isResident());
            }
            SwapSpace.Stats stats = space.stats();
            assertEquals(8000, stats.bytesWritten(), "read-only use: evicted three times, never written again");
            assertEquals(1, stats.swapOuts());
            assertEquals(3, stats.cleanEvictions());
            assertEquals(3, stats.swapIns());

            try (LongArray a = h.acquire()) {
                a.set(8, 80);
            }
            h.swapOut();
            assertEquals(16_000, space.stats().bytesWritten(), "a writable pin made it dirty: written again");
            try (LongArray a = h.acquireReadOnly()) {
                assertEquals(70, a.get(7));
                assertEquals(80, a.get(8));
            }
            h.close();
            assertEquals(0, space.stats().residentBytes());
        }
        assertEquals(0, pool.stats().chunksInUse());
    }

    @Test
    void shouldEvictAnEncodedObjectReadBackWithoutWritingIt() {
        try (SwapSpace space = tiny(1 << 20).build()) {
            var note = space.store("a value that never changes", dev.colossal.codec.Codecs.string());
            note.swapOut();
            long written = space.stats().bytesWritten();
            assertTrue(written > 0);
            for (int round = 0; round < 3; round++) {
                assertEquals("a value that never changes", note.get());
                note.swapOut();
            }
            assertEquals(written, space.stats().bytesWritten(), "an immutable value is written once");
            assertEquals(3, space.stats().cleanEvictions());
        }
    }

    @Test
    void shouldKeepEveryValueMixingReadAndWritePinsUnderATinyBudget() {
        SplittableRandom random = new SplittableRandom(23);
        long budget = 40_000;
        try (SwapSpace space = tiny(budget).build()) {
            List<SwappableArray<LongArray>> handles = new ArrayList<>();
            List<long[]> models = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                int length = 200 + random.nextInt(2500);
                handles.add(space.allocate(LongArray.class, length));
                models.add(new long[length]);
            }
            long cleanBefore = 0;
            for (int step = 0; step < 3000; step++) {
                int k = random.nextInt(handles.size());
                long[] model = models.get(k);
                if (random.nextInt(4) == 0) {
                    try (LongArray a = handles.get(k).acquire()) {
                        check(a, model, "array " + k + " (writable) at step " + step);
                        for (int w = random.nextInt(20); w >= 0; w--) {
                            int i = random.nextInt(model.length);
                            model[i] = random.nextLong();
                            a.set(i, model[i]);
                        }
                    }
                } else {
                    try (LongArray a = handles.get(k).acquireReadOnly()) {
                        check(a, model, "array " + k + " (read-only) at step " + step);
                    }
                }
                switch (random.nextInt(10)) {
                    case 0 -> handles.get(random.nextInt(handles.size())).prefetch();
                    case 1 -> handles.get(random.nextInt(handles.size())).swapOut();
                    default -> { }
                }
                SwapSpace.Stats stats = space.stats();
                assertTrue(stats.residentBytes() <= budget, "resident=" + stats.residentBytes() + " over the budget");
                assertTrue(stats.cleanEvictions() >= cleanBefore);
                cleanBefore = stats.cleanEvictions();
            }
            for (int k = 0; k < handles.size(); k++) {
                try (LongArray a = handles.get(k).acquireReadOnly()) {
                    check(a, models.get(k), "array " + k + " at the end");
                }
            }
            SwapSpace.Stats stats = space.stats();
            assertTrue(stats.cleanEvictions() > 500 && stats.swapOuts() > 100 && stats.swapIns() > 1000, stats.toString());
            long allocated = models.stream().mapToLong(m -> 8L * m.length).sum();
            assertTrue(stats.fileBytes() >= allocated, "every object has its block: " + stats);
        }
        assertEquals(0, pool.stats().chunksInUse(), "every chunk back in the pool after close");
    }

    @Test
    void shouldKeepAReadPinnedObjectResidentAndCleanWhenItsWriteCompletes() throws Exception {
        long size = 256 * 1024 * 8;
        try (SwapSpace space = tiny(1 << 22).build()) {
            var h = space.allocate(LongArray.class, size / 8);
            int writtenUnderPin = 0;
            for (int round = 0; round < 50; round++) {
                try (LongArray a = h.acquire()) {
                    a.set(5, round); // dirty: the swap-out below writes
                }
                long before = space.stats().bytesWritten();
                Thread out = Thread.ofPlatform().start(() -> {
                    try {
                        h.swapOut();
                    } catch (IllegalStateException pinnedFirst) {
                        // read-pinned before the write started: it stays dirty
                    }
                });
                boolean written;
                try (LongArray a = h.acquireReadOnly()) {
                    assertEquals(round, a.get(5));
                    out.join(); // a write in flight completes while the view pins the array
                    assertTrue(h.isResident(), "a pinned array stays in memory");
                    written = space.stats().bytesWritten() > before;
                }
                writtenUnderPin += written ? 1 : 0;
                long after = space.stats().bytesWritten();
                h.swapOut();
                assertEquals(written ? after : after + size, space.stats().bytesWritten(),
                        "round " + round + ": written before the pin went means clean, else written now");
                try (LongArray a = h.acquireReadOnly()) {
                    assertEquals(round, a.get(5));
                }
            }
            System.out.println("read pin met a swap-out that got written in " + writtenUnderPin + " of 50 rounds");
        }
    }

    @Test
    void shouldKeepCleanBlocksAcrossReopeningAPersistentSpace() {
        Path file = dir.resolve("kept.swap");
        long id;
        try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
            var h = space.allocate(LongArray.class, 3000);
            try (LongArray a = h.acquire()) {
                a.set(2999, 42);
            }
            id = h.id();
        }
        for (int reopen = 0; reopen < 3; reopen++) {
            try (SwapSpace space = tiny(1 << 20).persistent(file).build()) {
                try (LongArray a = space.array(id, LongArray.class).acquireReadOnly()) {
                    assertEquals(42, a.get(2999));
                }
                assertEquals(0, space.stats().bytesWritten(), "closing with a clean object writes no block");
            }
        }
    }
}
