package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The latency monitor (latency-monitor-threshold, LATENCY LATEST / HISTORY / RESET / GRAPH /
 * DOCTOR): what the samples are, and that a slow command and a slow fast command are sampled under
 * Redis's event names. redis-compat.txt compares the replies that hold no time.
 */
class LatencyMonitorTest {

    @TempDir
    Path dir;

    @Test
    void keepsTheWorstSampleOfEachSecondForTheLast160Seconds() {
        LatencyMonitor m = new LatencyMonitor();
        m.observe("command", 500_000_000, 1_000);
        assertEquals(List.of(), m.names(), "off (threshold 0): nothing is sampled");
        m.threshold(100);
        m.observe("command", 99_999_999, 1_000);
        assertEquals(List.of(), m.names(), "under the threshold");
        m.observe("command", 300_000_000, 1_000);
        m.observe("command", 200_000_000, 1_500);
        m.observe("command", 400_000_000, 1_900);
        m.observe("command", 150_000_000, 2_100);
        assertEquals(List.of(new LatencyMonitor.Sample(1, 400), new LatencyMonitor.Sample(2, 150)), m.history("command"));
        Object[] latest = m.latest().getFirst();
        assertEquals(List.of("command", 2L, 150L, 400L), List.of(latest));
        for (int s = 3; s < 4 + LatencyMonitor.KEPT; s++) {
            m.observe("expire-cycle", 100_000_000, s * 1000L);
        }
        assertEquals(LatencyMonitor.KEPT, m.history("expire-cycle").size());
        assertEquals(4, m.history("expire-cycle").getFirst().second(), "the oldest second went");
        assertEquals(0, m.reset(List.of("nothing")));
        assertEquals(1, m.reset(List.of("expire-cycle", "nothing")));
        assertEquals(1, m.reset());
        assertEquals(List.of(), m.latest());
    }

    @Test
    void slowCommandsAreSampledAsCommandOrFastCommand() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir, "enable-debug-command", "yes");
             Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "latency-monitor-threshold", "50"));
            assertEquals("*2\r\n$25\r\nlatency-monitor-threshold\r\n$2\r\n50\r\n",
                    w.call("CONFIG", "GET", "latency-monitor-threshold"));
            w.call("DEBUG", "SLEEP", "0.2");
            String history = w.call("LATENCY", "HISTORY", "command");
            assertTrue(history.startsWith("*1\r\n*2\r\n:"), history);
            long ms = Long.parseLong(history.substring(history.lastIndexOf(':') + 1).trim());
            assertTrue(ms >= 200 && ms < 5_000, history);
            String latest = w.call("LATENCY", "LATEST");
            assertTrue(latest.startsWith("*1\r\n*4\r\n$7\r\ncommand\r\n:"), latest);
            assertTrue(w.call("LATENCY", "GRAPH", "command").contains(ms + " ms"));
            assertTrue(w.call("LATENCY", "DOCTOR").contains("command:"));
            assertEquals(":1\r\n", w.call("LATENCY", "RESET"));
            assertEquals("*0\r\n", w.call("LATENCY", "LATEST"));
            // A script is no fast command; one that runs long is a "command" sample too
            w.call("EVAL", "local t = redis.call('time'); repeat local n = redis.call('time') until"
                    + " (n[1] - t[1]) * 1000000 + (n[2] - t[2]) > 100000", "0");
            assertTrue(w.call("LATENCY", "LATEST").contains("$7\r\ncommand\r\n"));
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "latency-monitor-threshold", "0"));
            w.call("DEBUG", "SLEEP", "0.1");
            assertEquals(":1\r\n", w.call("LATENCY", "RESET"), "off again: only the EVAL's class is there");
        }
    }
}
