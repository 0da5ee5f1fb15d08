package dev.colossal.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Redis's latency monitor ({@code latency-monitor-threshold}): every event that lasted at least
 * the threshold, in milliseconds, is a sample of its event class, which LATENCY LATEST, HISTORY,
 * RESET, GRAPH and DOCTOR show. The classes are Redis's names: {@code command} (a command Redis
 * does not flag {@code fast}), {@code fast-command} (one it does) and {@code expire-cycle} (a sweep
 * of expired keys). A class keeps one sample a second, the worst of that second, and its last
 * {@link #KEPT} seconds with samples, as Redis does; and the worst sample since its last reset.
 * Samples are rare (only what passed the threshold), so one monitor guards them all.
 */
final class LatencyMonitor {

    /** Seconds with samples a class keeps (Redis's 160). */
    static final int KEPT = 160;

    /** One second's worst latency of a class: when (epoch seconds) and how long (ms). */
    record Sample(long second, long millis) {}

    /** An event class's samples, oldest first, and its worst since it was created or reset. */
    private static final class Series {
        final List<Sample> samples = new ArrayList<>();
        long max;
    }

    /** The threshold in nanoseconds, Long.MAX_VALUE while monitoring is off: what a command's time is compared with. */
    private volatile long thresholdNanos = Long.MAX_VALUE;
    private volatile long thresholdMillis;
    private final Map<String, Series> events = new LinkedHashMap<>();

    /** CONFIG SET latency-monitor-threshold: 0 turns sampling off (samples already taken stay, as in Redis). */
    void threshold(long millis) {
        thresholdMillis = millis;
        thresholdNanos = millis == 0 ? Long.MAX_VALUE : millis >= Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE - 1
                : millis * 1_000_000;
    }

    long threshold() {
        return thresholdMillis;
    }

    /** @return whether something that took {@code nanos} is a sample: cheap enough to ask after every command */
    boolean over(long nanos) {
        return nanos >= thresholdNanos;
    }

    /** Records that {@code event} took {@code nanos} at epoch ms {@code nowMillis}, if that is over the threshold. */
    void observe(String event, long nanos, long nowMillis) {
        if (!over(nanos)) {
            return;
        }
        long millis = nanos / 1_000_000;
        if (millis < thresholdMillis) {
            return; // over in nanoseconds but not in whole milliseconds, which is what Redis compares
        }
        long second = nowMillis / 1000;
        synchronized (this) {
            Series s = events.computeIfAbsent(event, e -> new Series());
            List<Sample> l = s.samples;
            Sample last = l.isEmpty() ? null : l.getLast();
            if (last != null && last.second() == second) {
                l.set(l.size() - 1, new Sample(second, Math.max(last.millis(), millis)));
            } else {
                if (l.size() == KEPT) {
                    l.removeFirst();
                }
                l.add(new Sample(second, millis));
            }
            s.max = Math.max(s.max, millis);
        }
    }

    /** LATENCY LATEST's rows: each class's name, its last sample and its worst, in the order the classes came. */
    synchronized List<Object[]> latest() {
        List<Object[]> rows = new ArrayList<>();
        events.forEach((name, s) -> {
            Sample last = s.samples.getLast();
            rows.add(new Object[] {name, last.second(), last.millis(), s.max});
        });
        return rows;
    }

    /** @return the class's samples, oldest first; none for a class never seen */
    synchronized List<Sample> history(String event) {
        Series s = events.get(event);
        return s == null ? List.of() : List.copyOf(s.samples);
    }

    /** @return the class's worst sample since its reset, 0 for a class never seen */
    synchronized long max(String event) {
        Series s = events.get(event);
        return s == null ? 0 : s.max;
    }

    /** @return the classes with samples, in the order they came */
    synchronized List<String> names() {
        return List.copyOf(events.keySet());
    }

    /** LATENCY RESET: forgets every class. @return how many there were */
    synchronized int reset() {
        int n = events.size();
        events.clear();
        return n;
    }

    /** LATENCY RESET event...: forgets those classes. @return how many of them had samples */
    synchronized int reset(List<String> names) {
        int n = 0;
        for (String name : names) {
            n += events.remove(name) != null ? 1 : 0;
        }
        return n;
    }
}
