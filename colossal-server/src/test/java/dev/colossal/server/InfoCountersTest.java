package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** INFO's counters against redis-server's after the same commands. */
class InfoCountersTest {

    @TempDir
    Path dir;

    /** Every kind of error reply: a command's, a queued one's, one inside EXEC's array, a protocol error. */
    private static final String[][] COMMANDS = {
        {"SET", "s", "text"},
        {"INCR", "s"},
        {"GET"},
        {"NOSUCH", "x"},
        {"SET", "k", "v", "BOGUS"},
        {"EXPIRE", "k", "abc"},
        {"AUTH", "x"},
        {"GET", "s"},
        {"MULTI"},
        {"INCR", "s"},
        {"SET", "k", "v"},
        {"EXEC"},
        {"MULTI"},
        {"NOSUCH"},
        {"EXEC"},
        {"EXEC"},
        {"SETRANGE", "k", "-1", "x"},
    };

    @Test
    void totalErrorRepliesCountsEveryErrorReplyAsRedisDoes() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir)) {
            for (int port : new int[] {redisPort, ours.port()}) {
                try (Wire w = new Wire(port)) {
                    for (String[] c : COMMANDS) {
                        w.call(c);
                    }
                }
                try (Wire w = new Wire(port)) { // a protocol error: answered, then the connection closes
                    w.send("*1\r\n$-5\r\n".getBytes(StandardCharsets.US_ASCII));
                    w.reply();
                }
            }
            assertEquals(errorReplies(redisPort), errorReplies(ours.port()));
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /**
     * The memory and CPU fields a dashboard reads, as Redis names them, measured for the process:
     * the trial found used_memory (then the Java heap: 122 MB) where RSS was 600 MB, and one
     * used_cpu_total where Redis splits system and user time. used_memory is now the map's entry
     * bytes, what maxmemory bounds (MaxMemoryTest); the heap is colossal_heap_used_bytes. The
     * server runs in this JVM, so its /proc figures are this test's.
     */
    @Test
    void memoryAndCpuAreTheProcessesAsRedisNamesThem() throws Exception {
        Assumptions.assumeTrue(java.nio.file.Files.isReadable(Path.of("/proc/self/stat")), "Linux /proc only");
        try (ColossalServer ours = TestServers.colossal(dir); Wire w = new Wire(ours.port())) {
            long rssBefore = vmRssBytes();
            String memory = w.call("INFO", "memory");
            long rssAfter = vmRssBytes();
            long rss = number(memory, "used_memory_rss");
            assertTrue(rss >= rssBefore / 2 && rss <= rssAfter * 2, rss + " against VmRSS " + rssBefore + ".." + rssAfter);
            long anon = number(memory, "colossal_rss_anon_bytes");
            assertTrue(anon > 0 && anon <= rss, memory);
            assertTrue(number(memory, "colossal_heap_used_bytes") > 0, memory);
            assertEquals(0, number(memory, "used_memory"), "an empty map's entries take nothing: " + memory);

            String cpu = w.call("INFO", "cpu");
            double sys = decimal(cpu, "used_cpu_sys");
            double user = decimal(cpu, "used_cpu_user");
            double total = decimal(cpu, "used_cpu_total");
            assertTrue(user > 0 && sys >= 0, cpu);
            // Both read from /proc/self/stat a moment apart, in 10 ms ticks.
            assertEquals(total, user + sys, 0.05 + total / 20, cpu);
            assertEquals(0.0, decimal(cpu, "used_cpu_sys_children"), cpu);
            assertEquals(0.0, decimal(cpu, "used_cpu_user_children"), cpu);
        }
    }

    private static long vmRssBytes() throws Exception {
        for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS");
    }

    private static String value(String info, String name) {
        Matcher m = Pattern.compile("\n" + name + ":([0-9.]+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return m.group(1);
    }

    private static long number(String info, String name) {
        return Long.parseLong(value(info, name));
    }

    private static double decimal(String info, String name) {
        return Double.parseDouble(value(info, name));
    }

    private static long errorReplies(int port) throws Exception {
        try (Wire w = new Wire(port)) {
            Matcher m = Pattern.compile("total_error_replies:(\\d+)").matcher(w.call("INFO", "stats"));
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }
    }

    /** MEMORY STATS names Redis's fields in Redis's order (an empty server has no db.N entry in either), with this server's numbers. */
    @Test
    void memoryStatsHasRedissFieldsInItsOrder() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer s = TestServers.colossal(dir);
                 redis.clients.jedis.Jedis ours = new redis.clients.jedis.Jedis("127.0.0.1", s.port());
                 redis.clients.jedis.Jedis theirs = new redis.clients.jedis.Jedis("127.0.0.1", port)) {
                theirs.flushAll();
                java.util.Map<String, Object> want = theirs.memoryStats();
                ours.set("k", "v".repeat(100));
                java.util.Map<String, Object> got = ours.memoryStats();
                assertEquals(java.util.List.copyOf(want.keySet()), java.util.List.copyOf(got.keySet()));
                assertEquals(1L, got.get("keys.count"));
                assertTrue((Long) got.get("dataset.bytes") > 100, "the key's entry bytes: " + got);
                assertTrue(ours.memoryDoctor().startsWith("The maps hold 1 key in"), ours.memoryDoctor());
            }
        });
    }
}
