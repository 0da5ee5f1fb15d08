package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis's slow log: the commands that ran at least {@code slowlog-log-slower-than} microseconds,
 * newest first, at most {@code slowlog-max-len} of them. Operators and their tools read it
 * (redis_exporter's {@code slowlog_length} and {@code slowlog_last_id}, {@code SLOWLOG GET} by
 * hand); an empty log that never filled would tell them nothing was slow when KEYS on a big map
 * took seconds. Entries are kept as Redis keeps them: arguments cut to 32, each to 128 bytes, and
 * passwords replaced by {@code (redacted)}.
 */
final class SlowLog {

    /** Redis's defaults: 10 ms, 128 entries. */
    static final long DEFAULT_SLOWER_THAN_MICROS = 10_000;
    static final long DEFAULT_MAX_LEN = 128;
    /** Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING. */
    private static final int MAX_ARGC = 32;
    private static final int MAX_STRING = 128;

    /** One logged command, as SLOWLOG GET gives it. */
    record Entry(long id, long unixSeconds, long micros, byte[][] args, String address, String name) {}

    /** Read on every command: negative logs nothing, 0 logs everything, as in Redis. */
    private volatile long slowerThanMicros = DEFAULT_SLOWER_THAN_MICROS;
    private volatile long maxLen = DEFAULT_MAX_LEN;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long nextId;

    long slowerThanMicros() {
        return slowerThanMicros;
    }

    void slowerThanMicros(long micros) {
        slowerThanMicros = micros;
    }

    long maxLen() {
        return maxLen;
    }

    synchronized void maxLen(long len) {
        maxLen = len;
        trim();
    }

    /**
     * Logs the command {@code args} that client {@code c} ran in {@code nanos}, if that is
     * {@link #slow}; {@code nowMillis} is the wall clock when it ended.
     */
    void observe(Client c, byte[][] args, long nanos, long nowMillis) {
        if (!slow(nanos)) {
            return;
        }
        byte[][] kept = kept(args);
        synchronized (this) {
            entries.addFirst(new Entry(nextId++, nowMillis / 1000, nanos / 1000, kept, c.address,
                    c.name == null ? "" : c.name));
            trim();
        }
    }

    /** @return whether a command that ran {@code nanos} goes into the log: one volatile read */
    boolean slow(long nanos) {
        long limit = slowerThanMicros;
        return limit >= 0 && nanos / 1000 >= limit;
    }

    private void trim() {
        while (entries.size() > maxLen) {
            entries.removeLast();
        }
    }

    synchronized int size() {
        return entries.size();
    }

    /** @return the newest {@code count} entries, all of them for a negative count */
    synchronized List<Entry> newest(long count) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (count >= 0 && out.size() >= count) {
                break;
            }
            out.add(e);
        }
        return out;
    }

    synchronized void reset() {
        entries.clear();
    }

    /** The arguments as Redis keeps them: at most 32 (the last says how many more), each at most 128 bytes. */
    private static byte[][] kept(byte[][] args) {
        byte[][] redacted = Redaction.of(args);
        int n = Math.min(redacted.length, MAX_ARGC);
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            if (i == MAX_ARGC - 1 && redacted.length > MAX_ARGC) {
                out[i] = ("... (" + (redacted.length - MAX_ARGC + 1) + " more arguments)").getBytes(StandardCharsets.US_ASCII);
            } else if (redacted[i].length > MAX_STRING) {
                byte[] head = Arrays.copyOf(redacted[i], MAX_STRING);
                byte[] tail = ("... (" + (redacted[i].length - MAX_STRING) + " more bytes)").getBytes(StandardCharsets.US_ASCII);
                out[i] = Arrays.copyOf(head, head.length + tail.length);
                System.arraycopy(tail, 0, out[i], head.length, tail.length);
            } else {
                out[i] = redacted[i];
            }
        }
        return out;
    }
}
