package dev.colossal.server;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One command's latency histogram, as LATENCY HISTOGRAM and INFO latencystats show it: calls
 * counted in buckets of microseconds, each twice as wide as the one before ({@code [0, 1)},
 * {@code [1, 2)}, {@code [2, 4)}, ...; the last holds everything from about 18 minutes). Redis
 * keeps finer histograms; its LATENCY HISTOGRAM shows them in these same doubling buckets, and a
 * percentile here is read between its bucket's bounds, assuming the calls spread evenly in it.
 */
final class LatencyBuckets {

    /** Buckets: the last starts at 2^30 us. */
    static final int COUNT = 32;

    private final AtomicLongArray calls = new AtomicLongArray(COUNT);

    /** @return the bucket of a call that took {@code nanos} */
    static int bucket(long nanos) {
        long micros = nanos / 1000;
        return Math.min(COUNT - 1, 64 - Long.numberOfLeadingZeros(micros));
    }

    void record(long nanos) {
        calls.incrementAndGet(bucket(nanos));
    }

    /** Adds {@code n} calls to bucket {@code b} (a client's tally of its fast GETs and SETs). */
    void add(int b, long n) {
        calls.addAndGet(b, n);
    }

    /** CONFIG RESETSTAT. */
    void reset() {
        for (int b = 0; b < COUNT; b++) {
            calls.set(b, 0);
        }
    }

    /** @return the calls counted, bucket by bucket (one read of each: the totals agree with the buckets) */
    long[] snapshot() {
        long[] out = new long[COUNT];
        for (int b = 0; b < COUNT; b++) {
            out[b] = calls.get(b);
        }
        return out;
    }

    /** @return bucket {@code b}'s upper bound in microseconds, what LATENCY HISTOGRAM names it by */
    static long upperMicros(int b) {
        return 1L << b;
    }

    /**
     * @param counts      a {@link #snapshot}
     * @param percentiles the percentiles asked for, in [0, 100]
     * @return INFO latencystats' values of them, e.g. {@code p50=1.500,p99=3.875}
     */
    static String percentiles(long[] counts, double[] percentiles) {
        long total = 0;
        for (long n : counts) {
            total += n;
        }
        StringBuilder sb = new StringBuilder();
        for (double p : percentiles) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append('p').append(name(p)).append('=')
                    .append(String.format(Locale.ROOT, "%.3f", at(counts, total, p)));
        }
        return sb.toString();
    }

    /** @return the latency in microseconds below which {@code p} percent of the calls fall */
    private static double at(long[] counts, long total, double p) {
        double rank = Math.max(1, Math.ceil(p / 100 * total));
        long below = 0;
        for (int b = 0; b < COUNT; b++) {
            if (counts[b] > 0 && below + counts[b] >= rank) {
                double low = b == 0 ? 0 : upperMicros(b - 1);
                return low + (upperMicros(b) - low) * (rank - below) / counts[b];
            }
            below += counts[b];
        }
        return 0;
    }

    /** @return percentile {@code p} as Redis writes it in INFO and CONFIG GET: {@code 50}, {@code 99.9} */
    static String name(double p) {
        return java.math.BigDecimal.valueOf(p).stripTrailingZeros().toPlainString();
    }
}
