package dev.colossal.server;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * How a server runs. {@link #defaults()} is what {@code colossal serve} uses without flags: RESP on
 * 127.0.0.1:6380, HTTP on 127.0.0.1:8380, data in {@code ./data}, no password.
 *
 * @param bind               the address to listen on (loopback unless told otherwise), or Redis's list
 *                           of them ({@code 127.0.0.1 -::1}), whose first is listened on
 * @param port               the RESP port, 0 for any free port
 * @param httpPort           the HTTP port, 0 for any free port, -1 for no HTTP
 * @param dataDir            where the map files live
 * @param requirePass        the password AUTH must give, or null for none
 * @param maxClients         connections beyond this are refused with Redis's error
 * @param maxBulkBytes       the longest bulk string in a request (proto-max-bulk-len), 1 KiB..1 GiB
 * @param idleTimeoutSeconds close connections idle this long; 0 never
 * @param ioThreads          event-loop threads
 * @param busyPollMicros     how long an event loop that just served requests polls for more before it
 *                           sleeps; 0 sleeps at once
 * @param maxMemoryBytes     the bound on the bytes of the maps' entries (keys, values, their
 *                           headers, collections' elements), 0 for none; under allkeys-lru kept in
 *                           the map files when they are created
 * @param maxMemoryPolicy    {@link #NOEVICTION} (refuse commands that may add data past the bound,
 *                           with Redis's {@code OOM}) or {@link #ALLKEYS_LRU} (evict the least
 *                           recently used keys, approximately, to stay within {@code maxMemoryBytes})
 * @param databases          how many numbered databases SELECT chooses from, 1..{@link #MAX_DATABASES}
 *                           (Redis's {@code databases}); each one used is a map file in {@code dataDir}
 */
public record ServerConfig(String bind, int port, int httpPort, Path dataDir, String requirePass,
                           int maxClients, long maxBulkBytes, int idleTimeoutSeconds, int ioThreads,
                           int busyPollMicros, long maxMemoryBytes, String maxMemoryPolicy, int databases) {

    /** The default RESP port. */
    public static final int DEFAULT_PORT = 6380;
    /** The default HTTP port. */
    public static final int DEFAULT_HTTP_PORT = 8380;
    /** The default {@link #busyPollMicros()}. */
    public static final int DEFAULT_BUSY_POLL_MICROS = 50;
    /** The least {@link #maxBulkBytes()}: 1 KiB. */
    public static final long MIN_BULK = 1024;
    /**
     * The most {@link #maxBulkBytes()}: 1 GiB, the longest value the map holds (a stored string is
     * 9 bytes shorter still, room for its TTL).
     */
    public static final long MAX_BULK = 1L << 30;
    /** Redis's default policy: past {@code --maxmemory}, commands that may add data are refused with {@code OOM}. */
    public static final String NOEVICTION = "noeviction";
    /** The map's byte bound: CLOCK per segment, an approximate LRU over all keys. */
    public static final String ALLKEYS_LRU = "allkeys-lru";
    /**
     * The least {@link #maxMemoryBytes()} but 0 under {@link #ALLKEYS_LRU}: 1 MiB, where redis-server warns. Smaller, the
     * bound would hold a few thousand small keys, and values of a few KiB at most (the bound is
     * kept per segment, and a key and its value must fit in one).
     */
    public static final long MIN_MAX_MEMORY = 1L << 20;
    /** The default {@link #databases()}, as in Redis. */
    public static final int DEFAULT_DATABASES = 16;
    /**
     * The most {@link #databases()}: each database used is a map file and an open mapping, and each
     * one there is, used or not, a few bytes of bookkeeping in every event loop.
     */
    public static final int MAX_DATABASES = 65_536;
    /** The policies served, in the order errors list them: noeviction is the default. */
    static final String POLICIES = "noeviction (the default), allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru,"
            + " volatile-lfu, volatile-random and volatile-ttl";
    /** The words of CONFIG SET's answer for a Redis parameter it cannot set while the server runs. */
    public static final String NOT_SETTABLE = " is not supported by this server";
    /** Parameters a start takes from a flag of serve's (or the config file's line) that CONFIG SET cannot change. */
    private static final java.util.Set<String> START_FLAGS = java.util.Set.of("tls-port",
            "tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file", "tls-ca-cert-dir", "tls-auth-clients",
            "tls-protocols", "tls-ciphers", "tls-ciphersuites");

    /** @return CONFIG SET's answer (without {@code ERR }) for {@code name}, which it cannot set while the server runs */
    public static String notSettable(String name) {
        return "CONFIG SET " + name + NOT_SETTABLE + (START_FLAGS.contains(name)
                ? " while it runs: restart it with --" + name + " (or the config file's line)"
                : name.equals("client-output-buffer-limit")
                ? ": its limits are Redis's defaults, fixed (CONFIG GET shows them)"
                : ": it has no counterpart here");
    }
    /**
     * The words of CONFIG SET's answer for a Redis parameter this server has no setting for, set to
     * another value than the one it runs with: a config file's line of it has no effect here.
     */
    public static final String FIXED = "is not supported by this server (it runs with";
    /** Redis 7.0's eviction policies, in its CONFIG SET error's order. */
    static final List<String> REDIS_POLICIES = List.of("volatile-lru", "volatile-lfu", "volatile-random",
            "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction");

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the bad setting by its flag ({@code --port}; the config
     *     file's name is the same without the dashes) and its value
     */
    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port=" + port + " must be 0..65535");
        }
        if (httpPort < -1 || httpPort > 65535) {
            throw new IllegalArgumentException("--http-port=" + httpPort + " must be -1 (off) or 0..65535");
        }
        if (port == httpPort && port != 0) {
            throw new IllegalArgumentException("--port and --http-port are both " + port
                    + ": give them different ports (--http-port -1 turns HTTP off)");
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("--maxclients=" + maxClients + " must be at least 1");
        }
        if (maxBulkBytes < MIN_BULK || maxBulkBytes > MAX_BULK) {
            throw new IllegalArgumentException("--proto-max-bulk-len=" + maxBulkBytes + " must be 1 KiB..1 GiB (" + MIN_BULK
                    + ".." + MAX_BULK + " bytes): the map holds no longer value");
        }
        if (idleTimeoutSeconds < 0) {
            throw new IllegalArgumentException("--timeout=" + idleTimeoutSeconds
                    + " must be >= 0 (seconds; 0 never closes idle connections)");
        }
        if (busyPollMicros < 0 || busyPollMicros > 1_000_000) {
            throw new IllegalArgumentException("--busy-poll=" + busyPollMicros + " must be 0..1000000 (microseconds)");
        }
        if (ioThreads < 1 || ioThreads > 256) {
            throw new IllegalArgumentException("--io-threads=" + ioThreads + " must be 1..256");
        }
        if (databases < 1 || databases > MAX_DATABASES) {
            throw new IllegalArgumentException("--databases=" + databases + " must be 1.." + MAX_DATABASES);
        }
        if (requirePass != null && requirePass.isEmpty()) {
            requirePass = null;
        }
        maxMemoryPolicy = maxMemoryPolicy == null ? NOEVICTION : maxMemoryPolicy.toLowerCase(Locale.ROOT);
        if (!REDIS_POLICIES.contains(maxMemoryPolicy)) {
            throw new IllegalArgumentException("--maxmemory-policy=" + maxMemoryPolicy + " is not a policy; the supported"
                    + " ones are " + POLICIES);
        }
        if (maxMemoryBytes < 0) {
            throw new IllegalArgumentException("--maxmemory=" + maxMemoryBytes + " must be 0 (no bound) or more");
        }
        if (maxMemoryBytes > 0 && maxMemoryBytes < MIN_MAX_MEMORY && maxMemoryPolicy.equals(ALLKEYS_LRU)) {
            throw new IllegalArgumentException("--maxmemory=" + maxMemoryBytes + " with allkeys-lru must be at least 1mb ("
                    + MIN_MAX_MEMORY + " bytes): each of the map's segments keeps its share of it, and a key and its value"
                    + " must fit in one");
        }
    }

    /**
     * @return the address the listeners are bound to: {@link #bind()}'s first, {@code *} read as
     *     {@code 0.0.0.0} and {@code ::*} as {@code ::}, as Redis reads them
     */
    public String listenAddress() {
        return listenAddress(bind);
    }

    /**
     * @param bind an address, or Redis's list of them
     * @return the address a server given {@code bind} listens on: its first
     */
    public static String listenAddress(String bind) {
        String[] words = bind.strip().split("\\s+", 2);
        return words[0].isEmpty() ? bind : BindAddresses.address(words[0]).address();
    }

    /**
     * The settings of a server without a bound ({@link #NOEVICTION}).
     *
     * @param bind               the address to listen on
     * @param port               the RESP port
     * @param httpPort           the HTTP port, -1 for none
     * @param dataDir            where the map file lives
     * @param requirePass        the password, or null
     * @param maxClients         most connections
     * @param maxBulkBytes       the longest bulk string
     * @param idleTimeoutSeconds idle timeout, 0 never
     * @param ioThreads          event-loop threads
     * @param busyPollMicros     busy-poll time
     */
    public ServerConfig(String bind, int port, int httpPort, Path dataDir, String requirePass, int maxClients,
                        long maxBulkBytes, int idleTimeoutSeconds, int ioThreads, int busyPollMicros) {
        this(bind, port, httpPort, dataDir, requirePass, maxClients, maxBulkBytes, idleTimeoutSeconds, ioThreads,
                busyPollMicros, 0, NOEVICTION);
    }

    /**
     * The settings of a server with {@link #DEFAULT_DATABASES} databases.
     *
     * @param bind               the address to listen on
     * @param port               the RESP port
     * @param httpPort           the HTTP port, -1 for none
     * @param dataDir            where the map files live
     * @param requirePass        the password, or null
     * @param maxClients         most connections
     * @param maxBulkBytes       the longest bulk string
     * @param idleTimeoutSeconds idle timeout, 0 never
     * @param ioThreads          event-loop threads
     * @param busyPollMicros     busy-poll time
     * @param maxMemoryBytes     the bound on entry bytes, 0 for none
     * @param maxMemoryPolicy    {@link #NOEVICTION} or {@link #ALLKEYS_LRU}
     */
    public ServerConfig(String bind, int port, int httpPort, Path dataDir, String requirePass, int maxClients,
                        long maxBulkBytes, int idleTimeoutSeconds, int ioThreads, int busyPollMicros,
                        long maxMemoryBytes, String maxMemoryPolicy) {
        this(bind, port, httpPort, dataDir, requirePass, maxClients, maxBulkBytes, idleTimeoutSeconds, ioThreads,
                busyPollMicros, maxMemoryBytes, maxMemoryPolicy, DEFAULT_DATABASES);
    }

    /**
     * @return the defaults: 127.0.0.1:6380, HTTP 8380, {@code ./data}, 10,000 clients, 512 MiB bulks,
     *     {@link #defaultIoThreads()} event loops
     */
    public static ServerConfig defaults() {
        return new ServerConfig("127.0.0.1", DEFAULT_PORT, DEFAULT_HTTP_PORT, Path.of("data"), null, 10_000,
                512L * 1024 * 1024, 0, defaultIoThreads(), DEFAULT_BUSY_POLL_MICROS);
    }

    /**
     * Half the cores, at least one. The kernel's network stack and the clients need the other half:
     * on 2 cores under redis-benchmark, one loop spent a quarter less system time per request than
     * two, with a third of the context switches, and was as fast or faster in every pipelined case.
     *
     * @return the default number of event-loop threads
     */
    public static int defaultIoThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    /**
     * @param p the RESP port
     * @param h the HTTP port (-1 off)
     * @return a copy listening there
     */
    public ServerConfig withPorts(int p, int h) {
        return new ServerConfig(bind, p, h, dataDir, requirePass, maxClients, maxBulkBytes, idleTimeoutSeconds, ioThreads, busyPollMicros,
                maxMemoryBytes, maxMemoryPolicy, databases);
    }

    /**
     * @param dir the data directory
     * @return a copy with that directory
     */
    public ServerConfig withDataDir(Path dir) {
        return new ServerConfig(bind, port, httpPort, dir, requirePass, maxClients, maxBulkBytes, idleTimeoutSeconds, ioThreads, busyPollMicros,
                maxMemoryBytes, maxMemoryPolicy, databases);
    }

    /**
     * @param pass the password, or null
     * @return a copy requiring it
     */
    public ServerConfig withRequirePass(String pass) {
        return new ServerConfig(bind, port, httpPort, dataDir, pass, maxClients, maxBulkBytes, idleTimeoutSeconds, ioThreads, busyPollMicros,
                maxMemoryBytes, maxMemoryPolicy, databases);
    }

    /**
     * @param clients     max connections
     * @param bulk        max bulk bytes
     * @param idleSeconds idle timeout
     * @return a copy with those limits
     */
    public ServerConfig withLimits(int clients, long bulk, int idleSeconds) {
        return new ServerConfig(bind, port, httpPort, dataDir, requirePass, clients, bulk, idleSeconds, ioThreads, busyPollMicros,
                maxMemoryBytes, maxMemoryPolicy, databases);
    }

    /**
     * @param bytes  the bound on entry bytes, 0 for none
     * @param policy {@link #ALLKEYS_LRU}, or {@link #NOEVICTION} with no bound
     * @return a copy with that bound
     */
    public ServerConfig withMaxMemory(long bytes, String policy) {
        return new ServerConfig(bind, port, httpPort, dataDir, requirePass, maxClients, maxBulkBytes, idleTimeoutSeconds,
                ioThreads, busyPollMicros, bytes, policy, databases);
    }

    /**
     * @param n how many databases, 1..{@link #MAX_DATABASES}
     * @return a copy with that many
     */
    public ServerConfig withDatabases(int n) {
        return new ServerConfig(bind, port, httpPort, dataDir, requirePass, maxClients, maxBulkBytes, idleTimeoutSeconds,
                ioThreads, busyPollMicros, maxMemoryBytes, maxMemoryPolicy, n);
    }
}
