package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * CLIENT PAUSE and CLIENT UNPAUSE, as Redis 7.0 has them: until the pause ends, a connection whose
 * next request the pause holds runs nothing more, and its requests run in order once it ends.
 *
 * <p>A held connection does not wait on its loop's thread: it stops reading its input where the held
 * request starts and is {@link #park parked} here; the loop goes on with its other connections. The
 * pause's end (its timeout, or UNPAUSE) hands every parked connection back to its own loop
 * ({@link Client#resumer}, the way a blocked BLPOP is resumed), in the order they were held.
 *
 * <p>A connection decides to park and this ends the pause under one monitor, so a connection never
 * parks after the end has handed the parked ones back (it would wait for a pause that is over).
 *
 * <p>WRITE holds what Redis 7.0 holds: commands flagged {@code write}, those it marks
 * may-replicate (EVAL, EVALSHA, FCALL, PFCOUNT, PUBLISH, SPUBLISH), the writing subcommands of
 * FUNCTION and XGROUP, and EXEC of a transaction that queued any of those. While any pause lasts,
 * keys do not expire (the sweeper waits, and a read that finds a key past its deadline answers as
 * if it were gone but leaves it), so that what clients see does not change under a pause.
 * Eviction happens only in writes, which are held.
 *
 * <p>Two holds of the server's own sit beside the clients' pause, as Redis keeps its pauses apart by
 * purpose (CLIENT UNPAUSE ends neither): a master's stop holds writes while it waits for its replicas
 * ({@link StopRequests}), and DEBUG SLEEP holds every request of every other connection, even one
 * Redis would refuse at once, as Redis's one thread answers nothing while it sleeps. When any of the
 * three ends, every parked connection is handed back and looks again: one still held parks again.
 */
final class ClientPause {

    /** A pause: until {@code endNanos} ({@link System#nanoTime}), of all commands or of writes only. */
    private record Pause(long endNanos, boolean all) {}

    /** The pause now, or null; volatile so a connection's look at it costs a plain load. */
    private volatile Pause current;
    /** Writes held while the server stops: a master waiting for its replicas. */
    private volatile boolean stopping;
    /** The connection whose DEBUG SLEEP holds every other, or null. */
    private volatile Client sleeper;
    /** Whether any of the three holds is on: the one volatile load per request while none is. */
    private volatile boolean on;
    /** The clients held by the current pause, first held first; guarded by this. */
    private final List<Client> parked = new ArrayList<>();
    /** Told when a pause ends: the expiry sweeper, which waited. */
    private final Runnable onEnd;

    ClientPause(Runnable onEnd) {
        this.onEnd = onEnd;
    }

    /** @return whether a pause may be on: the one look a connection takes per request while none is */
    boolean isOn() {
        return on;
    }

    /** Sets {@link #on} after a hold changed; called holding this. */
    private void recount() {
        on = current != null || stopping || sleeper != null;
    }

    /** @return the connections a hold keeps waiting now: INFO counts them in blocked_clients, as Redis does */
    synchronized int held() {
        return parked.size();
    }

    /** A held connection closed: it is not resumed. */
    synchronized void forget(Client c) {
        parked.remove(c);
    }

    /** @return whether a pause is on: expiry waits while it is */
    boolean active() {
        Pause p = current;
        if (p != null && System.nanoTime() - p.endNanos >= 0) {
            endIf(p);
            return false;
        }
        return p != null || stopping || sleeper != null;
    }

    /** Holds writes until {@link #releaseStop}: a master's stop waits for its replicas. */
    synchronized void holdForStop() {
        stopping = true;
        recount();
    }

    /** The stop was called off (SHUTDOWN ABORT): writes run again, unless a client's pause holds them. */
    void releaseStop() {
        stopping = false;
        released();
    }

    /**
     * DEBUG SLEEP of {@code c}: holds every other connection's requests until {@link #wake}. A
     * second sleeper, whose request came in before the first held it, waits for the first to end.
     */
    synchronized void sleep(Client c) throws InterruptedException {
        while (sleeper != null && sleeper != c) {
            wait();
        }
        sleeper = c;
        recount();
    }

    /** The DEBUG SLEEP is over: the held connections run their requests. */
    void wake() {
        sleeper = null;
        released();
    }

    /** A server's hold ended: what waits on this looks again, the parked connections too. */
    private void released() {
        synchronized (this) {
            recount();
            notifyAll();
        }
        resumeParked();
    }

    /**
     * Holds a request that comes in other than over a connection, as a connection's is held: any
     * while DEBUG SLEEP lasts, and an HTTP write while the server stops (CLIENT PAUSE holds neither
     * HTTP nor, as in Redis, the master's stream a replica applies).
     */
    void awaitUnheld(boolean write) throws InterruptedException {
        if (sleeper == null && !(write && stopping)) {
            return;
        }
        synchronized (this) {
            while (sleeper != null || write && stopping) {
                wait();
            }
        }
    }

    /**
     * CLIENT PAUSE: pauses for {@code millis} more, or keeps a pause on longer or of more
     * commands: as in Redis, a second pause never shortens the first nor narrows ALL to WRITE.
     */
    void pause(long millis, boolean all) {
        if (millis > Long.MAX_VALUE - System.currentTimeMillis()) {
            // Redis adds the timeout to the time now and the sum wraps to the past: no pause at all
            // (not one of 292 years that not even UNPAUSE, held under ALL, could end)
            millis = 0;
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(millis, Long.MAX_VALUE / 2_000_000));
        Pause p;
        synchronized (this) {
            Pause was = current;
            if (was != null) {
                end = end - was.endNanos > 0 ? end : was.endNanos;
                all |= was.all;
            }
            p = new Pause(end, all);
            current = p;
            recount();
        }
        schedule(p);
    }

    /** Ends {@code p} at its end: a later pause that replaced it ends under its own timer. */
    private void schedule(Pause p) {
        CompletableFuture.delayedExecutor(Math.max(0, p.endNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                .execute(() -> endIf(p));
    }

    /** CLIENT UNPAUSE: ends the pause now, if there is one. */
    void unpause() {
        Pause p = current;
        if (p != null) {
            end(p);
        }
    }

    private void endIf(Pause p) {
        if (System.nanoTime() - p.endNanos >= 0) {
            end(p);
        } else if (current == p) {
            // not due yet by this clock: under ALL nothing else would end it, UNPAUSE being held too
            schedule(p);
        }
    }

    /** Ends pause {@code p} if it is still the current one, and hands the held clients back. */
    private void end(Pause p) {
        synchronized (this) {
            if (current != p) {
                return;
            }
            current = null;
            recount();
        }
        resumeParked();
    }

    /** Hands every parked connection back to its loop, in the order they were held; the sweeper may go on. */
    private void resumeParked() {
        List<Client> resumed;
        synchronized (this) {
            resumed = List.copyOf(parked);
            parked.clear();
        }
        for (Client c : resumed) {
            c.paused = false;
            c.resumer.accept(NOTHING);
        }
        onEnd.run();
    }

    private static final byte[] NOTHING = new byte[0];

    /**
     * Whether the pause holds request {@code args} of {@code c}: looked at only while a pause is
     * on, before it runs, after the checks Redis makes first (an unknown command, a wrong number
     * of arguments or a missing AUTH is answered at once, as it is in a paused Redis).
     */
    boolean holds(Client c, CommandTable table, byte[][] args) {
        Client s = sleeper;
        if (s != null && s != c) {
            return true;
        }
        Pause p = current;
        if (p != null && System.nanoTime() - p.endNanos >= 0) {
            endIf(p);   // over, whatever its timer did
            p = null;
        }
        if (p == null && !stopping) {
            return false;
        }
        CommandSpec spec = table.find(args[0]);
        if (spec == null || !spec.arityOk(args.length) || !(c.authenticated || spec.noAuth())) {
            return false;
        }
        return p != null && p.all || writes(table, spec, args) || (spec.name().equals("exec") && queuedWrite(c, table));
    }

    /**
     * Parks {@code c}, whose next request the pause holds, to be resumed when it ends.
     *
     * @return false if the pause ended meanwhile: run the request now
     */
    synchronized boolean park(Client c) {
        if (!on) {
            return false;
        }
        c.paused = true;
        parked.add(c);
        return true;
    }

    private static boolean queuedWrite(Client c, CommandTable table) {
        if (c.queued == null) {
            return false;
        }
        for (byte[][] q : c.queued) {
            CommandSpec s = table.find(q[0]);
            if (s != null && writes(table, s, q)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a WRITE pause holds {@code args}: a write, or what Redis 7.0 marks may-replicate */
    static boolean writes(CommandTable table, CommandSpec spec, byte[][] args) {
        if (spec.writes()) {
            return true;
        }
        return switch (spec.name()) {
            // a script or function that declares no-writes is not held, as Redis reads its flags
            case "eval", "evalsha", "fcall" -> !table.scripts().declaresNoWrites(spec.name(), args);
            case "pfcount", "publish", "spublish" -> true;
            case "function" -> args.length > 1 && (Args.is(args[1], "DELETE") || Args.is(args[1], "FLUSH")
                    || Args.is(args[1], "LOAD") || Args.is(args[1], "RESTORE"));
            case "xgroup" -> args.length > 1 && !Args.is(args[1], "HELP");
            default -> false;
        };
    }
}
