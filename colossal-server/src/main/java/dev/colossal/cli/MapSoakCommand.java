package dev.colossal.cli;

import dev.colossal.map.BytesMap;
import dev.colossal.map.MapOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code colossal map-soak}: grows one map file from empty to a given number of small entries with
 * no size hint (the billion-entry run), then closes it, reopens it and checks a random
 * sample. Stops early, and says so, rather than let the disk fall below {@code --reserve}.
 */
@Command(name = "map-soak", mixinStandardHelpOptions = true,
        description = {"Fill a map from empty, reopen it and check a sample.",
            "Puts 8-byte keys with 8-byte values into a new map, reopens it and verifies a random sample of the"
                    + " entries. Prints entries, file size, ops/s and times."})
final class MapSoakCommand implements Callable<Integer> {

    /** How often (in entries) progress advances and the free space is checked. */
    private static final long STEP = 1 << 20;
    /** Steps between two log lines when stderr is not a terminal: 16 Mi entries, ~60 lines for a billion. */
    private static final long LOG_STEPS = 16;
    private static final long MIX = 0x9E3779B97F4A7C15L;

    @Option(names = "--entries", description = "entries to put (default: 1000000000)")
    long entries = 1_000_000_000L;

    @Option(names = "--dir", description = "where soak.map goes (default: a new temporary directory)")
    Path dir;

    @Option(names = "--sample", description = "random keys checked after reopening, plus as many absent ones (default: 1000000)")
    long sample = 1_000_000;

    @Option(names = "--reserve", converter = ByteSize.class,
            description = "stop filling when the disk has less than this free (default: 20GiB)")
    long reserve = 20L << 30;

    @Option(names = "--keep", description = "keep soak.map afterwards (default: delete it, and the directories made for it)")
    boolean keep;

    @Option(names = "--segments", description = "segments of the new map, a power of two (default: 64, the map's"
            + " default); fewer make each segment's table grow further, e.g. past 2^24 slots with 1 and 20000000 entries")
    int segments = MapOptions.DEFAULTS.segments();

    @Option(names = "--resume", description = "continue filling the soak.map an earlier run left in --dir (killed or"
            + " stopped: keys 0..size-1 are there, one writer put them in order); implies --keep until it completes")
    boolean resume;

    /** Entries the file held when this run began filling (0 unless resuming). */
    private long resumedAt;
    /** Entries in the file so far, for {@link #stopped}; set with release, a plain store on x86, once a put. */
    private final AtomicLong stored = new AtomicLong();
    /** Whether the fill is over and the sample is being checked, for {@link #stopped}. */
    private volatile boolean checking;
    /** The directories this run made for soak.map, deepest first: the temporary one, or {@code --dir}'s missing ones. */
    private final List<Path> created = new ArrayList<>();
    /** Says how far the run got if SIGINT or SIGTERM stops it; registered once the map is open. */
    private Thread onSignal;

    @Override
    public Integer call() throws IOException {
        if (entries < 1 || sample < 0 || segments < 1 || segments > 1 << 16 || Integer.bitCount(segments) != 1) {
            return Failures.report("map-soak", "--entries=" + entries + " --sample=" + sample + " --segments="
                    + segments + ": entries must be at least 1, the sample not negative, segments a power of two up"
                    + " to 65536");
        }
        if (resume && dir == null) {
            return Failures.report("map-soak", "--resume needs the --dir of the run to continue");
        }
        Path directory;
        if (dir != null) {
            for (Path p = dir.toAbsolutePath(); p != null && Files.notExists(p); p = p.getParent()) {
                created.add(p);
            }
            String problem = IoMessages.unwritableDirectory(dir, "--dir " + dir);
            if (problem != null) {
                deleteCreated();
                return Failures.report("map-soak", problem);
            }
            directory = dir;
        } else {
            try {
                directory = Files.createTempDirectory("colossal-soak-");
            } catch (IOException e) {
                return Failures.report("map-soak", "cannot create a temporary directory: " + IoMessages.reason(e)
                        + "; name one with --dir DIR");
            }
            created.add(directory);
        }
        Path file = directory.resolve("soak.map");
        if (Files.exists(file) != resume) {
            deleteCreated();
            return Failures.report("map-soak", resume ? "--resume needs the " + file + " of an earlier run; name its"
                    + " --dir" : file + " exists; remove it, name another --dir, or --resume it");
        }
        boolean completed = false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(8);
            MemorySegment value = arena.allocate(8);
            long t0 = System.nanoTime();
            long filled = fill(file, key, value);
            long t1 = System.nanoTime();
            long fileBytes = Files.size(file);
            System.out.printf(Locale.ROOT, "filled %,d entries (%,d by this run) in %.1f s: %,.0f puts/s, one thread,"
                    + " no size hint, %d segments%n", filled, filled - resumedAt, (t1 - t0) / 1e9,
                    (filled - resumedAt) / ((t1 - t0) / 1e9), segments);
            System.out.printf(Locale.ROOT, "file %s: %s, %.1f bytes per entry (16 raw)%n", file,
                    ByteSize.format(fileBytes), fileBytes / (double) filled);
            checking = true;
            long bad = verify(file, filled, key, value);
            if (filled < entries) {
                System.out.printf(Locale.ROOT, "STOPPED EARLY at %,d of %,d entries: less than %s free on the disk%n",
                        filled, entries, ByteSize.format(reserve));
                return 3;
            }
            completed = true;
            return bad == 0 ? 0 : 1;
        } catch (IOException | UncheckedIOException e) {
            // The map's messages name soak.map and what to do; a trace would add nothing for a full disk.
            return Failures.report("map-soak", IoMessages.message(e));
        } finally {
            if (onSignal != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(onSignal);
                } catch (IllegalStateException stopping) {
                    // A signal came as the run ended: the hook says how far it got.
                }
            }
            if (!keep && (completed || !resume)) {
                Files.deleteIfExists(file);
                deleteCreated();
            }
        }
    }

    /** Removes the directories this run made, deepest first, up to the first that holds something else. */
    private void deleteCreated() {
        for (Path p : created) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException notEmpty) {
                return;
            }
        }
    }

    private long fill(Path file, MemorySegment key, MemorySegment value) throws IOException {
        Progress progress = new Progress("map-soak: filling", entries);
        boolean terminal = System.console() != null;    // otherwise a line now and then, for logs
        long start = System.nanoTime();
        long lastLog = start;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(segments))) {
            resumedAt = resume ? map.size() : 0;
            stored.set(resumedAt);
            onSignal = new Thread(() -> stopped(file), "map-soak-stopped");
            Runtime.getRuntime().addShutdownHook(onSignal);
            if (resume) {
                System.err.printf(Locale.ROOT, "map-soak: resuming at %,d entries, file %s%n", resumedAt,
                        ByteSize.format(Files.size(file)));
                progress.advance(resumedAt);
            }
            for (long i = resumedAt; i < entries; i++) {
                if (i % STEP == 0 && i > 0) {
                    progress.advance(STEP);
                    if (!terminal && i % (LOG_STEPS * STEP) == 0) {
                        long now = System.nanoTime();
                        System.err.printf(Locale.ROOT, "map-soak: %,d entries, %.0f s, %,.0f puts/s lately, file %s%n",
                                i, (now - start) / 1e9, LOG_STEPS * STEP / ((now - lastLog) / 1e9),
                                ByteSize.format(Files.size(file)));
                        lastLog = now;
                    }
                    if (Files.getFileStore(file).getUsableSpace() < reserve) {
                        progress.done();
                        return i;
                    }
                }
                put(map, i, key, value);
                stored.lazySet(i + 1);
            }
            progress.done();
            return entries;
        }
    }

    /**
     * From the shutdown hook, on SIGINT (Ctrl-C) or SIGTERM: how far the run got and the command
     * that goes on from there. The JVM then exits 130 or 143 as usual for those signals; the file
     * stays, as after a kill, since the cleanup that deletes it never runs.
     */
    private void stopped(Path file) {
        String resumeIt = "'colossal map-soak --entries " + entries + " --dir " + file.getParent() + " --resume'";
        System.err.println((System.console() != null ? "\n" : "") + (checking
                ? String.format(Locale.ROOT, "map-soak: stopped while checking the sample; %s holds its %,d entries: %s"
                        + " checks them again", file, stored.get(), resumeIt)
                : String.format(Locale.ROOT, "map-soak: stopped at %,d of %,d entries; %s keeps them: %s goes on from"
                        + " there", stored.get(), entries, file, resumeIt)));
    }

    private static void put(BytesMap map, long i, MemorySegment key, MemorySegment value) {
        key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
        value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i * MIX);
        map.put(key, value);
    }

    /** Reopens the file and checks its size, {@code sample} present keys and as many absent ones. */
    private long verify(Path file, long filled, MemorySegment key, MemorySegment value) throws IOException {
        long t0 = System.nanoTime();
        try (BytesMap map = BytesMap.open(file)) {
            long t1 = System.nanoTime();
            long size = map.size();
            long checks = Math.min(sample, filled);
            long bad = size == filled ? 0 : 1;
            SplittableRandom random = new SplittableRandom(filled);
            for (long n = 0; n < checks; n++) {
                long present = random.nextLong(filled);
                key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, present);
                if (map.get(key, value) != 8 || value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != present * MIX) {
                    bad++;
                }
                key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, filled + present);
                if (map.get(key, value) != -1) {
                    bad++;
                }
            }
            long t2 = System.nanoTime();
            System.out.printf(Locale.ROOT, "reopened in %.1f ms; size %,d; %,d present and %,d absent keys checked"
                    + " in %.1f s (%,.0f gets/s): %s%n", (t1 - t0) / 1e6, size, checks, checks, (t2 - t1) / 1e9,
                    2 * checks / Math.max(1e-9, (t2 - t1) / 1e9), bad == 0 ? "all correct" : bad + " WRONG");
            return bad;
        }
    }
}
