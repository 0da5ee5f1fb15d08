package dev.colossal.cli;

import dev.colossal.array.DoubleArray;
import dev.colossal.memory.ChunkPool;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colossal mix}: the seed's Mix workload on file-backed segmented storage, with its throughput. */
@Command(name = "mix", mixinStandardHelpOptions = true,
        description = {"Time mixing white-noise signals on file-backed chunks.",
            "Mixes two signals into a new one, over and over, on chunks from a pool (seed 000's Mix workload)."})
final class MixCommand implements Callable<Integer> {

    @Option(names = "--samples", description = "samples per signal (default: ${DEFAULT-VALUE}, 1 s at 192 kHz)")
    long samples = 192_000;

    @Option(names = "--rounds", description = "timed rounds (default: ${DEFAULT-VALUE})")
    int rounds = 10;

    @Option(names = "--mixes", description = "mixes per round (default: ${DEFAULT-VALUE})")
    int mixes = 1000;

    @Option(names = "--warmup", description = "untimed rounds first (default: ${DEFAULT-VALUE})")
    int warmup = 5;

    @Option(names = "--chunk-size", description = "pool chunk size in bytes, a power of two (default: ${DEFAULT-VALUE})")
    long chunkSize = ChunkPool.DEFAULT_CHUNK_SIZE;

    @Option(names = "--dir", description = "directory of the pool's backing file (default: a temporary directory)")
    Path dir;

    @Option(names = "--shm", description = "back the pool with /dev/shm (tmpfs) instead of a disk file")
    boolean shm;

    @Override
    public Integer call() {
        if (samples <= 0 || rounds <= 0 || mixes <= 0 || warmup < 0) {
            return Failures.report("mix", "--samples, --rounds and --mixes must be positive, --warmup not negative");
        }
        ChunkPool.Builder builder;
        try {
            builder = ChunkPool.builder().chunkSize(chunkSize)
                    .backing(shm ? ChunkPool.Backing.TMPFS : ChunkPool.Backing.MAPPED_FILE);
        } catch (IllegalArgumentException e) {
            return Failures.report("mix", "--chunk-size=" + chunkSize + " must be a power of two of at least 8,"
                    + " e.g. 1048576");
        }
        if (samples > Long.MAX_VALUE / Double.BYTES || samples * Double.BYTES / chunkSize >= Integer.MAX_VALUE) {
            return Failures.report("mix", "--samples=" + samples + " needs more than 2^31 chunks of --chunk-size="
                    + chunkSize + "; raise --chunk-size or lower --samples");
        }
        if (dir != null) {
            builder.directory(dir);
        }
        ChunkPool pool;
        try {
            pool = builder.build();
        } catch (UncheckedIOException e) {
            // The pool's message names the directory and what to do.
            return Failures.report("mix", IoMessages.message(e) + (dir != null ? " (--dir " + dir + ")" : ""));
        }
        try (pool) {
            return run(pool);
        } catch (UncheckedIOException e) {
            // A slab that does not fit on the disk: the input (the size, the directory), not a bug.
            return Failures.report("mix", IoMessages.message(e) + " (--samples " + samples + ", --chunk-size "
                    + chunkSize + (dir != null ? ", --dir " + dir : shm ? ", --shm" : "") + ")");
        }
    }

    private int run(ChunkPool pool) {
        try (DoubleArray a = Mix.whiteNoise(pool, samples, 1);
             DoubleArray b = Mix.whiteNoise(pool, samples, 2)) {
            double expected = Mix.sum(a) + Mix.sum(b);
            System.out.printf(Locale.ROOT, "mix: %,d samples per signal (%.1f MB), %s-backed chunks of %,d bytes%n",
                    samples, samples * 8 / 1e6, shm ? "tmpfs" : "file", chunkSize);
            Progress progress = new Progress("mix", warmup + rounds);
            for (int r = 0; r < warmup; r++) {
                round(pool, a, b);
                progress.step();
            }
            double totalSeconds = 0;
            double best = Double.MAX_VALUE;
            double check = 0;
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                check = round(pool, a, b);
                double seconds = (System.nanoTime() - t0) / 1e9;
                totalSeconds += seconds;
                best = Math.min(best, seconds);
                progress.step();
            }
            progress.done();
            double perSecond = (double) samples * mixes * rounds / totalSeconds;
            System.out.printf(Locale.ROOT, "mean round: %.1f ms (best %.1f ms) for %d mixes%n",
                    totalSeconds / rounds * 1e3, best * 1e3, mixes);
            System.out.printf(Locale.ROOT, "throughput: %.3e samples/s mixed (%.2f GB/s read+written)%n",
                    perSecond, perSecond * 24 / 1e9);
            boolean ok = Math.abs(check - expected) <= 1e-9 * Math.max(1, Math.abs(expected)) + 1e-6;
            System.out.printf(Locale.ROOT, "checksum: %.6f (expected %.6f) %s%n", check, expected, ok ? "ok" : "MISMATCH");
            ChunkPool.Stats stats = pool.stats();
            System.out.printf(Locale.ROOT, "pool: %d chunks mapped, %d in use at most, %d slab(s)%n",
                    stats.chunksTotal(), stats.highWaterMark(), stats.slabs());
            return ok ? 0 : 1;
        }
    }

    /** One round of mixes; returns the checksum of the last mixed signal. */
    private double round(ChunkPool pool, DoubleArray a, DoubleArray b) {
        double sum = 0;
        for (int m = 0; m < mixes; m++) {
            try (DoubleArray mixed = Mix.mix(pool, a, b)) {
                if (m == mixes - 1) {
                    sum = Mix.sum(mixed);
                }
            }
        }
        return sum;
    }
}
