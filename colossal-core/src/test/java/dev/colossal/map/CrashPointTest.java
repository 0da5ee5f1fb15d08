package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stops a writer JVM dead (as kill -9 would) at every named step of every multi-step update (see
 * {@link CrashPoints}), at its 1st, 9th and 60th passage. After each crash the next user of the
 * file takes the lock over, repairs the segment, and finds every acknowledged op, nothing else,
 * and a heap whose blocks are exactly used + free: the crash leaked nothing the repair did not
 * take back; and every byte of the file belongs to a segment again.
 */
class CrashPointTest {

    @TempDir
    Path dir;

    @Test
    void shouldRecoverFromACrashAtEveryStepOfEveryUpdate() throws Exception {
        Path stderr = dir.resolve("crash.err");
        List<String> notReached = new ArrayList<>();
        int crashes = 0;
        for (int site = 1; site <= CrashPoints.SITES; site++) {
            for (long at : new long[] {1, 9, 60}) {
                String run = "s" + site + "a" + at;
                Path file = dir.resolve(run + ".map");
                Path acks = dir.resolve(run + ".acks");
                Process p = Children.start(stderr, acks,
                        List.of("-Dcolossal.map.crashSite=" + site, "-Dcolossal.map.crashAt=" + at),
                        "writer", file.toString(), run, "3000");
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), run + " finished");
                if (p.exitValue() == 0) {
                    notReached.add(run);
                    continue;
                }
                assertEquals(77, p.exitValue(), () -> run + " crashed at its crash point, not elsewhere: "
                        + MultiProcessTest.readQuietly(stderr));
                crashes++;
                try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
                    MapChecks.assertSound(map.bytes());
                    Acks.check(map, run, Acks.last(acks));
                    map.put("after", "crash");
                    assertEquals("crash", map.get("after"));
                }
                MapVerifier.Result verified = MapVerifier.verify(file, null);
                assertTrue(verified.isSound(), run + ": " + verified.problems());
                if (site != CrashPoints.EXTENT_TAKEN && site != CrashPoints.SPARE_TAKEN && site != CrashPoints.CHUNK_GIVEN
                        && site != CrashPoints.TABLE_RETIRED) {
                    // Only a death while an extent changes hands may leak file space (SpareExtentsTest).
                    assertEquals(List.of(), verified.notes(), run);
                }
                Files.delete(file);
            }
        }
        System.out.println("crashes=" + crashes + " not reached=" + notReached);
        assertTrue(crashes >= 30, "most crash points were reached: not reached " + notReached);
        assertEquals("", MultiProcessTest.readQuietly(stderr));
    }
}
