package dev.colossal.server;

import java.util.List;

/**
 * The texts LATENCY DOCTOR and LATENCY GRAPH answer from a {@link LatencyMonitor}: for a person to
 * read, so in words and bars of our own (Redis's tools parse LATEST and HISTORY, not these).
 */
final class LatencyReport {

    /** Bar length of the worst sample in a graph. */
    private static final int BAR = 50;

    private LatencyReport() {}

    /** LATENCY DOCTOR: each event class's samples summed up, or that there are none. */
    static String doctor(LatencyMonitor m, long nowMillis) {
        StringBuilder sb = new StringBuilder("Latency monitor report (latency-monitor-threshold ")
                .append(m.threshold()).append(" ms").append(m.threshold() == 0 ? ": sampling is off" : "").append(")\n\n");
        List<String> names = m.names();
        if (names.isEmpty()) {
            return sb.append("No event has lasted the threshold or longer since the last LATENCY RESET.\n").toString();
        }
        int i = 1;
        for (String name : names) {
            List<LatencyMonitor.Sample> h = m.history(name);
            long sum = 0;
            for (LatencyMonitor.Sample s : h) {
                sum += s.millis();
            }
            LatencyMonitor.Sample last = h.getLast();
            sb.append(i++).append(". ").append(name).append(": ").append(h.size()).append(h.size() == 1 ? " second" : " seconds")
                    .append(" with samples (the last ").append(LatencyMonitor.KEPT).append(" kept), ").append(sum / h.size())
                    .append(" ms on average; the last ").append(last.millis()).append(" ms, ")
                    .append(Math.max(0, nowMillis / 1000 - last.second())).append(" s ago; the worst ")
                    .append(m.max(name)).append(" ms.").append(hint(name)).append('\n');
        }
        return sb.toString();
    }

    private static String hint(String name) {
        return switch (name) {
            case "command" -> " SLOWLOG GET shows which commands were slow.";
            case "fast-command" -> " Commands that should take constant time were slow: the machine, not the"
                    + " commands, is the likely cause (CPU contention, swapping).";
            case "expire-cycle" -> " Removing expired keys took long: many keys expiring at once, or large values.";
            default -> "";
        };
    }

    /**
     * LATENCY GRAPH: the class's samples, oldest first, one line each: how long ago, a bar scaled
     * to the worst of them, the milliseconds.
     */
    static String graph(String event, List<LatencyMonitor.Sample> h, long max, long nowMillis) {
        long worst = 1;
        long best = Long.MAX_VALUE;
        for (LatencyMonitor.Sample s : h) {
            worst = Math.max(worst, s.millis());
            best = Math.min(best, s.millis());
        }
        StringBuilder sb = new StringBuilder(event).append(" - high ").append(worst).append(" ms, low ").append(best)
                .append(" ms (worst since reset ").append(max).append(" ms)\n");
        for (LatencyMonitor.Sample s : h) {
            int bar = (int) Math.max(1, s.millis() * BAR / worst);
            sb.append(String.format("%6ds ago |", Math.max(0, nowMillis / 1000 - s.second()))).append("#".repeat(bar))
                    .append(' ').append(s.millis()).append(" ms\n");
        }
        return sb.toString();
    }
}
