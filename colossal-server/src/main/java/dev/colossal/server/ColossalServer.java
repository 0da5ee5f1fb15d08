package dev.colossal.server;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The Colossal server: a persistent map on the network, speaking RESP2/RESP3 (so Redis clients
 * work unmodified) and HTTP. Data lives in map files under {@link ServerConfig#dataDir()}, one per
 * database used ({@code db0.map}, {@code db1.map}, ...); every acknowledged write is in its file, so
 * a restart (even after kill -9) serves the same data.
 *
 * <pre>{@code
 * try (ColossalServer server = ColossalServer.start(ServerConfig.defaults())) {
 *     server.awaitShutdown();
 * }
 * }</pre>
 */
public final class ColossalServer implements AutoCloseable {

    private final ServerContext ctx;
    private final RespServer resp;
    private final HttpApi http;
    private final CommandTable table;
    private final Object closeLock = new Object();
    private boolean closed;
    /** How long the first {@link #close} took; guarded by {@code closeLock}. */
    private long stopNanos;
    private final List<String> startupReport;

    private ColossalServer(ServerContext ctx, RespServer resp, HttpApi http, CommandTable table, List<String> startupReport) {
        this.ctx = ctx;
        this.table = table;
        this.resp = resp;
        this.http = http;
        this.startupReport = startupReport;
    }

    /**
     * @return the lines to log at start about the data: each map file's path, keys, size and the
     *     free disk space; and, after an unclean stop of the last server, what recovery found
     */
    public List<String> startupReport() {
        return startupReport;
    }

    /** CONFIG GET and SET run by the server itself, for settings given at start. */
    private static ServerSettings settings(ServerContext ctx, CommandTable table) {
        return new ServerSettings() {
            @Override
            public void replicaOf(String host, int port, String user, String password) {
                ctx.replica.masterUser = user;
                ctx.replica.masterAuth = password;
                ReplicationCheckpoint from = ctx.dbs.resumable();
                System.err.println("colossal: following " + host + ":" + port + (from == null ? ", with a full sync"
                        : ", resuming from offset " + from.offset() + " of stream " + from.replid() + " if it still can"));
                // started once the port it names to the master is bound
                ReplicaCommands.follow(ctx, table, host, port, from, false);
            }

            @Override
            public void unixSocket(UnixSocket socket) {
                ctx.unixSocket = socket;
            }

            @Override
            public void users(java.util.SequencedMap<String, List<String>> lines) {
                try {
                    ctx.acl.replaceAll(AclFile.fromConfig(lines), ctx);
                } catch (AclFile.BadFile e) {
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
            }

            @Override
            public void configFile(java.nio.file.Path file) {
                ctx.configFile = file;
            }

            @Override
            public String get(String name) {
                List<String> parts = config(table, "GET", name).lines().toList();
                // *2, $n, name, $n, value
                return parts.size() == 5 && parts.get(0).equals("*2") ? parts.get(4) : null;
            }

            @Override
            public String set(String name, String value) {
                if (name.equalsIgnoreCase("enable-debug-command")) {
                    // immutable for clients (CONFIG SET refuses it), so set here, before any connects
                    DebugAccess mode = DebugAccess.parse(value);
                    if (mode == null) {
                        return "CONFIG SET failed (possibly related to argument 'enable-debug-command') - "
                                + DebugAccess.VALUES;
                    }
                    ctx.debugAccess = mode;
                    return null;
                }
                String reply = config(table, "SET", name, value).strip();
                return reply.equals("+OK") ? null : reply.replaceFirst("^-(ERR )?", "");
            }
        };
    }

    /**
     * @return the RESP2 reply to CONFIG run by the server itself: straight to its handler, so no
     *     client's statistics, slow log or monitor sees it
     */
    private static String config(CommandTable table, String... args) {
        Client admin = new Client(0, "config", System.currentTimeMillis(), true);
        admin.reply.open(256);
        try {
            byte[][] argv = new byte[args.length + 1][];
            argv[0] = Args.bytes("CONFIG");
            for (int i = 0; i < args.length; i++) {
                argv[i + 1] = Args.bytes(args[i]);
            }
            table.get("config").handler().run(admin, argv, admin.reply);
            byte[] bytes = admin.reply.segment().asSlice(0, admin.reply.len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            admin.reply.close();
        }
    }

    /** @return what the server's threads share (for tests) */
    ServerContext context() {
        return ctx;
    }

    /**
     * The map files {@code colossal serve --data DIR} keeps in a data directory, one per database
     * with keys: {@code db0.map}, {@code db1.map}, ... by number.
     *
     * @param dataDir a data directory
     * @return its map files in database order
     * @throws IOException if the directory cannot be listed
     */
    public static List<Path> mapFiles(Path dataDir) throws IOException {
        return List.copyOf(DatabaseFiles.list(dataDir).values());
    }

    /**
     * Opens the data directory and starts listening.
     *
     * @param config where to listen, where the data is, limits
     * @return the running server
     * @throws ListenException if a port is in use or the bind address is not this machine's
     * @throws DataDirInUseException if another server has the data directory
     * @throws MaxMemoryMismatchException if a map of the data directory was created with another
     *     {@link ServerConfig#maxMemoryBytes()}
     * @throws DatabasesMismatchException if the data directory holds map files of databases beyond
     *     {@link ServerConfig#databases()}
     * @throws IOException if the data cannot be opened
     */
    public static ColossalServer start(ServerConfig config) throws IOException {
        return start(config, table -> { });
    }

    /**
     * {@link #start(ServerConfig)} with a TLS port too (or instead of the plain one: {@link TlsConfig#tlsOnly()}).
     *
     * @param config where to listen, where the data is, limits
     * @param tls    the TLS port's settings, or null for none
     * @return the running server
     * @throws TlsSetupException if a certificate or key cannot be used, saying why
     * @throws IOException as {@link #start(ServerConfig)} does
     */
    public static ColossalServer start(ServerConfig config, TlsConfig tls) throws IOException {
        return start(config, tls, null);
    }

    /**
     * {@link #start(ServerConfig)} with ACL users from {@code aclFile} (Redis's format), which ACL
     * SAVE and LOAD then use.
     *
     * @param aclFile the ACL file, or null for none
     * @return the running server
     * @throws IOException as {@link #start(ServerConfig)}, or if the file cannot be read or holds a bad line
     */
    public static ColossalServer start(ServerConfig config, java.nio.file.Path aclFile) throws IOException {
        return start(config, null, aclFile);
    }

    /**
     * {@link #start(ServerConfig)} with a TLS port (or none) and ACL users from a file (or none).
     *
     * @param tls     the TLS port's settings, or null for none
     * @param aclFile the ACL file, or null for none
     * @return the running server
     * @throws TlsSetupException if a certificate or key cannot be used, saying why
     * @throws IOException as {@link #start(ServerConfig, java.nio.file.Path)} does
     */
    public static ColossalServer start(ServerConfig config, TlsConfig tls, java.nio.file.Path aclFile) throws IOException {
        return start(config, tls, aclFile, settings -> { });
    }

    /**
     * {@link #start(ServerConfig, TlsConfig, java.nio.file.Path)} with settings of Redis's CONFIG
     * SET too, made by {@code atStart} before the server takes its first connection.
     *
     * @param atStart sets what it will; a RuntimeException it throws stops the start, nothing left open
     * @return the running server
     * @throws IOException as {@link #start(ServerConfig, TlsConfig, java.nio.file.Path)} does
     */
    public static ColossalServer start(ServerConfig config, TlsConfig tls, java.nio.file.Path aclFile,
                                       Consumer<ServerSettings> atStart) throws IOException {
        return start(config, tls == null ? null : TlsSetup.load(tls), table -> { }, aclFile, atStart);
    }

    /** {@link #start(ServerConfig)} with commands of a test's own added to the table. */
    static ColossalServer start(ServerConfig config, Consumer<CommandTable> extraCommands) throws IOException {
        return start(config, null, extraCommands, null, settings -> { });
    }

    private static ColossalServer start(ServerConfig config, TlsSetup tls, Consumer<CommandTable> extraCommands,
                                        java.nio.file.Path aclFile, Consumer<ServerSettings> atStart) throws IOException {
        // read before the data is opened: a bad file stops the start with nothing to undo
        java.util.Map<String, AclRules> users = null;
        if (aclFile != null) {
            try {
                users = AclFile.read(aclFile);
            } catch (AclFile.BadFile e) {
                throw new AclFileException("cannot load ACL file " + e.getMessage(), e);
            } catch (IOException e) {
                throw new AclFileException("cannot read ACL file " + aclFile + " (" + e + "); create it (it may be"
                        + " empty) or pass another --aclfile", e);
            }
        }
        try {
            InetAddress.getByName(config.listenAddress()); // else binding throws UnresolvedAddressException, unchecked
        } catch (UnknownHostException e) {
            throw new ListenException(config.listenAddress(), e);
        }
        Databases dbs;
        try {
            dbs = Databases.open(config.dataDir(), config.databases(), config.maxMemoryBytes(),
                    ServerConfig.ALLKEYS_LRU.equals(config.maxMemoryPolicy()), System::currentTimeMillis);
        } catch (MaxMemoryMismatchException e) {
            if (!e.keptNone() || !ServerConfig.ALLKEYS_LRU.equals(config.maxMemoryPolicy())) {
                throw e;
            }
            // Maps made without a bound: the server keeps this one by sampling, as after CONFIG SET
            // maxmemory-policy allkeys-lru at run time, so a start with what a running server was set
            // to (CONFIG REWRITE writes it) serves as that server did
            dbs = Databases.open(config.dataDir(), config.databases(), config.maxMemoryBytes(), false,
                    System::currentTimeMillis);
            dbs.startupReport().add("colossal: the map files of " + config.dataDir() + " keep no bound, so --maxmemory "
                    + MemorySize.format(config.maxMemoryBytes()) + " under allkeys-lru is kept by sampling keys, as after"
                    + " CONFIG SET at run time (for the maps' own bound, evicting as they write: 'colossal copy "
                    + config.dataDir().resolve("db0.map") + " NEW_DIR/db0.map --max-bytes "
                    + MemorySize.format(config.maxMemoryBytes()) + "', then serve --data NEW_DIR)");
        }
        ServerContext ctx = new ServerContext(dbs, config, System::currentTimeMillis);
        if (!dbs.evicts()) {
            dbs.usePolicy(config.maxMemoryPolicy(), ctx.access);
        }
        ctx.tls = tls == null ? null : tls.config();
        if (users != null) {
            ctx.aclFile = aclFile;
            ctx.acl.replaceAll(users, ctx);
        }
        dbs.watch(ctx.sweeper);
        RespServer resp = null;
        HttpApi http = null;
        CommandTable table;
        try {
            table = new CommandTable(ctx);
            extraCommands.accept(table);
            atStart.accept(settings(ctx, table));
            ReplicationCheckpoint left = dbs.resumable();
            if (left != null && !ctx.replica.following()) {
                ctx.replicas.resumeFrom(left);
            }
            resp = new RespServer(ctx, table, tls);
            try {
                resp.start();
            } catch (ListenException e) {
                throw e;
            } catch (BindException e) {
                throw new ListenException("port", config.listenAddress(), config.port(), e);
            }
            if (config.httpPort() >= 0) {
                try {
                    http = HttpApi.start(ctx, table);
                } catch (BindException e) {
                    throw new ListenException("http-port", config.listenAddress(), config.httpPort(), e);
                }
            }
        } catch (IOException | RuntimeException e) {
            if (resp != null) {
                resp.close();
            }
            dbs.close();
            throw e;
        }
        MasterLink link = ctx.replica.link();
        if (link != null) {
            link.start();
        }
        ctx.sweeper.start();
        ctx.collector.start();
        ColossalServer server = new ColossalServer(ctx, resp, http, table, dbs.startupReport());
        // Not on the failed thread, nor on the event loop that read SHUTDOWN: close() waits for
        // the event loops to end.
        ctx.failure.thenRun(() -> new Thread(() -> server.stopAfter("a failure", ctx.stops.join()), "colossal-stop").start());
        ctx.stops.starter = (stop, client) -> new Thread(() -> {
            System.err.println("colossal: SHUTDOWN from " + client + ": stopping");
            server.stopAfter("SHUTDOWN", stop);
        }, "colossal-stop").start();
        return server;
    }

    private void stopAfter(String why, StopRequests.Stop s) {
        try {
            stop(s);
        } catch (IOException | RuntimeException e) {
            System.err.println("colossal: error while stopping after " + why + ": " + e);
        }
    }

    /**
     * Makes this server a replica of the Redis master at {@code host:port}, as REPLICAOF does
     * ({@code serve --replicaof}): a full sync, then its writes as they come.
     *
     * @param user     the user to AUTH as (masteruser), or null for the default
     * @param password the password (masterauth), or null to send no AUTH
     */
    public void replicaOf(String host, int port, String user, String password) {
        ctx.replica.masterUser = user;
        ctx.replica.masterAuth = password;
        ReplicaCommands.follow(ctx, table, host, port, null, true);
    }

    /** @return the bound RESP port */
    public int port() {
        return ctx.respPort;
    }

    /** @return the bound TLS port, or 0 if there is none */
    public int tlsPort() {
        return ctx.tlsPort;
    }

    /** @return the bound HTTP port, or -1 if HTTP is off */
    public int httpPort() {
        return ctx.httpPort;
    }

    /**
     * Blocks until the server has stopped: {@link #close} has run (from another thread or a
     * shutdown hook), or a server thread failed, which stops the server after saying so on stderr.
     *
     * @return the failure that stopped the server, or empty if it was closed (or this thread was
     *     interrupted)
     */
    public Optional<Throwable> awaitShutdown() {
        synchronized (closeLock) {
            while (!closed) {
                try {
                    closeLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }
        }
        return Optional.ofNullable(ctx.failure.getNow(null));
    }

    /**
     * Stops listening, closes every connection, syncs and closes the maps; a master lets its
     * replicas catch up first. Idempotent. SHUTDOWN ABORT cannot call this stop off (nor one under
     * way when it is called): the process's exit, a failure or the embedding code asked for it.
     *
     * @throws IOException if closing a map file fails
     */
    @Override
    public void close() throws IOException {
        stop(ctx.stops.join());
    }

    /** Stops as {@code s} asks, unless SHUTDOWN ABORT calls it off while a master waits for its replicas. */
    private void stop(StopRequests.Stop s) throws IOException {
        // Held throughout: a second caller (the shutdown hook after a failure) and awaitShutdown
        // return only once the map is synced and closed.
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            long t0 = System.nanoTime();
            if (!awaitReplicas(s)) {
                return;
            }
            try {
                if (http != null) {
                    http.close();
                }
                // no master's command after the clients' last; clients' writes stay refused
                ReplicationCheckpoint left = ctx.replica.halt();
                resp.close();
                ctx.sweeper.close(); // before the maps close under it
                ctx.savePoints.close();
                ctx.collector.close();
                ctx.waits.close();
                if (left == null && ctx.replicas.active()) {
                    // a master whose replicas may resume after its restart, as Redis's keeps its id in its RDB
                    left = new ReplicationCheckpoint(ctx.replicas.replid(), ctx.replicas.offset(), 0);
                }
                ctx.dbs.sync();
                ctx.dbs.leave(left);
                ctx.dbs.close();
            } finally {
                stopNanos = System.nanoTime() - t0;
                closed = true;
                closeLock.notifyAll();
            }
        }
    }

    /**
     * A master stopping lets its replicas catch up first, for {@code shutdown-timeout} seconds at
     * most (SHUTDOWN NOW: not at all), its clients' writes held back meanwhile, as Redis 7.0 does.
     *
     * @return false if SHUTDOWN ABORT called the stop off
     */
    private boolean awaitReplicas(StopRequests.Stop s) {
        int seconds = ctx.shutdownTimeoutSeconds;
        if (s.now || seconds == 0 || ctx.replicas.online() == 0) {
            return ctx.stops.settle(s);
        }
        if (!ctx.stops.hold(s)) {
            return false;
        }
        System.err.println("colossal: writes held; waiting up to " + seconds + " s for " + ctx.replicas.online()
                + " replica(s) to have every write before stopping");
        try {
            int behind = ctx.replicas.awaitCaughtUp(TimeUnit.SECONDS.toMillis(seconds), millis -> ctx.stops.pauseIn(s, millis));
            if (!ctx.stops.settle(s)) {
                return false;
            }
            if (behind > 0) {
                System.err.println("colossal: stopping with " + behind + " replica(s) still behind after shutdown-timeout "
                        + seconds + " s: they sync in full when this server is back");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ctx.stops.settle(s);
        }
        return true;
    }

    /**
     * How long stopping took: the first {@link #close}, whoever ran it (a shutdown hook, SHUTDOWN,
     * a failure). Most of it under writes is the map's sync.
     *
     * @return the time, or {@link Duration#ZERO} if the server has not stopped
     */
    public Duration stopTime() {
        synchronized (closeLock) {
            return Duration.ofNanos(stopNanos);
        }
    }
}
