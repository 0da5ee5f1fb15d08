package dev.colossal.bench.arrays;

import dev.colossal.memory.ChunkPool;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** One chunk acquired and released, on one thread; the pool is warm (its slab mapped). */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class PoolBench {

    ChunkPool pool;

    @Setup
    public void setup() {
        pool = ChunkPool.builder().build();
        pool.release(pool.acquire());
    }

    @TearDown
    public void tearDown() {
        pool.close();
    }

    @Benchmark
    public int acquireRelease() {
        int id = pool.acquire();
        pool.release(id);
        return id;
    }
}
