package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INFO's instantaneous rates: dashboards (redis_exporter's {@code instantaneous_ops_per_sec}, the
 * "ops/sec" of every Redis panel) plot them; they were missing, so every such panel read nothing.
 */
class InstantRatesTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void ratesAreOverTheLastSamplesAndFallToZeroWhenIdle() {
        Stats stats = new Stats();
        long t = System.nanoTime();
        stats.rates.maybeSample(t);
        stats.commands.add(1_000);
        stats.bytesIn.add(100 * 1024);
        stats.bytesOut.add(50 * 1024);
        stats.rates.maybeSample(t + 50 * MS); // not due: 100 ms apart
        stats.rates.maybeSample(t + 100 * MS);
        assertEquals(new InstantRates.Rates(1_000, 100, 50), stats.rates.rates(t + 1_000 * MS));
        // Past the 1.6 s window the oldest samples no longer count.
        for (int i = 2; i <= 30; i++) {
            stats.commands.add(100);
            stats.rates.maybeSample(t + i * 100 * MS);
        }
        assertEquals(1_000, stats.rates.rates(t + 3_000 * MS).opsPerSecond());
        // Idle since the last sample: measured from it, to INFO's moment.
        assertEquals(0, stats.rates.rates(t + 60_000 * MS).opsPerSecond());
        stats.commands.add(500);
        stats.reset();
        assertEquals(new InstantRates.Rates(0, 0, 0), stats.rates.rates(t + 61_000 * MS));
    }

    @Test
    void infoGivesThemWhereRedisDoes(@TempDir Path dir) throws Exception {
        try (ColossalServer server = TestServers.colossal(dir.resolve("data")); Wire w = new Wire(server.port())) {
            for (int i = 0; i < 2_000; i++) {
                w.call("PING");
            }
            String info = w.call("INFO", "stats");
            assertTrue(info.matches("(?s).*\r\ntotal_commands_processed:\\d+\r\ninstantaneous_ops_per_sec:\\d+\r\n"
                    + "total_net_input_bytes:\\d+\r\ntotal_net_output_bytes:\\d+\r\ninstantaneous_input_kbps:\\d+\\.\\d\\d\r\n"
                    + "instantaneous_output_kbps:\\d+\\.\\d\\d\r\n.*"), info);
            Matcher ops = Pattern.compile("instantaneous_ops_per_sec:(\\d+)").matcher(info);
            assertTrue(ops.find());
            assertTrue(Long.parseLong(ops.group(1)) > 0, info);
        }
    }
}
