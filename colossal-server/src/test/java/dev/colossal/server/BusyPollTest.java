package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An event loop polls for a while after serving requests, then sleeps: it burns a CPU only while
 * clients keep it busy, never on an idle server.
 */
class BusyPollTest {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    @Test
    void anIdleServerSleepsSoonAfterItsLastRequest() throws Exception {
        try (Started s = start(ServerConfig.DEFAULT_BUSY_POLL_MICROS)) {
            s.serveSomeRequests();
            Thread.sleep(100);
            long cpu = s.loopCpuNanosOver(400);
            assertTrue(cpu < TimeUnit.MILLISECONDS.toNanos(40),
                    "an idle event loop used " + cpu / 1_000_000 + " ms of CPU in 400 ms");
        }
    }

    @Test
    void aLoopPollsForTheTimeItIsGivenThenSleeps() throws Exception {
        try (Started s = start(1_000_000)) {
            // Against what a spinning thread gets of 300 ms just before, rather than a fixed share:
            // on a loaded machine (CI's 2 cores, other builds) a spinner may get a tenth of a CPU.
            // Before, not beside: beside the polling loop it would make the contention that stops it.
            CpuWait mine = new CpuWait();
            long spinFrom = THREADS.getCurrentThreadCpuTime();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            long spun = THREADS.getCurrentThreadCpuTime() - spinFrom;
            mine.look();
            // a loop that waits for a CPU stops polling (the test below): so does this one if other
            // work keeps the cores busy, which the spinner's own waiting tells
            org.junit.jupiter.api.Assumptions.assumeTrue(mine.waited < EventLoop.CONTENDED_SHARE * (mine.ran + mine.waited),
                    "other work keeps this machine's cores busy (a spinning thread waited " + mine.waited / 1_000_000
                            + " ms for a CPU and ran " + mine.ran / 1_000_000 + " ms)");
            s.serveSomeRequests();
            long polling = s.loopCpuNanosOver(300);
            assertTrue(polling > spun / 3,
                    "told to poll for 1 s, the loop used " + polling / 1_000_000 + " ms of CPU in 300 ms, a spinning thread "
                            + spun / 1_000_000 + " ms");
            Thread.sleep(1000);
            long idle = s.loopCpuNanosOver(400);
            assertTrue(idle < TimeUnit.MILLISECONDS.toNanos(40),
                    "1 s after the last request the loop still used " + idle / 1_000_000 + " ms of CPU in 400 ms");
        }
    }

    /**
     * With other busy threads on every core, a polling loop takes CPU from the clients it waits for:
     * it stops polling while it waits for a CPU, and polls again once the cores are free.
     */
    @Test
    void aLoopSharingItsCoresWithBusyWorkSleepsAtOnceAndPollsAgainWhenTheyAreFree() throws Exception {
        try (Started s = start(1_000_000)) {
            int cores = Runtime.getRuntime().availableProcessors();
            java.util.concurrent.atomic.AtomicBoolean busy = new java.util.concurrent.atomic.AtomicBoolean(true);
            java.util.List<Thread> spinners = new java.util.ArrayList<>();
            for (int i = 0; i < 2 * cores; i++) {
                spinners.add(Thread.ofPlatform().daemon().start(() -> {
                    while (busy.get()) {
                        Thread.onSpinWait();
                    }
                }));
            }
            try {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
                while (System.nanoTime() < end) {
                    s.serveSomeRequests(); // the loop polls, and waits for a CPU: it stops for 1 s, tries again, stops for 2
                }
                s.serveSomeRequests();
                long polled = s.loopCpuNanosOver(300);
                assertTrue(polled < TimeUnit.MILLISECONDS.toNanos(40),
                        "told to poll for 1 s on shared cores, the loop used " + polled / 1_000_000 + " ms of CPU in 300 ms");
            } finally {
                busy.set(false);
                for (Thread t : spinners) {
                    t.join();
                }
            }
            // whether other work keeps the cores busy: a spinning thread's own waiting tells (one that
            // sleeps would count its wake-ups too)
            CpuWait spinner = new CpuWait();
            long spinEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < spinEnd) {
                Thread.onSpinWait();
            }
            spinner.look();
            org.junit.jupiter.api.Assumptions.assumeTrue(spinner.waited < EventLoop.CONTENDED_SHARE * (spinner.ran + spinner.waited),
                    "other work keeps this machine's cores busy (a spinning thread waited " + spinner.waited / 1_000_000
                            + " ms for a CPU and ran " + spinner.ran / 1_000_000 + " ms): the loop rightly does not poll");
            // it tries again after 1, 2, then 4 s off (twice as long each time it found the cores
            // shared): within 8 s it polls again, and stays polling
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            long polling = 0;
            while (polling <= TimeUnit.MILLISECONDS.toNanos(60) && System.nanoTime() < deadline) {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250);
                while (System.nanoTime() < end) {
                    s.serveSomeRequests();
                }
                s.serveSomeRequests();
                polling = s.loopCpuNanosOver(300);
            }
            assertTrue(polling > TimeUnit.MILLISECONDS.toNanos(60),
                    "8 s after the cores were free again the loop used " + polling / 1_000_000 + " ms of CPU in 300 ms after requests");
        }
    }

    @Test
    void aNegativeOrHugePollIsRefused() {
        ServerConfig d = ServerConfig.defaults();
        for (int bad : new int[] {-1, 1_000_001}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new ServerConfig(d.bind(), 0, -1, dir, null, d.maxClients(), d.maxBulkBytes(), 0, 1, bad));
            assertTrue(e.getMessage().contains("--busy-poll=" + bad), e.getMessage());
        }
    }

    private Started start(int busyPollMicros) throws IOException {
        Set<Thread> before = ioThreads();
        ServerConfig d = ServerConfig.defaults();
        ColossalServer server = ColossalServer.start(
                new ServerConfig(d.bind(), 0, -1, dir, null, d.maxClients(), d.maxBulkBytes(), 0, 1, busyPollMicros));
        Set<Thread> loops = ioThreads();
        loops.removeAll(before);
        assertEquals(1, loops.size(), "one new event-loop thread");
        return new Started(server, loops.iterator().next());
    }

    private static Set<Thread> ioThreads() {
        Set<Thread> io = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("colossal-io-")) {
                io.add(t);
            }
        }
        return io;
    }

    private record Started(ColossalServer server, Thread loop) implements AutoCloseable {

        void serveSomeRequests() throws IOException {
            try (Wire w = new Wire(server.port())) {
                for (int i = 0; i < 200; i++) {
                    assertEquals("+OK\r\n", w.call("SET", "k" + i, "v"));
                }
            }
        }

        long loopCpuNanosOver(long millis) throws InterruptedException {
            long before = THREADS.getThreadCpuTime(loop.threadId());
            Thread.sleep(millis);
            return THREADS.getThreadCpuTime(loop.threadId()) - before;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
