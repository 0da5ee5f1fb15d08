package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A function given to {@code compute} runs under its key's segment lock and must not use the map.
 * One that does is told so with an {@link IllegalStateException}, whether it uses the same open of
 * the file or another open of it in this process (a user who opened a file in two places): the
 * lock word in the file names the process, not the thread, and through another open the thread
 * waited for itself for ever.
 */
class ReentryTest {

    @TempDir
    Path dir;

    /** Two keys of one segment: the map has one. */
    private ColossalMap<String, String> open(Path file) throws Exception {
        return ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING, MapOptions.DEFAULTS.withSegments(1));
    }

    @Test
    void aComputeFunctionThatUsesTheMapIsToldSoThroughAnyOpenOfTheFile() throws Exception {
        Path file = dir.resolve("m.map");
        try (ColossalMap<String, String> a = open(file); ColossalMap<String, String> b = open(file);
             ColossalMap<String, String> readOnly = ColossalMap.openReadOnly(file, TestCodecs.STRING, TestCodecs.STRING)) {
            a.put("x", "1");
            a.put("y", "2");
            List<Consumer<ColossalMap<String, String>>> reads = List.of(m -> m.get("y"), m -> m.containsKey("y"),
                    m -> new HashMap<>(m));
            List<Consumer<ColossalMap<String, String>>> all = new ArrayList<>(reads);
            all.add(m -> m.put("y", "3"));
            for (ColossalMap<String, String> other : List.of(a, b, readOnly)) {
                for (Consumer<ColossalMap<String, String>> use : other == readOnly ? reads : all) {
                    IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                            () -> assertThrows(IllegalStateException.class, () -> a.compute("x", (k, v) -> {
                                use.accept(other);
                                return v;
                            })), "a thread waiting for its own lock would never return");
                    assertTrue(e.getMessage().contains("locked by this thread") && e.getMessage().contains("must not use the map"),
                            e.getMessage());
                }
            }
            assertEquals("1", b.get("x"), "the lock was released and nothing was changed");
            b.put("y", "4");
            assertEquals("4", a.get("y"));
        }
    }

    @Test
    void anotherThreadWaitsThroughAnotherOpenAndIsNotTakenForTheHolder() throws Exception {
        Path file = dir.resolve("m.map");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (ColossalMap<String, String> a = open(file); ColossalMap<String, String> b = open(file)) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<?> holder = pool.submit(() -> a.compute("x", (k, v) -> {
                holding.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "held";
            }));
            assertTrue(holding.await(10, TimeUnit.SECONDS));
            Future<?> waiter = pool.submit(() -> b.put("y", "written"));
            Thread.sleep(100);
            assertTrue(!waiter.isDone(), "another thread's write waits for the holder");
            release.countDown();
            holder.get(10, TimeUnit.SECONDS);
            waiter.get(10, TimeUnit.SECONDS);
            assertEquals("held", b.get("x"));
            assertEquals("written", a.get("y"));
        } finally {
            pool.shutdownNow();
        }
    }
}
