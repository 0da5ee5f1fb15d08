package dev.colossal.server;

import java.util.concurrent.TimeUnit;

/**
 * INFO's {@code instantaneous_ops_per_sec}, {@code instantaneous_input_kbps} and
 * {@code instantaneous_output_kbps}: how fast the server's totals grew over about the last 1.6 s,
 * as Redis gives them (it keeps 16 samples 100 ms apart). Dashboards plot these, not the totals.
 *
 * <p>The event loops take the samples as they go round ({@link #maybeSample}: one comparison of
 * the clock they read anyway), so no thread of its own wakes for them; a loop with nothing to do
 * goes round once a second, and INFO measures up to its own moment, so an idle server reads 0.
 */
final class InstantRates {

    static final long GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final int SAMPLES = 16;
    private static final long WINDOW_NANOS = GAP_NANOS * SAMPLES;

    /** What INFO shows; kilobits per second are Redis's "kbps": kilobytes (1024) per second. */
    record Rates(long opsPerSecond, double inputKbps, double outputKbps) {}

    private final Stats stats;
    private volatile long nextSampleNanos;
    private final long[] at = new long[SAMPLES];
    private final long[] commands = new long[SAMPLES];
    private final long[] bytesIn = new long[SAMPLES];
    private final long[] bytesOut = new long[SAMPLES];
    /** Samples taken, the newest at {@code (taken - 1) % SAMPLES}. */
    private long taken;

    InstantRates(Stats stats) {
        this.stats = stats;
        this.nextSampleNanos = System.nanoTime();
    }

    /**
     * Takes a sample if one is due; {@code now} is {@link System#nanoTime}.
     *
     * @return whether this call took it (one loop of all that call at the same moment)
     */
    boolean maybeSample(long now) {
        return now - nextSampleNanos >= 0 && sample(now);
    }

    private synchronized boolean sample(long now) {
        if (now - nextSampleNanos < 0) {
            return false; // another loop took it
        }
        nextSampleNanos = now + GAP_NANOS;
        int i = (int) (taken++ % SAMPLES);
        at[i] = now;
        commands[i] = stats.commands.sum();
        bytesIn[i] = stats.bytesIn.sum();
        bytesOut[i] = stats.bytesOut.sum();
        return true;
    }

    /** The rates from the oldest sample of the last 1.6 s (or the newest before it) to {@code now}. */
    synchronized Rates rates(long now) {
        int from = -1;
        for (long k = taken - 1; k >= Math.max(0, taken - SAMPLES); k--) {
            int i = (int) (k % SAMPLES);
            if (from >= 0 && now - at[i] > WINDOW_NANOS) {
                break;
            }
            from = i;
        }
        double seconds = from < 0 ? 0 : (now - at[from]) / 1e9;
        if (seconds <= 0) {
            return new Rates(0, 0, 0);
        }
        return new Rates(Math.round(Math.max(0, stats.commands.sum() - commands[from]) / seconds),
                Math.max(0, stats.bytesIn.sum() - bytesIn[from]) / seconds / 1024,
                Math.max(0, stats.bytesOut.sum() - bytesOut[from]) / seconds / 1024);
    }

    /** CONFIG RESETSTAT: the totals went back to zero, so the samples mean nothing now. */
    synchronized void clear() {
        taken = 0;
        nextSampleNanos = System.nanoTime();
    }
}
