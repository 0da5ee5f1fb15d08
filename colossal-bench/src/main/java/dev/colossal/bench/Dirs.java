package dev.colossal.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The directories a benchmark makes for its stores: how much their files hold, and their removal. */
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
