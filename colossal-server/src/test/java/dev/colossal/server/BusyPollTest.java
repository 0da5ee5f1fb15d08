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
            s.serveSomeRequests();
            // Against a spinning thread over the same 300 ms rather than a fixed share of them: on
            // a loaded machine (CI's 2 cores, other builds) a spinner may get a tenth of a CPU.
            long[] spun = new long[1];
            Thread spinner = Thread.ofPlatform().start(() -> {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                spun[0] = THREADS.getCurrentThreadCpuTime();
            });
            long polling = s.loopCpuNanosOver(300);
            spinner.join();
            assertTrue(polling > spun[0] / 3,
                    "told to poll for 1 s, the loop used " + polling / 1_000_000 + " ms of CPU in 300 ms, a spinning thread "
                            + spun[0] / 1_000_000 + " ms");
            Thread.sleep(1000);
            long idle = s.loopCpuNanosOver(400);
            assertTrue(idle < TimeUnit.MILLISECONDS.toNanos(40),
                    "1 s after the last request the loop still used " + idle / 1_000_000 + " ms of CPU in 400 ms");
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
