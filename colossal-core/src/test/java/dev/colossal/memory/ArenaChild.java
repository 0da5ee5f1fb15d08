package dev.colossal.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A child JVM for {@link MappedArenaTest}. Started where no file may grow (as on a full disk),
 * {@code BASE DIR...} builds an arena in each DIR twice and prints, per attempt, the failure's
 * message on one line and then everything below BASE afterwards. {@code hold DIR} reopens the kept
 * arena in DIR, allocates a long holding 4321, prints "open" (or "refused" and exits) and
 * waits to be killed.
 */
public final class ArenaChild {

    private ArenaChild() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args[0].equals("hold")) {
            MappedArena arena;
            try {
                arena = MappedArena.open(Path.of(args[1]));
            } catch (UncheckedIOException e) {
                System.out.println("refused");
                return;
            }
            arena.allocate(java.lang.foreign.ValueLayout.JAVA_LONG).set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 4321);
            System.out.println("open");
            System.out.flush();
            Thread.sleep(120_000);
            return;
        }
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
