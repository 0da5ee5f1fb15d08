package dev.colossal.server;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.Map;

/**
 * MIGRATE's connections to its targets, kept between calls as Redis keeps them: at most 64, each
 * closed once unused for 10 s (when the next MIGRATE or INFO looks), and each remembering the database it last selected (so a MIGRATE
 * to the same database sends no SELECT, and a target's login lasts as long as its connection).
 * A connection is taken out while a call uses it, so two calls never share one.
 */
final class MigrateSockets {

    private static final int MAX = 64;
    /** Redis's MIGRATE_SOCKET_CACHE_TTL: 10 s. */
    private static final long IDLE_NANOS = 10_000_000_000L;
    private final long idleNanos;

    MigrateSockets() {
        this(IDLE_NANOS);
    }

    /** @param idleNanos how long a connection is kept unused (tests shorten it) */
    MigrateSockets(long idleNanos) {
        this.idleNanos = idleNanos;
    }

    /** One connection to a target. */
    static final class Cached {
        final Socket socket;
        final InputStream in;
        /** The database the target is in, -1 if unknown. */
        long lastDb = -1;
        long lastUse;

        private Cached(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream());
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing a connection that failed: nothing more to do with it
            }
        }
    }

    private final Map<String, Cached> idle = new HashMap<>();

    /** @return a kept connection to host:port, or a new one made within {@code millis} */
    Cached take(String host, int port, long millis) throws IOException {
        Cached kept;
        synchronized (this) {
            closeIdle();
            kept = idle.remove(host + ":" + port);
        }
        if (kept != null) {
            return kept;
        }
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, millis));
            s.setTcpNoDelay(true);
            return new Cached(s);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Keeps {@code c} for the next call to host:port (closing the oldest kept one if there are too many). */
    synchronized void give(String host, int port, Cached c) {
        c.lastUse = System.nanoTime();
        Cached old = idle.put(host + ":" + port, c);
        if (old != null) {
            old.close();
        }
        if (idle.size() > MAX) {
            String oldest = null;
            for (var e : idle.entrySet()) {
                if (oldest == null || e.getValue().lastUse < idle.get(oldest).lastUse) {
                    oldest = e.getKey();
                }
            }
            idle.remove(oldest).close();
        }
    }

    /**
     * @return the connections kept now, INFO's {@code migrate_cached_sockets}: those unused for
     *     10 s are closed first, as Redis's cron closes them, so the count never includes one
     */
    synchronized int kept() {
        closeIdle();
        return idle.size();
    }

    private void closeIdle() {
        long now = System.nanoTime();
        idle.values().removeIf(c -> {
            boolean stale = now - c.lastUse > idleNanos;
            if (stale) {
                c.close();
            }
            return stale;
        });
    }
}
