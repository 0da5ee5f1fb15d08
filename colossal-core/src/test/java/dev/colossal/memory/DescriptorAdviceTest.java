package dev.colossal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arenas and chunk pools built until the process runs out of file descriptors (a child JVM under
 * {@code ulimit -n 64}) say so and what to do: a user trial read "free disk space or choose another
 * directory" from the arena and "choose a writable directory on a local file system" from the pool,
 * on a disk with room and a directory that was fine.
 */
class DescriptorAdviceTest {

    @TempDir
    Path dir;

    @Test
    void runningOutOfDescriptorsSaysSoRatherThanBlameDiskOrDirectory() throws Exception {
        List<String> lines = ChildJvm.runUnderLimit("-n 64", dir, ArenaChild.class, "descriptors", dir.toString());
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("arena ") && lines.get(1).startsWith("pool "), lines.toString());
        for (String failure : lines) {
            assertTrue(failure.contains("Too many open files") && failure.contains("ulimit -n"), failure);
            assertFalse(failure.contains("free disk space") || failure.contains("local file system"), failure);
        }
    }
}
