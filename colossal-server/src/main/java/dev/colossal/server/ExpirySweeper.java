package dev.colossal.server;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Removes expired keys soon after their deadline, as Redis's active expiry does, and counts the keys
 * with a TTL for INFO. The server's TTLs live inside the values ({@link StoredValue}); a sweep
 * ({@link KeyValueStore#purgeExpired}) reads a whole map once, at start, and from then on only the
 * parts of it that hold keys with a TTL ({@link TtlBuckets}), and this decides when one is worth
 * it, database by database ({@link MapStore#sweepDue}):
 *
 * <ul>
 *   <li>once at start, to learn where the map holds keys with a TTL (its cost, which may be a
 *       second on a map of millions of keys, does not count in the bound below);
 *   <li>when the earliest deadline the last sweep saw or a write set since passes;
 *   <li>after writes, to count again, but only writes of a TTL, or any write while the map holds
 *       keys with one: a map without TTLs is never swept again, whatever the other databases hold;
 *   <li>never sooner than {@link #MIN_GAP_NANOS} after the last, nor than {@link #COST_FACTOR}
 *       times the CPU time it took: sweeps take at most 2% of a core on a map of any size (on a
 *       small map expired keys go within about 0.1-0.2 s of their deadline; a sweep of 1.3M keys
 *       took 0.19 s, so they are 9 s apart there).
 * </ul>
 *
 * The count of keys with a TTL ({@link MapStore#lastSweep}) is as of the database's last sweep.
 */
final class ExpirySweeper implements AutoCloseable {

    /** Redis's active expiry runs ten times a second (hz 10); sweeps are no closer than that. */
    static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A sweep waits this many times the CPU time of the last one after it: at most 2% of a core. */
    static final long COST_FACTOR = 50;
    private static final long NONE = Long.MAX_VALUE;
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private final ServerContext ctx;
    private final Thread thread;
    private volatile boolean running = true;
    /** The earliest deadline known (epoch ms): seen by the last sweep or written since; NONE if none. */
    private final AtomicLong earliest = new AtomicLong(NONE);
    /** Something changed that the count of keys with a TTL may not include. */
    private volatile boolean dirty = true;
    /** When the sweeper wakes next by itself (epoch ms), for writers deciding whether to wake it. */
    private volatile long sleepingUntil;
    private volatile long sweeps;
    /** CPU time the sweeps took since start, in nanoseconds (INFO's {@code expire_cycle_cpu_milliseconds}). */
    private volatile long cpuTotal;
    /** DEBUG SET-ACTIVE-EXPIRE: whether sweeps run; off, keys expire only when read (Redis's lazy expiry). */
    private volatile boolean active = true;
    /** The reply text of the last sweep's failure, null if it went through: each failure is logged once. */
    private String lastFailure;

    ExpirySweeper(ServerContext ctx) {
        this.ctx = ctx;
        this.thread = new Thread(this::run, "colossal-expiry");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** A write set a TTL ending at {@code at}. */
    void deadlineSet(long at) {
        due(at);
        markDirty();
    }

    /** A key expires at {@code at}: sweep then, if no sweep is due sooner. */
    private void due(long at) {
        long e;
        while (at < (e = earliest.get())) {
            if (earliest.compareAndSet(e, at)) {
                if (at < sleepingUntil) {
                    LockSupport.unpark(thread);
                }
                return;
            }
        }
    }

    /** A read found a key expired and removed it: counted in INFO's expired_keys, as a sweep's are. */
    void removedOnRead(KeyValueStore store, byte[] key) {
        ctx.stats.expiredKeys.increment();
        expired(store, key);
        changed();
    }

    /** {@code key} was removed from {@code store} for its deadline: the {@code expired} event. */
    void expired(KeyValueStore store, byte[] key) {
        ctx.replicas.removed(store, key);
        ctx.events.fire(KeyspaceEvents.EXPIRED, "expired", store, key);
    }

    /** {@code key} was evicted from {@code store} to stay within --maxmemory: Redis's {@code evicted} event, and tracking's invalidation. */
    void evicted(KeyValueStore store, byte[] key) {
        ctx.replicas.removed(store, key);
        ctx.events.fire(KeyspaceEvents.EVICTED, "evicted", store, key);
    }

    /** A write without a TTL to a database with keys that have one: it may have replaced or removed one. */
    void changed() {
        markDirty();
    }

    /** A CLIENT PAUSE ended: sweep what came due while it lasted. */
    void wake() {
        LockSupport.unpark(thread);
    }

    /**
     * @return whether keys must stay past their deadline now: a CLIENT PAUSE is on, or this server
     *     is a replica, whose master sends the DEL of each key it expires (as Redis keeps them then)
     */
    boolean held() {
        return ctx.pause.active() || ctx.replica.following();
    }

    private void markDirty() {
        if (!dirty) {
            dirty = true;
            LockSupport.unpark(thread);
        }
    }

    /** DEBUG SET-ACTIVE-EXPIRE 0 or 1: stops the sweeps, or starts them again (what came due meanwhile at once). */
    void active(boolean on) {
        active = on;
        LockSupport.unpark(thread);
    }

    /** @return the CPU time the sweeps took since start, in milliseconds */
    long cpuMillis() {
        return TimeUnit.NANOSECONDS.toMillis(cpuTotal);
    }

    /** CONFIG RESETSTAT: the CPU total counts from now, as Redis's does. */
    void resetCpu() {
        cpuTotal = 0;
    }

    /** @return how many rounds of sweeps ran, each of the databases that wanted one (for tests) */
    long sweeps() {
        return sweeps;
    }

    private void run() {
        long lastEnd = System.nanoTime() - MIN_GAP_NANOS;
        long gap = MIN_GAP_NANOS;
        while (running) {
            long now = ctx.now();
            // The cost bound, as a wall-clock time: no sweep before lastEnd + gap.
            long notBefore = now + TimeUnit.NANOSECONDS.toMillis(Math.max(0, lastEnd + gap - System.nanoTime()));
            long start = startAt(now, notBefore);
            if (start > now) {
                sleepingUntil = start;
                // Writers wake it when they make a sweep due sooner: looked at again after every wake,
                // and once more here, for a writer that looked at sleepingUntil before it was set.
                if (startAt(now, notBefore) >= start && running) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(Math.min(start - now, 60_000)));
                }
                sleepingUntil = 0;
                continue;
            }
            if (held() || !active) {
                // woken by the pause's end (wake) or active(true); earliest and dirty stay as they are for then
                LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(1));
                continue;
            }
            dirty = false;
            earliest.set(NONE);
            long cost = -cpuNanos();
            long wallStart = System.nanoTime();
            boolean whole;
            try {
                whole = sweepAll(now);
            } catch (Error e) {
                ctx.fail("colossal-expiry", e); // thrown out, it would end the sweeps silently
                return;
            }
            ctx.latencyMonitor.observe("expire-cycle", System.nanoTime() - wallStart, ctx.now());
            cost += cpuNanos();
            cpuTotal += cost;
            lastEnd = System.nanoTime();
            gap = whole ? MIN_GAP_NANOS : Math.max(MIN_GAP_NANOS, COST_FACTOR * cost);
            sweeps++;
        }
    }

    /**
     * Sweeps each database that wants it; one that fails is tried again in 10 s, and the others go on.
     *
     * @return whether one of the sweeps read a whole map (a database's first)
     */
    private boolean sweepAll(long now) {
        boolean failed = false;
        boolean whole = false;
        for (MapStore m : ctx.dbs.openMaps()) {
            if (!running) {
                dirty = true;
                return whole;
            }
            if (!m.sweepDue(now)) {
                KeyValueStore.Sweep last = m.lastSweep();
                due(last == null ? now : last.nextDeadline());
                continue;
            }
            try {
                KeyValueStore.Sweep s = m.purgeExpired(() -> running);
                ctx.waits.serveReady(); // a blocked XREADGROUP whose stream expired ends now, as the key's events went out
                whole |= s.whole();
                ctx.stats.expiredKeys.add(s.removed());
                due(s.nextDeadline());
                dirty = dirty || !s.complete();
            } catch (RuntimeException e) {
                // Said once, not every 10 s for as long as the cause lasts; again if it changes.
                String why = Errors.of(e);
                if (!why.equals(lastFailure)) {
                    System.err.println("colossal: expiry sweep failed: " + why.substring(why.indexOf(' ') + 1)
                            + "; trying again every 10 s (said once)");
                    lastFailure = why;
                }
                failed = true;
                due(ctx.now() + 10_000);
            }
        }
        if (!failed) {
            lastFailure = null;
        }
        return whole;
    }

    /**
     * The sweeper thread's CPU time, by which a sweep's cost is measured: its wall time would count
     * the time other threads had the core (a sweep at start, among the JIT's threads, took 110 ms
     * of wall time for 7 ms of CPU).
     */
    private static long cpuNanos() {
        return CPU.isCurrentThreadCpuTimeSupported() ? CPU.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** @return when the next sweep is due (epoch ms): now if the count is stale, else at the earliest deadline */
    private long startAt(long now, long notBefore) {
        return Math.max(dirty ? now : earliest.get(), notBefore);
    }

    /** Stops sweeping; returns once a sweep under way has stopped at its next step. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
