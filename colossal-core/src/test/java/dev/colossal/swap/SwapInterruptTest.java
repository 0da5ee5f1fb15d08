package dev.colossal.swap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.Interrupts;
import dev.colossal.array.LongArray;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A thread interrupted while it swaps an object in, or closes a persistent space, must not lose the
 * objects in the swap file: the JDK closes the file's channel for good when a thread doing I/O on it
 * is interrupted, and a temporary swap file, deleted as soon as it is open, cannot be opened again.
 */
class SwapInterruptTest extends TinySpaces {

    private static final int LENGTH = 1000;
    private final Codec<String> strings = Codecs.string();

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    @Test
    void anInterruptedSwapInLosesNothingForOtherThreads() throws Exception {
        try (SwapSpace space = tiny(1 << 20).build()) {
            List<SwappableArray<LongArray>> arrays = filled(space, 4);
            SwappableObject<String> text = space.store("swapped out", strings);
            arrays.forEach(Swappable::swapOut);
            text.swapOut();
            Thread.currentThread().interrupt();
            Throwable interrupted = Interrupts.failureOf(() -> check(arrays.get(0), 0));
            boolean flagKept = Thread.interrupted();
            Throwable other = Interrupts.onAnotherThread(() -> {
                for (int k = 1; k < arrays.size(); k++) {
                    check(arrays.get(k), k);
                }
                assertEquals("swapped out", text.get());
            });
            assertEquals(null, other, "another thread's swap-ins after the interrupted one");
            assertEquals(null, interrupted, "the interrupted thread's swap-in");
            assertTrue(flagKept, "the caller's interrupt is kept for it to see");
        }
    }

    @Test
    void interruptingAThreadContinuouslyWhileItSwapsInAndOut() throws Exception {
        try (SwapSpace space = tiny(3 * LENGTH * Long.BYTES).build()) { // three of eight arrays fit
            List<SwappableArray<LongArray>> arrays = filled(space, 8);
            AtomicInteger steps = new AtomicInteger();
            Throwable failure = Interrupts.interruptedThroughout(() -> {
                SplittableRandom random = new SplittableRandom(3);
                for (int step = 0; step < 3000; step++) {
                    int k = random.nextInt(arrays.size());
                    check(arrays.get(k), k);
                    steps.incrementAndGet();
                }
            });
            assertEquals(null, failure, "an interrupt is no reason for a swap-in to fail");
            assertEquals(3000, steps.get());
            for (int k = 0; k < arrays.size(); k++) {
                check(arrays.get(k), k);
            }
            assertTrue(space.stats().swapIns() > 100, space.stats().toString());
        }
    }

    @Test
    void anInterruptedThreadClosesAPersistentSpaceWithEverything() {
        Path file = dir.resolve("kept.swap");
        List<Long> ids = new ArrayList<>();
        try (SwapSpace space = tiny(3 * LENGTH * Long.BYTES).persistent(file).build()) {
            filled(space, 6).forEach(a -> ids.add(a.id())); // three swapped out, three resident and dirty
            Thread.currentThread().interrupt();
        }
        assertTrue(Thread.interrupted(), "the caller's interrupt is kept for it to see");
        try (SwapSpace space = tiny(3 * LENGTH * Long.BYTES).persistent(file).build()) {
            assertEquals(ids, space.ids());
            for (int k = 0; k < ids.size(); k++) {
                check(space.array(ids.get(k), LongArray.class), k);
            }
        }
    }

    /** Arrays whose element i holds {@code k * LENGTH + i}, k their index. */
    private static List<SwappableArray<LongArray>> filled(SwapSpace space, int count) {
        List<SwappableArray<LongArray>> arrays = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            SwappableArray<LongArray> handle = space.allocate(LongArray.class, LENGTH);
            try (LongArray a = handle.acquire()) {
                for (int i = 0; i < LENGTH; i++) {
                    a.set(i, (long) k * LENGTH + i);
                }
            }
            arrays.add(handle);
        }
        return arrays;
    }

    private static void check(SwappableArray<LongArray> handle, int k) {
        try (LongArray a = handle.acquireReadOnly()) {
            for (int i = 0; i < LENGTH; i++) {
                if (a.get(i) != (long) k * LENGTH + i) {
                    throw new AssertionError("array " + k + " element " + i + " is " + a.get(i));
                }
            }
        }
    }
}
