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
}
