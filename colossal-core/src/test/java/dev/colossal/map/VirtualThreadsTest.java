package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.AllocatedBytes;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The map used as a server with a virtual thread per request uses it: thousands of virtual threads
 * on one {@code ColossalMap} (through two opens of its file) and one {@code BytesMap}, few keys, and
 * compute functions that block holding their segment's lock. A virtual thread moves between carrier
 * threads whenever it parks, so the lock holders (see {@link LockHolders}) must name the virtual
 * thread and never its carrier, and a waiter for a lock must park rather than keep its carrier.
 */
class VirtualThreadsTest {

    record Counter(String name, long count) {}

    private static final Codec<Counter> COUNTERS = Codecs.of(Counter.class, MethodHandles.lookup());
    private static final int REQUESTS = 10_000;
    private static final int HOT_KEYS = 8;
    private static final int RAW_COUNTERS = 4;
    private static final long DEADLINE_SECONDS = 30;
    /** Whether the default scheduler has more than one carrier (one per core), so a virtual thread can move. */
    private static final boolean MANY_CARRIERS = Runtime.getRuntime().availableProcessors() > 1;

    @TempDir
    Path dir;

    private static ColossalMap<Long, Counter> open(Path file) throws Exception {
        return ColossalMap.open(file, Codecs.int64(), COUNTERS);
    }

    private static Counter sum(Counter a, Counter b) {
        return new Counter(a.name(), a.count() + b.count());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** The carrier a virtual thread is mounted on, from its name ({@code VirtualThread[#31]/runnable@ForkJoinPool-1-worker-2}). */
    private static String carrier() {
        String self = Thread.currentThread().toString();
        return self.substring(self.indexOf('@') + 1);
    }

    /** Waits for every future, failing (and saying how many were left) if they take longer than the deadline. */
    private static void awaitAll(List<Future<?>> futures) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        for (int i = 0; i < futures.size(); i++) {
            try {
                futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                long left = futures.stream().filter(f -> !f.isDone()).count();
                throw new AssertionError(left + " of " + futures.size() + " requests still running after "
                        + DEADLINE_SECONDS + " s: a deadlock, or waiters starving the carriers", e);
            }
        }
    }

    /** Adds one to the 8-byte counter under {@code key} by compare-and-set on its bytes, as a lock-free client would. */
    private static void increment(BytesMap raw, MemorySegment key, Arena arena) {
        MemorySegment seen = arena.allocate(8);
        MemorySegment next = arena.allocate(8);
        do {
            assertEquals(8, raw.get(key, seen));
            next.set(JAVA_LONG_UNALIGNED, 0, seen.get(JAVA_LONG_UNALIGNED, 0) + 1);
        } while (!raw.replace(key, seen, next));
    }

    private static MemorySegment longKey(Arena arena, long key) {
        MemorySegment k = arena.allocate(8);
        k.set(JAVA_LONG_UNALIGNED, 0, key);
        return k;
    }

    @Test
    void tenThousandVirtualThreadsOnFewKeysLoseNothing() throws Exception {
        Path file = dir.resolve("m.map");
        try (ColossalMap<Long, Counter> a = open(file);
             ColossalMap<Long, Counter> b = open(file);
             BytesMap raw = BytesMap.open(dir.resolve("raw.map"));
             Arena arena = Arena.ofShared();
             ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long k = 0; k < RAW_COUNTERS; k++) {
                raw.put(longKey(arena, k), arena.allocate(8));
            }
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                int request = i;
                futures.add(requests.submit(() -> {
                    ColossalMap<Long, Counter> mine = request % 2 == 0 ? a : b;
                    ColossalMap<Long, Counter> other = request % 2 == 0 ? b : a;
                    long hot = request % HOT_KEYS;
                    Counter one = new Counter("hot", 1);
                    switch (request % 50) {
                        // blocks holding the segment's lock: its waiters must park, and it wakes on any carrier
                        case 0 -> mine.compute(hot, (k, v) -> {
                            sleep(1);
                            return v == null ? one : sum(v, one);
                        });
                        case 1 -> {  // optimistic, as a client of ConcurrentMap without compute would be
                            Counter v;
                            do {
                                v = mine.get(hot);
                            } while (v == null ? mine.putIfAbsent(hot, one) != null : !mine.replace(hot, v, sum(v, one)));
                        }
                        default -> mine.merge(hot, one, VirtualThreadsTest::sum);
                    }
                    long own = 1_000_000L + request;
                    Counter mark = new Counter("own", request);
                    assertNull(mine.putIfAbsent(own, mark));
                    assertEquals(mark, other.get(own), "the other open sees the write at once");
                    assertEquals(mark, other.putIfAbsent(own, new Counter("lost", -1)));
                    assertTrue(other.remove(own, mark));
                    assertNull(mine.get(own));
                    try (Arena local = Arena.ofConfined()) {
                        increment(raw, longKey(local, request % RAW_COUNTERS), local);
                        MemorySegment key = longKey(local, own);
                        assertTrue(raw.putIfAbsent(key, key));
                        assertTrue(raw.remove(key));
                    }
                    return null;
                }));
            }
            awaitAll(futures);
            long typed = 0;
            for (long k = 0; k < HOT_KEYS; k++) {
                typed += a.get(k).count();
            }
            assertEquals(REQUESTS, typed, "every merge and compute counted once");
            assertEquals(HOT_KEYS, b.size(), "every request's own key removed again");
            long counted = 0;
            MemorySegment dst = arena.allocate(8);
            for (long k = 0; k < RAW_COUNTERS; k++) {
                raw.get(longKey(arena, k), dst);
                counted += dst.get(JAVA_LONG_UNALIGNED, 0);
            }
            assertEquals(REQUESTS, counted, "every raw compare-and-set counted once");
            assertEquals(RAW_COUNTERS, raw.size());
        }
    }

    /**
     * Heap bytes per request of {@code op} on a fresh virtual thread, less those of an empty one
     * (the thread itself), in the quietest of several windows: other threads of the test JVM
     * allocate now and then, a buffer made per request shows in every window.
     */
    private static long bytesPerRequest(IntConsumer op) throws InterruptedException {
        int requests = 2000;
        long fewest = Long.MAX_VALUE;
        for (int window = 0; window < 6; window++) {
            long empty = allocatedByRequests(i -> { }, requests);
            long used = allocatedByRequests(op, requests);
            if (window > 0) {   // the first warms up
                fewest = Math.min(fewest, Math.max(0, used - empty) / requests);
            }
        }
        return fewest;
    }

    private static long allocatedByRequests(IntConsumer op, int requests) throws InterruptedException {
        long before = AllocatedBytes.ofAllThreads();
        for (int i = 0; i < requests; i++) {
            int request = i;
            Thread.ofVirtual().start(() -> op.accept(request)).join();
        }
        return AllocatedBytes.ofAllThreads() - before;
    }

    @Test
    void aRequestOnAFreshVirtualThreadMakesNoBuffersOfItsOwn() throws Exception {
        int keys = 256;
        try (ColossalMap<Long, Counter> map = open(dir.resolve("m.map"));
             Arena arena = Arena.ofShared()) {
            Long[] boxed = new Long[keys];
            Counter[] values = new Counter[keys];
            MemorySegment[] rawKeys = new MemorySegment[keys];
            MemorySegment dst = arena.allocate(64);
            for (int i = 0; i < keys; i++) {
                boxed[i] = (long) i;
                values[i] = new Counter("c" + i, i);
                map.put(boxed[i], values[i]);
                rawKeys[i] = longKey(arena, i);   // Codecs.int64's encoding: the raw map finds the same entries
            }
            BytesMap raw = map.bytes();
            // Per request, with buffers kept per thread: ~17 KB for a typed get or put (the scratch's
            // native buffers and views, the codecs' 8 KiB output window and 272-byte input window, the
            // checksum's 4 KiB copy), 4.3 KB for a raw get. What remains is the decoded value (a Counter
            // and its String: ~90 bytes), the thread's count of borrowed calls (its thread-local map
            // and one entry: ~160 bytes; see SharedBuffers.borrowing) and what C2 leaves of the calls
            // (0-150 bytes): each bound is below that plus the smallest buffer it would otherwise make
            // (the raw get's: the scratch and its native buffers).
            long get = bytesPerRequest(i -> assertEquals(values[i % keys], map.get(boxed[i % keys])));
            long put = bytesPerRequest(i -> map.put(boxed[i % keys], values[i % keys]));
            long rawGet = bytesPerRequest(i -> assertTrue(raw.get(rawKeys[i % keys], dst) > 0));
            assertTrue(get < 448 && put < 640 && rawGet < 320,
                    "bytes per request on a fresh virtual thread: get=" + get + " put=" + put + " rawGet=" + rawGet);
        }
    }

    @Test
    void aComputeFunctionThatParksIsStillToldItHoldsTheLockAndNoOtherVirtualThreadIs() throws Exception {
        Path file = dir.resolve("m.map");
        long key = 7;
        int others = 200;
        try (ColossalMap<Long, Counter> a = open(file);
             ColossalMap<Long, Counter> b = open(file);
             ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor()) {
            a.put(key, new Counter("k", 0));
            CountDownLatch holding = new CountDownLatch(1);
            Set<String> carriers = new HashSet<>();
            Future<?> holder = requests.submit(() -> a.compute(key, (k, v) -> {
                holding.countDown();
                // Parks until it has woken on another carrier than it started on (the others below keep
                // the carriers busy), asking after every wake-up: the holder is this virtual thread
                // wherever it runs.
                for (int wakes = 0; wakes < 20 || carriers.size() < 2 && MANY_CARRIERS && wakes < 2000; wakes++) {
                    carriers.add(carrier());
                    for (ColossalMap<Long, Counter> m : List.of(a, b)) {
                        IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.get(k));
                        assertTrue(e.getMessage().contains("locked by this thread"), e.getMessage());
                        assertThrows(IllegalStateException.class, () -> m.merge(k, v, VirtualThreadsTest::sum));
                    }
                    sleep(1);
                }
                return sum(v, new Counter("k", 1));
            }));
            holding.await();
            // Mounted on the carriers the holder leaves and comes back to: none of them holds the lock,
            // so each waits for it (a holder told by carrier would refuse some, or wait for itself).
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < others; i++) {
                ColossalMap<Long, Counter> m = i % 2 == 0 ? a : b;
                futures.add(requests.submit(() -> m.merge(key, new Counter("k", 1), VirtualThreadsTest::sum)));
            }
            futures.add(holder);
            awaitAll(futures);
            assertTrue(carriers.size() >= 2 || !MANY_CARRIERS, "the holder ran on carriers=" + carriers + ": it never moved");
            assertEquals(others + 1, a.get(key).count());
        }
    }

    /** The CPU time this process has used, in ns (com.sun.management, by reflection: see {@link AllocatedBytes}). */
    private static long processCpuNanos() throws ReflectiveOperationException {
        Object os = Class.forName("java.lang.management.ManagementFactory").getMethod("getOperatingSystemMXBean").invoke(null);
        return (long) Class.forName("com.sun.management.OperatingSystemMXBean").getMethod("getProcessCpuTime").invoke(os);
    }

    /** How many cores this process kept busy, on average, over the next {@code millis}. */
    private static double coresBusyOver(long millis) throws ReflectiveOperationException {
        long cpu = processCpuNanos();
        long start = System.nanoTime();
        sleep(millis);
        return (processCpuNanos() - cpu) / (double) (System.nanoTime() - start);
    }

    @Test
    void thousandsWaitingForALockHeldByAParkedComputeFunctionLeaveTheCarriersIdle() throws Exception {
        long key = 3;
        int waiters = 2000;
        try (ColossalMap<Long, Counter> a = open(dir.resolve("m.map"));
             ColossalMap<Long, Counter> b = open(dir.resolve("m.map"));
             ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor()) {
            a.put(key, new Counter("k", 0));
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch measured = new CountDownLatch(1);
            Future<?> holder = requests.submit(() -> a.compute(key, (k, v) -> {
                holding.countDown();
                try {
                    measured.await();   // as a request would wait on a remote call
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return sum(v, new Counter("k", 1));
            }));
            holding.await();
            double idle = coresBusyOver(500);   // the JVM's own: compilers, GC, the holder's latch
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                ColossalMap<Long, Counter> m = i % 2 == 0 ? a : b;
                futures.add(requests.submit(() -> m.merge(key, new Counter("k", 1), VirtualThreadsTest::sum)));
            }
            sleep(200);   // every waiter has started, spun and gone to wait
            // On a loaded machine 2000 starts can take longer than that: the quietest of a few
            // windows is the waiting itself (waiters that kept polling would keep every window busy).
            double cores = Double.MAX_VALUE;
            for (int i = 0; i < 6 && cores - idle >= 0.3; i++) {
                cores = Math.min(cores, coresBusyOver(300));
            }
            measured.countDown();
            futures.add(holder);
            awaitAll(futures);
            assertEquals(waiters + 1, a.get(key).count());
            // Each waiter polling the lock word on its own, parked at most 640 us at a time, kept about
            // one core busy with 2000 of them; waiting in line, one polls and the rest sleep.
            assertTrue(cores - idle < 0.3, "cores busy while " + waiters + " virtual threads waited: " + cores
                    + ", and before they came: " + idle);
        }
    }
}
