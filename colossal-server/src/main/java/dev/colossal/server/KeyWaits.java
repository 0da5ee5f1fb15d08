package dev.colossal.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Clients blocked on keys (BLPOP and the other blocking commands, of any type), and their waking.
 * A blocked client is a {@link Waiter} queued on each of its keys, first blocked first served. A
 * write that may have given a key something to take calls {@link #ready}; once the command that
 * wrote is over (after EXEC or a script as a whole, as in Redis), {@link #serveReady} tries the
 * key's waiters in order on the writer's thread, each under its own monitor so that a timeout,
 * CLIENT UNBLOCK or a closing connection and a serving never both happen to one waiter. The reply
 * goes to the waiter's event loop, which writes it and resumes the client's input.
 *
 * <p>A waiter registers before it looks at its keys once more, and a writer looks for waiters
 * after its write: so either the waiter sees the write, or the writer sees the waiter.
 *
 * <p>A waiter that ends when its key goes (XREADGROUP's: its stream deleted, replaced, expired,
 * flushed, or its group destroyed) is also tried, for that alone, after any change to its key
 * ({@link #changed}, which every write's keyspace event calls), and after FLUSHDB, FLUSHALL and
 * SWAPDB ({@link #changedAll}): at once, as in Redis, rather than at a poll's next tick.
 */
final class KeyWaits implements AutoCloseable {

    /** What a waiter does when one of its keys is ready: take what it waits for and answer, or not yet. */
    @FunctionalInterface
    interface Attempt {
        /**
         * @param key the key that is ready, one of the waiter's
         * @return the reply (RESP) once the waiter took what it waited for, or null to go on waiting
         */
        byte[] run(byte[] key);
    }

    /** A blocked client. */
    static final class Waiter {
        final Client client;
        final int db;
        final byte[][] keys;
        private final Attempt attempt;
        private final byte[] onTimeout;
        /**
         * Whether a served waiter takes what it waited for (BLPOP pops): then a waiter that takes
         * nothing means the key has nothing left for those after it. XREAD's waiters only read,
         * each wanting entries above its own ID, so the ones after one that found nothing are tried too.
         */
        private final boolean takes;
        /**
         * What ends the wait once its key went, tried after any change to the key (null: the wait
         * does not end so): the error to answer, or null while the key is still there.
         */
        private final Attempt gone;
        private boolean done;
        private ScheduledFuture<?> timer;

        Waiter(Client client, int db, byte[][] keys, Attempt attempt, byte[] onTimeout) {
            this(client, db, keys, attempt, onTimeout, true);
        }

        Waiter(Client client, int db, byte[][] keys, Attempt attempt, byte[] onTimeout, boolean takes) {
            this(client, db, keys, attempt, onTimeout, takes, null);
        }

        Waiter(Client client, int db, byte[][] keys, Attempt attempt, byte[] onTimeout, boolean takes, Attempt gone) {
            this.gone = gone;
            this.client = client;
            this.db = db;
            this.keys = keys;
            this.attempt = attempt;
            this.onTimeout = onTimeout;
            this.takes = takes;
        }
    }

    private final Map<DbKey, ArrayDeque<Waiter>> byKey = new HashMap<>();
    /** Blocked clients now: {@link #ready} does nothing while it is 0, which it nearly always is. */
    private volatile int blocked;
    /** Blocked clients now whose wait ends when their key goes: {@link #changed} does nothing while it is 0. */
    private volatile int goneWaiters;
    /** Keys written by the command running on this thread, served when it is over. */
    private final ThreadLocal<List<DbKey>> pending = ThreadLocal.withInitial(ArrayList::new);
    /** Keys changed by the command running on this thread, whose waiters look whether their key went when it is over. */
    private final ThreadLocal<List<DbKey>> pendingChanged = ThreadLocal.withInitial(ArrayList::new);
    private final ScheduledThreadPoolExecutor timers;
    /** Told of each waiter served, whose command then goes to replicas; set once by the server. */
    volatile Replicas replicas;
    /** Logs a served blocked command that was slow; set once by the server. */
    volatile SlowLog slowLog;
    /** The slow log entries of commands served on this thread, held until the command serving them is logged. */
    private final ThreadLocal<List<Runnable>> slowLogDeferred = new ThreadLocal<>();
    /**
     * The threads holding a {@link #slowLogDeferred} list now: while none does, {@link #logServed},
     * which every command calls, skips the thread-local lookup (about 4% of an LPUSH's CPU).
     */
    private final java.util.concurrent.atomic.AtomicInteger deferring = new java.util.concurrent.atomic.AtomicInteger();
    /** Holds a served waiter's own invalidations until its reply; set once by the server. */
    volatile Tracking tracking;

    KeyWaits() {
        timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "colossal-block-timeouts");
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
    }

    /** @return the blocked clients whose command has a timeout (INFO's {@code clients_in_timeout_table}) */
    int timed() {
        return timers.getQueue().size();
    }

    /** @return the clients blocked now (INFO's {@code blocked_clients}) */
    int blocked() {
        return blocked;
    }

    /**
     * Says a write may have given {@code key} something to take; its waiters are tried once the
     * command running on this thread is over ({@link #serveReady}).
     */
    void ready(int db, byte[] key) {
        if (blocked != 0) {
            pending.get().add(new DbKey(db, key));
        }
    }

    /** @return whether a blocked client waits for its key to go: then {@link #changed} wants to hear of every change */
    boolean watchingGone() {
        return goneWaiters != 0;
    }

    /**
     * Says {@code key} changed in any way (a keyspace event): its waiters that end when their key
     * goes look whether it went, once the command running on this thread is over.
     */
    void changed(int db, byte[] key) {
        if (goneWaiters != 0) {
            pendingChanged.get().add(new DbKey(db, key));
        }
    }

    /**
     * Says every key of database {@code db} (-1: of every database) may have changed (FLUSHDB,
     * FLUSHALL, SWAPDB): all their waiters are tried once the command running on this thread is over.
     */
    void changedAll(int db) {
        if (blocked == 0) {
            return;
        }
        List<DbKey> keys = pending.get();
        synchronized (this) {
            for (DbKey k : byKey.keySet()) {
                if (db < 0 || k.db() == db) {
                    keys.add(k);
                }
            }
        }
    }

    /** Serves the waiters of the keys the command just over on this thread wrote or changed. */
    void serveReady() {
        serveReady(false);
    }

    /**
     * {@link #serveReady()}, for a command that is logged after this: if {@code logAfter}, the
     * slow log entries of the commands served wait for {@link #logServed}, which the command calls
     * once it is logged itself, since Redis logs a served command after the one that served it.
     */
    void serveReady(boolean logAfter) {
        if (blocked == 0) {
            return;
        }
        if (logAfter && slowLogDeferred.get() == null) {
            deferring.incrementAndGet(); // before the list: a thread that holds one always sees it counted
            slowLogDeferred.set(new ArrayList<>());
        }
        List<DbKey> keys = pending.get();
        // Serving may write (BLMOVE's push) and so add keys: the list grows while it is walked.
        for (int i = 0; i < keys.size(); i++) {
            serve(keys.get(i), false);
        }
        keys.clear();
        List<DbKey> changedKeys = pendingChanged.get();
        for (int i = 0; i < changedKeys.size(); i++) {
            serve(changedKeys.get(i), true);
        }
        changedKeys.clear();
    }

    /**
     * Blocks {@code w} until an attempt succeeds, it times out, or it is cancelled. Tries its
     * keys once more after registering, for a write between the caller's look and now.
     *
     * @param timeoutMillis 0 to wait forever
     */
    void block(Waiter w, long timeoutMillis) {
        w.client.blockedBy = w;
        synchronized (this) {
            for (byte[] k : w.keys) {
                byKey.computeIfAbsent(new DbKey(w.db, k), x -> new ArrayDeque<>()).addLast(w);
            }
            blocked++;
            if (w.gone != null) {
                goneWaiters++;
            }
        }
        if (timeoutMillis > 0) {
            synchronized (w) {
                if (!w.done) {
                    w.timer = timers.schedule(() -> finish(w, w.onTimeout), timeoutMillis, TimeUnit.MILLISECONDS);
                }
            }
        }
        for (byte[] k : w.keys) {
            serve(new DbKey(w.db, k), false);
        }
    }

    /**
     * Ends {@code w}'s wait with {@code reply} (null: answers nothing, for a closed connection), if
     * it still waits.
     *
     * @return whether it still waited
     */
    boolean finish(Waiter w, byte[] reply) {
        synchronized (w) {
            if (w.done) {
                return false;
            }
            w.done = true;
            leave(w, reply);
        }
        return true;
    }

    /**
     * CLIENT UNBLOCK: ends {@code w}'s wait as its timeout would, or with Redis's UNBLOCKED error;
     * a wait with no timeout reply ends with the error only.
     *
     * @return whether it still waited
     */
    boolean unblock(Waiter w, boolean error) {
        if (!error && w.onTimeout == null) {
            return false; // SHUTDOWN's wait has no timeout to end it as (Redis 7.0.15 crashes on this)
        }
        return finish(w, error ? Errors.bytes("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n") : w.onTimeout);
    }

    /**
     * Tries the waiters of {@code k} in order until one that {@link Waiter#takes} takes nothing; or,
     * if {@code goneOnly}, looks whether the key went for each waiter that ends so.
     */
    private void serve(DbKey k, boolean goneOnly) {
        Replicas r = replicas;
        boolean took = r != null && r.orderFromOutside();
        try {
            serveInOrder(k, goneOnly);
        } finally {
            if (took) {
                r.release();
            }
        }
    }

    private void serveInOrder(DbKey k, boolean goneOnly) {
        List<Waiter> waiters;
        synchronized (this) {
            ArrayDeque<Waiter> q = byKey.get(k);
            if (q == null) {
                return;
            }
            waiters = new ArrayList<>(q);
        }
        for (Waiter w : waiters) {
            Attempt attempt = goneOnly ? w.gone : w.attempt;
            if (attempt == null) {
                continue;
            }
            synchronized (w) {
                if (!w.done) {
                    byte[] reply;
                    Tracking t = tracking;
                    if (t != null && t.active()) {
                        t.serving(w.client);
                    }
                    long start = System.nanoTime();
                    if (replicas != null) {
                        replicas.beforeServing(w.client, w.db); // what it writes, kept for a snapshot being made
                    }
                    try {
                        reply = attempt.run(k.key());
                    } catch (RuntimeException e) {
                        // WRONGTYPE at BLMOVE's destination, a damaged file: the waiter's error, not the pusher's
                        reply = Errors.bytes("-" + Errors.of(e).replace('\r', ' ').replace('\n', ' ') + "\r\n");
                    }
                    if (t != null) {
                        reply = t.served(reply);
                    }
                    if (reply == null) {
                        if (w.takes && !goneOnly) {
                            return;
                        }
                        continue;
                    }
                    w.done = true;
                    logIfSlow(w.client, System.nanoTime() - start);
                    Replicas r = replicas;
                    if (r != null) {
                        r.served(w.client, w.db, reply);
                    }
                    leave(w, reply);
                }
            }
        }
    }

    /**
     * A blocked command served now is logged now, as Redis logs it when it unblocks, with the time
     * its serving took (not the time it waited): its first try, when it blocked, was not logged.
     */
    private void logIfSlow(Client c, long nanos) {
        SlowLog log = slowLog;
        byte[][] args = c.args;
        if (log != null && args != null && log.slow(nanos)) {
            long now = System.currentTimeMillis();
            List<Runnable> deferred = slowLogDeferred.get();
            if (deferred != null) {
                deferred.add(() -> log.observe(c, args, nanos, now));
            } else {
                log.observe(c, args, nanos, now);
            }
        }
    }

    /** Logs what {@link #serveReady(boolean)} held back on this thread, if anything. */
    void logServed() {
        if (deferring.get() == 0) {
            return;
        }
        List<Runnable> deferred = slowLogDeferred.get();
        if (deferred != null) {
            slowLogDeferred.remove();
            deferring.decrementAndGet();
            deferred.forEach(Runnable::run);
        }
    }

    /** Takes a finished waiter off its keys and hands its reply to its loop. Called holding its monitor. */
    private void leave(Waiter w, byte[] reply) {
        synchronized (this) {
            for (byte[] key : w.keys) {
                DbKey k = new DbKey(w.db, key);
                ArrayDeque<Waiter> q = byKey.get(k);
                if (q != null) {
                    q.remove(w);
                    if (q.isEmpty()) {
                        byKey.remove(k);
                    }
                }
            }
            blocked--;
            if (w.gone != null) {
                goneWaiters--;
            }
        }
        if (w.timer != null) {
            w.timer.cancel(false);
        }
        if (reply != null) {
            w.client.resumer.accept(reply);
        }
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }
}
