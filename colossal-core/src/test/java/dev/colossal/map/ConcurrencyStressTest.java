package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers, readers and iterators on one map at once. Writers keep private models of their own
 * keys and increment shared counters; readers check that every value they see is one some writer
 * wrote for that key (never a torn or foreign value).
 */
class ConcurrencyStressTest {

    @TempDir
    Path dir;

    /** A value that tells which key and which version it belongs to, of varying length. */
    static String valueFor(String key, int version) {
        String head = key + "#" + version + "#";
        return head + "x".repeat((key.hashCode() + version * 7 & 0x7F) + (version % 17 == 0 ? 2000 : 0));
    }

    static boolean isValueFor(String key, String value) {
        if (!value.startsWith(key + "#")) {
            return false;
        }
        int end = value.indexOf('#', key.length() + 1);
        int version = Integer.parseInt(value.substring(key.length() + 1, end));
        return value.equals(valueFor(key, version));
    }

    @Test
    void shouldStayConsistentUnderConcurrentWritersReadersAndIterators() throws Exception {
        int writers = 3;
        int opsPerWriter = 30_000;
        int counters = 8;
        List<Map<String, String>> models = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        try (ColossalMap<String, String> map = ColossalMap.open(dir.resolve("stress.map"), TestCodecs.STRING,
                TestCodecs.STRING, MapOptions.DEFAULTS.withSegments(4))) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                Map<String, String> model = new HashMap<>();
                models.add(model);
                int id = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    Random rnd = new Random(id);
                    try {
                        start.await();
                        for (int i = 0; i < opsPerWriter; i++) {
                            String k = "w" + id + "-" + rnd.nextInt(2000);
                            if (rnd.nextInt(5) == 0) {
                                assertEquals(model.remove(k), map.remove(k));
                            } else {
                                String v = valueFor(k, i);
                                assertEquals(model.put(k, v), map.put(k, v));
                            }
                            map.merge("counter" + (i % counters), "1", (a, b) -> Long.toString(Long.parseLong(a) + 1));
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (int r = 0; r < 2; r++) {
                int id = r;
                threads.add(Thread.ofPlatform().start(() -> {
                    Random rnd = new Random(100 + id);
                    try {
                        start.await();
                        while (!done.get()) {
                            String k = "w" + rnd.nextInt(writers) + "-" + rnd.nextInt(2000);
                            String v = map.get(k);
                            if (v != null && !isValueFor(k, v)) {
                                throw new AssertionError("key=" + k + " read a value that was never written for it: " + v);
                            }
                            reads.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    while (!done.get()) {
                        map.entrySet().parallelStream().forEach(e -> {
                            if (e.getKey().startsWith("w") && !isValueFor(e.getKey(), e.getValue())) {
                                throw new AssertionError("iterator saw a foreign value for " + e.getKey());
                            }
                        });
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
            start.countDown();
            for (int i = 0; i < writers; i++) {
                threads.get(i).join();
            }
            done.set(true);
            for (Thread t : threads) {
                t.join();
            }
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError("failures in threads: " + failures.size());
                failures.forEach(e::addSuppressed);
                throw e;
            }
            assertTrue(reads.get() > 1000, "readers made progress: " + reads.get());
            Map<String, String> expected = new HashMap<>();
            models.forEach(expected::putAll);
            long total = 0;
            for (int c = 0; c < counters; c++) {
                total += Long.parseLong(map.get("counter" + c));
                map.remove("counter" + c);
            }
            assertEquals((long) writers * opsPerWriter, total, "every merge counted once");
            assertEquals(expected, new HashMap<>(map));
            MapChecks.assertSound(map.bytes());
        }
    }
}
