package dev.colossal.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The directories a benchmark makes for its stores: how much their files hold and take, and their removal. */
public final class Dirs {

    private Dirs() {}

    /**
     * @param dir a directory
     * @return the sizes of the regular files under it, summed (apparent sizes: holes count)
     * @throws IOException if it cannot be walked
     */
    public static long apparentBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            long sum = 0;
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                sum += Files.size(f);
            }
            return sum;
        }
    }

    /**
     * @param dir a directory
     * @return the bytes its files take on disk, by {@code du} (allocated blocks: a sparse file counts
     *     what it uses, not its length)
     * @throws IOException if {@code du} fails
     * @throws InterruptedException if interrupted while it runs
     */
    public static long allocatedBytes(Path dir) throws IOException, InterruptedException {
        Process du = new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        if (!du.waitFor(1, TimeUnit.MINUTES) || du.exitValue() != 0) {
            throw new IOException("du -s -B1 " + dir + " failed: " + out);
        }
        return Long.parseLong(out.split("\\s+")[0]);
    }

    /**
     * Deletes {@code dir} and everything under it, as far as it can.
     *
     * @param dir a directory
     * @throws IOException if it cannot be walked
     */
    public static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
