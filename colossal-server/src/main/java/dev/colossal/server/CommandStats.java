package dev.colossal.server;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * One command's line of INFO commandstats, as Redis counts it: {@code calls} that ran (failed ones
 * too), the time they took, {@code rejected_calls} refused before running (wrong arity, no AUTH)
 * and {@code failed_calls} that ran and answered an error, and its {@link LatencyBuckets} (LATENCY
 * HISTOGRAM, INFO latencystats). Dashboards plot calls per command
 * (redis_exporter's {@code redis_commands_total}). GET and SET, run in place in the input buffer,
 * are counted per client and added here once per batch ({@link CommandTable#publish}).
 */
final class CommandStats {

    final LongAdder calls = new LongAdder();
    final LongAdder nanos = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LatencyBuckets latency = new LatencyBuckets();

    /** @return whether anything was counted since start or CONFIG RESETSTAT */
    boolean counted() {
        return calls.sum() != 0 || rejected.sum() != 0 || failed.sum() != 0;
    }

    /** @return the INFO line of command {@code name}, or null if nothing was counted */
    String line(String name) {
        if (!counted()) {
            return null;
        }
        long n = calls.sum();
        long refused = rejected.sum();
        long errors = failed.sum();
        long usec = nanos.sum() / 1000;
        return String.format(Locale.ROOT, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
                name, n, usec, n == 0 ? 0.0 : (double) usec / n, refused, errors);
    }

    /** CONFIG RESETSTAT. */
    void reset() {
        calls.reset();
        nanos.reset();
        rejected.reset();
        failed.reset();
        latency.reset();
    }
}
