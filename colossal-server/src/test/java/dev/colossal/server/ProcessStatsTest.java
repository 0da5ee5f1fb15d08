package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** /proc's fields as INFO memory reads them, in one pass over the file (Linux, where the tests run). */
class ProcessStatsTest {

    @Test
    void readsSeveralStatusFieldsInOneGo() throws Exception {
        long[] got = ProcessStats.statusBytes("VmRSS", "RssAnon", "NoSuchField", "VmPeak");
        assertTrue(got[0] > 0 && got[1] > 0 && got[3] > 0, java.util.Arrays.toString(got));
        assertTrue(got[0] >= got[1], "resident memory holds its anonymous part");
        assertEquals(-1, got[2], "a field /proc does not have");
        String line = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmPeak:")).findFirst().orElseThrow();
        long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
        assertEquals(kib * 1024, got[3], "VmPeak does not move back: the same as the file says");
    }

    @Test
    void systemMemoryIsMemTotal() throws Exception {
        String line = Files.readAllLines(Path.of("/proc/meminfo")).get(0);
        assertTrue(line.startsWith("MemTotal:"), line);
        assertEquals(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024, ProcessStats.systemMemoryBytes());
    }

    /** Kept open, the files are read again from their start: each call sees the values of its moment. */
    @Test
    void cpuSecondsAreStatsUtimeAndStimeAndMoveOnWithTheProcess() throws Exception {
        double[] before = ProcessStats.cpuSeconds();
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertTrue(Math.abs(Long.parseLong(f[11]) / 100.0 - before[0]) < 0.05, before[0] + " against " + f[11]);
        assertTrue(Math.abs(Long.parseLong(f[12]) / 100.0 - before[1]) < 0.05, before[1] + " against " + f[12]);
        // 300 ms of this thread's CPU, however long a loaded machine takes to give it
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long spin = threads.getCurrentThreadCpuTime() + 300_000_000L;
        long sum = 0;
        while (threads.getCurrentThreadCpuTime() < spin) {
            sum += Long.numberOfTrailingZeros(System.nanoTime());
        }
        double[] after = ProcessStats.cpuSeconds();
        assertTrue(after[0] + after[1] - before[0] - before[1] >= 0.25,
                java.util.Arrays.toString(before) + " then " + java.util.Arrays.toString(after) + " " + sum);
        for (int i = 0; i < 100; i++) {
            assertTrue(ProcessStats.statusBytes("VmRSS")[0] > 0, "read again and again");
        }
    }
}
