package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Who asked the server to stop, and SHUTDOWN ABORT, as Redis 7.0 has them: a SHUTDOWN blocks its
 * client until the server is gone; while a master waits for its replicas before it stops, more
 * SHUTDOWNs (NOW and FORCE too) wait with the first, and SHUTDOWN ABORT calls the stop off: writes
 * run again and every waiting SHUTDOWN is answered Redis's error.
 *
 * <p>Unlike Redis, a stop that {@link #settle settled} cannot be called off: one the process's exit
 * asked for ({@link ColossalServer#close}, run by the JVM's shutdown hook on SIGTERM or Ctrl-C, which
 * no thread can cancel once it runs), and any stop once its wait is over.
 */
final class StopRequests {

    /** What a SHUTDOWN waiting on a stop that SHUTDOWN ABORT called off is answered, as in Redis. */
    static final byte[] ABORTED = Errors.bytes("-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
    /** SHUTDOWN ABORT with no stop to call off: Redis's text. */
    static final String NONE = "ERR No shutdown in progress.";
    /** SHUTDOWN ABORT of a settled stop: ours, Redis has no such case. */
    static final String SETTLED = "ERR The shutdown can no longer be aborted: a signal asked for it, or its wait is over.";

    /** One stop, from its first request to its end or its abort. */
    static final class Stop {
        /** SHUTDOWN NOW started it: no wait for replicas (a later NOW, as in Redis, changes nothing). */
        final boolean now;
        private boolean aborted;
        private boolean settled;
        private final List<KeyWaits.Waiter> clients = new ArrayList<>();

        private Stop(boolean now) {
            this.now = now;
        }
    }

    private final ClientPause pause;
    private final KeyWaits waits;
    /** Starts a stop on a thread of its own, given who asked; set once by the server. */
    volatile BiConsumer<Stop, String> starter = (s, who) -> { };
    /** The stop under way, or null; guarded by this. */
    private Stop current;

    StopRequests(ClientPause pause, KeyWaits waits) {
        this.pause = pause;
        this.waits = waits;
    }

    /** SHUTDOWN [NOW]: blocks {@code c} until the server stops, starting the stop unless one is under way. */
    void shutdown(Client c, boolean now) {
        KeyWaits.Waiter w = new KeyWaits.Waiter(c, c.db, new byte[0][], key -> null, null);
        Stop started = null;
        synchronized (this) {
            waits.block(w, 0);
            if (current == null) {
                current = started = new Stop(now);
            }
            current.clients.add(w);
        }
        if (started != null) {
            starter.accept(started, "client id=" + c.id + " addr=" + c.address);
        }
    }

    /** The process exits: joins the stop under way, or starts one, and settles it. */
    synchronized Stop join() {
        if (current == null) {
            current = new Stop(false);
        }
        current.settled = true;
        return current;
    }

    /**
     * SHUTDOWN ABORT: calls the stop off, answers its waiting SHUTDOWNs, lets writes run again.
     *
     * @return null if it was called off, else the error to answer
     */
    synchronized String abort() {
        Stop s = current;
        if (s == null) {
            return NONE;
        }
        if (s.settled) {
            return SETTLED;
        }
        s.aborted = true;
        current = null;
        notifyAll();
        pause.releaseStop();
        for (KeyWaits.Waiter w : s.clients) {
            waits.finish(w, ABORTED);
        }
        return null;
    }

    /** Holds writes for {@code s}'s wait. @return false if it was called off already */
    synchronized boolean hold(Stop s) {
        if (s.aborted) {
            return false;
        }
        pause.holdForStop();
        return true;
    }

    /** Waits {@code millis} within {@code s}'s wait for replicas. @return false if it was called off */
    synchronized boolean pauseIn(Stop s, long millis) throws InterruptedException {
        if (!s.aborted) {
            wait(millis);
        }
        return !s.aborted;
    }

    /** {@code s}'s wait is over: from now on the stop goes on. @return false if it was called off first */
    synchronized boolean settle(Stop s) {
        s.settled = !s.aborted;
        return s.settled;
    }
}
