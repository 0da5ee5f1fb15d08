package dev.colossal.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A child JVM for {@link MappedArenaTest}, started where no file may grow (as on a full disk):
 * {@code BASE DIR...} builds an arena in each DIR twice and prints, per attempt, the failure's
 * message on one line and then everything below BASE afterwards.
 */
public final class ArenaChild {

    private ArenaChild() {}

    public static void main(String[] args) throws IOException {
        Path base = Path.of(args[0]);
        for (String arg : java.util.Arrays.copyOfRange(args, 1, args.length)) {
            Path dir = Path.of(arg);
            for (int attempt = 0; attempt < 2; attempt++) {
                try (MappedArena arena = MappedArena.builder().directory(dir).build()) {
                    System.out.println("built " + arena);
                } catch (UncheckedIOException e) {
                    System.out.println("failed " + e.getMessage().replace('\n', ' '));
                }
                try (Stream<Path> left = Files.walk(base)) {
                    System.out.println("left " + left.map(p -> base.relativize(p).toString()).sorted().toList());
                }
            }
        }
    }
}
