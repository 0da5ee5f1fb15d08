package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * LATENCY HISTOGRAM and INFO latencystats: what redis-compat.txt cannot compare byte for byte
 * (the latencies are each server's own), checked here for their shape and their counts.
 */
class LatencyHistogramTest {

    @TempDir
    Path dir;

    @Test
    void eachCallIsCountedOnceInDoublingBucketsAndPercentilesFollowTheSettings() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            j.configResetStat();
            for (int i = 0; i < 100; i++) {
                j.set("k" + i, "v");   // GET's and SET's fast path
                j.get("k" + i);
            }
            for (int i = 0; i < 10; i++) {
                j.incr("n");
            }
            Map<String, Map<Long, Long>> h = histograms(j, "set", "INCR", "get", "nosuch");
            assertEquals(List.of("get", "incr", "set"), List.copyOf(h.keySet()), "the commands named, no other");
            assertCumulative(h.get("set"), 100);
            assertCumulative(h.get("get"), 100);
            assertCumulative(h.get("incr"), 10);

            String info = j.info("latencystats");
            assertTrue(info.matches("(?s).*latency_percentiles_usec_incr:p50=\\d+\\.\\d{3},p99=\\d+\\.\\d{3},p99\\.9=\\d+\\.\\d{3}\r\n.*"), info);
            assertEquals("OK", j.configSet("latency-tracking-info-percentiles", "50 90"));
            assertTrue(j.info("latencystats").matches("(?s).*latency_percentiles_usec_set:p50=\\d+\\.\\d{3},p90=\\d+\\.\\d{3}\r\n.*"));
            assertTrue(!j.info("default").contains("Latencystats") && j.info("everything").contains("latency_percentiles_usec_set"),
                    "in everything, not in the default sections, as in Redis");

            assertEquals("OK", j.configSet("latency-tracking", "no"));
            j.incr("n");
            assertCumulative(histograms(j, "incr").get("incr"), 10);
            assertEquals("OK", j.configSet("latency-tracking", "yes"));
            j.incr("n");
            assertCumulative(histograms(j, "incr").get("incr"), 11);

            j.configGet("maxmemory");
            assertTrue(histograms(j, "config").keySet().containsAll(List.of("config|get", "config|set", "config|resetstat")),
                    "a container's name stands for its subcommands: " + histograms(j, "config").keySet());
            j.configResetStat();
            assertEquals(Map.of(), histograms(j, "set", "incr"), "CONFIG RESETSTAT forgets them");
        }
    }

    @Test
    void aPercentileIsReadBetweenItsBucketsBounds() {
        long[] counts = new long[LatencyBuckets.COUNT];
        counts[0] = 50;   // under 1 us
        counts[3] = 50;   // 4 to 8 us
        assertEquals("p50=1.000,p99=7.920,p100=8.000", LatencyBuckets.percentiles(counts, new double[] {50, 99, 100}));
        assertEquals(3, LatencyBuckets.bucket(5_000), "5 us: the bucket of [4, 8)");
        assertEquals(0, LatencyBuckets.bucket(999));
        assertEquals(LatencyBuckets.COUNT - 1, LatencyBuckets.bucket(Long.MAX_VALUE));
    }

    /** Every bucket is a power of two, counts only grow, and the last is the calls. */
    private static void assertCumulative(Map<Long, Long> h, long calls) {
        long last = 0;
        long bound = 0;
        for (Map.Entry<Long, Long> e : h.entrySet()) {
            assertEquals(1, Long.bitCount(e.getKey()), "bucket " + e.getKey() + " in " + h);
            assertTrue(e.getKey() > bound && e.getValue() > last, "growing: " + h);
            bound = e.getKey();
            last = e.getValue();
        }
        assertEquals(calls, last, "cumulative to the calls: " + h);
    }

    /** @return LATENCY HISTOGRAM's reply for {@code names}: command -> bucket -> calls up to it (its "calls" checked against the last) */
    private static Map<String, Map<Long, Long>> histograms(Jedis j, String... names) {
        Object[] args = new Object[names.length + 1];
        args[0] = "HISTOGRAM";
        System.arraycopy(names, 0, args, 1, names.length);
        List<?> reply = (List<?>) j.sendCommand(Protocol.Command.LATENCY, java.util.Arrays.stream(args).map(String::valueOf)
                .toArray(String[]::new));
        Map<String, Map<Long, Long>> out = new java.util.TreeMap<>();
        for (int i = 0; i < reply.size(); i += 2) {
            List<?> fields = (List<?>) reply.get(i + 1);
            assertEquals("calls", text(fields.get(0)));
            assertEquals("histogram_usec", text(fields.get(2)));
            List<?> buckets = (List<?>) fields.get(3);
            Map<Long, Long> h = new LinkedHashMap<>();
            for (int b = 0; b < buckets.size(); b += 2) {
                h.put((Long) buckets.get(b), (Long) buckets.get(b + 1));
            }
            assertEquals(fields.get(1), h.isEmpty() ? 0L : List.copyOf(h.values()).getLast(), "calls = the last count");
            out.put(text(reply.get(i)), h);
        }
        return out;
    }

    private static String text(Object o) {
        return new String((byte[]) o, StandardCharsets.UTF_8);
    }
}
