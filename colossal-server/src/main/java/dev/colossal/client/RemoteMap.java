package dev.colossal.client;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A typed map served by {@code colossal serve} (or any Redis-compatible server), over RESP: keys
 * and values are turned into bytes by {@link Codec}s, so records, strings, numbers and collections
 * go over the wire in the compact form of {@link dev.colossal.codec.Codecs}.
 *
 * <pre>{@code
 * record User(String name, int age) {}
 *
 * try (RemoteMap<String, User> users = RemoteMap.builder(Codecs.string(), Codecs.of(User.class))
 *         .address("127.0.0.1", 6380).connect()) {
 *     users.put("ada", new User("Ada", 36));
 *     User ada = users.get("ada");
 *     users.set("tmp", new User("Tmp", 1), Duration.ofMinutes(5));   // expires
 *     CompletableFuture<User> later = users.getAsync("ada");         // pipelined
 * }
 * }</pre>
 *
 * <p><b>Threads and pipelining.</b> A {@code RemoteMap} is thread-safe and meant to be shared. It
 * holds a few connections ({@link Builder#connections}), and each carries any number of requests
 * at once: an async call sends and returns; replies are matched to requests in order. Requests that
 * arrive together go out in one write. A key always uses the same connection, so calls on one key
 * are applied in the order they were made, even asynchronously; calls on different keys, and
 * {@link #size()} and {@link #clear()}, are ordered only by waiting for their results.
 *
 * <p><b>Callbacks.</b> Futures complete on the connection's reader thread, so callbacks attached
 * with {@code thenApply} etc. run there: keep them short, and do not make blocking calls from them
 * (that would wait for a reply the same thread must read; it throws
 * {@link IllegalStateException} instead). Use the {@code ...Async} variants of
 * {@link CompletableFuture} to move work elsewhere.
 *
 * <p><b>Failures.</b> A server error reply throws (or completes the future with) a
 * {@link RemoteServerException} carrying the server's text. A broken connection fails the calls in
 * flight on it with {@link RemoteMapException} (whether the server applied them is unknown) and the
 * next call reconnects, so a client survives a server restart. A blocking call that gets no reply
 * within {@link Builder#replyTimeout} throws {@link RemoteMapException}. A value stored by a
 * different codec fails to decode with the codec's exception.
 *
 * <p><b>Interop.</b> The codecs of {@code Codecs} write a length before strings and arrays; to share
 * keys and values with other Redis clients, use {@link RawCodecs#utf8()} or {@link RawCodecs#bytes()}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class RemoteMap<K, V> implements AutoCloseable {

    private static final byte[] GET = RequestBuffer.ascii("GET");
    private static final byte[] SET = RequestBuffer.ascii("SET");
    private static final byte[] GETDEL = RequestBuffer.ascii("GETDEL");
    private static final byte[] DEL = RequestBuffer.ascii("DEL");
    private static final byte[] EXISTS = RequestBuffer.ascii("EXISTS");
    private static final byte[] PTTL = RequestBuffer.ascii("PTTL");
    private static final byte[] PEXPIRE = RequestBuffer.ascii("PEXPIRE");
    private static final byte[] DBSIZE = RequestBuffer.ascii("DBSIZE");
    private static final byte[] FLUSHDB = RequestBuffer.ascii("FLUSHDB");
    private static final byte[] OPT_GET = RequestBuffer.ascii("GET");
    private static final byte[] OPT_NX = RequestBuffer.ascii("NX");
    private static final byte[] OPT_PX = RequestBuffer.ascii("PX");

    private final Codec<K> keys;
    private final Codec<V> values;
    private final ConnectionPool pool;
    private final Function<Object, V> toValue;

    private RemoteMap(Codec<K> keys, Codec<V> values, ConnectionPool pool) {
        this.keys = Codecs.canonical(keys);   // equal keys, equal bytes: the server compares bytes
        this.values = values;
        this.pool = pool;
        this.toValue = this::decodeValue;
    }

    /**
     * Starts configuring a map; {@link Builder#connect()} opens it.
     *
     * @param keys   the key codec
     * @param values the value codec
     * @param <K>    the key type
     * @param <V>    the value type
     * @return a builder for 127.0.0.1:6380, no password, database 0, two connections
     */
    public static <K, V> Builder<K, V> builder(Codec<K> keys, Codec<V> values) {
        return new Builder<>(Objects.requireNonNull(keys, "keys"), Objects.requireNonNull(values, "values"));
    }

    /**
     * Connects with the defaults of {@link #builder} to {@code host:port}.
     *
     * @param host   the server's host
     * @param port   the server's RESP port
     * @param keys   the key codec
     * @param values the value codec
     * @param <K>    the key type
     * @param <V>    the value type
     * @return the connected map
     * @throws RemoteMapException if the server cannot be reached
     */
    public static <K, V> RemoteMap<K, V> connect(String host, int port, Codec<K> keys, Codec<V> values) {
        return builder(keys, values).address(host, port).connect();
    }

    // ---- blocking calls ------------------------------------------------------------------------

    /**
     * @param key the key
     * @return its value, or null if absent or expired
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public V get(K key) {
        byte[] k = key(key);
        return call(k, toValue, GET, k);
    }

    /**
     * Stores a value with no expiry, replacing any value and deadline.
     *
     * @param key   the key
     * @param value the value
     * @return the previous value, or null
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public V put(K key, V value) {
        byte[] k = key(key);
        return call(k, toValue, SET, k, value(value), OPT_GET);
    }

    /**
     * Stores a value that expires after {@code ttl}.
     *
     * @param key   the key
     * @param value the value
     * @param ttl   how long it lives, at least 1 ms
     * @return the previous value, or null
     * @throws IllegalArgumentException if {@code ttl} is under 1 ms
     * @throws RemoteMapException       on a server error, a broken connection or a timeout
     */
    public V put(K key, V value, Duration ttl) {
        byte[] k = key(key);
        return call(k, toValue, SET, k, value(value), OPT_PX, millis(ttl), OPT_GET);
    }

    /**
     * Stores a value like {@link #put(Object, Object)} without sending the previous value back.
     *
     * @param key   the key
     * @param value the value
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public void set(K key, V value) {
        byte[] k = key(key);
        call(k, RemoteMap::ok, SET, k, value(value));
    }

    /**
     * Stores a value that expires after {@code ttl}, without sending the previous value back.
     *
     * @param key   the key
     * @param value the value
     * @param ttl   how long it lives, at least 1 ms
     * @throws IllegalArgumentException if {@code ttl} is under 1 ms
     * @throws RemoteMapException       on a server error, a broken connection or a timeout
     */
    public void set(K key, V value, Duration ttl) {
        byte[] k = key(key);
        call(k, RemoteMap::ok, SET, k, value(value), OPT_PX, millis(ttl));
    }

    /**
     * Stores a value only if the key has none, atomically.
     *
     * @param key   the key
     * @param value the value
     * @return null if the value was stored, else the value already there (left unchanged)
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public V putIfAbsent(K key, V value) {
        byte[] k = key(key);
        return call(k, toValue, SET, k, value(value), OPT_NX, OPT_GET);
    }

    /**
     * Removes a key and returns its value, atomically.
     *
     * @param key the key
     * @return the value it had, or null if absent
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public V remove(K key) {
        byte[] k = key(key);
        return call(k, toValue, GETDEL, k);
    }

    /**
     * Removes a key without sending its value back.
     *
     * @param key the key
     * @return true if it was there
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public boolean delete(K key) {
        byte[] k = key(key);
        return call(k, RemoteMap::isOne, DEL, k);
    }

    /**
     * @param key the key
     * @return true if the key has a live value
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public boolean containsKey(K key) {
        byte[] k = key(key);
        return call(k, RemoteMap::isOne, EXISTS, k);
    }

    /**
     * @param key the key
     * @return the time the key has left, or null if it is absent or never expires
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public Duration ttl(K key) {
        byte[] k = key(key);
        return call(k, RemoteMap::toTtl, PTTL, k);
    }

    /**
     * Sets a key's time to live.
     *
     * @param key the key
     * @param ttl how long it lives from now, at least 1 ms
     * @return true if the key exists (and now expires), false if it does not
     * @throws IllegalArgumentException if {@code ttl} is under 1 ms
     * @throws RemoteMapException       on a server error, a broken connection or a timeout
     */
    public boolean expire(K key, Duration ttl) {
        byte[] k = key(key);
        return call(k, RemoteMap::isOne, PEXPIRE, k, millis(ttl));
    }

    /**
     * @return the number of keys in the map's database on the server (as Redis's DBSIZE counts them)
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public long size() {
        return call(null, RemoteMap::toLong, DBSIZE);
    }

    /**
     * Removes every key of the map's database on the server ({@link Builder#database}), not only
     * those this map wrote.
     *
     * @throws RemoteMapException on a server error, a broken connection or a timeout
     */
    public void clear() {
        call(null, RemoteMap::ok, FLUSHDB);
    }

    // ---- async calls ---------------------------------------------------------------------------

    /**
     * Sends {@link #get} without waiting.
     *
     * @param key the key
     * @return its value or null, or a {@link RemoteMapException}
     */
    public CompletableFuture<V> getAsync(K key) {
        byte[] k = key(key);
        return send(k, toValue, GET, k);
    }

    /**
     * Sends {@link #put(Object, Object)} without waiting.
     *
     * @param key   the key
     * @param value the value
     * @return the previous value or null, or a {@link RemoteMapException}
     */
    public CompletableFuture<V> putAsync(K key, V value) {
        byte[] k = key(key);
        return send(k, toValue, SET, k, value(value), OPT_GET);
    }

    /**
     * Sends {@link #set(Object, Object)} without waiting.
     *
     * @param key   the key
     * @param value the value
     * @return completes when stored, or with a {@link RemoteMapException}
     */
    public CompletableFuture<Void> setAsync(K key, V value) {
        byte[] k = key(key);
        return send(k, RemoteMap::ok, SET, k, value(value));
    }

    /**
     * Sends {@link #set(Object, Object, Duration)} without waiting.
     *
     * @param key   the key
     * @param value the value
     * @param ttl   how long it lives, at least 1 ms
     * @return completes when stored, or with a {@link RemoteMapException}
     * @throws IllegalArgumentException if {@code ttl} is under 1 ms
     */
    public CompletableFuture<Void> setAsync(K key, V value, Duration ttl) {
        byte[] k = key(key);
        return send(k, RemoteMap::ok, SET, k, value(value), OPT_PX, millis(ttl));
    }

    /**
     * Sends {@link #putIfAbsent} without waiting.
     *
     * @param key   the key
     * @param value the value
     * @return null if stored, else the value already there; or a {@link RemoteMapException}
     */
    public CompletableFuture<V> putIfAbsentAsync(K key, V value) {
        byte[] k = key(key);
        return send(k, toValue, SET, k, value(value), OPT_NX, OPT_GET);
    }

    /**
     * Sends {@link #remove} without waiting.
     *
     * @param key the key
     * @return the value it had or null, or a {@link RemoteMapException}
     */
    public CompletableFuture<V> removeAsync(K key) {
        byte[] k = key(key);
        return send(k, toValue, GETDEL, k);
    }

    /**
     * Sends {@link #containsKey} without waiting.
     *
     * @param key the key
     * @return whether the key has a live value, or a {@link RemoteMapException}
     */
    public CompletableFuture<Boolean> containsKeyAsync(K key) {
        byte[] k = key(key);
        return send(k, RemoteMap::isOne, EXISTS, k);
    }

    /** Closes the connections; calls still in flight fail with {@link RemoteMapException}. */
    @Override
    public void close() {
        pool.close();
    }

    // ---- plumbing ------------------------------------------------------------------------------

    private <T> T call(byte[] key, Function<Object, T> mapper, byte[]... args) {
        return pool.await(pool.send(key == null ? 0 : Arrays.hashCode(key), mapper, args));
    }

    private <T> CompletableFuture<T> send(byte[] key, Function<Object, T> mapper, byte[]... args) {
        try {
            return pool.send(Arrays.hashCode(key), mapper, args).future();
        } catch (RemoteMapException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private byte[] key(K key) {
        return RequestBuffer.encode(keys, Objects.requireNonNull(key, "key"), "key");
    }

    private byte[] value(V value) {
        return RequestBuffer.encode(values, Objects.requireNonNull(value, "value"), "value");
    }

    private V decodeValue(Object reply) {
        if (reply == null) {
            return null;
        }
        if (reply instanceof byte[] b) {
            return values.decode(MemorySegment.ofArray(b));
        }
        throw unexpected(reply, "a bulk string");
    }

    private static byte[] millis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("ttl=" + ttl + " must be at least 1 ms");
        }
        long ms = ttl.toMillis();
        return Long.toString(ms).getBytes(StandardCharsets.US_ASCII);
    }

    private static Void ok(Object reply) {
        if ("OK".equals(reply)) {
            return null;
        }
        throw unexpected(reply, "+OK");
    }

    private static long toLong(Object reply) {
        if (reply instanceof Long n) {
            return n;
        }
        throw unexpected(reply, "an integer");
    }

    private static boolean isOne(Object reply) {
        return toLong(reply) == 1;
    }

    private static Duration toTtl(Object reply) {
        long ms = toLong(reply);
        return ms < 0 ? null : Duration.ofMillis(ms);
    }

    private static RemoteMapException unexpected(Object reply, String expected) {
        String shown = reply instanceof byte[] b ? "bulk of " + b.length + " bytes" : String.valueOf(reply);
        return new RemoteMapException("unexpected reply " + shown + " where " + expected
                + " was due; is the server Redis-compatible?", null);
    }

    /**
     * Settings of a {@link RemoteMap}: where the server is, the password, how many connections,
     * and the timeouts.
     *
     * @param <K> the key type
     * @param <V> the value type
     */
    public static final class Builder<K, V> {
        private final Codec<K> keys;
        private final Codec<V> values;
        private String host = "127.0.0.1";
        private int port = 6380;
        private String password;
        private int database;
        private int connections = 2;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration replyTimeout = Duration.ofSeconds(30);
        private int maxInFlight = 65_536;

        private Builder(Codec<K> keys, Codec<V> values) {
            this.keys = keys;
            this.values = values;
        }

        /**
         * @param host the server's host name or address
         * @param port its RESP port
         * @return this builder
         * @throws IllegalArgumentException if the port is not 1..65535
         */
        public Builder<K, V> address(String host, int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port=" + port + " must be 1..65535");
            }
            this.host = Objects.requireNonNull(host, "host");
            this.port = port;
            return this;
        }

        /**
         * @param password what {@code AUTH} sends on every new connection (the server's
         *                 {@code --requirepass}), or null for none
         * @return this builder
         */
        public Builder<K, V> password(String password) {
            this.password = password;
            return this;
        }

        /**
         * Names the server's database the map is, as {@code redis://host:port/N} does for Redis
         * clients: every connection sends {@code SELECT n} when it opens, so {@link RemoteMap#size()}
         * and {@link RemoteMap#clear()} count and clear that database only.
         *
         * @param n the database number, 0 (the default) or more; the server refuses one beyond its
         *          {@code --databases} when the map connects
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is negative
         */
        public Builder<K, V> database(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("database=" + n + " must be 0 or more");
            }
            this.database = n;
            return this;
        }

        /**
         * @param n how many connections to keep open, 1..64 (each carries any number of requests
         *          at once; more help only when one connection's reader is the bottleneck)
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is out of range
         */
        public Builder<K, V> connections(int n) {
            if (n < 1 || n > 64) {
                throw new IllegalArgumentException("connections=" + n + " must be 1..64");
            }
            this.connections = n;
            return this;
        }

        /**
         * @param timeout how long to wait for a TCP connection, at least 1 ms
         * @return this builder
         * @throws IllegalArgumentException if the timeout is under 1 ms or over 24 days
         */
        public Builder<K, V> connectTimeout(Duration timeout) {
            checkTimeout("connectTimeout", timeout);
            this.connectTimeout = timeout;
            return this;
        }

        /**
         * @param timeout how long a blocking call waits for its reply, at least 1 ms
         * @return this builder
         * @throws IllegalArgumentException if the timeout is under 1 ms or over 24 days
         */
        public Builder<K, V> replyTimeout(Duration timeout) {
            checkTimeout("replyTimeout", timeout);
            this.replyTimeout = timeout;
            return this;
        }

        /**
         * @param n how many requests one connection may have awaiting replies; senders beyond it
         *          wait (back-pressure), at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code n < 1}
         */
        public Builder<K, V> maxInFlight(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxInFlight=" + n + " must be at least 1");
            }
            this.maxInFlight = n;
            return this;
        }

        /**
         * Opens the connections (and authenticates them, and selects the database).
         *
         * @return the connected map
         * @throws RemoteMapException    if the server cannot be reached
         * @throws RemoteServerException if it refuses the password or the database number
         */
        public RemoteMap<K, V> connect() {
            byte[] pass = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
            ConnectionPool pool = new ConnectionPool(new InetSocketAddress(host, port), pass, database, connections,
                    (int) connectTimeout.toMillis(), replyTimeout.toMillis(), maxInFlight);
            try {
                pool.connectAll();
            } catch (RuntimeException e) {
                pool.close();
                throw e;
            }
            return new RemoteMap<>(keys, values, pool);
        }

        private static void checkTimeout(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(Duration.ofDays(24)) > 0) {
                throw new IllegalArgumentException(name + "=" + d + " must be 1 ms..24 days");
            }
        }
    }
}
