package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file that cannot grow (here: a child JVM under {@code ulimit -f}, which fails writes past the
 * limit exactly as a full disk fails them) makes the put that needed space throw, and loses nothing
 * stored before: no SIGBUS, no InternalError, because the file only grows by checked writes. Space
 * freed on the full disk serves keys of every segment: after a clear (the chunks go to the spare
 * extents), after removals and a compact, and after single removals of big values (a segment that
 * cannot grow asks the others for chunks they hold nothing in).
 */
class DiskFullTest {

    @TempDir
    Path dir;

    @Test
    void shouldFailThePutThatNeedsSpaceAndKeepEverythingElse() throws Exception {
        Path file = dir.resolve("full.map");
        // 4 MiB in 1 KiB blocks; the JVM ignores SIGXFSZ, so the write fails with EFBIG.
        List<String> lines = ChildJvm.runUnderLimit("-f 4096", dir, MapChild.class, "fill", file.toString(), "p");
        assertTrue(lines.get(0).startsWith("full ") && lines.get(0).contains("IOException"), lines.toString());
        assertTrue(Integer.parseInt(lines.get(0).split(" ")[1]) > 1000, lines.get(0));
        assertEquals("ok", lines.get(1), "every entry stored before the failure is intact");
        // After a clear, other keys fit in the space freed, whichever segments they fall into.
        int filled = Integer.parseInt(lines.get(0).split(" ")[1]);
        int refilled = Integer.parseInt(lines.get(2).split(" ")[1]);
        assertTrue(refilled >= filled * 9 / 10, lines.toString());
        // Removing three keys in four on the full disk makes room for as many others.
        int removed = refilled - (refilled + 3) / 4;
        assertTrue(Integer.parseInt(lines.get(3).split(" ")[2]) >= removed * 9 / 10, lines.toString());
        // 100 KB values on the full disk: each removal makes room for a value under another key.
        assertEquals("replaced 5", lines.get(4).substring(lines.get(4).indexOf("replaced")), lines.toString());
        assertTrue(Files.size(file) <= 4096 * 1024, "file stayed within the limit: " + Files.size(file));
        assertEquals("", MultiProcessTest.readQuietly(dir.resolve("fill.err")));
        System.out.println(lines);
    }
}
