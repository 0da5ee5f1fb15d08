package dev.colossal.server;

import java.nio.file.Path;

/**
 * How long one thread ran and how long it waited for a CPU while it was ready to run: the first two
 * fields of Linux's {@code /proc/thread-self/schedstat} (nanoseconds on a CPU, on a run queue). An
 * event loop reads its own to know whether its cores are shared with other busy work, where busy
 * polling takes CPU from the clients it waits for. Elsewhere, or without schedstat, nothing is known.
 */
final class CpuWait {

    private final ProcFile schedstat = new ProcFile(Path.of("/proc/thread-self/schedstat"));
    private long lastRan;
    private long lastWaited;
    /** Whether a look has read the figures once: the next one can tell what changed since. */
    private boolean primed;
    /** The last {@link #look}'s figures since the one before, in nanoseconds; -1 if unknown. */
    long ran = -1;
    long waited = -1;

    /** Opens the calling thread's figures: call on the thread to be measured. */
    CpuWait() {
        look();
    }

    /** Reads the thread's figures: {@link #ran} and {@link #waited} since the last look. */
    void look() {
        int length = schedstat.read();
        byte[] text = schedstat.bytes;
        int at = 0;
        long run = 0;
        long wait = 0;
        int digits = 0;
        for (; at < length && text[at] >= '0' && text[at] <= '9'; at++, digits++) {
            run = run * 10 + text[at] - '0';
        }
        for (at++; at < length && text[at] >= '0' && text[at] <= '9'; at++, digits++) {
            wait = wait * 10 + text[at] - '0';
        }
        boolean known = digits > 0 && primed;
        ran = known ? run - lastRan : -1;
        waited = known ? wait - lastWaited : -1;
        if (digits > 0) {
            primed = true;
            lastRan = run;
            lastWaited = wait;
        }
    }

    void close() {
        schedstat.close();
    }
}
