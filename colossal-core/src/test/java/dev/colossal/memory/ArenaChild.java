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
 * waits to be killed. {@code descriptors DIR} builds arenas in DIR until a build fails, then chunk
 * pools, and prints each failure's message on a line ("arena ..." and "pool ..."), for a child
 * started with few file descriptors.
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
        if (args[0].equals("descriptors")) {
            untilOutOfDescriptors(Path.of(args[1]));
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

    /** Builds arenas, then pools, each holding descriptors, until one cannot be built; prints why. */
    private static void untilOutOfDescriptors(Path dir) throws IOException {
        java.util.List<AutoCloseable> open = new java.util.ArrayList<>();
        for (String what : new String[] {"arena", "pool"}) {
            try {
                for (int i = 0; ; i++) {
                    Path in = dir.resolve(what + i);
                    open.add(what.equals("arena") ? MappedArena.builder().directory(in).build()
                            : ChunkPool.builder().directory(in).build());
                }
            } catch (UncheckedIOException e) {
                System.out.println(what + " " + e.getMessage().replace('\n', ' '));
            }
            for (AutoCloseable c : open) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
            open.clear();
        }
    }
}
