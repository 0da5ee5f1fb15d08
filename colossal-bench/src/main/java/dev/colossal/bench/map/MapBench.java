package dev.colossal.bench.map;

import dev.colossal.bench.Dirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The lmdbjava/benchmarks workload shape: {@code entries} random int keys with {@code valueSize}-byte values;
 * get, put (overwrite), delete (remove then put back) and a full iteration. One store per fork.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MapBench {

    /** Which store. */
    @Param({"colossal", "chm", "chronicle", "mapdb", "lmdb"})
    public String store;

    /** Number of entries. */
    @Param({"1048576"})
    public int entries;

    /** Bytes per value: 100 (lmdbjava's first workload) or 2048 (its second). */
    @Param({"100"})
    public int valueSize;

    private Store s;
    private int[] keys;
    /** The keys in another order than they were written in: a fixed shuffle. */
    private int[] shuffled;
    private byte[] value;
    private int next;
    private Path dir;

    /** Creates the store and fills it. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("colossal-bench-map");
        s = Store.create(store, dir, entries, valueSize);
        value = new byte[valueSize];
        keys = new int[entries];
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < entries; i++) {
            keys[i] = rnd.nextInt();
            value[0] = (byte) i;
            s.put(keys[i], value);
        }
        shuffled = keys.clone();
        for (int i = entries - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int k = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = k;
        }
    }

    /** Closes the store and deletes its files. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        s.close();
        Dirs.deleteTree(dir);
    }

    private int nextKey() {
        int k = keys[next];
        next = next + 1 == entries ? 0 : next + 1;
        return k;
    }

    /** @return the value's length */
    @Benchmark
    public int get() {
        return s.get(nextKey());
    }

    private int nextShuffled() {
        int k = shuffled[next];
        next = next + 1 == entries ? 0 : next + 1;
        return k;
    }

    /**
     * {@link #get} of the keys in another order than they were written in. lmdbjava's shape reads them
     * in the order written, and a store that lays its entries out in the order they came (ours, per
     * segment) then finds each entry beside the one read last from its segment, still in the caches:
     * this is the get of a server's clients, whose keys come in no such order.
     *
     * @return the value's length
     */
    @Benchmark
    public int getShuffled() {
        return s.get(nextShuffled());
    }

    /** {@link #put} of the keys in another order than they were written in (see {@link #getShuffled}). */
    @Benchmark
    public void putShuffled() {
        s.put(nextShuffled(), value);
    }

    /** Keys per batched get. */
    static final int BATCH = 16;

    /**
     * The next {@link #BATCH} keys in one batched get (see {@link Store#getBatch}); time per key.
     *
     * @return the sum of the value lengths
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getBatched() {
        if (next + BATCH > entries) {
            next = 0;
        }
        int sum = s.getBatch(keys, next, BATCH);
        next += BATCH;
        return sum;
    }

    /** Overwrites an existing key. */
    @Benchmark
    public void put() {
        s.put(nextKey(), value);
    }

    /**
     * Overwrites the next {@link #BATCH} keys in one batched put (see {@link Store#putBatch}); time per key.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void putBatched() {
        if (next + BATCH > entries) {
            next = 0;
        }
        s.putBatch(keys, next, BATCH, value);
        next += BATCH;
    }

    /** Removes a key and puts it back, so the size stays constant. */
    @Benchmark
    public void delete() {
        int k = nextKey();
        s.remove(k);
        s.put(k, value);
    }

    /**
     * Removes the next {@link #BATCH} keys in one batched remove and puts them back in one batched
     * put (see {@link Store#deleteBatch}); time per key.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void deleteBatched() {
        if (next + BATCH > entries) {
            next = 0;
        }
        s.deleteBatch(keys, next, BATCH, value);
        next += BATCH;
    }

    /** @return the sum of value lengths over one full pass */
    @Benchmark
    public long iterate() {
        return s.iterate();
    }
}
