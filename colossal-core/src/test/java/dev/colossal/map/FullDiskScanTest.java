package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.SmallTmpfs;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a full disk, puts that need space fail without each scanning the whole map: a user trial
 * filled a 4 GiB xfs (3.95M entries) and every further put that needed space, in one segment after
 * another, rebuilt all 64 segments looking for free chunks (1.1-1.6 s each; 20-26 s on btrfs), as
 * every segment paced its scans on its own. One scan serves the map (what it finds goes to the
 * spare extents every segment takes from), so puts with nothing removed meanwhile scan at most once
 * per quiet period ({@link ReclaimPacer}, at least a second). On a real 4 MiB tmpfs, mounted when
 * the tests run as root (skipped otherwise).
 */
class FullDiskScanTest {

    @TempDir
    Path dir;

    @Test
    void putsOnAFullDiskScanTheMapOncePerQuietPeriod() throws Exception {
        try (SmallTmpfs small = SmallTmpfs.mount(dir.resolve("small"), "size=4m");
             BytesMap map = BytesMap.open(small.path().resolve("full.map"))) {
            int stored = 0;
            try {
                for (; ; stored++) {
                    map.put(key(stored), value(stored));
                }
            } catch (UncheckedIOException full) {
                // the disk is full: what follows are puts that need space it does not have
            }
            long scansBefore = map.file.reclaims.scans();
            long start = System.nanoTime();
            int failed = 0;
            for (int i = stored + 1; i < stored + 1 + 1000; i++) {   // keys of every segment
                try {
                    map.put(key(i), value(i));
                } catch (UncheckedIOException full) {
                    failed++;
                }
            }
            long quietPeriods = (System.nanoTime() - start) / ReclaimPacer.MIN_QUIET_NANOS;
            long scans = map.file.reclaims.scans() - scansBefore;
            assertTrue(failed > 500, "most puts needed space: " + failed + " of 1000 failed");
            assertTrue(scans <= 1 + quietPeriods, scans + " scans of the map for " + failed
                    + " failed puts in " + quietPeriods + " quiet periods: one per period at most");
            for (int i = 0; i < stored; i++) {
                assertArrayEquals(value(i), map.get(key(i)), "every entry stored before is intact");
            }
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[1000];
        Arrays.fill(v, (byte) i);
        return v;
    }
}
