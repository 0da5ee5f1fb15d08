package dev.colossal.map;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The program the multi-process tests run in child JVMs.
 *
 * <pre>
 * counter FILE PREFIX N   N times: merge +1 into one of 8 shared counters, put PREFIX-i; then "done"
 * writer  FILE PREFIX [N] forever (or N ops): op i puts key(i) and, when i % 3 == 0, removes key(i - 5); prints i after each op
 * fill    FILE PREFIX     puts 1 KiB values until the file cannot grow; prints "full N" and the exception,
 *                         then re-reads all N entries and prints "ok", or the first one missing
 * grow    FILE PREFIX N   on a one-segment map sized for 2N entries: N ops as writer does, then grows the
 *                         table past 2^24 slots ({@link TableGrowthTest#PAST_OLD_LIMIT}); prints "end"
 * rounds  FILE PREFIX N R R rounds: round r puts {@link ConcurrencyStressTest#valueFor}(key(i), r) for each
 *                         i below N; prints r after each round
 * hold    FILE PREFIX     prints "locked" from inside a compute of key PREFIX, holding its segment's lock
 *                         until killed
 * many    FILE PREFIX     opens new maps FILE-0, FILE-1, ... until an open fails, then FILE-0 again and
 *                         again; for each prints "opened N", "failed CLASS: MESSAGE", and closes them all
 * readers FILE PREFIX N   two platform threads read (get, size) while this one puts N new keys; then
 *                         prints "interrupted I reads R remaps M" (I: reads after which a reader's
 *                         interrupt flag was set), or throws what a reader met
 * </pre>
 */
public final class MapChild {

    private MapChild() {
    }

    static String key(String prefix, long i) {
        return prefix + "-" + i;
    }

    static String value(String prefix, long i) {
        return ConcurrencyStressTest.valueFor(key(prefix, i), (int) i);
    }

    /**
     * Runs one mode.
     *
     * @param args mode and its arguments
     * @throws Exception on any failure, which the parent sees as a non-zero exit
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        String prefix = args[2];
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false);
        MapOptions options = args[0].equals("grow")
                ? MapOptions.DEFAULTS.withSegments(1).withExpectedEntries(2 * Long.parseLong(args[3]))
                : MapOptions.DEFAULTS.withSegments(8);
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING, options)) {
            switch (args[0]) {
                case "counter" -> {
                    int n = Integer.parseInt(args[3]);
                    out.println("ready");
                    out.flush();
                    if (System.in.read() < 0) {
                        return;
                    }
                    for (int i = 0; i < n; i++) {
                        map.merge("counter" + (i % 8), "1", (a, b) -> Long.toString(Long.parseLong(a) + 1));
                        map.put(key(prefix, i), value(prefix, i));
                    }
                    out.println("done");
                }
                case "writer" -> {
                    out.println("ready");
                    out.flush();
                    write(map, prefix, args.length > 3 ? Long.parseLong(args[3]) : Long.MAX_VALUE, out);
                }
                case "grow" -> {
                    write(map, prefix, Long.parseLong(args[3]), out);
                    map.bytes().segmentFor(0).growTable(TableGrowthTest.PAST_OLD_LIMIT);
                    out.println("end");
                }
                case "rounds" -> {
                    int keys = Integer.parseInt(args[3]);
                    int rounds = Integer.parseInt(args[4]);
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < keys; i++) {
                            map.put(key(prefix, i), ConcurrencyStressTest.valueFor(key(prefix, i), r));
                        }
                        out.println(r);
                        out.flush();
                    }
                }
                case "hold" -> map.compute(prefix, (k, v) -> {
                    out.println("locked");
                    out.flush();
                    while (true) {
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException ignored) {
                            // only a kill ends this
                        }
                    }
                });
                case "fill" -> {
                    int n = 0;
                    try {
                        for (; ; n++) {
                            map.put(key(prefix, n), value(prefix, n) + "f".repeat(1024));
                        }
                    } catch (java.io.UncheckedIOException full) {
                        out.println("full " + n + " " + full.getCause());
                    }
                    for (int i = 0; i < n; i++) {
                        if (!(value(prefix, i) + "f".repeat(1024)).equals(map.get(key(prefix, i)))) {
                            out.println("missing " + i);
                            return;
                        }
                    }
                    map.remove(key(prefix, 0));
                    map.put(key(prefix, 0), "small again");
                    out.println("ok");
                    // What a FLUSHALL on a full disk is followed by: other keys in the space freed.
                    map.clear();
                    int again = 0;
                    try {
                        for (; ; again++) {
                            map.put(key("again", again), value(prefix, again) + "f".repeat(1024));
                        }
                    } catch (java.io.UncheckedIOException full) {
                        out.println("refilled " + again);
                    }
                    // Removals scattered over every segment, then a compaction: the space they
                    // freed serves keys of any segment.
                    for (int i = 0; i < again; i++) {
                        if (i % 4 != 0) {
                            map.remove(key("again", i));
                        }
                    }
                    map.bytes().compact();
                    int third = 0;
                    try {
                        for (; ; third++) {
                            map.put(key("third", third), value(prefix, third) + "f".repeat(1024));
                        }
                    } catch (java.io.UncheckedIOException full) {
                        out.println("after compact " + third);
                    }
                    // Big values, one key removed at a time on the full disk: each removal makes
                    // room for one more, whichever segment its key falls into.
                    map.clear();
                    String big = "b".repeat(100_000);
                    int bigs = 0;
                    try {
                        for (; ; bigs++) {
                            map.put(key("big", bigs), big);
                        }
                    } catch (java.io.UncheckedIOException full) {
                        int stored = 0;
                        for (int i = 0; i < 5; i++) {
                            map.remove(key("big", i * 3));
                            try {
                                map.put(key("other", i), big);
                                stored++;
                            } catch (java.io.UncheckedIOException stillFull) {
                                // counted below
                            }
                        }
                        out.println("big " + bigs + " replaced " + stored);
                    }
                }
                case "churn" -> {
                    // Rounds of puts, removals, a compaction and a clear: entries move, chunks go to
                    // the spare list and come back.
                    int keys = Integer.parseInt(args[3]);
                    for (int r = 0; r < Integer.parseInt(args[4]); r++) {
                        for (int i = 0; i < keys; i++) {
                            map.put(key(prefix + r, i), value(prefix, i) + "c".repeat(i % 300));
                        }
                        for (int i = 0; i < keys; i++) {
                            if (i % 4 != 0) {
                                map.remove(key(prefix + r, i));
                            }
                        }
                        map.bytes().compact();   // moves the rest out of chunks mostly free
                        map.clear();
                        out.println(r);
                        out.flush();
                    }
                }
                case "kib" -> {
                    int keys = Integer.parseInt(args[3]);
                    int rounds = Integer.parseInt(args[4]);
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < keys; i++) {
                            map.put(key(prefix, i), FreeRunIndexMapTest.kibValue(prefix, i, r));
                        }
                    }
                    out.println("done");
                }
                case "compactor" -> {
                    long pauseMillis = args.length > 4 ? Long.parseLong(args[4]) : 0;
                    for (int r = 0; r < Integer.parseInt(args[3]); r++) {
                        map.bytes().compact();
                        Thread.sleep(pauseMillis);
                    }
                    out.println("compacted");
                }
                case "many" -> openMany(file, out);
                case "readers" -> {
                    // without checksums: the readers' time goes to copying values out of the mapping
                    try (BytesMap raw = BytesMap.open(Path.of(args[1] + ".raw"), MapOptions.DEFAULTS.withChecksums(false))) {
                        readWhileGrowing(raw, prefix, Integer.parseInt(args[3]), out);
                    }
                }
                default -> throw new IllegalArgumentException("mode=" + args[0]);
            }
        }
        out.flush();
    }

    /**
     * The {@code readers} mode: platform threads read while this one grows the file through remaps.
     * The values read are large, so that a reader spends most of its time copying out of a mapping,
     * where closing the mapping meets it.
     */
    private static void readWhileGrowing(BytesMap map, String prefix, int n, PrintStream out) throws Exception {
        int kept = 32;
        int large = 256 << 10;
        for (int i = 0; i < kept; i++) {
            byte[] value = new byte[large];
            java.util.Arrays.fill(value, (byte) i);
            map.put(keyBytes(prefix, i), value);
        }
        int remapsBefore = map.file.remaps;
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong interrupted = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.ConcurrentLinkedQueue<Throwable> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.List<Thread> readers = new java.util.ArrayList<>();
        for (int r = 0; r < 2; r++) {
            readers.add(Thread.ofPlatform().start(() -> {
                java.util.Random random = new java.util.Random();
                try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                    java.lang.foreign.MemorySegment got = arena.allocate(large);
                    while (!done.get()) {
                        int i = random.nextInt(kept);
                        long length = map.get(java.lang.foreign.MemorySegment.ofArray(keyBytes(prefix, i)), got);
                        if (length != large || got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) != (byte) i
                                || got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, large - 1) != (byte) i || map.size() < kept) {
                            throw new AssertionError(key(prefix, i) + " read a wrong value, or size " + map.size());
                        }
                        if (Thread.interrupted()) {
                            interrupted.incrementAndGet();
                        }
                        reads.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        try {
            for (int i = kept; i < kept + n; i++) {
                map.put(keyBytes(prefix, i), new byte[4096]);
            }
        } finally {
            done.set(true);
            for (Thread t : readers) {
                t.join();
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionError("a reader failed", failures.peek());
        }
        out.println("interrupted " + interrupted.get() + " reads " + reads.get() + " remaps " + (map.file.remaps - remapsBefore));
    }

    private static byte[] keyBytes(String prefix, long i) {
        return key(prefix, i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Opens maps until the descriptors run out: new files, then (after closing them) an existing one. */
    private static void openMany(Path file, PrintStream out) throws Exception {
        java.util.List<BytesMap> open = new java.util.ArrayList<>();
        for (boolean existing : new boolean[] {false, true}) {
            try {
                for (int i = 0; ; i++) {
                    open.add(BytesMap.open(Path.of(file + "-" + (existing ? 0 : i))));   // each open holds a descriptor
                }
            } catch (java.io.IOException e) {
                out.println("opened " + open.size());
                out.println("failed " + e.getClass().getName() + ": " + e.getMessage());
            }
            for (BytesMap m : open) {
                m.close();
            }
            open.clear();
        }
    }

    /** Op i puts key(i) and, when i % 3 == 0, removes key(i - 5); prints i after each op. */
    private static void write(ColossalMap<String, String> map, String prefix, long ops, PrintStream out) {
        for (long i = 0; i < ops; i++) {
            map.put(key(prefix, i), value(prefix, i));
            if (i % 3 == 0 && i >= 5) {
                map.remove(key(prefix, i - 5));
            }
            out.println(i);
            out.flush();
        }
    }
}
