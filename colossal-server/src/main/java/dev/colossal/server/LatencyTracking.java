package dev.colossal.server;

/**
 * The server's {@code latency-tracking} settings (CONFIG GET/SET): whether commands' latencies are
 * counted into their {@link LatencyBuckets}, and the percentiles INFO latencystats shows. Read on
 * every command by the loops, set by CONFIG SET on any of them.
 */
final class LatencyTracking {

    volatile boolean on = true;
    volatile double[] percentiles = {50, 99, 99.9};

    /** @return the percentiles as CONFIG GET shows them: {@code 50 99 99.9} */
    String percentilesText() {
        StringBuilder sb = new StringBuilder();
        for (double p : percentiles) {
            sb.append(sb.isEmpty() ? "" : " ").append(LatencyBuckets.name(p));
        }
        return sb.toString();
    }

    /**
     * @param text percentiles separated by spaces, e.g. {@code 50 99 99.9}, or nothing
     * @return them
     * @throws IllegalArgumentException saying, in Redis's words, why {@code text} is not that
     */
    static double[] parsePercentiles(String text) {
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            return new double[0];
        }
        String[] parts = trimmed.split(" +");
        double[] out = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Double.parseDouble(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid latency-tracking-info-percentiles parameters");
            }
            if (!(out[i] >= 0 && out[i] <= 100)) {
                throw new IllegalArgumentException("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
            }
        }
        return out;
    }
}
