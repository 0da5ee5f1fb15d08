package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Client-side caching (CLIENT TRACKING), as Redis 7.0 does it: the server remembers which keys each
 * tracking client read, and when one of them changes it tells those clients, once, with an
 * {@code invalidate} push (RESP3) or a message on {@code __redis__:invalidate} to the client their
 * REDIRECT names (a RESP2 subscriber). In BCAST mode a client is told of every change to keys that
 * start with its prefixes instead, the keys one command changed in one message per prefix. FLUSHDB
 * and FLUSHALL tell every tracking client with a null. NOLOOP spares a client its own writes.
 *
 * <p>Changes are learned where keyspace events are fired ({@link KeyspaceEvents#fire}): every
 * command that changes a key fires one. A client's own invalidations reach it after the reply of the
 * command that caused them, as in Redis, since they go through its {@link Mailbox}. Like Redis, the
 * remembered keys are names only, whatever the database. With no tracking client a command pays one
 * volatile read.
 */
final class Tracking {

    /**
     * One client's tracking settings, replaced whole by CLIENT TRACKING (read by other loops).
     *
     * @param redirect the client that receives the invalidations, 0 for the tracking client itself
     * @param prefixes BCAST's prefixes (none: every key)
     */
    record Mode(boolean bcast, boolean optin, boolean optout, boolean noloop, long redirect, List<byte[]> prefixes) {
    }

    private static final byte[] INVALIDATE = "$10\r\ninvalidate\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MESSAGE = "$7\r\nmessage\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REDIR_BROKEN = "$21\r\ntracking-redir-broken\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHANNEL = "$20\r\n__redis__:invalidate\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL2 = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PUSH2 = ">2\r\n".getBytes(StandardCharsets.US_ASCII);

    /** What the command running on a thread changed for BCAST clients, sent when it ends. */
    private static final class Batch {
        Client writer;
        /** By client, by prefix, the keys (as ISO-8859-1 strings): sorted and each once, as Redis sends them. */
        final Map<Client, TreeMap<String, TreeSet<String>>> keys = new LinkedHashMap<>();
    }

    private static final ThreadLocal<Batch> RUNNING = new ThreadLocal<>();

    /**
     * A blocked client's command being run on this thread for it (BLMOVE served by another client's
     * push), and the invalidations of its own keys that command caused: Redis sends those after the
     * command's reply, as it does for any command, so they wait here and go out appended to it.
     */
    private static final class Serving {
        final Client client;
        final ByteArrayOutputStream pushes = new ByteArrayOutputStream();

        Serving(Client client) {
            this.client = client;
        }
    }

    private static final ThreadLocal<Serving> SERVING = new ThreadLocal<>();

    /** Redis's tracking-table-max-keys default: past it, remembered keys are dropped, their readers told. */
    static final int MAX_KEYS = 1_000_000;

    private final Map<Long, Client> clients;
    /** tracking-table-max-keys: the most keys remembered at once, 0 for no bound (as in Redis). */
    private volatile int maxKeys;
    /** Key (as an ISO-8859-1 string, byte for byte) to the ids of the clients that read it since it last changed. */
    private final ConcurrentHashMap<String, Set<Long>> readers = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<Client> broadcasting = new CopyOnWriteArrayList<>();
    private final AtomicInteger tracking = new AtomicInteger();
    private volatile boolean active;

    /** @param clients the server's clients by id, where REDIRECT's target is looked up */
    Tracking(Map<Long, Client> clients) {
        this(clients, MAX_KEYS);
    }

    /** @param maxKeys the most keys remembered at once (Redis's tracking-table-max-keys) */
    Tracking(Map<Long, Client> clients, int maxKeys) {
        this.clients = clients;
        this.maxKeys = maxKeys;
    }

    /** @return tracking-table-max-keys */
    int maxKeys() {
        return maxKeys;
    }

    /** CONFIG SET tracking-table-max-keys: a lower bound drops keys at once, their readers told. */
    void maxKeys(int n) {
        maxKeys = n;
        if (n > 0 && readers.size() > n) {
            forgetSome();
        }
    }

    /** @return whether any client tracks */
    boolean active() {
        return active;
    }

    /** @return INFO's {@code tracking_clients} */
    int clients() {
        return tracking.get();
    }

    /** @return the keys remembered for default-mode clients (INFO's {@code tracking_total_keys}) */
    int keys() {
        return readers.size();
    }

    /** @return the (key, client) pairs remembered (INFO's {@code tracking_total_items}) */
    long items() {
        return readers.values().stream().mapToLong(Set::size).sum();
    }

    /** @return the distinct prefixes BCAST clients listen to (INFO's {@code tracking_total_prefixes}) */
    long prefixes() {
        return broadcasting.stream().map(c -> c.tracking).filter(java.util.Objects::nonNull)
                .flatMap(m -> m.prefixes().stream()).map(p -> new String(p, StandardCharsets.ISO_8859_1)).distinct().count();
    }

    /** Turns tracking on for {@code c} (on its loop) with {@code mode}, or changes its mode. */
    void enable(Client c, Mode mode) {
        PubSubCommands.subscriber(c); // its mailbox carries the invalidations
        Mode before = c.tracking;
        c.tracking = mode;
        c.trackingRedirBroken = false;
        if (before == null) {
            tracking.incrementAndGet();
        }
        broadcasting.remove(c);
        if (mode.bcast()) {
            broadcasting.add(c);
        }
        active = true;
    }

    /** Turns tracking off for {@code c} (CLIENT TRACKING OFF, RESET, its close). */
    void disable(Client c) {
        if (c.tracking != null) {
            c.tracking = null;
            c.caching = 0; // CLIENT CACHING's yes or no goes with the mode it was for, as in Redis
            broadcasting.remove(c);
            active = tracking.decrementAndGet() > 0;
        }
    }

    /**
     * Starts a command of {@code c} on this thread: what it changes for BCAST clients goes out at
     * {@link #end}. A command inside one (EXEC's, a script's) joins the outer one's batch.
     *
     * @return whether it started one, which the caller must end
     */
    boolean begin(Client c) {
        if (RUNNING.get() != null) {
            return false;
        }
        Batch b = new Batch();
        b.writer = c;
        RUNNING.set(b);
        return true;
    }

    /** Ends the command {@link #begin} started on this thread, sending its BCAST invalidations. */
    void end() {
        Batch b = RUNNING.get();
        RUNNING.remove();
        if (b != null) {
            send(b);
        }
    }

    /** Starts running a blocked command for {@code c} on this thread: see {@link #served}. */
    void serving(Client c) {
        SERVING.set(new Serving(c));
    }

    /**
     * Ends what {@link #serving} started.
     *
     * @param reply the command's reply, or null if it did not run (its client still waits)
     * @return the reply with the client's own invalidations after it; null for a null reply, the
     *     invalidations then sent to the client as any other
     */
    byte[] served(byte[] reply) {
        Serving s = SERVING.get();
        SERVING.remove();
        if (s == null || s.pushes.size() == 0) {
            return reply;
        }
        if (reply == null) {
            PubSubCommands.subscriber(s.client).mailbox.offer(new Mailbox.Frame(0, s.pushes.toByteArray(), new byte[0]));
            return null;
        }
        return concat(reply, s.pushes.toByteArray());
    }

    /** Remembers that {@code c}, tracking in default mode, read {@code key}. */
    void read(Client c, byte[] key) {
        readers.computeIfAbsent(new String(key, StandardCharsets.ISO_8859_1), k -> ConcurrentHashMap.newKeySet()).add(c.id);
        int max = maxKeys;
        if (max > 0 && readers.size() > max) {
            forgetSome();
        }
    }

    /**
     * Keeps the table within {@link #maxKeys}, as Redis does: keys dropped from it are invalidated
     * for their readers, who read them again if they still want them cached. The table's own order
     * picks them, which is its keys' hash order: no key is favoured.
     */
    private void forgetSome() {
        java.util.Iterator<String> it = readers.keySet().iterator();
        int max = maxKeys;
        while (max > 0 && readers.size() > max && it.hasNext()) {
            tellReaders(it.next().getBytes(StandardCharsets.ISO_8859_1), null);
        }
    }

    /** {@code key} changed: tells the clients that read it, and the broadcasting ones whose prefix it has. */
    void changed(byte[] key) {
        Batch running = RUNNING.get();
        Client writer = running == null ? null : running.writer;
        tellReaders(key, writer);
        Batch b = running == null ? new Batch() : running;
        for (Client t : broadcasting) {
            Mode m = t.tracking;
            if (m == null || !m.bcast() || m.noloop() && t == writer) {
                continue;
            }
            for (byte[] p : m.prefixes().isEmpty() ? List.of(new byte[0]) : m.prefixes()) {
                if (startsWith(key, p)) {
                    b.keys.computeIfAbsent(t, x -> new TreeMap<>())
                            .computeIfAbsent(new String(p, StandardCharsets.ISO_8859_1), x -> new TreeSet<>())
                            .add(new String(key, StandardCharsets.ISO_8859_1));
                    break;
                }
            }
        }
        if (running == null) {
            send(b); // a change outside a command (expiry, HTTP): at once
        }
    }

    /** Forgets {@code key} and tells the default-mode clients that read it, but {@code writer} if it asked NOLOOP. */
    private void tellReaders(byte[] key, Client writer) {
        Set<Long> ids = readers.remove(new String(key, StandardCharsets.ISO_8859_1));
        if (ids != null) {
            for (long id : ids) {
                Client t = clients.get(id);
                Mode m = t == null ? null : t.tracking;
                if (m != null && !m.bcast() && !(m.noloop() && t == writer)) {
                    tell(t, m, keysArray(List.of(key)));
                }
            }
        }
    }

    /** FLUSHDB or FLUSHALL: every tracking client is told with a null, and nothing is remembered any more. */
    void flushed() {
        readers.clear();
        for (Client t : clients.values()) {
            Mode m = t.tracking;
            if (m != null) {
                tell(t, m, null);
            }
        }
    }

    private void send(Batch b) {
        b.keys.forEach((t, byPrefix) -> {
            Mode m = t.tracking;
            if (m != null) {
                byPrefix.values().forEach(keys -> tell(t, m, keysArray(keys.stream()
                        .map(k -> k.getBytes(StandardCharsets.ISO_8859_1)).toList())));
            }
        });
    }

    /** Sends {@code keys} (an encoded array, or null for a flush's null) to {@code t} or its REDIRECT client. */
    private void tell(Client t, Mode m, byte[] keys) {
        Client to = m.redirect() == 0 ? t : clients.get(m.redirect());
        if (to == null) {
            // the redirect client is gone: Redis tells the tracking client, if it speaks RESP3, each time
            t.trackingRedirBroken = true;
            if (t.reply.protocol >= 3) {
                PubSubCommands.subscriber(t).mailbox.offer(new Mailbox.Frame(2, REDIR_BROKEN,
                        (":" + m.redirect() + "\r\n").getBytes(StandardCharsets.US_ASCII)));
            }
            return;
        }
        boolean resp3 = to.reply.protocol >= 3;
        byte[] what = keys != null ? keys : resp3 ? NULL3 : NULL2;
        Mailbox.Frame f;
        if (resp3) {
            Serving s = SERVING.get();
            if (s != null && s.client == to) {
                s.pushes.writeBytes(PUSH2);
                s.pushes.writeBytes(INVALIDATE);
                s.pushes.writeBytes(what);
                return;
            }
            f = new Mailbox.Frame(2, INVALIDATE, what);
        } else if (m.redirect() != 0 && to.pubsub) {
            f = new Mailbox.Frame(3, MESSAGE, concat(CHANNEL, what));
        } else {
            return; // RESP2 has no way to tell a client on its own connection
        }
        PubSubCommands.subscriber(to).mailbox.offer(f);
    }

    private static byte[] keysArray(List<byte[]> keys) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + keys.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] k : keys) {
            out.writeBytes(("$" + k.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(k);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
