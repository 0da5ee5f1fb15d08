package dev.colossal.bench.map;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import dev.colossal.map.BytesMap;
import dev.colossal.map.ColossalMap;
import dev.colossal.map.MapInspector;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Seed 001's case: {@code users} user records (~60 bytes encoded, with a list of friend ids) in
 * one map, measured in a JVM of its own so that its heap and GC are the map's alone. Ours is a
 * {@link ColossalMap} in a file with a record codec (no size hint); the peer is a plain
 * {@code HashMap} on the heap. Prints one line of {@code key=value} pairs: heap used after a full
 * GC, the full GC's time, get, batched get (typed, and raw bytes) and put operations per second on
 * one thread, the memory floor of a get (two dependent random reads in the file, ours only), and
 * file and raw sizes.
 *
 * <p>Usage: {@code UsersMain colossal|hashmap USERS SECONDS}
 */
public final class UsersMain {

    /**
     * A user of a social network, as in seed 001.
     *
     * @param id      the user's id, also the key
     * @param name    display name
     * @param city    home town
     * @param age     age in years
     * @param friends ids of the user's friends
     */
    public record User(long id, String name, String city, int age, List<Long> friends) {}

    private static final String[] CITIES = {"Berlin", "Paris", "Lisbon", "Oslo", "Vienna", "Madrid", "Rome", "Prague"};

    private UsersMain() {}

    /** Always the same user for one id, so that reads can be checked. */
    static User user(long id, int version) {
        SplittableRandom r = new SplittableRandom(id * 31 + version);
        List<Long> friends = new ArrayList<>(6);
        for (int i = 0, n = 2 + r.nextInt(4); i < n; i++) {
            friends.add(r.nextLong(15_000_000));
        }
        return new User(id, "user" + id, CITIES[r.nextInt(CITIES.length)], 18 + r.nextInt(60), friends);
    }

    /**
     * @param args {@code colossal} or {@code hashmap}, number of users, seconds per timed loop
     * @throws Exception if the map fails
     */
    public static void main(String[] args) throws Exception {
        boolean ours = args[0].equals("colossal");
        int users = Integer.parseInt(args[1]);
        long nanos = (long) (Double.parseDouble(args[2]) * 1e9);
        Codec<Long> keys = Codecs.int64();
        Codec<User> values = Codecs.of(User.class);
        Path dir = Files.createTempDirectory("colossal-bench-users");
        Path file = dir.resolve("users.map");
        Map<Long, User> map = ours ? ColossalMap.open(file, keys, values) : new HashMap<>();
        try {
            long raw = 0;
            long t0 = System.nanoTime();
            for (long id = 0; id < users; id++) {
                User u = user(id, 0);
                raw += keys.encodedSize(id) + values.encodedSize(u);
                map.put(id, u);
            }
            double fill = users / ((System.nanoTime() - t0) / 1e9);
            double gets = timed(nanos, users, (id, n) -> {
                if (map.get(id).id() != id) {
                    throw new IllegalStateException("wrong user for id " + id);
                }
            });
            double batched = timedBatches(nanos, users, ids -> {
                // HashMap has no batched get: its side is a get per key of the same batches.
                Map<Long, User> got = map instanceof ColossalMap<Long, User> c ? c.getAll(ids) : null;
                for (Long id : ids) {
                    if ((got != null ? got.get(id) : map.get(id)).id() != id) {
                        throw new IllegalStateException("wrong user for id " + id);
                    }
                }
            });
            long[] seen = new long[1];
            double streamed = map instanceof ColossalMap<Long, User> c ? timedBatches(nanos, users, ids -> {
                seen[0] = 0;
                c.getAll(ids, (id, u) -> {
                    if (u.id() != id) {
                        throw new IllegalStateException("wrong user for id " + id);
                    }
                    seen[0]++;
                });
                if (seen[0] != ids.size()) {
                    throw new IllegalStateException("missing users in a batch starting with id " + ids.getFirst());
                }
            }) : 0;
            double rawBatched = map instanceof ColossalMap<Long, User> c ? rawBatches(nanos, users, c, keys, values) : 0;
            double puts = timed(nanos, users, (id, n) -> map.put(id, user(id, (int) n)));
            double floor = ours ? twoDependentReads(file, nanos) : 0;
            double[] gc = new double[3];
            for (int i = 0; i < gc.length; i++) {
                long g = System.nanoTime();
                System.gc();
                gc[i] = (System.nanoTime() - g) / 1e6;
            }
            Arrays.sort(gc);
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long fileBytes = ours ? Files.size(file) : 0;
            // What the file holds besides zeros written ahead for growth (inspect reads every entry).
            long allocatedBytes = ours ? MapInspector.inspect(file).allocatedBytes() : 0;
            if (map.size() != users) {
                throw new IllegalStateException("expected " + users + " users, found " + map.size());
            }
            System.out.printf(Locale.ROOT, "heapMB=%.1f gcMs=%.1f getOps=%.0f getAllOps=%.0f streamGetAllOps=%.0f rawGetAllOps=%.0f putOps=%.0f fillOps=%.0f floorOps=%.0f fileBytes=%d "
                    + "allocatedBytes=%d rawBytes=%d maxHeapMB=%d%n", heap / 1048576.0, gc[1], gets, batched, streamed, rawBatched, puts, fill, floor, fileBytes,
                    allocatedBytes, raw,
                    Runtime.getRuntime().maxMemory() >> 20);
        } finally {
            if (map instanceof ColossalMap<Long, User> c) {
                c.close();
            }
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    /**
     * The memory floor of a get in a file of this size: pairs of reads at random places of a
     * mapping of its own, the second address depending on the first value (a slot, then the entry
     * it points to), and each pair on the one before, so the CPU cannot overlap them. Pairs per
     * second for about {@code nanos}.
     */
    private static double twoDependentReads(Path file, long nanos) throws IOException {
        try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(file)) {
            MemorySegment m = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            long words = m.byteSize() / Long.BYTES;
            SplittableRandom r = new SplittableRandom(7);
            long x = 0;
            long n = 0;
            long start = System.nanoTime();
            long elapsed;
            do {
                for (int i = 0; i < 1024; i++, n++) {
                    long slot = m.getAtIndex(ValueLayout.JAVA_LONG, Math.floorMod(r.nextLong() ^ x, words));
                    x = m.getAtIndex(ValueLayout.JAVA_LONG, Math.floorMod(r.nextLong() ^ slot, words));
                }
                elapsed = System.nanoTime() - start;
            } while (elapsed < nanos);
            if (x == Long.MIN_VALUE) {
                System.out.print("");
            }
            return n / (elapsed / 1e9);
        }
    }

    /** Keys per batch of {@code getAll}. */
    static final int BATCH = 32;

    /** Keys per second read by {@code op} in batches of {@link #BATCH} random ids for about {@code nanos}. */
    private static double timedBatches(long nanos, int users, java.util.function.Consumer<List<Long>> op) {
        SplittableRandom r = new SplittableRandom(11);
        List<Long> ids = new ArrayList<>(BATCH);
        long n = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < 64; i++, n += BATCH) {
                ids.clear();
                for (int j = 0; j < BATCH; j++) {
                    ids.add(r.nextLong(users));
                }
                op.accept(ids);
            }
            elapsed = System.nanoTime() - start;
        } while (elapsed < nanos);
        return n / (elapsed / 1e9);
    }

    /**
     * Keys per second read by {@link BytesMap#getAll} in batches of {@link #BATCH} random ids: the
     * zero-copy API, values copied as bytes into one buffer and not decoded (the first of each
     * batch is decoded, to check that the right user came back).
     */
    private static double rawBatches(long nanos, int users, ColossalMap<Long, User> map, Codec<Long> keys, Codec<User> values) {
        BytesMap bytes = map.bytes();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] batch = new MemorySegment[BATCH];
            for (int j = 0; j < BATCH; j++) {
                batch[j] = arena.allocate(keys.encodedSize(0L));
            }
            long[] lengths = new long[BATCH];
            MemorySegment dst = arena.allocate(BATCH * 1024L);
            SplittableRandom r = new SplittableRandom(11);
            long n = 0;
            long start = System.nanoTime();
            long elapsed;
            do {
                for (int i = 0; i < 64; i++, n += BATCH) {
                    long first = r.nextLong(users);
                    keys.encode(first, batch[0], 0);
                    for (int j = 1; j < BATCH; j++) {
                        keys.encode(r.nextLong(users), batch[j], 0);
                    }
                    if (bytes.getAll(batch, 0, lengths, dst, 0) != BATCH || values.decode(dst.asSlice(0, lengths[0])).id() != first) {
                        throw new IllegalStateException("wrong or missing user in a batch starting with id " + first);
                    }
                }
                elapsed = System.nanoTime() - start;
            } while (elapsed < nanos);
            return n / (elapsed / 1e9);
        }
    }

    private interface Op {
        void apply(long id, long n);
    }

    /** Operations per second of {@code op} on random ids for about {@code nanos}. */
    private static double timed(long nanos, int users, Op op) {
        SplittableRandom r = new SplittableRandom(7);
        long n = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < 1024; i++, n++) {
                op.apply(r.nextLong(users), n);
            }
            elapsed = System.nanoTime() - start;
        } while (elapsed < nanos);
        return n / (elapsed / 1e9);
    }
}
