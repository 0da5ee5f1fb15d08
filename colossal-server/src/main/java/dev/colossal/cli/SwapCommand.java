package dev.colossal.cli;

import dev.colossal.array.DoubleArray;
import dev.colossal.swap.SwapException;
import dev.colossal.swap.SwapSpace;
import dev.colossal.swap.SwappableArray;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code colossal swap}: seed 000's Mix workload over a working set several times the memory budget,
 * through a {@link SwapSpace}; the result is checked against a checksum computed without any storage.
 */
@Command(name = "swap", mixinStandardHelpOptions = true,
        description = {"Mix and sum signals larger than memory, through a swap file.",
            "Realises white-noise signals, mixes each with the next into a new signal and sums the mixes, with far"
                    + " more signal data than the memory budget: signals spill to a swap file and come back on access.",
            "Checks the sum against one computed independently from the noise generators."})
final class SwapCommand implements Callable<Integer> {

    @Option(names = "--signals", converter = ByteSize.class,
            description = "total size of the input signals, e.g. 8GiB (default: 256MiB)")
    long signalBytes = 256L << 20;

    @Option(names = "--signal-size", converter = ByteSize.class,
            description = "size of one signal (default: 16MiB)")
    long signalSize = 16L << 20;

    @Option(names = "--budget", converter = ByteSize.class,
            description = "memory budget of the swap space, e.g. 1GiB (default: 64MiB)")
    long budget = 64L << 20;

    @Option(names = "--dir", description = "directory of the swap file (default: a temporary directory)")
    Path dir;

    @Override
    public Integer call() {
        long samples = signalSize / Double.BYTES;
        // A signal-size below one sample would divide by zero here.
        int count = samples <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, signalBytes / signalSize);
        if (samples <= 0 || count < 2 || budget < 4 * signalSize) {
            return Failures.report("swap", "need --signal-size of at least 8 (one sample), --signals of at least two"
                    + " --signal-size, and --budget of at least four signals (inputs and output are pinned while"
                    + " mixing, one more is prefetched): signals=" + signalBytes + " signal-size=" + signalSize
                    + " budget=" + budget);
        }
        SwapSpace.Builder builder = SwapSpace.builder().budget(budget);
        if (dir != null) {
            builder.directory(dir);
        }
        System.out.printf(Locale.ROOT, "swap: %d signals of %s (%s in all, %s with their mixes) under a budget of %s%n",
                count, ByteSize.format(signalSize), ByteSize.format((long) count * signalSize),
                ByteSize.format(2L * count * signalSize), ByteSize.format(budget));
        SwapSpace created;
        try {
            created = builder.build();
        } catch (UncheckedIOException e) {
            // The message names the swap file the space made up; the user named only its directory.
            return Failures.report("swap", "cannot create the swap file in " + (dir != null ? "--dir " + dir
                    : "a temporary directory") + ": " + IoMessages.reason(e) + "; choose a directory you can write"
                    + (dir != null ? "" : " with --dir DIR"));
        }
        try {
            return run(created, count, samples);
        } catch (UncheckedIOException | SwapException e) {
            // A swap file that could not grow (a full disk): the message names it and what to do.
            return Failures.report("swap", IoMessages.message(e) + "; --signals needs about twice its size on disk"
                    + " (signals and their mixes)");
        }
    }

    private int run(SwapSpace created, int count, long samples) {
        long t0 = System.nanoTime();
        double sum = 0;
        SwapSpace.Stats stats;
        try (SwapSpace space = created) {
            System.out.println("swap file: " + space.file());
            Progress progress = new Progress("swap", 3L * count);
            List<SwappableArray<DoubleArray>> signals = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                signals.add(space.track(Mix.whiteNoise(space.pool(), samples, i + 1L)));
                progress.step();
            }
            List<SwappableArray<DoubleArray>> mixes = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                signals.get((i + 2) % count).prefetch();
                try (DoubleArray a = signals.get(i).acquireReadOnly(); // read-only: evicted again without a write
                     DoubleArray b = signals.get((i + 1) % count).acquireReadOnly()) {
                    mixes.add(space.track(Mix.mix(space.pool(), a, b)));
                }
                progress.step();
            }
            for (int i = 0; i < count; i++) {
                if (i + 1 < count) {
                    mixes.get(i + 1).prefetch();
                }
                try (DoubleArray m = mixes.get(i).acquireReadOnly()) {
                    sum += Mix.sum(m);
                }
                mixes.get(i).close();
                progress.step();
            }
            progress.done();
            stats = space.stats();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double expected = independentChecksum(count, samples);
        boolean ok = Double.compare(sum, expected) == 0;
        System.out.printf(Locale.ROOT, "done in %.1f s: %d swap-outs, %d clean evictions (no write), %d swap-ins of %s"
                + " signals (%.2f GB moved, %.2f GB/s)%n",
                seconds, stats.swapOuts(), stats.cleanEvictions(), stats.swapIns(), ByteSize.format(signalSize),
                (stats.swapOuts() + stats.swapIns()) * (double) signalSize / 1e9,
                (stats.swapOuts() + stats.swapIns()) * (double) signalSize / 1e9 / seconds);
        System.out.printf(Locale.ROOT, "checksum: %.9f (independent: %.9f) %s%n", sum, expected, ok ? "ok" : "MISMATCH");
        return ok ? 0 : 1;
    }

    /** The sum of every mix, from the noise generators alone, in the order Mix.sum adds them. */
    static double independentChecksum(int count, long samples) {
        double total = 0;
        for (int i = 0; i < count; i++) {
            SplittableRandom x = new SplittableRandom(i + 1L);
            SplittableRandom y = new SplittableRandom((i + 1) % count + 1L);
            double s = 0;
            for (long j = 0; j < samples; j++) {
                s += x.nextDouble(-1, 1) + y.nextDouble(-1, 1);
            }
            total += s;
        }
        return total;
    }
}
