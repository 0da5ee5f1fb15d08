package dev.colossal;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A tmpfs mounted for one test, small enough to fill (or with no inode to spare): a real full disk,
 * where {@code ulimit -f} only imitates one for writes. Mounting needs root; where the tests run
 * without it, the test is skipped.
 */
public final class SmallTmpfs implements AutoCloseable {

    private final Path path;

    private SmallTmpfs(Path path) {
        this.path = path;
    }

    /** Mounts a tmpfs with {@code options} ({@code size=4m}, {@code nr_inodes=1}) on {@code dir}, created first. */
    public static SmallTmpfs mount(Path dir, String options) throws Exception {
        Files.createDirectories(dir);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString())
                .redirectErrorStream(true).start();
        assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs with " + options + " here (needs root)");
        return new SmallTmpfs(dir);
    }

    /** {@return where it is mounted} */
    public Path path() {
        return path;
    }

    /** Unmounts it, and with it everything the test left there. */
    @Override
    public void close() throws IOException {
        try {
            new ProcessBuilder("umount", path.toString()).start().waitFor();
        } catch (InterruptedException e) {   // not thrown from close: try-with-resources would swallow it
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unmounting " + path, e);
        }
    }
}
