package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * MONITOR: the connections that asked to see every command the server runs, and the line each
 * command gives them, as Redis 7.0 writes it:
 * {@code +1700000000.123456 [0 127.0.0.1:50000] "SET" "k" "v"}, each argument quoted with its
 * unprintable bytes escaped, a script's calls from {@code [0 lua]}, passwords {@code "(redacted)"}.
 * A command is shown once it ran, unless it was refused or is one Redis hides (admin commands such
 * as CONFIG and CLIENT LIST); scripts are shown before they run, so their calls follow them.
 *
 * <p>A line is formatted once on the running command's loop and left in each monitor's
 * {@link Mailbox}, which its own loop writes out. With no monitor a command pays one volatile read.
 */
final class Monitors {

    /** What Redis 7.0.15's COMMAND flags admin: never shown (from its COMMAND INFO). */
    private static final Set<String> ADMIN = Set.of("bgrewriteaof", "bgsave", "debug", "failover", "monitor",
            "pfdebug", "pfselftest", "psync", "replconf", "replicaof", "save", "shutdown", "slaveof", "sync",
            "client|kill", "client|list", "client|no-evict", "client|pause", "client|unblock", "client|unpause",
            "config|get", "config|resetstat", "config|rewrite", "config|set",
            "latency|doctor", "latency|graph", "latency|histogram", "latency|history", "latency|latest", "latency|reset",
            "module|list", "module|load", "module|loadex", "module|unload",
            "slowlog|get", "slowlog|len", "slowlog|reset");
    /** Shown before they run rather than after (Redis flags them skip_monitor and shows them itself). */
    private static final Set<String> SCRIPTS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");
    /**
     * Besides commands flagged write or readonly, what a monitor may not run (Redis treats it as a
     * replica, which must not touch the keyspace): commands that may replicate, and readonly
     * subcommands of containers, whose own flags are empty here.
     */
    private static final Set<String> KEYSPACE = Set.of("publish", "spublish", "eval", "evalsha", "eval_ro", "evalsha_ro",
            "fcall", "fcall_ro", "object|encoding", "object|freq", "object|idletime", "object|refcount", "memory|usage");
    private static final byte[] EMPTY = {};

    private final CopyOnWriteArrayList<Client> monitors = new CopyOnWriteArrayList<>();
    /** Whether any connection monitors: the one read a command makes when none does. */
    private volatile boolean active;

    /** @return whether any connection monitors */
    boolean active() {
        return active;
    }

    /** Makes {@code c}, whose {@link Client#subscriber} mailbox takes the lines, a monitor. */
    void add(Client c) {
        monitors.add(c);
        active = true;
    }

    /** {@code c} no longer monitors (it closed, or RESET). */
    void remove(Client c) {
        if (c.monitor) {
            c.monitor = false;
            monitors.remove(c);
            active = !monitors.isEmpty();
        }
    }

    /**
     * @return Redis's refusal of {@code spec} (named {@code name} as {@link LastCommand} names it)
     *     for a monitor, or null if it may run it
     */
    static String refusal(CommandSpec spec, String name) {
        return spec.writes() || spec.readOnly() || KEYSPACE.contains(name)
                ? "ERR Replica can't interact with the keyspace" : null;
    }

    /** @return whether command {@code name} (as {@link LastCommand} names it) is shown before it runs */
    static boolean shownBefore(String name) {
        return SCRIPTS.contains(name);
    }

    /** @return whether command {@code name} (as {@link LastCommand} names it) is shown after it ran */
    static boolean shownAfter(String name) {
        return !ADMIN.contains(name) && !SCRIPTS.contains(name);
    }

    /** Shows {@code args}, which {@code c} ran, to every monitor. */
    void feed(Client c, byte[][] args) {
        Instant now = Instant.now();
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        line.writeBytes(String.format("+%d.%06d [%d %s]", now.getEpochSecond(), now.getNano() / 1000, c.db,
                c.denyBlocking ? "lua" : c.address).getBytes(StandardCharsets.US_ASCII));
        for (byte[] arg : Redaction.of(args)) {
            line.write(' ');
            quote(line, arg);
        }
        line.write('\r');
        line.write('\n');
        Mailbox.Frame f = new Mailbox.Frame(0, line.toByteArray(), EMPTY);
        for (Client m : monitors) {
            Subscriber s = m.subscriber;
            if (s != null) {
                s.mailbox.offer(f);
            }
        }
    }

    /** Writes {@code b} in double quotes, as Redis's {@code sdscatrepr} does. */
    private static void quote(ByteArrayOutputStream out, byte[] b) {
        out.write('"');
        for (byte x : b) {
            int ch = x & 0xFF;
            switch (ch) {
                case '\\', '"' -> {
                    out.write('\\');
                    out.write(ch);
                }
                case '\n' -> out.writeBytes(new byte[] {'\\', 'n'});
                case '\r' -> out.writeBytes(new byte[] {'\\', 'r'});
                case '\t' -> out.writeBytes(new byte[] {'\\', 't'});
                case 7 -> out.writeBytes(new byte[] {'\\', 'a'});
                case '\b' -> out.writeBytes(new byte[] {'\\', 'b'});
                default -> {
                    if (ch >= 0x20 && ch <= 0x7e) {
                        out.write(ch);
                    } else {
                        out.writeBytes(String.format("\\x%02x", ch).getBytes(StandardCharsets.US_ASCII));
                    }
                }
            }
        }
        out.write('"');
    }
}
