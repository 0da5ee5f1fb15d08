package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that runs out of file descriptors opening maps (a child JVM under {@code ulimit -n 128};
 * each open map holds one) is told so, with the map's name and what to do, whether the map is new
 * or exists. A user trial opening 1000 maps under {@code ulimit -n 512} got the JDK's bare
 * "java.io.IOException: Mount point not found" from the 505th: a new map looked up its file store,
 * which reads the mount table.
 */
class DescriptorLimitTest {

    @TempDir
    Path dir;

    @Test
    void runningOutOfDescriptorsSaysSoAndNamesTheMap() throws Exception {
        List<String> lines = ChildJvm.runUnderLimit("-n 128", dir, MapChild.class, "many", dir.resolve("m").toString(), "p");
        assertEquals(4, lines.size(), lines.toString());
        for (int i = 0; i < 4; i += 2) {
            assertTrue(Integer.parseInt(lines.get(i).substring("opened ".length())) > 50, lines.toString());
            String failure = lines.get(i + 1);
            assertTrue(failure.contains(dir.resolve("m-").toString()) && failure.contains("Too many open files")
                    && failure.contains("ulimit -n"), failure);
            assertTrue(failure.startsWith("failed java.nio.file.FileSystemException"), failure);
        }
    }
}
