package dev.colossal.server;

import java.util.Locale;

/**
 * Numbers as INFO writes them: fixed decimals ({@code %.2f}, {@code %.6f}) and Redis's
 * {@code _human} byte counts, appended to the reply's text without {@link String#format}, whose
 * parsing of the pattern was a tenth of INFO's time (monitoring agents ask every few seconds,
 * redis-benchmark's INFO test thousands of times a second).
 */
final class InfoNumbers {

    private static final long[] SCALE = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000};
    private static final String[] UNITS = {"K", "M", "G", "T", "P"};

    private InfoNumbers() {}

    /**
     * Appends {@code v} with {@code places} decimals (1 to 6), rounded to the nearest as C's
     * {@code %.Nf} does but for ties the binary value leaves a hair off (nothing INFO shows
     * depends on one).
     */
    static StringBuilder fixed(StringBuilder sb, double v, int places) {
        long scale = SCALE[places];
        if (!(v >= 0 && v < 1e12)) { // negative, NaN, infinite or past a long's digits: rare
            return sb.append(String.format(Locale.ROOT, "%." + places + "f", v));
        }
        long units = Math.round(v * scale);
        sb.append(units / scale).append('.');
        long fraction = units % scale;
        for (long digit = scale / 10; digit > fraction && digit > 1; digit /= 10) {
            sb.append('0');
        }
        return sb.append(fraction);
    }

    /** Appends {@code bytes} as Redis's {@code _human} fields give them: 1000B, 100.00K, 1.50M, 1.00G. */
    static StringBuilder human(StringBuilder sb, long bytes) {
        if (bytes < 1024) {
            return sb.append(bytes).append('B');
        }
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < UNITS.length - 1) {
            v /= 1024;
            u++;
        }
        return fixed(sb, v, 2).append(UNITS[u]);
    }
}
