package dev.colossal.server;

/** The state of one connection as commands see it: identity, protocol, authentication, database. */
final class Client {

    final long id;
    /** Whether it came over the Unix socket: CLIENT LIST's U flag, and its laddr is the socket's. */
    boolean unixSocket;
    final String address;
    final long createdMillis;
    /** Opened and closed by the connection, on its loop's thread. */
    final Reply reply = new Reply();
    String name;
    String libName;
    String libVersion;
    boolean authenticated;
    /** The ACL user this connection runs as (AUTH, HELLO AUTH); null for none checked. Volatile for CLIENT LIST on other loops. */
    volatile AclUser user;
    /** The database SELECT chose, 0 on a new connection and after RESET. */
    int db;
    /** Set by QUIT and protocol errors: close once the pending replies are written. */
    boolean closeAfterReply;
    /** CLIENT LIST's {@code cmd=}: see {@link LastCommand}. */
    String lastCommand = LastCommand.NONE;
    /**
     * The clock ({@link System#nanoTime}) when this client's last command ended, or when the
     * connection read the requests it is running: the slow log times a GET or SET from it.
     */
    long clockNanos;
    /**
     * Whether {@link #clockNanos} is kept by a connection ({@link Connection} sets it as it runs
     * what it read): every command is then timed from it, one clock read a command instead of two.
     * A script's, a master link's or the server's own client keeps none: their commands read the clock.
     */
    boolean clockKept;
    /**
     * Closes this client's connection on its event loop, from any thread (CLIENT KILL); set when
     * the server hands the connection to its loop.
     */
    volatile Runnable killer = () -> { };
    /**
     * Has this client's connection's loop write the messages waiting in its {@link Mailbox}, from any
     * thread; set with {@link #killer}.
     */
    volatile Runnable mailer = () -> { };
    /**
     * Its pub/sub side, made at its first (P|S)SUBSCRIBE on its loop; volatile for CLIENT LIST and
     * CLIENT KILL TYPE on other loops, which read its counts.
     */
    volatile Subscriber subscriber;
    /** CLIENT TRACKING's settings, null when off; replaced whole, read by the loops of writers ({@link Tracking}). */
    volatile Tracking.Mode tracking;
    /** Whether an invalidation found its REDIRECT client gone (TRACKINGINFO's {@code broken_redirect}). */
    volatile boolean trackingRedirBroken;
    /** CLIENT CACHING YES (1) or NO (-1) for the next command, 0 if not given. */
    int caching;
    /** Whether the command running now has its reads remembered for tracking (its mode and CLIENT CACHING said so). */
    boolean readsTracked;
    /**
     * Where a Lua debugging session of this client talks ({@link LuaDebugger}): its connection's
     * socket; null where there is none to block on (TLS, the server's own clients).
     */
    DebugChannel debugChannel;
    /** SCRIPT DEBUG SYNC was given: this client's next EVAL runs in the Lua debugger. */
    boolean luaDebug;
    /**
     * SCRIPT DEBUG YES was refused: this client's next EVAL is refused too, as redis-cli --ldb goes
     * on to send it whatever SCRIPT DEBUG answered, and it must not keep writes asked to be thrown away.
     */
    boolean luaDebugRefused;
    /** For a script's own client, the client that ran the script, and the keys the script declared. */
    Client scriptCaller;
    byte[][] scriptKeys;
    /** Ran MONITOR: sees every command ({@link Monitors}) and may not touch keys; volatile for CLIENT LIST. */
    volatile boolean monitor;
    /**
     * Subscribed to something: Redis's pub/sub mode, in which a RESP2 client may run only a few
     * commands and the idle timeout spares it.
     */
    boolean pubsub;
    /**
     * Hands a blocked client's reply to its connection's loop, which writes it and goes on with the
     * client's input; from any thread ({@link KeyWaits}). Set with {@link #killer}.
     */
    volatile java.util.function.Consumer<byte[]> resumer = reply -> { };
    /** What this client waits for while a blocking command (BLPOP, ...) holds it, else null. */
    volatile KeyWaits.Waiter blockedBy;
    /**
     * A CLIENT PAUSE holds this client's next request ({@link ClientPause}): its connection runs
     * nothing until the pause hands it back. Volatile for CLIENT LIST and the idle timeout.
     */
    volatile boolean paused;
    /** CLIENT REPLY: whether the next command's reply is sent ({@link Connection} drops it if not). */
    ReplyMode replies = ReplyMode.ON;
    /** A command whose reply CLIENT REPLY drops blocked: its reply, when it comes, is dropped too. */
    boolean dropResumedReply;
    /**
     * The client a replica applies its master's commands as ({@link MasterLink}): it writes where
     * others get READONLY, and its replies are dropped.
     */
    boolean fromMaster;
    /** Blocking commands answer at once, as on a timeout: a script's client (EXEC's is {@link #inExec}). */
    boolean denyBlocking;
    /** EXEC is running its queue: Redis refuses SSUBSCRIBE there and lets a subscriber's queued commands run. */
    boolean inExec;
    /** The commands queued since MULTI, or null outside a transaction (see {@link Transactions}). */
    java.util.List<byte[][]> queued;
    /** A command was refused while queueing (unknown, wrong arity): EXEC aborts. */
    boolean queueRefused;
    /** WATCHed keys, their databases, and their stored forms when watched (null: absent), by position. */
    final java.util.List<byte[]> watchedKeys = new java.util.ArrayList<>();
    final java.util.List<Integer> watchedDbs = new java.util.ArrayList<>();
    final java.util.List<byte[]> watchedValues = new java.util.ArrayList<>();
    /** A key it watches changed since it watched it ({@link WatchedKeys}; set by the writer's thread): EXEC gives up. */
    volatile boolean watchTouched;
    /**
     * Counted on the loop's thread and added to {@link Stats} once per batch ({@link #publish}):
     * a shared counter per request cost more than the GET it counted.
     */
    int commands;
    int hits;
    int misses;
    /** GET's and SET's calls and time for INFO commandstats, published with the rest ({@link CommandTable#publish}). */
    int getCalls;
    int setCalls;
    long getNanos;
    long setNanos;
    /** GET's calls in {@link LatencyBuckets} 0 to 31, then SET's in 32 to 63: made at the first, published with the rest. */
    long[] fastLatency;
    /** The bytes of the connection's input buffer, for CLIENT LIST on other threads (its {@code qbuf-free}). */
    volatile int inputCapacity;
    /**
     * CLIENT LIST's {@code qbuf}: the bytes of the request running and those read after it, as
     * Redis's query buffer holds them while a command runs; between requests, those not run yet.
     * Written by its loop on every request, so plain: another loop's CLIENT LIST may see it late.
     */
    int queryBytes;
    /** The error replies commands have been charged with (INFO commandstats' failed calls; see {@link CommandTable}). */
    long errorsAccounted;
    /** The command running (or blocked), for replication's rewrite of a blocked one when it is served. */
    byte[][] args;
    /** Running a command that may write while no replica orders writes yet ({@link Replicas#activate} waits for it). */
    volatile boolean unordered;
    /** Sent the replication stream since its PSYNC ({@link Replicas}). */
    volatile boolean replica;
    /** REPLCONF listening-port: the port a replica says it serves on, for INFO and ROLE. */
    int listeningPort;
    /** REPLCONF ip-address: the address a replica says it is reached at (its replica-announce-ip), or null. */
    String announcedIp;
    /** REPLCONF rdb-only 1 (redis-cli --rdb): SYNC sends the snapshot alone and starts no replica. */
    boolean rdbOnly;
    /** REPLCONF rdb-filter-only functions (redis-cli --functions-rdb): the snapshot holds the function libraries alone. */
    boolean rdbFunctionsOnly;
    /** The snapshot being built for its {@code redis-cli --rdb} (SYNC after REPLCONF rdb-only 1), given up if it goes; null if none. */
    volatile SnapshotBuild snapshot;
    /** The stream's offset after this client's last write, which WAIT waits for. */
    long replOffset;

    Client(long id, String address, long createdMillis, boolean authenticated) {
        this.id = id;
        this.address = address;
        this.createdMillis = createdMillis;
        this.authenticated = authenticated;
    }

    /** @return whether this client's user may run anything on any key and channel: its commands go unchecked */
    boolean unrestricted() {
        AclUser u = user;
        return u == null || u.unrestricted();
    }

    /** Adds what this client counted since the last call to {@code stats}. */
    void publish(Stats stats) {
        if (commands != 0) {
            stats.commands.add(commands);
            commands = 0;
        }
        if (hits != 0) {
            stats.keyspaceHits.add(hits);
            hits = 0;
        }
        if (misses != 0) {
            stats.keyspaceMisses.add(misses);
            misses = 0;
        }
        if (reply.errors != 0) {
            stats.errorReplies.add(reply.errors);
            stats.errorKinds(reply.errorKinds);
            reply.errorKinds = null;
            reply.errors = 0;
        }
    }
}
