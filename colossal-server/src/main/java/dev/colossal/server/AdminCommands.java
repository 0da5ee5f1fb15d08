package dev.colossal.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/** Handshake and administration: PING, HELLO, AUTH, CLIENT, COMMAND, INFO, CONFIG, TIME, ... */
final class AdminCommands {

    /** INFO's {@code os}, as {@code uname -s -r -m} gives it: Linux 6.1.0 x86_64. */
    private static final String OS = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
            + ("amd64".equals(System.getProperty("os.arch")) ? "x86_64" : System.getProperty("os.arch"));
    /** INFO's {@code multiplexing_api}: what the JDK's selectors wait with here. */
    private static final String MULTIPLEXING_API = multiplexingApi();

    private static String multiplexingApi() {
        String provider = java.nio.channels.spi.SelectorProvider.provider().getClass().getSimpleName().toLowerCase(Locale.ROOT);
        return provider.contains("epoll") ? "epoll" : provider.contains("kqueue") ? "kqueue" : "poll";
    }

    private final ServerContext ctx;
    private final CommandTable table;
    private final ClientKill kill;
    private final TrackingCommands trackingCommands;
    private final ClientFlowCommands flowCommands;
    /** What CONFIG REWRITE leaves out of a file when the running value is this: each setting's default. */
    private final Map<String, String> defaults;

    AdminCommands(ServerContext ctx, CommandTable table) {
        this.ctx = ctx;
        this.table = table;
        this.kill = new ClientKill(ctx);
        this.trackingCommands = new TrackingCommands(ctx);
        this.flowCommands = new ClientFlowCommands(ctx);
        this.defaults = defaultValues();
    }

    void register(CommandTable t) {
        t.add("ping", -1, List.of("fast"), 0, 0, 0, this::ping);
        t.add("echo", 2, List.of("fast"), 0, 0, 0, (c, a, r) -> r.bulk(a[1]));
        t.addNoAuth("quit", -1, List.of("fast", "no-auth", "noscript"), (c, a, r) -> {
            r.ok();
            c.closeAfterReply = true;
        });
        t.addNoAuth("hello", -1, List.of("fast", "no-auth", "noscript"), this::hello);
        t.addNoAuth("auth", -2, List.of("fast", "no-auth", "noscript"), this::auth);
        t.addNoAuth("reset", 1, List.of("fast", "no-auth", "noscript"), this::reset);
        t.add("client", -2, List.of(), 0, 0, 0, this::client);
        t.add("monitor", 1, List.of("admin", "noscript", "loading", "stale"), 0, 0, 0, this::monitor);
        t.add("info", -1, List.of(), 0, 0, 0, (c, a, r) -> {
            table.publish(c); // this batch's requests before INFO count too
            r.verbatim(info(a));
        });
        t.add("config", -2, List.of(), 0, 0, 0, this::config);
        t.add("time", 1, List.of("fast"), 0, 0, 0, this::time);
        t.add("save", 1, List.of("admin", "noscript"), 0, 0, 0, (c, a, r) -> {
            save();
            r.ok();
        });
        t.add("bgsave", -1, List.of("admin", "noscript"), 0, 0, 0, (c, a, r) -> {
            save();
            r.simple("Background saving started");
        });
        t.add("lastsave", 1, List.of("fast"), 0, 0, 0, (c, a, r) -> r.integer(ctx.lastSaveSeconds));
        t.add("shutdown", -1, List.of("admin", "noscript", "loading", "stale"), 0, 0, 0, this::shutdown);
    }

    private void save() {
        ctx.save(table.changesRun());
    }

    /**
     * SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: stops the server as SIGTERM does (connections
     * closed, the map synced and closed; {@code serve} exits 0). Like redis-server it sends no reply:
     * the client waits ({@link StopRequests}) and its connection closes, or SHUTDOWN ABORT answers
     * it. The map is synced with NOSAVE too: every acknowledged write is in the file either way, and
     * a sync only hastens the kernel's write-back.
     */
    private void shutdown(Client c, byte[][] a, Reply r) {
        boolean now = false;
        boolean abort = false;
        boolean save = false;
        boolean nosave = false;
        boolean other = false;
        for (int i = 1; i < a.length; i++) {
            switch (Args.lower(a[i])) {
                case "nosave" -> nosave = true;
                case "save" -> save = true;
                case "force" -> other = true;
                case "now" -> now = true;
                case "abort" -> abort = true;
                default -> {
                    r.error(Errors.SYNTAX);
                    return;
                }
            }
        }
        if (abort && (now || save || nosave || other) || save && nosave) {
            r.error(Errors.SYNTAX);
        } else if (abort) {
            String refused = ctx.stops.abort();
            if (refused == null) {
                System.err.println("colossal: SHUTDOWN ABORT from client id=" + c.id + " addr=" + c.address
                        + ": the stop is called off, serving on");
                r.ok();
            } else {
                r.error(refused);
            }
        } else {
            ctx.stops.shutdown(c, now);
        }
    }

    private void ping(Client c, byte[][] a, Reply r) {
        if (a.length > 2) {
            r.error(Errors.arity("ping"));
        } else if (c.pubsub && r.protocol == 2) {
            // A RESP2 subscriber reads arrays only: Redis answers its PING with one
            r.array(2);
            r.bulk("pong");
            r.bulk(a.length == 2 ? a[1] : new byte[0]);
        } else if (a.length == 2) {
            r.bulk(a[1]);
        } else {
            r.simple("PONG");
        }
    }

    /** Authenticates {@code c} as {@code user}; a failure is logged (ACL LOG's reason {@code auth}). @return whether it did */
    private boolean login(Client c, byte[] user, byte[] pass, String command) {
        String name = Errors.text(user);
        AclUser u = ctx.acl.authenticate(name, pass);
        if (u == null) {
            ctx.acl.log.add("auth", "toplevel", command, name, ctx.now(), describe(c));
            return false;
        }
        c.user = u;
        c.authenticated = true;
        return true;
    }

    private void auth(Client c, byte[][] a, Reply r) {
        if (a.length > 3) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (ctx.acl.defaultUser().rules.nopass && a.length == 2) {
            r.error(Errors.AUTH_NOT_CONFIGURED);
            return;
        }
        byte[] user = a.length == 3 ? a[1] : Args.bytes(AclUsers.DEFAULT);
        if (login(c, user, a[a.length - 1], Errors.text(a[0]))) {
            r.ok();
        } else {
            r.error(Errors.WRONGPASS);
        }
    }

    private void hello(Client c, byte[][] a, Reply r) {
        int proto = r.protocol;
        if (a.length > 1) {
            OptionalLong parsed = Args.toLong(a[1]);
            if (parsed.isEmpty()) {
                r.error("ERR Protocol version is not an integer or out of range");
                return;
            }
            long v = parsed.getAsLong();
            if (v < 2 || v > 3) {
                r.error("NOPROTO unsupported protocol version");
                return;
            }
            proto = (int) v;
        }
        String setName = null;
        boolean authed = c.authenticated;
        for (int j = 2; j < a.length; j++) {
            int more = a.length - j - 1;
            if (Args.is(a[j], "AUTH") && more >= 2) {
                if (!login(c, a[j + 1], a[j + 2], Errors.text(a[0]))) {
                    r.error(Errors.WRONGPASS);
                    return;
                }
                authed = true;
                j += 2;
            } else if (Args.is(a[j], "SETNAME") && more >= 1) {
                setName = Errors.text(a[j + 1]);
                if (!validName(setName)) {
                    r.error("ERR Client names cannot contain spaces, newlines or special characters.");
                    return;
                }
                j++;
            } else {
                r.error("ERR Syntax error in HELLO option '" + Errors.text(a[j]) + "'");
                return;
            }
        }
        if (!authed) {
            // Redis 7.0's text (7.2 added "<proto>"): the version INFO and HELLO announce.
            r.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
                    + "AUTH <user> <pass> option can be used to authenticate the client and select "
                    + "the RESP protocol version at the same time");
            return;
        }
        c.authenticated = true;
        if (setName != null) {
            c.name = setName.isEmpty() ? null : setName;
        }
        r.protocol = proto;
        r.map(7);
        r.bulk("server");
        r.bulk("redis");
        r.bulk("version");
        r.bulk(ServerContext.REDIS_VERSION);
        r.bulk("proto");
        r.integer(proto);
        r.bulk("id");
        r.integer(c.id);
        r.bulk("mode");
        r.bulk("standalone");
        r.bulk("role");
        r.bulk(ctx.replica.following() ? "replica" : "master");
        r.bulk("modules");
        r.array(0);
    }

    private static boolean validName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < '!' || ch > '~') {
                return false;
            }
        }
        return true;
    }

    /**
     * RESET: the connection as new, as redis-server does it: out of a transaction, nothing watched,
     * database 0, RESP2, no name, no subscriptions, and unauthenticated if a password is required.
     */
    private void reset(Client c, byte[][] a, Reply r) {
        PubSubCommands.leaveAll(ctx, c);
        ctx.monitors.remove(c);
        ctx.tracking.disable(c);
        PubSubCommands.deliverWaiting(c, r); // what was published while it listened, before +RESET
        c.queued = null;
        c.queueRefused = false;
        Transactions.unwatch(ctx, c);
        c.db = 0;
        c.name = null;
        c.authenticated = ctx.acl.autoAuthenticated();
        c.user = ctx.acl.defaultUser();
        r.protocol = 2;
        c.replies = ReplyMode.ON;
        r.simple("RESET");
    }

    private void client(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (trackingCommands.run(c, a, r) || flowCommands.run(c, a, r)) {
            return;
        }
        if (Args.is(sub, "ID") && a.length == 2) {
            r.integer(c.id);
        } else if (Args.is(sub, "SETNAME") && a.length == 3) {
            String name = Errors.text(a[2]);
            if (!validName(name)) {
                r.error("ERR Client names cannot contain spaces, newlines or special characters.");
                return;
            }
            c.name = name.isEmpty() ? null : name;
            r.ok();
        } else if (Args.is(sub, "GETNAME") && a.length == 2) {
            if (c.name == null) {
                r.nullBulk();
            } else {
                r.bulk(c.name);
            }
        } else if (Args.is(sub, "SETINFO") && a.length == 4) {
            String value = Errors.text(a[3]);
            boolean libName = Args.is(a[2], "LIB-NAME");
            if (!libName && !Args.is(a[2], "LIB-VER")) {
                r.error("ERR Unrecognized option '" + Errors.text(a[2]) + "'");
                return;
            }
            // CLIENT LIST is one line of space-separated fields per client: a space or newline
            // here would break every client's parse of it (go-redis, redis-py), so Redis 7.2
            // refuses them with this text; 7.0 has no SETINFO.
            if (!validName(value)) {
                r.error("ERR " + Errors.text(a[2]) + " cannot contain spaces, newlines or special characters.");
                return;
            }
            if (libName) {
                c.libName = value;
            } else {
                c.libVersion = value;
            }
            r.ok();
        } else if (Args.is(sub, "LIST")) {
            clientList(a, r);
        } else if (Args.is(sub, "INFO") && a.length == 2) {
            r.verbatim(describe(c) + "\n");
        } else if (Args.is(sub, "KILL") && a.length >= 3) {
            kill.run(c, a, r);
        } else if (Args.is(sub, "UNBLOCK") && (a.length == 3 || a.length == 4)) {
            unblock(a, r);
        } else if ((Args.is(sub, "NO-EVICT") || Args.is(sub, "NO-TOUCH")) && a.length == 3) {
            r.ok();
        } else if (Args.is(sub, "HELP") && a.length == 2) {
            List<String> lines = List.of("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "ID", "    Return the ID of the current connection.", "GETNAME",
                    "    Return the name of the current connection.", "SETNAME <name>",
                    "    Assign the name <name> to the current connection.", "SETINFO <option> <value>",
                    "    Set client meta attr. Options are LIB-NAME, LIB-VER.", "LIST", "    Return client list.",
                    "INFO", "    Return information about the current client connection.", "KILL <ip:port>",
                    "    Kill connection made from <ip:port>.", "KILL <option> <value> [<option> <value> [...]]",
                    "    Kill connections. Options are:", "    * ADDR (<ip:port>|<unixsocket>:0)",
                    "      Kill connections made from the specified address", "    * LADDR (<ip:port>|<unixsocket>:0)",
                    "      Kill connections made to specified local address", "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
                    "      Kill connections by type.", "    * USER <username>",
                    "      Kill connections authenticated by <username>.", "    * SKIPME (YES|NO)",
                    "      Skip killing current connection (default: yes).", "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                    "    Unblock the specified blocked client.", "PAUSE <timeout> [WRITE|ALL]",
                    "    Hold every command, or only writes, for <timeout> milliseconds.", "UNPAUSE",
                    "    End the pause now.", "REPLY (ON|OFF|SKIP)",
                    "    Send replies, send none, or drop the next command's reply.");
            r.array(lines.size());
            lines.forEach(r::simple);
        } else if (Args.is(sub, "ID") || Args.is(sub, "SETNAME") || Args.is(sub, "GETNAME")
                || Args.is(sub, "SETINFO") || Args.is(sub, "LIST") || Args.is(sub, "INFO")
                || Args.is(sub, "NO-EVICT") || Args.is(sub, "NO-TOUCH") || Args.is(sub, "HELP") || Args.is(sub, "KILL")
                || Args.is(sub, "UNBLOCK")) {
            r.error(Errors.arity("client|" + Args.lower(sub)));
        } else {
            r.error(Errors.unknownSubcommand(sub, "CLIENT"));
        }
    }

    /** CLIENT LIST [TYPE NORMAL|PUBSUB|MASTER|REPLICA] or CLIENT LIST ID id [id ...], as Redis 7.0 reads them. */
    private void clientList(byte[][] a, Reply r) {
        java.util.function.Predicate<Client> shown = x -> true;
        if (a.length == 4 && Args.is(a[2], "TYPE")) {
            byte[] type = a[3];
            if (Args.is(type, "MASTER")) {
                shown = x -> x.fromMaster; // a replica's link to its master
            } else if (Args.is(type, "REPLICA") || Args.is(type, "SLAVE")) {
                shown = x -> x.replica; // a monitor is a normal client, as Redis shows it
            } else if (Args.is(type, "PUBSUB") || Args.is(type, "NORMAL")) {
                boolean pubsub = Args.is(type, "PUBSUB");
                shown = x -> ClientKill.subscribed(x) == pubsub && !x.fromMaster && !x.replica;
            } else {
                r.error("ERR Unknown client type '" + Errors.text(type) + "'");
                return;
            }
        } else if (a.length > 3 && Args.is(a[2], "ID")) {
            // in the order asked, a repeated id repeated, as Redis answers
            StringBuilder sb = new StringBuilder();
            for (int i = 3; i < a.length; i++) {
                java.util.OptionalLong id = Args.toLong(a[i]);
                if (id.isEmpty()) {
                    r.error("ERR Invalid client ID");
                    return;
                }
                Client x = ctx.clients.get(id.getAsLong());
                if (x != null) {
                    sb.append(describe(x)).append('\n');
                }
            }
            r.verbatim(sb.toString());
            return;
        } else if (a.length != 2) {
            r.error(Errors.SYNTAX);
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (Client x : ctx.clients.values()) {
            if (shown.test(x)) {
                sb.append(describe(x)).append('\n');
            }
        }
        r.verbatim(sb.toString());
    }

    /**
     * MONITOR: from now on the connection is shown every command the server runs ({@link Monitors});
     * a second MONITOR answers nothing, as in Redis.
     */
    private void monitor(Client c, byte[][] a, Reply r) {
        if (c.inExec || c.denyBlocking) {
            r.error("ERR MONITOR isn't allowed for DENY BLOCKING client");
            return;
        }
        if (c.monitor) {
            return;
        }
        PubSubCommands.subscriber(c);
        c.monitor = true;
        ctx.monitors.add(c);
        r.ok();
    }

    /**
     * CLIENT LIST's {@code flags=}, in Redis's order: O for a monitor, P for a subscriber, x inside
     * MULTI, b for a blocked client, t when tracking (R its redirection broken, B broadcasting), N
     * for none. go-redis's client-side cache tells its tracked connections by the t.
     */
    private static String flags(Client x, boolean subscriber, boolean multi, Tracking.Mode tracking) {
        String f = (x.monitor ? "O" : "") + (x.replica ? "S" : "") + (x.fromMaster ? "M" : "") + (subscriber ? "P" : "")
                + (multi ? "x" : "") + (x.blockedBy != null || x.paused ? "b" : "")
                + (tracking != null ? "t" : "") + (tracking != null && x.trackingRedirBroken ? "R" : "")
                + (tracking != null && tracking.bcast() ? "B" : "") + (x.unixSocket ? "U" : "");
        return f.isEmpty() ? "N" : f;
    }

    /**
     * CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends a blocking command's wait as its timeout would, or
     * with Redis's UNBLOCKED error; 1 if the client was blocked.
     */
    private void unblock(byte[][] a, Reply r) {
        java.util.OptionalLong id = Args.toLong(a[2]);
        if (id.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        boolean error = false;
        if (a.length == 4) {
            if (Args.is(a[3], "ERROR")) {
                error = true;
            } else if (!Args.is(a[3], "TIMEOUT")) {
                r.error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
                return;
            }
        }
        Client x = ctx.clients.get(id.getAsLong());
        KeyWaits.Waiter w = x == null ? null : x.blockedBy;
        r.integer(w != null && ctx.waits.unblock(w, error) ? 1 : 0);
    }

    private String describe(Client x) {
        return describe(ctx, x);
    }

    /** @return the laddr CLIENT LIST shows and CLIENT KILL LADDR matches: the socket's path, or bind:port */
    static String localAddress(ServerContext ctx, Client x) {
        UnixSocket u = ctx.unixSocket;
        return x.unixSocket && u != null ? u.clientAddress() : ctx.bind + ":" + ctx.respPort;
    }

    /** @return CLIENT LIST's line of {@code x} (ACL LOG's client-info too) */
    static String describe(ServerContext ctx, Client x) {
        long age = (ctx.now() - x.createdMillis) / 1000;
        Subscriber s = x.subscriber; // perhaps another loop's client: its counts are volatile
        int sub = s == null ? 0 : s.channels;
        int psub = s == null ? 0 : s.patterns;
        int ssub = s == null ? 0 : s.shardChannels;
        Tracking.Mode tracking = x.tracking;
        java.util.List<byte[][]> queued = x.queued; // another loop's client: read once
        return "id=" + x.id + " addr=" + x.address + " laddr=" + localAddress(ctx, x)
                + " fd=0 name=" + (x.name == null ? "" : x.name) + " age=" + age + " idle=0 flags="
                + flags(x, sub + psub + ssub > 0, queued != null, tracking) + " db=" + x.db + " sub=" + sub + " psub=" + psub + " ssub=" + ssub
                + " multi=" + (queued == null ? -1 : queued.size()) + " qbuf=" + x.queryBytes + " qbuf-free=" + Math.max(0, x.inputCapacity - x.queryBytes) + " argv-mem=0 multi-mem=0 rbs="
                + x.reply.capacity + " rbp=0 obl=0 oll=0 omem=0 tot-mem=" + (x.inputCapacity + x.reply.capacity)
                + " events=r cmd=" + x.lastCommand + " user=" + (x.user == null ? AclUsers.DEFAULT : x.user.name) + " redir=" + (tracking == null ? -1 : tracking.redirect()) + " resp="
                + x.reply.protocol + (x.libName == null ? "" : " lib-name=" + x.libName)
                + (x.libVersion == null ? "" : " lib-ver=" + x.libVersion);
    }

    /** The config parameters CONFIG GET knows, with the values this server runs with. */
    private Map<String, String> configValues() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bind", ctx.bindLine);
        m.put("port", Integer.toString(ctx.respPort));
        m.put("databases", Integer.toString(ctx.dbs.count()));
        m.put("maxclients", Integer.toString(ctx.maxClients));
        m.put("timeout", Integer.toString(ctx.idleTimeoutSeconds));
        m.put("shutdown-timeout", Integer.toString(ctx.shutdownTimeoutSeconds));
        m.put("proto-max-bulk-len", Long.toString(ctx.maxBulkBytes()));
        String requirePass = ctx.requirePass;
        m.put("requirepass", requirePass == null ? "" : requirePass);
        m.put("aclfile", ctx.aclFile == null ? "" : ctx.aclFile.toString());
        m.put("acllog-max-len", "128");
        m.put("acl-pubsub-default", "resetchannels");
        m.put("dir", ctx.config.dataDir().toAbsolutePath().toString());
        m.put("save", ctx.savePoints.text());
        m.put("maxmemory", Long.toString(ctx.dbs.maxMemory()));
        m.put("maxmemory-policy", ctx.dbs.policy());
        m.put("lfu-log-factor", Integer.toString(ctx.access.lfuLogFactor));
        m.put("lfu-decay-time", Integer.toString(ctx.access.lfuDecayMinutes));
        m.put("protected-mode", ctx.protectedMode ? "yes" : "no");
        m.put("enable-debug-command", ctx.debugAccess.text());
        m.put("masterauth", ctx.replica.masterAuth == null ? "" : ctx.replica.masterAuth);
        m.put("masteruser", ctx.replica.masterUser == null ? "" : ctx.replica.masterUser);
        m.put("min-replicas-to-write", Integer.toString(ctx.guards.minReplicas));
        m.put("min-slaves-to-write", Integer.toString(ctx.guards.minReplicas));
        m.put("min-replicas-max-lag", Integer.toString(ctx.guards.maxLagSeconds));
        m.put("min-slaves-max-lag", Integer.toString(ctx.guards.maxLagSeconds));
        m.put("replica-serve-stale-data", ctx.guards.serveStale ? "yes" : "no");
        m.put("slave-serve-stale-data", ctx.guards.serveStale ? "yes" : "no");
        m.put("tracking-table-max-keys", Integer.toString(ctx.tracking.maxKeys()));
        m.put("replica-priority", Integer.toString(ctx.replica.priority));
        m.put("slave-priority", Integer.toString(ctx.replica.priority));
        m.put("replica-announced", ctx.replica.announced ? "yes" : "no");
        m.put("replica-announce-ip", ctx.replica.announceIp);
        m.put("slave-announce-ip", ctx.replica.announceIp);
        m.put("replica-announce-port", Integer.toString(ctx.replica.announcePort));
        m.put("slave-announce-port", Integer.toString(ctx.replica.announcePort));
        MasterLink link = ctx.replica.link();
        String master = link == null ? "" : link.host + " " + link.port;   // REPLICAOF sets it, as in Redis
        m.put("replicaof", master);
        m.put("slaveof", master);
        m.put("replica-read-only", "yes");
        m.put("slave-read-only", "yes");
        m.put("slowlog-log-slower-than", Long.toString(ctx.slowLog.slowerThanMicros()));
        m.put("slowlog-max-len", Long.toString(ctx.slowLog.maxLen()));
        m.put("latency-monitor-threshold", Long.toString(ctx.latencyMonitor.threshold()));
        m.put("latency-tracking", ctx.latency.on ? "yes" : "no");
        m.put("latency-tracking-info-percentiles", ctx.latency.percentilesText());
        // the replica class as set; the pubsub class is Redis's default, fixed (OutputLimit); a normal
        // client is not bounded but read from no more while its replies wait
        Replicas.Limit replica = ctx.replicas.replicaLimit;
        m.put("client-output-buffer-limit", "normal 0 0 0 slave " + replica.hard() + " " + replica.soft() + " "
                + replica.softSeconds() + " pubsub " + OutputLimit.HARD + " " + OutputLimit.SOFT + " " + OutputLimit.SOFT_SECONDS);
        m.put("notify-keyspace-events", KeyspaceEvents.format(ctx.events.flags()));
        m.put("repl-backlog-size", Integer.toString(ctx.replicas.backlogSize()));
        m.put("repl-ping-replica-period", Long.toString(ctx.replicas.pingSeconds));
        m.put("repl-ping-slave-period", Long.toString(ctx.replicas.pingSeconds));
        m.put("hash-max-listpack-entries", Long.toString(ctx.hashMaxListpackEntries));
        m.put("hash-max-ziplist-entries", Long.toString(ctx.hashMaxListpackEntries));
        m.put("set-max-intset-entries", Long.toString(ctx.setMaxIntsetEntries));
        m.put("zset-max-listpack-entries", Long.toString(ctx.zsetMaxListpackEntries));
        m.put("zset-max-ziplist-entries", Long.toString(ctx.zsetMaxListpackEntries));
        ctx.encodings.putAll(m);
        m.put("busy-reply-threshold", Long.toString(ctx.busyReplyMillis));
        m.put("lua-time-limit", Long.toString(ctx.busyReplyMillis));
        m.put("stream-node-max-entries", Long.toString(ctx.streamNodeMaxEntries));
        m.put("stream-node-max-bytes", Long.toString(ctx.streamNodeMaxBytes));
        TlsConfigValues.putAll(m, ctx.tls, ctx.tlsPort);
        UnixSocket unix = ctx.unixSocket;
        m.put("unixsocket", unix == null ? "" : unix.path().toString());
        m.put("unixsocketperm", unix == null ? "0" : Integer.toOctalString(unix.perm()));
        FixedConfig.putAbsent(m);
        return m;
    }

    /** Settings CONFIG GET answers that no file changes here: they are left as a file has them. */
    private static final Set<String> NOT_REWRITTEN = Set.of("dir", "client-output-buffer-limit", "acllog-max-len",
            "acl-pubsub-default", "replica-read-only", "tls-client-cert-file", "tls-client-key-file",
            "tls-client-key-file-pass", "tls-dh-params-file", "tls-prefer-server-ciphers", "tls-session-caching",
            "tls-session-cache-size", "tls-session-cache-timeout", "tls-replication", "tls-cluster");

    /**
     * @return the settings CONFIG REWRITE writes, by their current names, as CONFIG GET answers them:
     *     Redis's that a file gives this server, and serve's own flags; not those it runs with a fixed
     *     value, nor {@code dir} (the data directory is {@code data})
     */
    private Map<String, String> rewritable() {
        Map<String, String> m = configValues();
        ServerConfig c = ctx.config;
        m.put("http-port", Integer.toString(c.httpPort()));
        m.put("data", c.dataDir().toString());
        m.put("io-threads", Integer.toString(c.ioThreads()));
        m.put("busy-poll", Integer.toString(c.busyPollMicros()));
        m.keySet().removeAll(ConfigRewrite.ALIASES.keySet());
        m.keySet().removeIf(k -> FixedConfig.of(k) != null || NOT_REWRITTEN.contains(k));
        return m;
    }

    /**
     * @return each {@link #rewritable} setting's value when neither a flag nor a file gives one: called
     *     before a config file's settings are taken, so Redis's stand at their defaults; serve's flags
     *     are taken already, so theirs come from {@link ServerConfig#defaults()}
     */
    private Map<String, String> defaultValues() {
        Map<String, String> m = rewritable();
        ServerConfig d = ServerConfig.defaults();
        m.put("bind", d.bind());
        m.put("port", Integer.toString(d.port()));
        m.put("databases", Integer.toString(d.databases()));
        m.put("maxclients", Integer.toString(d.maxClients()));
        m.put("timeout", Integer.toString(d.idleTimeoutSeconds()));
        m.put("proto-max-bulk-len", Long.toString(d.maxBulkBytes()));
        m.put("maxmemory", Long.toString(d.maxMemoryBytes()));
        m.put("maxmemory-policy", d.maxMemoryPolicy());
        m.put("requirepass", "");
        m.put("aclfile", "");
        m.put("http-port", Integer.toString(d.httpPort()));
        m.put("data", d.dataDir().toString());
        m.put("io-threads", Integer.toString(d.ioThreads()));
        m.put("busy-poll", Integer.toString(d.busyPollMicros()));
        Map<String, String> tls = new LinkedHashMap<>();
        TlsConfigValues.putAll(tls, null, 0);
        tls.keySet().retainAll(m.keySet());
        m.putAll(tls);
        return m;
    }

    private void configRewrite(byte[][] a, Reply r) {
        if (a.length != 2) {
            r.error(Errors.arity("config|rewrite"));
            return;
        }
        java.nio.file.Path file = ctx.configFile;
        if (file == null) {
            r.error("ERR The server is running without a config file");
            return;
        }
        try {
            ConfigRewrite.rewrite(file, rewritable(), defaults, ctx.aclFile != null ? null
                    : ctx.acl.all().stream().map(u -> AclDescription.line(u.name, u.rules)).toList());
            r.ok();
        } catch (java.nio.file.AccessDeniedException e) {
            r.error("ERR Rewriting config file: " + e.getFile() + ": permission denied (the server's user must be able to"
                    + " write the file's directory: the new file is made beside it)");
        } catch (IOException | RuntimeException e) {
            r.error("ERR Rewriting config file: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
    }

    private void config(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "GET")) {
            if (a.length < 3) {
                r.error(Errors.arity("config|get"));
                return;
            }
            Map<String, String> hits = new LinkedHashMap<>();
            configValues().forEach((k, v) -> {
                for (int i = 2; i < a.length; i++) {
                    if (Glob.matches(Args.bytes(Args.lower(a[i])), Args.bytes(k))) {
                        hits.put(k, v);
                    }
                }
            });
            // Redis's testing settings: answered when named, never for a pattern, as Redis hides them
            Map<String, String> hidden = Map.of("rdb-key-save-delay", Long.toString(ctx.replicas.keySaveDelayMicros),
                    "key-load-delay", Long.toString(ctx.replica.keyLoadDelayMicros));
            for (int i = 2; i < a.length; i++) {
                String name = Args.lower(a[i]);
                if (hidden.containsKey(name)) {
                    hits.put(name, hidden.get(name));
                }
            }
            r.map(hits.size());
            hits.forEach((k, v) -> {
                r.bulk(k);
                r.bulk(v);
            });
        } else if (Args.is(sub, "RESETSTAT") && a.length != 2) {
            r.error(Errors.arity("config|resetstat"));
        } else if (Args.is(sub, "RESETSTAT")) {
            table.publish(c);   // this batch's counts before the reset go with it
            ctx.stats.reset();
            ctx.sweeper.resetCpu();
            table.resetCommandStats();
            ctx.evictionsAtReset = ctx.dbs.evictions();
            r.ok();
        } else if (Args.is(sub, "SET")) {
            configSet(a, r);
        } else if (Args.is(sub, "REWRITE")) {
            configRewrite(a, r);
        } else {
            r.error(Errors.unknownSubcommand(sub, "CONFIG"));
        }
    }

    /**
     * Reads CONFIG SET client-output-buffer-limit's value: groups of class, hard and soft bytes, and
     * soft seconds, checked as Redis checks them. The replica class is set (the remedy for a replica
     * dropped at every full sync because the writes held for it pass the limit); the normal class
     * takes only {@code 0 0 0} (a normal client is read from no more while its replies wait) and the
     * pubsub class only Redis's defaults, which are fixed here.
     *
     * @return the replica limit the value leaves (the current one if it names none), or null after writing the error to {@code r}
     */
    private Replicas.Limit outputLimits(String value, Reply r) {
        String failed = "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - ";
        String[] w = value.isBlank() ? new String[0] : value.strip().split("\\s+");
        if (w.length % 4 != 0) {
            r.error(failed + "Wrong number of arguments in buffer limit configuration.");
            return null;
        }
        Replicas.Limit replica = ctx.replicas.replicaLimit;
        for (int i = 0; i < w.length; i += 4) {
            String kind = w[i].toLowerCase(java.util.Locale.ROOT);
            if (!List.of("normal", "replica", "slave", "pubsub").contains(kind)) {
                r.error(failed + "Invalid client class specified in buffer limit configuration.");
                return null;
            }
            long hard;
            long soft;
            long seconds;
            try {
                hard = MemorySize.parse(w[i + 1]);
                soft = MemorySize.parse(w[i + 2]);
                seconds = Long.parseLong(w[i + 3]);
            } catch (IllegalArgumentException e) {
                seconds = -1;
                hard = soft = 0;
            }
            if (seconds < 0) {
                r.error(failed + "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
                return null;
            }
            if (kind.equals("normal") && (hard != 0 || soft != 0 || seconds != 0)) {
                r.error(failed + "a normal client has no output limit here (it is read from no more while its replies"
                        + " wait): only normal 0 0 0");
                return null;
            }
            if (kind.equals("pubsub") && (hard != OutputLimit.HARD || soft != OutputLimit.SOFT || seconds != OutputLimit.SOFT_SECONDS)) {
                r.error(failed + "the pubsub class is fixed here at Redis's default, pubsub 32mb 8mb 60");
                return null;
            }
            if (kind.equals("replica") || kind.equals("slave")) {
                replica = new Replicas.Limit(hard, soft, seconds);
            }
        }
        return replica;
    }

    /**
     * CONFIG SET: the slow log's two bounds are set as in Redis (an operator lowers
     * slowlog-log-slower-than to catch a slow command, then puts it back); the rest is refused, as
     * the server takes its settings at start only. maxmemory and maxmemory-policy are set unless
     * the server started under allkeys-lru, whose bound the map files keep (allkeys-lru chosen later
     * is sampled, {@link SampledEviction}); there, setting those two to what they are is an OK (a
     * client may set its cache's policy on connect), and another value is refused with why. notify-keyspace-events turns {@link KeyspaceEvents} on and off;
     * hash-max-listpack-entries (or hash-max-ziplist-entries) sets when a hash is bucketed,
     * set-max-intset-entries when a set is, zset-max-listpack-entries when a sorted set is a tree;
     * the settings that only pick Redis's in-memory encodings are kept for CONFIG GET ({@link EncodingConfig});
     * busy-reply-threshold (lua-time-limit) is when a running script makes others BUSY; save is
     * {@link SavePoints}';
     * latency-tracking and its info percentiles are {@link LatencyTracking}'s, latency-monitor-threshold
     * {@link LatencyMonitor}'s; min-replicas-to-write, min-replicas-max-lag and replica-serve-stale-data
     * {@link ReplicationGuards}'; replica-priority, replica-announced and replica-announce-ip/-port
     * what a replica tells its master and Sentinel ({@link ReplicaState}); tracking-table-max-keys {@link Tracking}'s; lfu-log-factor and
     * lfu-decay-time tune the {@link AccessClock}'s use counts; protected-mode is {@link ProtectedMode}'s; timeout is
     * the idle seconds the {@link EventLoop}s close a connection after, shutdown-timeout how long a
     * stopping master waits for its replicas; requirepass replaces the default user's
     * passwords ({@link AclUsers#requirePass}). A maxmemory that is
     * no size ({@link MemorySize}, Redis's
     * units) gets Redis's error. masterauth and masteruser are the AUTH a replica's link sends at
     * its next connection ({@link MasterLink}). bind moves the TCP listeners ({@link RespServer#rebind}) to
     * the first of its addresses that can be bound ({@link BindAddresses}), and port moves the plain
     * listener ({@link RespServer#movePort}), both before anything else is set, so that an address or a
     * port that cannot be had sets nothing. proto-max-bulk-len takes Redis's bounds, and this server's
     * most ({@link ServerConfig#MAX_BULK}). As in Redis, nothing is set unless every parameter can be.
     */
    private void configSet(byte[][] a, Reply r) {
        // Redis checks the subcommand's arity, then that names and values pair up
        if (a.length < 4) {
            r.error(Errors.arity("config|set"));
            return;
        }
        if (a.length % 2 != 0) {
            r.error(Errors.SYNTAX);
            return;
        }
        // Redis looks every name up, in order, before it reads any value
        Set<String> seen = new HashSet<>();
        for (int i = 2; i < a.length; i += 2) {
            String name = Args.lower(a[i]);
            if (!RedisConfigNames.known(name)) {
                r.error("ERR Unknown option or number of arguments for CONFIG SET - '" + Errors.text(a[i]) + "'");
                return;
            }
            if (RedisConfigNames.immutable(name) || name.equals("dir") || name.equals("dbfilename")) {
                // Set at start only, in Redis too, which answers this whatever the value; errors name the argument as given
                r.error("ERR CONFIG SET failed (possibly related to argument '" + Errors.text(a[i]) + "') - can't set "
                        + (RedisConfigNames.immutable(name) ? "immutable" : "protected") + " config");
                return;
            }
            if (!seen.add(name)) {
                r.error("ERR CONFIG SET failed (possibly related to argument '" + Errors.text(a[i]) + "') - duplicate parameter");
                return;
            }
        }
        boolean same = true;
        String notSettable = null;
        Map<String, Long> slowLogBounds = new LinkedHashMap<>();
        int keyspaceEvents = -1;
        long nodeEntries = -1;
        long nodeBytes = -1;
        long maxMemory = -1;
        String policy = null;
        long hashEntries = -1;
        int latencyOn = -1;
        double[] percentiles = null;
        long setEntries = -1;
        long zsetEntries = -1;
        int lfuLogFactor = -1;
        int lfuDecay = -1;
        int protectedMode = -1;
        Map<String, String> masterLogin = new LinkedHashMap<>();
        long backlogBytes = -1;
        long pingSeconds = -1;
        byte[] requirePass = null;
        long idleTimeout = -1;
        long shutdownTimeout = -1;
        Map<String, Long> encodings = new LinkedHashMap<>();
        long busyMillis = -1;
        int port = -1;
        List<BindAddresses.Candidate> bind = null;
        String bindLine = null;
        long maxBulk = -1;
        // settings applied only once every parameter is known good, as Redis sets all or none
        List<Runnable> apply = new ArrayList<>();
        Map<String, String> current = configValues();
        for (int i = 2; i + 1 < a.length; i += 2) {
            String name = Args.lower(a[i]);
            String value = Errors.text(a[i + 1]);
            FixedConfig.Fixed fixed = FixedConfig.of(name);
            if (fixed != null) {
                String malformed = name.equals("maxmemory-clients") ? memoryOrPercentError(value) : null;
                if (malformed != null) {
                    // a value Redis could not read is refused as Redis refuses it, before the setting's own refusal
                    r.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + malformed);
                    return;
                }
                if (!fixed.accepts(value) && !(name.equals("maxmemory-clients") && value.equals("0%"))) {
                    r.error(FixedConfig.refusal(name, value, fixed));
                    return;
                }
                continue;
            }
            if (name.equals("port") && movablePort(value) > 0) {
                port = movablePort(value);
                continue;
            }
            if (name.equals("bind")) {
                try {
                    bind = BindAddresses.candidates(value);
                } catch (IllegalArgumentException e) {
                    r.error("ERR CONFIG SET failed (possibly related to argument 'bind') - " + e.getMessage());
                    return;
                }
                if (bind.isEmpty()) {
                    // Redis closes its TCP listeners; a server here keeps one, or could be reached by no one
                    r.error("ERR CONFIG SET failed (possibly related to argument 'bind') - give an address to listen on"
                            + " (this server always listens on one)");
                    return;
                }
                bindLine = String.join(" ", value.strip().split("\\s+"));
                continue;
            }
            if (name.equals("proto-max-bulk-len")) {
                maxBulk = bytesOrMinusOne(value);
                String bad = maxBulk < 0 ? "argument must be a memory value"
                        : maxBulk < MIN_BULK_SET ? "argument must be between " + MIN_BULK_SET + " and " + Long.MAX_VALUE
                                + " inclusive"
                        : maxBulk > ServerConfig.MAX_BULK ? "argument must be between " + MIN_BULK_SET + " and "
                                + ServerConfig.MAX_BULK + " inclusive here: the map holds no longer value"
                        : null;
                if (bad != null) {
                    r.error("ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - " + bad);
                    return;
                }
                continue;
            }
            if (name.equals("slowlog-log-slower-than") || name.equals("slowlog-max-len")) {
                OptionalLong bound = integer(name, a[i + 1], name.equals("slowlog-max-len") ? 0 : -1, Long.MAX_VALUE, r);
                if (bound.isEmpty()) {
                    return;
                }
                slowLogBounds.put(name, bound.getAsLong());
                continue;
            }
            if (name.equals("stream-node-max-entries") || name.equals("hash-max-listpack-entries")
                    || name.equals("hash-max-ziplist-entries") || name.equals("set-max-intset-entries")
                    || name.equals("zset-max-listpack-entries") || name.equals("zset-max-ziplist-entries")) {
                OptionalLong v = integer(name, a[i + 1], 0, Long.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                if (name.startsWith("set")) {
                    setEntries = v.getAsLong();
                } else if (name.startsWith("zset")) {
                    zsetEntries = v.getAsLong();
                } else if (name.startsWith("hash")) {
                    hashEntries = v.getAsLong();
                } else {
                    nodeEntries = v.getAsLong();
                }
                continue;
            }
            if (EncodingConfig.holds(name)) {
                long v;
                if (EncodingConfig.isSize(name)) {
                    v = bytesOrMinusOne(value);
                    if (v < 0) {
                        r.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - argument must be"
                                + " a memory value");
                        return;
                    }
                } else {
                    OptionalLong parsed = integer(name, a[i + 1], EncodingConfig.min(name), EncodingConfig.max(name), r);
                    if (parsed.isEmpty()) {
                        return;
                    }
                    v = parsed.getAsLong();
                }
                encodings.put(name, v);
                continue;
            }
            if (name.equals("stream-node-max-bytes")) {
                nodeBytes = bytesOrMinusOne(value);
                if (nodeBytes < 0) {
                    r.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - argument must be a"
                            + " memory value");
                    return;
                }
                continue;
            }
            if (name.equals("busy-reply-threshold") || name.equals("lua-time-limit")) {
                OptionalLong v = integer(name, a[i + 1], 0, Long.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                busyMillis = v.getAsLong();
                continue;
            }
            if (name.equals("min-replicas-to-write") || name.equals("min-slaves-to-write")
                    || name.equals("min-replicas-max-lag") || name.equals("min-slaves-max-lag")) {
                OptionalLong v = integer(name, a[i + 1], 0, Integer.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                int n = (int) v.getAsLong();
                apply.add(name.endsWith("to-write") ? () -> ctx.guards.minReplicas = n : () -> ctx.guards.maxLagSeconds = n);
                continue;
            }
            if (name.equals("save")) {
                long[] points = SavePoints.parse(value);
                if (points == null) {
                    r.error("ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
                    return;
                }
                apply.add(() -> ctx.savePoints.set(points, table::changesRun));
                continue;
            }
            if (name.equals("tracking-table-max-keys")) {
                OptionalLong v = integer(name, a[i + 1], 0, Long.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                int n = (int) Math.min(v.getAsLong(), Integer.MAX_VALUE); // a table of 2^31 keys is no bound either
                apply.add(() -> ctx.tracking.maxKeys(n));
                continue;
            }
            if (name.equals("replica-serve-stale-data") || name.equals("slave-serve-stale-data")) {
                Boolean yes = yesNo(name, value, r);
                if (yes == null) {
                    return;
                }
                apply.add(() -> ctx.guards.serveStale = yes);
                continue;
            }
            if (name.equals("replica-priority") || name.equals("slave-priority")
                    || name.equals("replica-announce-port") || name.equals("slave-announce-port")) {
                boolean priority = name.endsWith("priority");
                OptionalLong v = integer(name, a[i + 1], 0, priority ? Integer.MAX_VALUE : 65535, r);
                if (v.isEmpty()) {
                    return;
                }
                int n = (int) v.getAsLong();
                apply.add(priority ? () -> ctx.replica.priority = n : () -> ctx.replica.announcePort = n);
                continue;
            }
            if (name.equals("replica-announced")) {
                Boolean yes = yesNo(name, value, r);
                if (yes == null) {
                    return;
                }
                apply.add(() -> ctx.replica.announced = yes);
                continue;
            }
            if (name.equals("replica-announce-ip") || name.equals("slave-announce-ip")) {
                apply.add(() -> ctx.replica.announceIp = value);
                continue;
            }
            if (name.equals("lfu-log-factor") || name.equals("lfu-decay-time")) {
                OptionalLong v = integer(name, a[i + 1], 0, Integer.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                if (name.equals("lfu-log-factor")) {
                    lfuLogFactor = (int) v.getAsLong();
                } else {
                    lfuDecay = (int) v.getAsLong();
                }
                continue;
            }
            if (name.equals("repl-backlog-size")) {
                backlogBytes = bytesOrMinusOne(value);
                if (backlogBytes < 1) {
                    r.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + (backlogBytes < 0
                            ? "argument must be a memory value" : "argument must be between 1 and " + Long.MAX_VALUE
                            + " inclusive"));
                    return;
                }
                continue;
            }
            if (name.equals("maxclients")) {
                // Redis's bounds; a server here holds no more than an int's worth of connections
                OptionalLong v = integer(name, a[i + 1], 1, 4_294_967_295L, r);
                if (v.isEmpty()) {
                    return;
                }
                apply.add(() -> ctx.maxClients = (int) Math.min(v.getAsLong(), Integer.MAX_VALUE));
                continue;
            }
            if (name.equals("client-output-buffer-limit")) {
                Replicas.Limit replica = outputLimits(value, r);
                if (replica == null) {
                    return;
                }
                apply.add(() -> ctx.replicas.replicaLimit = replica);
                continue;
            }
            if (name.equals("timeout") || name.equals("shutdown-timeout")) {
                OptionalLong v = integer(name, a[i + 1], 0, Integer.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                if (name.equals("timeout")) {
                    idleTimeout = v.getAsLong();
                } else {
                    shutdownTimeout = v.getAsLong();
                }
                continue;
            }
            if (name.equals("rdb-key-save-delay") || name.equals("key-load-delay")) {
                OptionalLong v = integer(name, a[i + 1], 0, Integer.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                apply.add(name.equals("key-load-delay") ? () -> ctx.replica.keyLoadDelayMicros = v.getAsLong()
                        : () -> ctx.replicas.keySaveDelayMicros = v.getAsLong());
                continue;
            }
            if (name.equals("repl-ping-replica-period") || name.equals("repl-ping-slave-period")) {
                OptionalLong v = integer(name, a[i + 1], 1, Integer.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                pingSeconds = v.getAsLong();
                continue;
            }
            if (name.equals("latency-tracking") || name.equals("protected-mode")) {
                Boolean yes = yesNo(name, value, r);
                if (yes == null) {
                    return;
                }
                if (name.equals("latency-tracking")) {
                    latencyOn = yes ? 1 : 0;
                } else {
                    protectedMode = yes ? 1 : 0;
                }
                continue;
            }
            if (name.equals("latency-tracking-info-percentiles")) {
                try {
                    percentiles = LatencyTracking.parsePercentiles(value);
                } catch (IllegalArgumentException e) {
                    r.error("ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - "
                            + e.getMessage());
                    return;
                }
                continue;
            }
            if (name.equals("latency-monitor-threshold")) {
                OptionalLong v = integer(name, a[i + 1], 0, Long.MAX_VALUE, r);
                if (v.isEmpty()) {
                    return;
                }
                long millis = v.getAsLong();
                apply.add(() -> ctx.latencyMonitor.threshold(millis));
                continue;
            }
            if (name.equals("notify-keyspace-events")) {
                int flags = KeyspaceEvents.parse(value);
                if (flags < 0) {
                    r.error("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid"
                            + " event class character. Use '" + KEYSPACE_EVENT_CLASSES + "'.");
                    return;
                }
                if ((flags & KeyspaceEvents.KEY_MISS) != 0) {
                    r.error("ERR CONFIG SET notify-keyspace-events: this server does not publish key-miss (m)"
                            + " events, which would cost every read a lookup; leave them out");
                    return;
                }
                keyspaceEvents = flags;
                continue;
            }
            if (name.equals("requirepass")) {
                requirePass = a[i + 1];
                continue;
            }
            if (name.equals("masterauth") || name.equals("masteruser")) {
                masterLogin.put(name, value); // the link's next AUTH, at its next connection, as in Redis
                continue;
            }
            if (name.equals("maxmemory") && bytesOrMinusOne(value) < 0) {
                r.error("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a"
                        + " memory value");
                return;
            }
            if (name.equals("maxmemory-policy") && !ServerConfig.REDIS_POLICIES.contains(value.toLowerCase(Locale.ROOT))) {
                r.error("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be"
                        + " one of the following: " + String.join(", ", ServerConfig.REDIS_POLICIES));
                return;
            }
            String lower = value.toLowerCase(Locale.ROOT);
            boolean sampled = SampledEviction.POLICIES.contains(lower) || lower.equals(ServerConfig.NOEVICTION);
            if (!ctx.dbs.evicts() && (name.equals("maxmemory") || sampled)) {
                // the bound and these policies are the server's alone: the map files keep neither
                if (name.equals("maxmemory")) {
                    maxMemory = bytesOrMinusOne(value);
                } else {
                    policy = lower;
                }
                continue;
            }
            if (name.equals("maxmemory") || name.equals("maxmemory-policy")) {
                boolean unchanged = name.equals("maxmemory")
                        ? bytesOrMinusOne(value) == ctx.dbs.maxMemory()
                        : lower.equals(ctx.dbs.policy());
                if (!unchanged) {
                    // only a server started under allkeys-lru comes here: the others take every policy
                    r.error("ERR CONFIG SET " + name + " " + value + " is not supported by this server: allkeys-lru's"
                            + " bound (" + ctx.dbs.maxMemory() + " bytes) is kept in the map files, with the policy; to"
                            + " change them, stop the server and 'colossal copy' the maps into a new data directory with"
                            + " --max-bytes (0 for none), and serve that");
                    return;
                }
            } else if (!value.equalsIgnoreCase(current.get(name))) {
                // set to what it is (a fixture's save "" or appendonly no) it is a no-op, as in Redis
                if (same) {
                    notSettable = name;
                }
                same = false;
            }
        }
        String boundBefore = ctx.bind;
        if (same && bind != null && !rebind(bind)) {
            r.error("ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.");
            return;
        }
        if (same && port > 0 && port != ctx.respPort) {
            // the one setting whose apply can fail: moved first, so that a failure sets nothing, as
            // Redis puts back what it had set when the port's apply fails
            ServerContext.PortMove move = ctx.portMove;
            try {
                if (move == null) {
                    throw new java.io.IOException("no plain port to move");
                }
                move.to(port);
            } catch (java.io.IOException e) {
                if (!ctx.bind.equals(boundBefore)) {
                    rebind(List.of(new BindAddresses.Candidate(boundBefore, false))); // all or none: the address back
                }
                r.error("ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.");
                return;
            }
        }
        if (same) {
            if (bindLine != null) {
                ctx.bindLine = bindLine;
            }
            if (maxBulk > 0) {
                ctx.maxBulkBytes(maxBulk);
            }
            slowLogBounds.forEach((name, bound) -> {
                if (name.equals("slowlog-max-len")) {
                    ctx.slowLog.maxLen(bound);
                } else {
                    ctx.slowLog.slowerThanMicros(bound);
                }
            });
            encodings.forEach(ctx.encodings::set);
            apply.forEach(Runnable::run);
            if (busyMillis >= 0) {
                ctx.busyReplyMillis = busyMillis;
            }
            if (keyspaceEvents >= 0) {
                ctx.events.setFlags(keyspaceEvents);
            }
            if (nodeEntries >= 0) {
                ctx.streamNodeMaxEntries = nodeEntries;
            }
            if (nodeBytes >= 0) {
                ctx.streamNodeMaxBytes = nodeBytes;
            }
            if (maxMemory >= 0) {
                ctx.dbs.setMaxMemory(maxMemory);
            }
            if (policy != null) {
                ctx.dbs.usePolicy(policy, ctx.access);
            }
            if (hashEntries >= 0) {
                ctx.hashMaxListpackEntries = hashEntries;
            }
            if (latencyOn >= 0) {
                ctx.latency.on = latencyOn == 1;
            }
            if (percentiles != null) {
                ctx.latency.percentiles = percentiles;
            }
            if (setEntries >= 0) {
                ctx.setMaxIntsetEntries = setEntries;
            }
            if (zsetEntries >= 0) {
                ctx.zsetMaxListpackEntries = zsetEntries;
            }
            if (lfuLogFactor >= 0) {
                ctx.access.lfuLogFactor = lfuLogFactor;
            }
            if (lfuDecay >= 0) {
                ctx.access.lfuDecayMinutes = lfuDecay;
            }
            if (protectedMode >= 0) {
                ctx.protectedMode = protectedMode == 1;
            }
            masterLogin.forEach((name, value) -> {
                String v = value.isEmpty() ? null : value; // Redis's "" is none
                if (name.equals("masterauth")) {
                    ctx.replica.masterAuth = v;
                } else {
                    ctx.replica.masterUser = v;
                }
            });
            if (backlogBytes > 0) {
                // a ring in the heap: bounded by an int, as a backlog bigger than 2 GB would not serve
                ctx.replicas.backlogSize((int) Math.min(backlogBytes, Integer.MAX_VALUE - 8));
            }
            if (pingSeconds > 0) {
                ctx.replicas.pingSeconds = pingSeconds;
            }
            if (idleTimeout >= 0) {
                ctx.idleTimeoutSeconds = (int) idleTimeout;
            }
            if (shutdownTimeout >= 0) {
                ctx.shutdownTimeoutSeconds = (int) shutdownTimeout;
            }
            if (requirePass != null) {
                requirePass(requirePass);
            }
            r.ok();
        } else if (port > 0 && port != ctx.respPort && !canListenOn(port)) {
            // Redis would get as far as applying the port, and fail there: its reason comes first
            r.error("ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.");
        } else {
            r.error("ERR " + ServerConfig.notSettable(notSettable));
        }
    }

    /**
     * Moves the TCP listeners to the first of {@code addresses} that can be bound (CONFIG SET bind):
     * an optional one ({@code -addr}) that cannot is passed over, as Redis passes it over; another
     * one that cannot ends the try.
     *
     * @return whether the listeners are on one of them now; if not, they are where they were
     */
    private boolean rebind(List<BindAddresses.Candidate> addresses) {
        ServerContext.Rebind move = ctx.rebind;
        for (BindAddresses.Candidate c : addresses) {
            if (c.address().equals(ctx.bind)) {
                return true;
            }
            try {
                if (move == null) {
                    throw new java.io.IOException("no TCP listener to move");
                }
                move.to(c.address());
                return true;
            } catch (java.io.IOException e) {
                if (!c.optional()) {
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code port} could be listened on now (a probe, closed at once): a call that also holds
     * a setting refused here still learns that its port is busy, the reason Redis would give.
     */
    private boolean canListenOn(int port) {
        try (java.nio.channels.ServerSocketChannel probe = java.nio.channels.ServerSocketChannel.open()) {
            probe.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, true);
            probe.bind(new java.net.InetSocketAddress(ctx.bind, port));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /**
     * @return the port CONFIG SET port names, when this server can move to it (1 to 65535); else -1
     *     (0, which closes Redis's TCP port, and a value Redis refuses stay refused as start-only)
     */
    private static int movablePort(String value) {
        try {
            int port = Integer.parseInt(value);
            return port > 0 && port <= 65535 ? port : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * CONFIG SET requirepass, as Redis does it: the default user's passwords are reset to this one,
     * or to nopass for an empty one; connections already authenticated stay so.
     */
    private void requirePass(byte[] password) {
        byte[] op = password.length == 0 ? Args.bytes("nopass") : new byte[password.length + 1];
        if (password.length > 0) {
            op[0] = '>';
            System.arraycopy(password, 0, op, 1, password.length);
        }
        ctx.acl.setUser(AclUsers.DEFAULT, new byte[][] {Args.bytes("resetpass"), op}, 0, null, ctx);
        ctx.requirePass = password.length == 0 ? null : new String(password, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** @return CONFIG SET's yes or no, in either case; null (and Redis's error given) for anything else */
    private static Boolean yesNo(String name, String value, Reply r) {
        if (value.equalsIgnoreCase("yes") || value.equalsIgnoreCase("no")) {
            return value.equalsIgnoreCase("yes");
        }
        r.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - argument must be 'yes' or 'no'");
        return null;
    }

    /**
     * @return CONFIG SET's integer {@code value} for parameter {@code name}, or empty once Redis's
     *     error for a value that is no integer, or is outside {@code min..max}, is answered
     */
    private static OptionalLong integer(String name, byte[] value, long min, long max, Reply r) {
        OptionalLong v = Args.toLong(value);
        if (v.isEmpty() || v.getAsLong() < min || v.getAsLong() > max) {
            r.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + (v.isEmpty()
                    ? "argument couldn't be parsed into an integer"
                    : "argument must be between " + min + " and " + max + " inclusive"));
            return OptionalLong.empty();
        }
        return v;
    }

    /** The event classes Redis 7.0 takes in notify-keyspace-events, in the order its error lists them. */
    private static final String KEYSPACE_EVENT_CLASSES = "Ag$lshzxeKEtmdn";

    /**
     * @return Redis's words for a memory-or-percent value it cannot read ({@code maxmemory-clients}):
     *     a size, or a whole percentage up to 100; null if it can
     */
    private static String memoryOrPercentError(String value) {
        if (value.endsWith("%")) {
            String digits = value.substring(0, value.length() - 1);
            if (!digits.matches("[0-9]+")) {
                return "argument must be a memory or percent value";
            }
            return digits.length() > 3 || Integer.parseInt(digits) > 100 ? "percentage argument must be less or equal to 100"
                    : null;
        }
        return bytesOrMinusOne(value) < 0 ? "argument must be a memory or percent value" : null;
    }

    /** Redis's least proto-max-bulk-len by CONFIG SET (a start here takes down to {@link ServerConfig#MIN_BULK}). */
    private static final long MIN_BULK_SET = 1L << 20;

    private static long bytesOrMinusOne(String size) {
        try {
            return MemorySize.parse(size);
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    private void time(Client c, byte[][] a, Reply r) {
        // One clock for both parts: the wall clock's microseconds (a monotonic clock's digits
        // glued under its milliseconds would make TIME go back within a millisecond)
        java.time.Instant now = java.time.Instant.now();
        r.array(2);
        r.bulk(Long.toString(now.getEpochSecond()));
        r.bulk(Long.toString(now.getNano() / 1000));
    }

    /** Appends {@code name:value} unless the value could not be measured (-1). */
    private static void field(StringBuilder sb, String name, long value) {
        if (value >= 0) {
            sb.append("\r\n").append(name).append(':').append(value);
        }
    }

    /**
     * INFO's text: Redis section names and field names, our values. As in Redis 7, every argument
     * names a section (go-redis's {@code InfoMap(ctx, "server", "memory")} sends two), in any case,
     * each given once and in Redis's order; a name it does not know adds nothing. A blank line
     * separates sections and the last ends with its last field, as Redis writes them.
     */
    String info(byte[][] a) {
        Set<String> wanted = new HashSet<>();
        for (int i = 1; i < a.length; i++) {
            wanted.add(Args.lower(a[i]));
        }
        boolean all = a.length == 1 || wanted.contains("all") || wanted.contains("everything") || wanted.contains("default");
        // Not in the default sections, as in Redis: only INFO all, everything or commandstats.
        boolean commandStats = wanted.contains("all") || wanted.contains("everything") || wanted.contains("commandstats");
        Stats s = ctx.stats;
        long uptime = (ctx.now() - ctx.startMillis) / 1000;
        StringBuilder sb = new StringBuilder(8192); // INFO's default sections are ~5 KB: no growing copies
        if (all || wanted.contains("server")) {
            // Redis's fields in Redis's order, but its build's (git sha, build id, compiler, atomics),
            // which describe no build of ours; hz is the expiry sweeper's least gap, 100 ms.
            sb.append("# Server\r\nredis_version:").append(ServerContext.REDIS_VERSION)
                    .append("\r\ncolossal_version:").append(ServerContext.COLOSSAL_VERSION)
                    .append("\r\nredis_mode:standalone\r\nos:").append(OS)
                    .append("\r\narch_bits:64\r\nmonotonic_clock:POSIX clock_gettime\r\nmultiplexing_api:")
                    .append(MULTIPLEXING_API)
                    .append("\r\nprocess_id:").append(ProcessHandle.current().pid())
                    .append("\r\nprocess_supervised:no\r\nrun_id:").append(ctx.runId)
                    .append("\r\ntcp_port:").append(ctx.respPort)
                    .append("\r\nserver_time_usec:").append(ctx.now() * 1000)
                    .append("\r\nuptime_in_seconds:").append(uptime)
                    .append("\r\nuptime_in_days:").append(uptime / 86400)
                    .append("\r\nhz:10\r\nconfigured_hz:10\r\nlru_clock:").append(ctx.now() / 1000 & ((1 << 24) - 1))
                    .append("\r\nexecutable:java\r\nconfig_file:\r\nio_threads_active:0\r\n");
        }
        if (all || wanted.contains("clients")) {
            separate(sb);
            // No command blocks and none tracks, but tools read the fields: redis-cli --stat printed
            // -9223372036854775808 blocked clients for a missing one.
            sb.append("# Clients\r\nconnected_clients:").append(s.connectedClients.sum())
                    .append("\r\ncluster_connections:0\r\nmaxclients:").append(ctx.maxClients)
                    // the largest buffers of the clients connected now (Redis's are over the last few seconds)
                    .append("\r\nclient_recent_max_input_buffer:").append(largest(c -> c.inputCapacity))
                    .append("\r\nclient_recent_max_output_buffer:").append(largest(c -> c.reply.capacity))
                    .append("\r\nblocked_clients:").append(ctx.waits.blocked() + ctx.pause.held()).append("\r\ntracking_clients:").append(ctx.tracking.clients())
                    .append("\r\nclients_in_timeout_table:").append(ctx.waits.timed()).append("\r\n");
        }
        if (all || wanted.contains("memory")) {
            separate(sb);
            // used_memory is what maxmemory bounds, as in Redis, so that tools comparing the two
            // (eviction alerts, redis_exporter's ratio) compare like with like: here the map's
            // entry bytes. The JVM's heap is a field of its own.
            long used = ctx.dbs.usedBytes();
            Runtime rt = Runtime.getRuntime();
            sb.append("# Memory\r\nused_memory:").append(used).append("\r\nused_memory_human:");
            InfoNumbers.human(sb, used);
            long[] status = ProcessStats.statusBytes("VmRSS", "RssAnon");
            long rss = status[0];
            field(sb, "used_memory_rss", rss);
            if (rss >= 0) {
                InfoNumbers.human(sb.append("\r\nused_memory_rss_human:"), rss);
            }
            s.usedPeak.accumulate(used);
            long peak = s.usedPeak.get();
            InfoNumbers.human(sb.append("\r\nused_memory_peak:").append(peak).append("\r\nused_memory_peak_human:"), peak);
            InfoNumbers.fixed(sb.append("\r\nused_memory_peak_perc:"), peak == 0 ? 100.0 : used * 100.0 / peak, 2).append('%');
            long system = ProcessStats.systemMemoryBytes();
            field(sb, "total_system_memory", system);
            if (system >= 0) {
                InfoNumbers.human(sb.append("\r\ntotal_system_memory_human:"), system);
            }
            field(sb, "colossal_rss_anon_bytes", status[1]);
            // The cached scripts' bodies: their compiled forms are on the heap, counted below.
            ScriptCommands scripts = table.scripts();
            sb.append("\r\nused_memory_scripts_eval:").append(scripts.cachedBytes())
                    .append("\r\nnumber_of_cached_scripts:").append(scripts.cachedScripts())
                    .append("\r\nnumber_of_functions:").append(ctx.functions.functionCount())
                    .append("\r\nnumber_of_libraries:").append(ctx.functions.all().size())
                    .append("\r\nused_memory_scripts:").append(scripts.cachedBytes())
                    .append("\r\nused_memory_scripts_human:");
            InfoNumbers.human(sb, scripts.cachedBytes());
            sb.append("\r\ncolossal_heap_used_bytes:").append(rt.totalMemory() - rt.freeMemory())
                    .append("\r\ncolossal_heap_max_bytes:").append(rt.maxMemory())
                    .append("\r\nmaxmemory:").append(ctx.dbs.maxMemory())
                    .append("\r\nmaxmemory_human:");
            InfoNumbers.human(sb, ctx.dbs.maxMemory())
                    .append("\r\nmaxmemory_policy:").append(ctx.dbs.policy())
                    // nothing of used_memory is left out of what maxmemory bounds, and nothing is freed in
                    // the background (the map reclaims space as it goes), so nothing waits to be, nor was
                    .append("\r\nmem_not_counted_for_evict:0\r\nlazyfree_pending_objects:0\r\nlazyfreed_objects:0\r\n");
        }
        if (all || wanted.contains("persistence")) {
            separate(sb);
            // colossal_map_file is database 0's; the bytes and counts are of every database's file
            Path file = ctx.config.dataDir().resolve(MapStore.FILE_NAME);
            // Nothing forks and there is no AOF, so their fields are what an idle Redis shows; a save is a
            // sync of the maps (SAVE), and the changes since it count the writes that ran before it.
            sb.append("# Persistence\r\nloading:0\r\nasync_loading:0\r\ncurrent_cow_peak:0\r\ncurrent_cow_size:0")
                    .append("\r\ncurrent_cow_size_age:0\r\ncurrent_fork_perc:0.00\r\ncurrent_save_keys_processed:0")
                    .append("\r\ncurrent_save_keys_total:0\r\nrdb_changes_since_last_save:")
                    .append(Math.max(0, table.changesRun() - ctx.writesAtSave))
                    // an RDB snapshot being built (for a replica, or redis-cli --rdb), as Redis's BGSAVE child
                    .append("\r\nrdb_bgsave_in_progress:").append(ctx.replicas.building() ? 1 : 0)
                    .append("\r\nrdb_last_save_time:").append(ctx.lastSaveSeconds)
                    .append("\r\nrdb_last_bgsave_status:").append(ctx.lastSaveOk ? "ok" : "err")
                    .append("\r\nrdb_last_bgsave_time_sec:").append(ctx.lastSaveTookSeconds)
                    .append("\r\nrdb_current_bgsave_time_sec:-1\r\nrdb_saves:").append(ctx.saves)
                    .append("\r\nrdb_last_cow_size:0")
                    .append("\r\naof_enabled:0\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0")
                    .append("\r\naof_last_rewrite_time_sec:-1\r\naof_current_rewrite_time_sec:-1\r\naof_last_bgrewrite_status:ok")
                    .append("\r\naof_rewrites:0\r\naof_rewrites_consecutive_failures:0\r\naof_last_write_status:ok")
                    .append("\r\naof_last_cow_size:0\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0")
                    .append("\r\ncolossal_map_file:").append(file)
                    .append("\r\ncolossal_map_files:").append(ctx.dbs.openMaps().size())
                    .append("\r\ncolossal_map_file_bytes:").append(ctx.dbs.fileBytes())
                    .append("\r\ncolossal_disk_free_bytes:").append(ctx.dbs.anyOpen().diskFreeBytes())
                    .append("\r\ncolossal_writes_refused_no_room:").append(ctx.dbs.noRoomRefusals())
                    .append("\r\ncolossal_map_repairs:").append(ctx.dbs.repairs())
                    .append("\r\n");
        }
        if (all || wanted.contains("stats")) {
            separate(sb);
            InstantRates.Rates rates = s.rates.rates(System.nanoTime());
            sb.append("# Stats\r\ntotal_connections_received:").append(s.connectionsReceived.sum())
                    .append("\r\ntotal_commands_processed:").append(s.commands.sum())
                    .append("\r\ninstantaneous_ops_per_sec:").append(rates.opsPerSecond())
                    .append("\r\ntotal_net_input_bytes:").append(s.bytesIn.sum())
                    .append("\r\ntotal_net_output_bytes:").append(s.bytesOut.sum())
                    .append("\r\ninstantaneous_input_kbps:");
            InfoNumbers.fixed(sb, rates.inputKbps(), 2).append("\r\ninstantaneous_output_kbps:");
            InfoNumbers.fixed(sb, rates.outputKbps(), 2)
                    .append("\r\nrejected_connections:").append(s.rejectedConnections.sum())
                    .append("\r\nsync_full:").append(s.syncFull.sum())
                    .append("\r\nsync_partial_ok:").append(s.syncPartialOk.sum())
                    .append("\r\nsync_partial_err:").append(s.syncPartialErr.sum())
                    .append("\r\nexpired_keys:").append(s.expiredKeys.sum())
                    .append("\r\nexpire_cycle_cpu_milliseconds:").append(ctx.sweeper.cpuMillis())
                    .append("\r\nevicted_keys:").append(ctx.evictedKeys())
                    .append("\r\nevicted_clients:0")
                    .append("\r\nkeyspace_hits:").append(s.keyspaceHits.sum())
                    .append("\r\nkeyspace_misses:").append(s.keyspaceMisses.sum())
                    .append("\r\npubsub_channels:").append(ctx.pubsub.channelCount())
                    .append("\r\npubsub_patterns:").append(ctx.pubsub.patternCount())
                    .append("\r\npubsubshard_channels:").append(ctx.pubsub.shardChannelCount())
                    .append("\r\nlatest_fork_usec:0\r\ntotal_forks:0")
                    .append("\r\nmigrate_cached_sockets:").append(ctx.migrateSockets.kept())
                    .append("\r\ntracking_total_keys:").append(ctx.tracking.keys())
                    .append("\r\ntracking_total_items:").append(ctx.tracking.items())
                    .append("\r\ntracking_total_prefixes:").append(ctx.tracking.prefixes())
                    .append("\r\ntotal_error_replies:").append(s.errorReplies.sum())
                    .append("\r\ntotal_reads_processed:").append(s.readsProcessed.sum())
                    .append("\r\ntotal_writes_processed:").append(s.writesProcessed.sum())
                    .append("\r\n");
        }
        if (all || wanted.contains("replication")) {
            separate(sb);
            String replica = ctx.replica.infoLines(ctx.now());
            sb.append(replica.isEmpty() ? ctx.replicas.info()
                    : "# Replication\r\n" + replica + ctx.replicas.connectedLines() + ctx.replicas.tail());
        }
        if (all || wanted.contains("cpu")) {
            separate(sb);
            double[] cpu = ProcessStats.cpuSeconds();
            double total = cpu[0] >= 0 ? cpu[0] + cpu[1]
                    : ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
            sb.append("# CPU");
            if (cpu[0] >= 0) {
                InfoNumbers.fixed(sb.append("\r\nused_cpu_sys:"), cpu[1], 6);
                InfoNumbers.fixed(sb.append("\r\nused_cpu_user:"), cpu[0], 6)
                        // No child processes: the map file is the snapshot, nothing forks to write one.
                        .append("\r\nused_cpu_sys_children:0.000000\r\nused_cpu_user_children:0.000000");
            }
            InfoNumbers.fixed(sb.append("\r\nused_cpu_total:"), total, 6).append("\r\n");
        }
        if (all || wanted.contains("modules")) {
            separate(sb);
            // Empty, as a Redis with no module loaded writes it: clients that map INFO by section
            // (go-redis's InfoMap) find the section Redis has
            sb.append("# Modules\r\n");
        }
        if (commandStats) {
            separate(sb);
            sb.append("# Commandstats\r\n").append(table.commandStats());
        }
        if (all || wanted.contains("errorstats")) {
            separate(sb);
            sb.append("# Errorstats\r\n");
            new java.util.TreeMap<>(ctx.stats.errorKinds).forEach((kind, n) ->
                    sb.append("errorstat_").append(kind).append(":count=").append(n.sum()).append("\r\n"));
        }
        if (wanted.contains("all") || wanted.contains("everything") || wanted.contains("latencystats")) {
            separate(sb);
            sb.append("# Latencystats\r\n").append(table.latencyStats());
        }
        if (all || wanted.contains("cluster")) {
            separate(sb);
            // Read by tools that decide whether to speak cluster (redis_exporter looks for cluster_enabled:1)
            sb.append("# Cluster\r\ncluster_enabled:0\r\n");
        }
        if (all || wanted.contains("keyspace")) {
            separate(sb);
            sb.append("# Keyspace\r\n");
            long now = ctx.now();
            for (int db = 0; db < ctx.dbs.count(); db++) {
                MapStore m = ctx.dbs.opened(db);
                long keys = m == null ? 0 : m.size();
                if (keys > 0) {
                    // As of the last sweep of the database; it counts again soon after any write of a TTL.
                    KeyValueStore.Sweep last = m.lastSweep();
                    long expiring = last == null ? 0 : last.expiring();
                    long avgTtl = expiring == 0 ? 0 : Math.max(0, Math.round(last.meanDeadline() - now));
                    sb.append("db").append(db).append(":keys=").append(keys).append(",expires=")
                            .append(Math.min(keys, expiring)).append(",avg_ttl=").append(avgTtl).append("\r\n");
                }
            }
        }
        return sb.toString();
    }

    private long largest(java.util.function.ToLongFunction<Client> buffer) {
        long most = 0;
        for (Client c : ctx.clients.values()) {
            most = Math.max(most, buffer.applyAsLong(c));
        }
        return most;
    }

    /** Redis puts a blank line before every INFO section but the first. */
    private static void separate(StringBuilder sb) {
        if (!sb.isEmpty()) {
            sb.append("\r\n");
        }
    }
}
