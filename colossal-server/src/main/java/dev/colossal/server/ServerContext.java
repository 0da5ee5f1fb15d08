package dev.colossal.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** What every command and front end shares: the databases, the settings, counters and clients. */
final class ServerContext {

    /** The Redis version we answer as: the command set and replies follow Redis 7.0. */
    static final String REDIS_VERSION = "7.0.15";
    static final String COLOSSAL_VERSION = "0.1.0";

    final Databases dbs;
    final ServerConfig config;
    /** See {@link #maxStringBytes()}. */
    private volatile long maxStringBytes;
    /** proto-max-bulk-len: the longest bulk string in a request; CONFIG SET changes it. */
    private volatile long maxBulkBytes;
    final Stats stats = new Stats();
    /** Commands that took long, for SLOWLOG; CONFIG SET changes its bounds. */
    final SlowLog slowLog = new SlowLog();
    final LatencyTracking latency = new LatencyTracking();
    /** latency-monitor-threshold and the LATENCY samples of the events that passed it. */
    final LatencyMonitor latencyMonitor = new LatencyMonitor();
    /** Who listens to which channel; PUBLISH's fan-out. */
    final PubSub pubsub = new PubSub();
    final Monitors monitors = new Monitors();
    /** FUNCTION LOAD's libraries, kept in the data directory. */
    final FunctionLibraries functions;
    /** ACL users, and the file ACL SAVE and LOAD use (null: none, as {@code aclfile} unset). */
    final AclUsers acl;
    volatile java.nio.file.Path aclFile;
    /** notify-keyspace-events: off until CONFIG SET turns classes on. */
    final KeyspaceEvents events;
    /** This server as a replication master: the stream of writes and the replicas. */
    final Replicas replicas;
    final LongSupplier clock;
    final long startMillis;
    /**
     * INFO's {@code run_id}: 40 random hex digits, new at every start, as Redis's. Tools tell a
     * restart by it (redis_exporter labels its instance with it; a restart that kept the uptime low
     * would otherwise go unnoticed between scrapes).
     */
    final String runId = randomId();
    final AtomicLong clientIds = new AtomicLong();
    final ConcurrentHashMap<Long, Client> clients = new ConcurrentHashMap<>();
    final Tracking tracking = new Tracking(clients);
    volatile int respPort;
    /** Moves the plain RESP port (CONFIG SET port): the {@link RespServer}'s, set once it listens; null before, or with TLS only. */
    volatile PortMove portMove;

    /** A move of the plain RESP port ({@link RespServer#movePort}). */
    @FunctionalInterface
    interface PortMove {
        /** @throws java.io.IOException if {@code port} cannot be listened on; the old port still serves */
        void to(int port) throws java.io.IOException;
    }
    /** The address the TCP listeners are bound to: the start's, then CONFIG SET bind's ({@link RespServer#rebind}). */
    volatile String bind;
    /**
     * CONFIG GET bind's answer: the addresses the last CONFIG SET bind gave (the listeners take the
     * first that can be bound), else the start's address.
     */
    volatile String bindLine;
    /** Moves the TCP listeners to another address (CONFIG SET bind): the {@link RespServer}'s, set once it listens. */
    volatile Rebind rebind;

    /** A move of the TCP listeners to another address ({@link RespServer#rebind}). */
    @FunctionalInterface
    interface Rebind {
        /** @throws java.io.IOException if {@code address} cannot be listened on; the old address still serves */
        void to(String address) throws java.io.IOException;
    }
    /** The bound TLS port, 0 for none (CONFIG GET tls-port). */
    volatile int tlsPort;
    /** The TLS settings, or null for none. */
    volatile TlsConfig tls;
    /** The Unix socket RESP is also served on, or null for none (set before the first client). */
    volatile UnixSocket unixSocket;
    /** The file {@code serve --config} read, which CONFIG REWRITE writes back, or null for none (set before the first client). */
    volatile java.nio.file.Path configFile;
    volatile int httpPort = -1;
    /** Connections served at most ({@code maxclients}: the start's, then CONFIG SET's). */
    volatile int maxClients;
    /** Completed with the first failure that a server thread could not go on after. */
    final CompletableFuture<Throwable> failure = new CompletableFuture<>();
    /** Clients blocked on keys (BLPOP, ...), and their waking after writes. */
    final KeyWaits waits = new KeyWaits();
    /** The keys clients WATCH, marked touched by every change. */
    final WatchedKeys watches = new WatchedKeys();
    /** Frees list elements no header holds; started by the server. */
    final ListCollector collector;
    /** protected-mode: whether only loopback clients are served while the default user has no password ({@link ProtectedMode}). */
    volatile boolean protectedMode = true;
    /**
     * The password {@code --requirepass} gave, or CONFIG SET requirepass since (null: none): CONFIG
     * GET, ACL LOAD's default user, protected mode and the HTTP API's bearer read it.
     */
    volatile String requirePass;
    /** timeout: seconds a connection may idle before it is closed, 0 never; the flag's at start, CONFIG SET's since. */
    volatile int idleTimeoutSeconds;
    /** shutdown-timeout: seconds a stopping master waits for its replicas to catch up (Redis's default 10). */
    volatile int shutdownTimeoutSeconds = 10;
    /** enable-debug-command: who may run DEBUG; set at start only, as in Redis. */
    volatile DebugAccess debugAccess = DebugAccess.NO;
    /** hash-max-listpack-entries: fields a hash keeps in one value before it is bucketed ({@link StoredHash}); CONFIG SET changes it. */
    volatile long hashMaxListpackEntries = HashLayout.MAX_LISTPACK_ENTRIES;
    /** set-max-intset-entries: members a set keeps in one value before it is bucketed ({@link StoredSet}); CONFIG SET changes it. */
    volatile long setMaxIntsetEntries = SetLayout.MAX_INTSET_ENTRIES;
    /** zset-max-listpack-entries: members a sorted set keeps in one value before it is a tree ({@link StoredZSet}); CONFIG SET changes it. */
    volatile long zsetMaxListpackEntries = ZSetLayout.MAX_LISTPACK_ENTRIES;
    /** busy-reply-threshold (lua-time-limit): how long a script runs before other scripts and EXEC are answered BUSY. */
    volatile long busyReplyMillis = ScriptCommands.BUSY_MILLIS;
    /** list node sizes and listpack value bounds: answered by CONFIG GET, followed by no layout. */
    final EncodingConfig encodings = new EncodingConfig();
    /** stream-node-max-entries: entries a stream node takes before XADD starts another; CONFIG SET changes it. */
    volatile long streamNodeMaxEntries = StreamLayout.DEFAULT_NODE_MAX_ENTRIES;
    /** stream-node-max-bytes: a stream node's bound in bytes; CONFIG SET changes it. */
    volatile long streamNodeMaxBytes = StreamLayout.DEFAULT_NODE_MAX_BYTES;
    /** Removes expired keys and counts those with a TTL; started by the server. */
    final ExpirySweeper sweeper;
    /** When keys were last used, for OBJECT IDLETIME. */
    final AccessClock access = new AccessClock();
    /** CLIENT PAUSE: the clients it holds, and whether keys may expire now. */
    final ClientPause pause;
    /** SHUTDOWN, SHUTDOWN ABORT and the process's exit: the stop under way. */
    final StopRequests stops;
    /** min-replicas-to-write, min-replicas-max-lag and replica-serve-stale-data, and the refusals they make. */
    final ReplicationGuards guards = new ReplicationGuards();
    /** Whether this server follows a master (REPLICAOF), and its link's state. */
    final ReplicaState replica = new ReplicaState();

    /** @return 40 random hex digits: a run ID, a replication ID */
    static String randomId() {
        byte[] random = new byte[20];
        new java.security.SecureRandom().nextBytes(random);
        return java.util.HexFormat.of().formatHex(random);
    }

    ServerContext(Databases dbs, ServerConfig config, LongSupplier clock) {
        this.dbs = dbs;
        this.replicas = new Replicas(this);
        this.events = new KeyspaceEvents(pubsub, dbs, tracking, replicas, waits, watches);
        waits.replicas = replicas;
        waits.tracking = tracking;
        waits.slowLog = slowLog;
        this.config = config;
        maxBulkBytes(config.maxBulkBytes());
        this.bind = config.listenAddress();
        this.bindLine = String.join(" ", config.bind().strip().split("\\s+"));
        this.maxClients = config.maxClients();
        this.clock = clock;
        this.startMillis = clock.getAsLong();
        this.lastSaveSeconds = startMillis / 1000;
        this.sweeper = new ExpirySweeper(this);
        this.pause = new ClientPause(sweeper::wake);
        this.stops = new StopRequests(pause, waits);
        this.collector = new ListCollector(dbs, waits);
        this.functions = FunctionLibraries.open(config.dataDir());
        this.acl = new AclUsers(config.requirePass());
        this.requirePass = config.requirePass();
        this.idleTimeoutSeconds = config.idleTimeoutSeconds();
    }

    /**
     * When the maps were last forced to the device by SAVE or BGSAVE, in epoch seconds; the start
     * until then, as redis-server counts its load. LASTSAVE answers it, which backup scripts poll
     * after a BGSAVE.
     */
    volatile long lastSaveSeconds;
    /** SAVEs, BGSAVEs and DEBUG RELOADs that forced the maps since start (Redis's rdb_saves). */
    volatile long saves;
    /** Whether the last of them did (Redis's rdb_last_bgsave_status), and its seconds, -1 before the first. */
    volatile boolean lastSaveOk = true;
    volatile long lastSaveTookSeconds = -1;
    /**
     * Writes that ran and changed nothing, which Redis does not count as changes: a SETBIT or
     * BITFIELD SET of bits as they were. {@link CommandTable#changesRun} leaves them out.
     */
    final java.util.concurrent.atomic.LongAdder unchangedWrites = new java.util.concurrent.atomic.LongAdder();
    /** {@link CommandTable#changesRun} when the last save began: rdb_changes_since_last_save counts from it. */
    volatile long writesAtSave;
    /** MIGRATE's connections kept for reuse, which INFO counts ({@code migrate_cached_sockets}). */
    final MigrateSockets migrateSockets = new MigrateSockets();
    /** {@code save}: the changes and seconds after which the server saves on its own. */
    final SavePoints savePoints = new SavePoints(this);

    /**
     * Forces every map to the device, as SAVE, BGSAVE and DEBUG RELOAD do, and notes it for LASTSAVE
     * and INFO persistence. Every acknowledged write is in the map files already; the sync only
     * hastens the kernel's write-back, and the writes counted before it are then on the device.
     */
    synchronized void save(long writesRun) {
        save(writesRun, true);
    }

    /** {@link #save(long)}, counted in {@code rdb_saves} or not (FLUSHALL's save is not, in Redis either). */
    synchronized void save(long writesRun, boolean counted) {
        long start = System.nanoTime();
        try {
            dbs.sync();
        } catch (RuntimeException e) {
            lastSaveOk = false;
            throw e;
        }
        lastSaveOk = true;
        lastSaveTookSeconds = java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        writesAtSave = writesRun;
        if (counted) {
            saves++;
        }
        lastSaveSeconds = now() / 1000;
    }

    /** {@link Databases#evictions()} at the last CONFIG RESETSTAT, which zeroes evicted_keys as in Redis. */
    volatile long evictionsAtReset;

    /** @return the keys evicted since start or the last CONFIG RESETSTAT: INFO's {@code evicted_keys} */
    long evictedKeys() {
        return dbs.evictions() - evictionsAtReset;
    }

    /** @return the database client {@code c} has selected: an array read, nothing more, on every command */
    KeyValueStore db(Client c) {
        return dbs.store(c.db);
    }

    long now() {
        return clock.getAsLong();
    }

    /** @return proto-max-bulk-len */
    long maxBulkBytes() {
        return maxBulkBytes;
    }

    /** @return the longest string SETRANGE and APPEND may make (see {@link #maxBulkBytes(long)}) */
    long maxStringBytes() {
        return maxStringBytes;
    }

    /**
     * Sets proto-max-bulk-len (at start, and by CONFIG SET), and with it the longest string SETRANGE
     * and APPEND may make: the same, as in Redis, or the longest value the map holds with a TTL
     * ({@link StoredValue#MAX_PAYLOAD}) if that is shorter.
     */
    void maxBulkBytes(long bytes) {
        maxStringBytes = Math.min(bytes, StoredValue.MAX_PAYLOAD);
        maxBulkBytes = bytes;
    }

    /**
     * A server thread cannot go on: says so on stderr and stops the server (through
     * {@link #failure}), so that no client waits on a thread that is gone.
     */
    void fail(String thread, Throwable t) {
        if (failure.complete(t)) {
            System.err.println("colossal: " + thread + " failed, stopping the server: " + t);
            t.printStackTrace();
        }
    }
}
