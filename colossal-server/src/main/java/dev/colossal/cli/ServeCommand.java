package dev.colossal.cli;

import dev.colossal.map.MapFormatException;
import dev.colossal.server.ColossalServer;
import dev.colossal.server.DataDirInUseException;
import dev.colossal.server.DatabasesMismatchException;
import dev.colossal.server.ListenException;
import dev.colossal.server.MaxMemoryMismatchException;
import dev.colossal.server.ServerConfig;
import dev.colossal.server.TlsConfig;
import dev.colossal.server.TlsSetupException;
import dev.colossal.server.UnixSocket;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colossal serve}: the persistent map on the network, RESP and HTTP. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve the map over RESP (Redis clients work unmodified) and HTTP.")
public final class ServeCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE",
            description = "Settings file, redis.conf style: 'key value' lines with the flags' names (port 6390), and any"
                    + " redis.conf's settings (those CONFIG SET takes are set, the others said and passed over); flags win")
    Path config;

    @Option(names = "--bind", description = "Address to listen on (default: 127.0.0.1, loopback only); of Redis's list"
            + " (\"127.0.0.1 -::1\"), the first")
    String bind;

    @Option(names = "--port", description = "RESP port (default: " + ServerConfig.DEFAULT_PORT + ")")
    Integer port;

    @Option(names = "--http-port", description = "HTTP port, -1 for none (default: " + ServerConfig.DEFAULT_HTTP_PORT + ")")
    Integer httpPort;

    @Option(names = "--data", description = "Data directory (default: ./data)")
    Path data;

    @Option(names = "--requirepass", description = "Password AUTH must give (default: none)")
    String requirePass;

    @Option(names = "--aclfile", paramLabel = "FILE",
            description = "ACL users, in Redis's ACL file format; loaded at start, ACL SAVE and ACL LOAD use it (default: none)")
    Path aclFile;

    @Option(names = "--maxclients", description = "Most connections at once (default: 10000)")
    Integer maxClients;

    @Option(names = "--proto-max-bulk-len", paramLabel = "SIZE", converter = ByteSize.class,
            description = "Longest bulk string in a request, e.g. 64mb (64m is 64,000,000 bytes, as in redis.conf;"
                    + " default: 512mb)")
    Long maxBulk;

    @Option(names = "--timeout", description = "Close connections idle this many seconds, 0 never (default: 0)")
    Integer idleTimeout;

    @Option(names = "--io-threads", description = "Event-loop threads (default: half the cores, at least 1)")
    Integer ioThreads;

    @Option(names = "--busy-poll", paramLabel = "MICROS",
            description = "After serving requests, an event loop polls this long for more before it sleeps, sparing"
                    + " clients the cost of waking it; 0 sleeps at once (default: "
                    + ServerConfig.DEFAULT_BUSY_POLL_MICROS + ")")
    Integer busyPoll;

    @Option(names = "--maxmemory", paramLabel = "SIZE", converter = ByteSize.class,
            description = "Bound the data (keys, values, their headers, collections' elements) to SIZE bytes, e.g."
                    + " 100mb or 1gb (100m is 100,000,000 bytes, as in redis.conf); past it, writes are refused with OOM"
                    + " or keys evicted, by --maxmemory-policy. Under allkeys-lru kept in the map files: a restart must"
                    + " give the same (default: 0, no bound)")
    Long maxMemory;

    @Option(names = "--maxmemory-policy", paramLabel = "POLICY",
            description = "noeviction: refuse writes past --maxmemory with OOM (default); allkeys-lru: evict by"
                    + " the map's CLOCK; allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, volatile-random,"
                    + " volatile-ttl: evict by sampling,"
                    + " as Redis")
    String maxMemoryPolicy;

    @Option(names = "--protected-mode", paramLabel = "yes|no",
            description = "yes: while no password is set, serve clients on the loopback interface only, as Redis"
                    + " (default: yes; matters with --bind on other addresses)")
    String protectedMode;

    @Option(names = "--enable-debug-command", paramLabel = "no|yes|local",
            description = "Who may run DEBUG, as Redis's setting: no one (no, the default), every client (yes), or"
                    + " clients connected from 127.0.0.1 or ::1 (local); test suites start servers with yes")
    String enableDebugCommand;

    @Option(names = "--databases", paramLabel = "N",
            description = "Numbered databases SELECT chooses from, 0 to N-1; each one written to is a map file in the"
                    + " data directory, dbN.map (default: " + ServerConfig.DEFAULT_DATABASES + ", as in Redis)")
    Integer databases;

    @Option(names = "--tls-port", paramLabel = "PORT",
            description = "Also serve RESP over TLS on this port (0: no TLS, the default); with --port 0, TLS only")
    Integer tlsPort;

    @Option(names = "--tls-cert-file", paramLabel = "FILE", description = "The server's certificate (chain), PEM")
    Path tlsCertFile;

    @Option(names = "--tls-key-file", paramLabel = "FILE",
            description = "Its private key, PEM: PKCS#8, or OpenSSL's RSA/EC PRIVATE KEY forms")
    Path tlsKeyFile;

    @Option(names = "--tls-key-file-pass", paramLabel = "PASSWORD", description = "The key file's password, if encrypted")
    String tlsKeyFilePass;

    @Option(names = "--tls-ca-cert-file", paramLabel = "FILE", description = "CA certificates that sign clients', PEM")
    Path tlsCaCertFile;

    @Option(names = "--tls-ca-cert-dir", paramLabel = "DIR", description = "A directory of such CA PEM files")
    Path tlsCaCertDir;

    @Option(names = "--tls-auth-clients", paramLabel = "yes|no|optional",
            description = "Whether clients must present a certificate the CA signed (default: yes, as in Redis)")
    String tlsAuthClients;

    @Option(names = "--tls-protocols", paramLabel = "LIST", description = "e.g. \"TLSv1.2 TLSv1.3\" (the default)")
    String tlsProtocols;

    @Option(names = "--tls-ciphers", paramLabel = "LIST",
            description = "TLS 1.2 suites, ':'-separated OpenSSL or IANA names (default: the JDK's)")
    String tlsCiphers;

    @Option(names = "--tls-ciphersuites", paramLabel = "LIST",
            description = "TLS 1.3 suites, ':'-separated, e.g. TLS_AES_256_GCM_SHA384 (default: the JDK's)")
    String tlsCiphersuites;

    @Option(names = "--replicaof", arity = "2", paramLabel = "HOST PORT",
            description = "Follow this Redis master: a full sync at start, then its writes (REPLICAOF host port)")
    List<String> replicaOf;

    @Option(names = "--masterauth", paramLabel = "PASSWORD", description = "The password the replica AUTHs with at its master")
    String masterAuth;

    @Option(names = "--masteruser", paramLabel = "USER", description = "The user the replica AUTHs as at its master")
    String masterUser;

    @Option(names = "--unixsocket", paramLabel = "PATH", description = "Also serve RESP on this Unix socket (none by default)")
    Path unixSocket;

    @Option(names = "--unixsocketperm", paramLabel = "MODE", description = "The socket file's mode, octal, e.g. 700"
            + " (default: as the umask leaves it)")
    String unixSocketPerm;

    private ServeConfigFile file;

    /** Creates the command; picocli calls this. */
    public ServeCommand() {}

    /** @return the settings: each flag given, else the config file's value, else the default */
    ServerConfig resolve() throws IOException {
        ServeConfigFile f = configFile();
        ServerConfig d = ServerConfig.defaults();
        return new ServerConfig(
                bind != null ? bind : f.string("bind", d.bind()),
                port != null ? port : f.integer("port", d.port()),
                httpPort != null ? httpPort : f.integer("http-port", d.httpPort()),
                data != null ? data : f.path("data", d.dataDir()),
                requirePass != null ? requirePass : f.string("requirepass", d.requirePass()),
                maxClients != null ? maxClients : f.integer("maxclients", d.maxClients()),
                maxBulk != null ? maxBulk : f.size("proto-max-bulk-len", d.maxBulkBytes()),
                idleTimeout != null ? idleTimeout : f.integer("timeout", d.idleTimeoutSeconds()),
                ioThreads != null ? ioThreads : f.integer("io-threads", d.ioThreads()),
                busyPoll != null ? busyPoll : f.integer("busy-poll", d.busyPollMicros()),
                maxMemory != null ? maxMemory : f.size("maxmemory", d.maxMemoryBytes()),
                maxMemoryPolicy != null ? maxMemoryPolicy : f.string("maxmemory-policy", d.maxMemoryPolicy()),
                databases != null ? databases : f.integer("databases", d.databases()));
    }

    private ServeConfigFile configFile() throws IOException {
        if (file == null) {
            file = config == null ? ServeConfigFile.NONE : ServeConfigFile.read(config);
        }
        return file;
    }

    /**
     * @return the TLS port's settings (flags, else the config file, else Redis's defaults), or null
     *     if tls-port is 0 or not given
     */
    TlsConfig resolveTls() throws IOException {
        ServeConfigFile f = configFile();
        int tls = tlsPort != null ? tlsPort : f.integer("tls-port", 0);
        if (tls == 0) {
            return null;
        }
        // Redis's --port 0 means no plain port; here, without TLS, it keeps meaning any free port
        int plain = port != null ? port : f.integer("port", ServerConfig.DEFAULT_PORT);
        return new TlsConfig(tls,
                tlsCertFile != null ? tlsCertFile : f.path("tls-cert-file", null),
                tlsKeyFile != null ? tlsKeyFile : f.path("tls-key-file", null),
                tlsKeyFilePass != null ? tlsKeyFilePass : f.string("tls-key-file-pass", null),
                tlsCaCertFile != null ? tlsCaCertFile : f.path("tls-ca-cert-file", null),
                tlsCaCertDir != null ? tlsCaCertDir : f.path("tls-ca-cert-dir", null),
                tlsAuthClients != null ? tlsAuthClients : f.string("tls-auth-clients", TlsConfig.AUTH_YES),
                tlsProtocols != null ? tlsProtocols : f.string("tls-protocols", ""),
                tlsCiphers != null ? tlsCiphers : f.string("tls-ciphers", ""),
                tlsCiphersuites != null ? tlsCiphersuites : f.string("tls-ciphersuites", ""),
                plain == 0);
    }

    /** @return the Unix socket (flags, else the config file), or null if none is given */
    UnixSocket resolveUnixSocket() throws IOException {
        ServeConfigFile f = configFile();
        Path path = unixSocket != null ? unixSocket : f.path("unixsocket", null);
        if (path == null || path.toString().isEmpty()) {
            return null;
        }
        String perm = unixSocketPerm != null ? unixSocketPerm : f.string("unixsocketperm", "0");
        return new UnixSocket(path, UnixSocket.parsePerm(perm));
    }

    @Override
    public Integer call() throws Exception {
        ServerConfig settings;
        TlsConfig tls;
        UnixSocket unix;
        Master master;
        try {
            settings = resolve();
            tls = resolveTls();
            unix = resolveUnixSocket();
            master = resolveMaster();
        } catch (IllegalArgumentException e) {
            System.err.println("colossal serve: " + e.getMessage());
            return 2;
        }
        Path data = settings.dataDir();
        if (Files.exists(data) && !Files.isDirectory(data)) {
            return Failures.report("serve", "data directory " + data + " is a file, not a directory: pass --data DIR"
                    + " with a directory (created if absent)");
        }
        ColossalServer server;
        ServeConfigFile f = configFile();
        List<String> startNotes = new ArrayList<>(f.notes());
        try {
            Path acl = aclFile != null ? aclFile : f.path("aclfile", null);
            if (acl != null && !f.users().isEmpty()) {
                // Redis refuses the two together too: which would ACL SAVE write, and which would win?
                throw new IllegalArgumentException(f.users().firstEntry().getKey() + ": user lines and an ACL file ("
                        + acl + ") both define users: keep one, either the user lines (and no aclfile) or the ACL file"
                        + " (move the lines into it, as they are)");
            }
            server = ColossalServer.start(settings, tls, acl, s -> {
                startNotes.addAll(RedisConfSettings.apply(s, config, f.redisSettings()));
                if (!f.users().isEmpty()) {
                    s.users(f.users());
                }
                if (config != null) {
                    s.configFile(config);
                }
                if (unix != null) {
                    s.unixSocket(unix);
                }
                if (protectedMode != null && s.set("protected-mode", protectedMode) != null) {
                    throw new IllegalArgumentException("--protected-mode=" + protectedMode + " must be yes or no");
                }
                if (enableDebugCommand != null && s.set("enable-debug-command", enableDebugCommand) != null) {
                    throw new IllegalArgumentException("--enable-debug-command=" + enableDebugCommand
                            + " must be no, yes or local");
                }
                if ("yes".equals(s.get("protected-mode")) && settings.requirePass() == null && acl == null
                        && f.users().values().stream().noneMatch(u -> u.getFirst().equals("default"))
                        && !isLoopback(settings.listenAddress())) {
                    startNotes.add("protected mode: no password is set, so only clients on the loopback interface are"
                            + " served; set one (--requirepass) or pass --protected-mode no to serve " + settings.listenAddress());
                }
                if (master != null) {
                    // before the first client: none may write to data that must stay the master's
                    s.replicaOf(master.host(), master.port(), master.user(), master.password());
                }
            });
        } catch (IllegalArgumentException e) {
            System.err.println("colossal serve: " + e.getMessage());
            return 2;
        } catch (TlsSetupException | dev.colossal.server.AclFileException e) {
            return Failures.report("serve", e.getMessage());
        } catch (DataDirInUseException | MaxMemoryMismatchException | DatabasesMismatchException e) {
            return Failures.report("serve", e.getMessage());
        } catch (MapFormatException e) {
            Path file = e.file() != null ? e.file() : data;
            // Not "run colossal verify": it opens the file the same way and says the same.
            return Failures.report("serve", file + " " + e.problem() + "; restore it from a copy, move it away to start"
                    + " with an empty map, or if a newer Colossal wrote it, serve it with that one");
        } catch (FileSystemException e) {
            String where = data.toString().equals(e.getFile()) ? "" : " (at " + e.getFile() + ")";
            String owner = ownerOf(e.getFile());
            return Failures.report("serve", "cannot use data directory " + data + ": "
                    + (e.getReason() != null ? e.getReason() : "permission denied") + where
                    + (owner == null ? "; pass --data DIR with a directory you can write"
                            : "; it belongs to " + owner + ": serve as that user, give the files to this one (chown),"
                                    + " or pass --data DIR with a directory you can write"));
        } catch (ListenException e) {
            return Failures.report("serve", e.inUse()
                    ? "port " + e.port() + " is in use (another server?): stop it or pass --" + e.setting() + " N"
                            + (e.setting().equals("http-port") ? " (-1 turns HTTP off)" : "")
                    : e.setting().equals("unixsocket")
                            ? e.getMessage() + "; pass --unixsocket with a path in a directory this user can write"
                            : e.getMessage() + "; pass --bind with an address of this machine, e.g. 127.0.0.1");
        }
        Thread hook = new Thread(() -> {
            int status = stop(server, data);
            System.err.flush();
            System.out.flush();
            Runtime.getRuntime().halt(status);
        }, "colossal-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.err.printf("colossal: serving %s on %s:%s (RESP2/3)%s%s%s; Ctrl-C or SIGTERM stops%n",
                data.toAbsolutePath(), settings.listenAddress(), server.port() > 0 ? server.port() : "-",
                (server.tlsPort() > 0 ? ", TLS on port " + server.tlsPort() : "")
                        + (unix != null ? ", Unix socket " + unix.path() : ""),
                server.httpPort() >= 0 ? " and http://" + settings.listenAddress() + ":" + server.httpPort() : "",
                settings.maxMemoryBytes() > 0 ? ", entries bound to " + ByteSize.format(settings.maxMemoryBytes())
                        + " (" + settings.maxMemoryPolicy() + ")" : "");
        startNotes.forEach(line -> System.err.println("colossal: " + line));
        server.startupReport().forEach(System.err::println);
        // A failed server thread has already said what failed and stopped the server.
        return server.awaitShutdown().isPresent() ? 1 : 0;
    }

    /**
     * Stops the server, from the shutdown hook: on SIGTERM or SIGINT (Ctrl-C), or when the main
     * thread exits after a failure stopped the server. The hook then halts the JVM with the status
     * this returns: after SIGTERM the JVM would exit with 143 (128 + 15) however cleanly the server
     * stopped, and systemd counts that a failure, where redis-server exits 0.
     *
     * @return 0 if the server closed cleanly (connections closed, map synced and closed) and no
     *     failure had stopped it; 1 otherwise
     */
    static int stop(ColossalServer server, Path data) {
        try {
            server.close();
        } catch (Exception | Error e) {
            System.err.println("colossal: error while stopping: " + e);
            e.printStackTrace();
            return 1;
        }
        // The first close's time, also when SHUTDOWN ran it before this hook: under writes most of
        // it is the map's sync, the page cache's unwritten changes going to disk.
        System.err.printf(Locale.ROOT, "colossal: stopped in %.2f s; data synced to %s%n", server.stopTime().toNanos() / 1e9,
                data.toAbsolutePath());
        return server.awaitShutdown().isPresent() ? 1 : 0;
    }

    private static boolean isLoopback(String bind) {
        try {
            return java.net.InetAddress.getByName(bind).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;   // start() has refused it already
        }
    }

    /** The master to follow at start, and how to AUTH there. */
    record Master(String host, int port, String user, String password) {}

    /**
     * @return {@code --replicaof} (else the config file's {@code replicaof host port}) with
     *     masteruser and masterauth, or null if neither gives one
     * @throws IllegalArgumentException if the port is no port
     */
    Master resolveMaster() throws IOException {
        ServeConfigFile f = configFile();
        List<String> hostPort = replicaOf;
        if (hostPort == null) {
            String line = f.string("replicaof", null);
            if (line == null) {
                return null;
            }
            hostPort = List.of(line.trim().split("\\s+"));
            if (hostPort.size() != 2) {
                throw new IllegalArgumentException("replicaof '" + line + "' in the config file must be: replicaof HOST PORT");
            }
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.get(1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--replicaof " + hostPort.get(0) + " " + hostPort.get(1)
                    + ": the port must be 0..65535");
        }
        return new Master(hostPort.get(0), port, masterUser != null ? masterUser : f.string("masteruser", null),
                masterAuth != null ? masterAuth : f.string("masterauth", null));
    }

    /** "user (mode rw-------)" of a file that exists and that another user owns, else null. */
    private static String ownerOf(String file) {
        try {
            Path p = Path.of(file);
            String owner = Files.getOwner(p).getName();
            if (owner.equals(System.getProperty("user.name"))) {
                return null;
            }
            return owner + " (mode " + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)) + ")";
        } catch (IOException | RuntimeException unknown) {
            return null;
        }
    }
}
