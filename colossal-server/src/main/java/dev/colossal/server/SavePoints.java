package dev.colossal.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Redis's {@code save} setting, pairs of {@code <seconds> <changes>}: when, for one of them, at
 * least that many changes were made and more than that many seconds went by since the last save,
 * the server saves on its own, as SAVE does ({@link ServerContext#save}). Here a save writes no RDB
 * file: every change is in the map files already, and saving forces them to the device. So a save
 * point gives what Redis users set it for, a bound on what a power loss can take, on a schedule;
 * without one, a write waits for the kernel's write-back (a crash of the process loses nothing
 * either way). LASTSAVE and INFO persistence ({@code rdb_changes_since_last_save},
 * {@code rdb_last_save_time}, {@code rdb_saves}) count these saves as SAVE's.
 *
 * <p>A thread looks once a second while a point is set, and is started by the first one; without
 * points (the default, {@code save ""}) there is no thread. A save that failed is tried again no
 * sooner than {@link #RETRY_SECONDS} later, as Redis waits before another background save.
 */
final class SavePoints implements AutoCloseable {

    /** Redis's CONFIG_BGSAVE_RETRY_DELAY: seconds between a failed save and the next attempt. */
    static final long RETRY_SECONDS = 5;

    private final ServerContext ctx;
    /** The points, {@code seconds, changes} pairs in the order given; empty for none. */
    private volatile long[] points = new long[0];
    /** The changes counted so far ({@link CommandTable#changesRun}); set with the first points. */
    private volatile LongSupplier changes;
    private Thread thread;
    private volatile boolean closed;
    /** When the last save the points made was tried, epoch seconds. */
    private long lastTrySeconds;

    SavePoints(ServerContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Reads a {@code save} value as Redis 7.0 does: words between single spaces (two spaces make
     * an empty word between them), an even count of them, each {@code seconds} at least 1 and each
     * {@code changes} at least 0, each read as C's strtoll reads it (blanks before it, a sign, an
     * empty word is 0, a number too large is the largest); an empty value is no point.
     *
     * @return the pairs, or null if the value is not one Redis takes
     */
    static long[] parse(String value) {
        String[] words = value.isEmpty() ? new String[0] : value.split(" ", -1);
        if (words.length % 2 != 0) {
            return null;
        }
        long[] p = new long[words.length];
        for (int i = 0; i < words.length; i++) {
            java.util.regex.Matcher m = C_INTEGER.matcher(words[i]);
            if (!m.matches()) {
                return null;
            }
            String digits = m.group(1);
            try {
                p[i] = digits.isEmpty() ? 0 : Long.parseLong(digits);
            } catch (NumberFormatException e) {
                p[i] = digits.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE;   // strtoll's clamp
            }
            if (p[i] < (i % 2 == 0 ? 1 : 0)) {
                return null;
            }
        }
        return p;
    }

    /** A whole word strtoll reads to its end: C's blanks, then an optional sign and digits (or nothing). */
    private static final java.util.regex.Pattern C_INTEGER = java.util.regex.Pattern.compile(
            "[\\t\\n\\x0B\\f\\r]*([+-]?[0-9]+|)");

    /** @return the points as CONFIG GET gives them: the numbers, one space between them */
    String text() {
        StringBuilder s = new StringBuilder();
        for (long n : points) {
            s.append(s.isEmpty() ? "" : " ").append(n);
        }
        return s.toString();
    }

    /**
     * Saves by {@code p} from now on ({@link #parse}'s pairs; empty: never on its own).
     *
     * @param changesRun the changes counted since start, which a save notes ({@link ServerContext#writesAtSave})
     */
    synchronized void set(long[] p, LongSupplier changesRun) {
        changes = changesRun;
        points = p.clone();
        if (thread == null && p.length > 0 && !closed) {
            thread = Thread.ofPlatform().daemon().name("colossal-save-points").start(this::run);
        } else if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * @param p                 the points
     * @param changesSinceSave  changes made since the last save
     * @param secondsSinceSave  seconds since the last save
     * @return whether one point asks for a save: as many changes as it names, and more seconds
     */
    static boolean due(long[] p, long changesSinceSave, long secondsSinceSave) {
        for (int i = 0; i + 1 < p.length; i += 2) {
            if (changesSinceSave >= p[i + 1] && secondsSinceSave > p[i]) {
                return true;
            }
        }
        return false;
    }

    /**
     * FLUSHALL's save, while it runs: Redis saves the emptied data set at once when a point is set
     * (so that a crash does not bring the keys back), which leaves no change unsaved after it (the
     * FLUSHALL itself, counted once it ends, is in it) and is not counted in {@code rdb_saves}.
     */
    void saveIfSet() {
        LongSupplier counted = changes;
        if (points.length > 0 && counted != null) {
            ctx.save(counted.getAsLong() + 1, false);
        }
    }

    private void run() {
        while (!closed) {
            if (points.length == 0) {
                LockSupport.park(this);
                continue;
            }
            LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(1));
            long[] p = points;
            long now = ctx.now() / 1000;
            long ran = changes.getAsLong();
            if (closed || !due(p, ran - ctx.writesAtSave, now - ctx.lastSaveSeconds)
                    || !ctx.lastSaveOk && now - lastTrySeconds <= RETRY_SECONDS) {
                continue;
            }
            lastTrySeconds = now;
            try {
                ctx.save(ran);
            } catch (RuntimeException e) {
                // noted in INFO persistence (rdb_last_bgsave_status:err); tried again after the delay
                System.err.println("colossal: the save the save points asked for failed: " + e);
            }
        }
    }

    /** Stops looking: before the maps close. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
