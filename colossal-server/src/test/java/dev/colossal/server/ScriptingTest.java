package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * EVAL and friends through Jedis, the scripts clients ship (rate limiters, compare-and-delete),
 * and what a script must never do to the server: lose its atomicity, deadlock against multi-key
 * commands over keys it did not declare, run away beyond SCRIPT KILL, or take an event loop down
 * with deep recursion. Replies byte for byte against Redis are in redis-compat.txt.
 */
class ScriptingTest {

    @TempDir
    Path dir;

    private static final String RATE_LIMIT = "local n = redis.call('incr', KEYS[1]) "
            + "if n == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) end "
            + "if n > tonumber(ARGV[2]) then return 0 end return 1";
    private static final String COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "return redis.call('del', KEYS[1]) else return 0 end";

    private ColossalServer server(int ioThreads) throws IOException {
        ServerConfig d = ServerConfig.defaults();
        return ColossalServer.start(new ServerConfig(d.bind(), 0, -1, dir, null, d.maxClients(), d.maxBulkBytes(), 0,
                ioThreads, ServerConfig.DEFAULT_BUSY_POLL_MICROS));
    }

    @Test
    void jedisEvalEvalshaAndTheScriptCache() throws Exception {
        try (ColossalServer s = server(2); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(List.of("k", "a", "b"), j.eval("return {KEYS[1], ARGV[1], ARGV[2]}", 1, "k", "a", "b"));
            assertEquals(7L, j.eval("return 7.9"));
            String sha = j.scriptLoad("return redis.call('incrby', KEYS[1], ARGV[1])");
            assertEquals(RedisLib.sha1hex("return redis.call('incrby', KEYS[1], ARGV[1])"), sha);
            assertEquals(5L, j.evalsha(sha, 1, "n", "5"));
            assertEquals(List.of(true, false), j.scriptExists(sha, "0".repeat(40)));
            assertEquals(9L, j.evalsha(sha.toUpperCase(), List.of("n"), List.of("4")));
            assertEquals("OK", j.scriptFlush());
            assertThrows(JedisNoScriptException.class, () -> j.evalsha(sha, 1, "n", "1"));
            JedisDataException wrong = assertThrows(JedisDataException.class, () -> j.eval("return redis.call('nope')"));
            assertTrue(wrong.getMessage().startsWith("ERR Unknown Redis command called from script script: "),
                    wrong.getMessage());
            assertEquals("9", j.get("n"), "the connection lives on after a script's error");
            String info = j.info("memory");
            assertTrue(info.contains("number_of_cached_scripts:1"), info); // EVAL caches its script too
            j.scriptLoad("return 1");
            assertTrue(j.info("memory").contains("number_of_cached_scripts:2"));
        }
    }

    /** Lettuce speaks RESP3 by default: a script's results reach it as they reach a RESP3 client of Redis. */
    @Test
    void lettuceEvalAndEvalsha() throws Exception {
        try (ColossalServer s = server(2)) {
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(
                    io.lettuce.core.RedisURI.create("127.0.0.1", s.port()));
            try (io.lettuce.core.api.StatefulRedisConnection<String, String> c = client.connect()) {
                io.lettuce.core.api.sync.RedisCommands<String, String> l = c.sync();
                Long allowed = l.eval(RATE_LIMIT, io.lettuce.core.ScriptOutputType.INTEGER, new String[] {"rl:l"},
                        "60000", "1");
                assertEquals(1L, allowed);
                assertEquals(0L, (Long) l.eval(RATE_LIMIT, io.lettuce.core.ScriptOutputType.INTEGER,
                        new String[] {"rl:l"}, "60000", "1"));
                String sha = l.scriptLoad(COMPARE_AND_DELETE);
                l.set("lock", "t1");
                assertEquals(0L, (Long) l.evalsha(sha, io.lettuce.core.ScriptOutputType.INTEGER,
                        new String[] {"lock"}, "t2"));
                assertEquals(1L, (Long) l.evalsha(sha, io.lettuce.core.ScriptOutputType.INTEGER,
                        new String[] {"lock"}, "t1"));
                assertEquals(List.of("a", "b"), l.eval("return {ARGV[1], ARGV[2]}",
                        io.lettuce.core.ScriptOutputType.MULTI, new String[0], "a", "b"));
                assertEquals("PONG", l.eval("return redis.call('ping')", io.lettuce.core.ScriptOutputType.STATUS));
                assertEquals(List.of(true), l.scriptExists(sha));
                io.lettuce.core.RedisNoScriptException gone = assertThrows(io.lettuce.core.RedisNoScriptException.class,
                        () -> l.evalsha("0".repeat(40), io.lettuce.core.ScriptOutputType.INTEGER));
                assertTrue(gone.getMessage().startsWith("NOSCRIPT"), gone.getMessage());
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void rateLimiterAndCompareAndDeleteWorkAsInRedis() throws Exception {
        try (ColossalServer s = server(2); Jedis j = new Jedis("127.0.0.1", s.port())) {
            List<Object> allowed = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                allowed.add(j.eval(RATE_LIMIT, 1, "rl:user", "60000", "3"));
            }
            assertEquals(List.of(1L, 1L, 1L, 0L, 0L), allowed);
            long ttl = j.pttl("rl:user");
            assertTrue(ttl > 0 && ttl <= 60000, "pttl=" + ttl);
            j.set("lock", "token-1");
            assertEquals(0L, j.eval(COMPARE_AND_DELETE, 1, "lock", "token-2"));
            assertEquals("token-1", j.get("lock"));
            assertEquals(1L, j.eval(COMPARE_AND_DELETE, 1, "lock", "token-1"));
            assertNull(j.get("lock"));
            // A script that fails after writing keeps its write, as in Redis.
            j.set("text", "abc");
            assertThrows(JedisDataException.class,
                    () -> j.eval("redis.call('set', 'before', '1') return redis.call('incr', 'text')"));
            assertEquals("1", j.get("before"));
            JedisDataException ro = assertThrows(JedisDataException.class,
                    () -> j.evalReadonly("return redis.call('set', KEYS[1], 'x')", List.of("r"), List.of()));
            assertTrue(ro.getMessage().startsWith("ERR Write commands are not allowed from read-only scripts."));
            assertFalse(j.exists("r"));
        }
    }

    /**
     * Read, spin, write back plus one: if another client's INCR could land between the GET and
     * the SET, increments would be lost. The key is declared by half the scripts and only named
     * in ARGV by the others, whose stripe is then taken when the script first names it.
     */
    @Test
    void noWriteLandsBetweenAScriptsCommandsOnDeclaredOrUndeclaredKeys() throws Exception {
        String readSpinWrite = "local k = KEYS[1] or ARGV[1] local v = tonumber(redis.call('get', k) or '0') "
                + "for i = 1, 2000 do end redis.call('set', k, v + 1) return v + 1";
        int threads = 6;
        int rounds = 150;
        try (ColossalServer s = server(4)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int kind = t % 3;
                    done.add(pool.submit(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                            for (int i = 0; i < rounds; i++) {
                                switch (kind) {
                                    case 0 -> j.eval(readSpinWrite, 1, "counter");
                                    case 1 -> j.eval(readSpinWrite, 0, "counter");
                                    default -> j.incr("counter");
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals(String.valueOf(threads * rounds), j.get("counter"), "increments were lost");
            }
        }
    }

    /**
     * Scripts that touch keys they did not declare, out of any order, while MSET, RENAME and EXEC
     * take several of the same keys' stripes: without the multi-stripe lock a script holding one
     * stripe and waiting for another meets an MSET holding the second and waiting for the first.
     */
    @Test
    void scriptsWithUndeclaredKeysNeverDeadlockAgainstMultiKeyCommands() {
        String[] keys = new String[24];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "key" + i;
        }
        String touchAll = "for i = 1, #ARGV do redis.call('incr', ARGV[i]) end return #ARGV";
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ColossalServer s = server(4)) {
                int threads = 8;
                AtomicBoolean stop = new AtomicBoolean();
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    List<Future<Integer>> done = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        int kind = t % 4;
                        int seed = t;
                        done.add(pool.submit(() -> {
                            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                            int ran = 0;
                            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                                while (!stop.get()) {
                                    String a = keys[random.nextInt(keys.length)];
                                    String b = keys[random.nextInt(keys.length)];
                                    String c = keys[random.nextInt(keys.length)];
                                    switch (kind) {
                                        // declares one key, then takes the others' stripes in any order
                                        case 0 -> j.eval(touchAll, 1, a, c, b, a);
                                        case 1 -> j.mset(a, "1", b, "2", c, "3");
                                        case 2 -> {
                                            j.set(a, "1");
                                            try {
                                                j.rename(a, b);
                                            } catch (JedisDataException gone) {
                                                // another thread renamed it first
                                            }
                                        }
                                        default -> {
                                            Transaction tx = j.multi();
                                            tx.incr(c);
                                            tx.set(b, "5");
                                            tx.get(a);
                                            tx.exec();
                                        }
                                    }
                                    ran++;
                                }
                            }
                            return ran;
                        }));
                    }
                    Thread.sleep(3000);
                    stop.set(true);
                    for (Future<Integer> f : done) {
                        assertTrue(f.get(20, TimeUnit.SECONDS) > 0, "every kind of command ran");
                    }
                } finally {
                    stop.set(true);
                    pool.shutdownNow();
                }
            }
        });
    }

    /**
     * With one event loop, the runaway script's loop is the only one: the killer's connection
     * must be served elsewhere. A script that wrote cannot be killed, as in Redis.
     */
    @Test
    void scriptKillStopsARunawayScriptThatHasNotWritten() throws Exception {
        try (ColossalServer s = server(1); Wire w = new Wire(s.port())) {
            assertEquals("-NOTBUSY No scripts in execution right now.\r\n", w.call("SCRIPT", "KILL"));
            Wire runaway = new Wire(s.port());
            runaway.send(Wire.encode("EVAL", "local function spin() while true do end end\nspin()", "0"));
            try (Wire killer = killsTheScript(s.port())) {
                runaway.socket.setSoTimeout(10_000);
                String sha = RedisLib.sha1hex("local function spin() while true do end end\nspin()");
                assertEquals("-ERR Script killed by user with SCRIPT KILL... script: " + sha + ", on @user_script:1.\r\n",
                        runaway.reply());
                assertEquals("+PONG\r\n", runaway.call("PING"), "the killed script's connection lives on");

                runaway.send(Wire.encode("EVAL", "redis.call('set', 'w', '1') while true do end", "0"));
                // Killed before its write, the script would rightly be killable: wait for the write.
                assertEquals(":1\r\n", TestServers.await(":1\r\n", 5000, () -> killer.call("EXISTS", "w")));
                assertEquals("-UNKILLABLE Sorry the script already executed write commands against the dataset. You can"
                        + " either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE"
                        + " command.\r\n", killer.call("SCRIPT", "KILL"));
            } finally {
                runaway.socket.close(); // the server's close aborts the unkillable script
            }
        }
    }

    /**
     * LuaJ on a stock JVM, as the project promises for everything: the server, started with no
     * JVM flag, runs scripts through every library scripts see and prints nothing but its own lines.
     */
    @Test
    void aStockJvmPrintsNoWarningWhileTheServerRunsScripts() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        int port = TestServers.freePort();
        Path log = dir.resolve("server.log");
        Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--port", Integer.toString(port), "--http-port", "-1", "--data", dir.resolve("data").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            TestServers.awaitPong(port, server, log);
            try (Wire w = new Wire(port)) {
                String everyLibrary = "local t = {} for i = 1, 10 do t[i] = redis.call('incr', KEYS[1]) end "
                        + "local ok, e = pcall(error, 'x') "
                        + "return {t[10], string.format('%5.2f', 1.5), table.concat({1, 2}, ','), math.floor(2.5), "
                        + "cjson.encode(cjson.decode('[1,2]')), bit.band(7, 3), loadstring('return 2')(), unpack({3}), e}";
                assertEquals("*9\r\n:10\r\n$5\r\n 1.50\r\n$3\r\n1,2\r\n:2\r\n$5\r\n[1,2]\r\n:3\r\n:2\r\n:3\r\n"
                        + "$1\r\nx\r\n", w.call("EVAL", everyLibrary, "1", "n"));
                assertTrue(w.call("EVAL", "return y", "0").startsWith("-ERR user_script:1: Script attempted"));
                w.send(Wire.encode("SHUTDOWN", "NOSAVE")); // no reply: the server closes the connection
            }
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server did not stop");
            for (String line : Files.readAllLines(log)) {
                assertTrue(line.startsWith("colossal: "), "the JVM or a library printed: " + line);
            }
        } finally {
            server.destroyForcibly();
        }
    }

    /**
     * Redis answers BUSY to everything once a script has run 5 s; here, a command that would wait
     * for what the script holds across stripes (another script, MSET) is answered BUSY then, and
     * one that needs nothing of it (GET) is served.
     */
    @Test
    void commandsThatWouldWaitForARunawayScriptAreAnsweredBusy() throws Exception {
        String busy = "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
        assertTrue(KeyLocks.stripe(java.lang.foreign.MemorySegment.ofArray(Args.bytes("a")))
                != KeyLocks.stripe(java.lang.foreign.MemorySegment.ofArray(Args.bytes("b"))), "MSET a b takes two stripes");
        try (ColossalServer s = server(1)) {
            long sent = System.nanoTime();
            Wire runaway = new Wire(s.port());
            runaway.send(Wire.encode("EVAL", "redis.call('set', 'started', '1') while true do end", "0"));
            try (Wire other = servedWhileTheScriptRuns(s.port())) {
                other.socket.setSoTimeout(15_000);
                assertEquals(busy, other.call("EVAL", "return 1", "0"));
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
                assertTrue(waited >= ScriptCommands.BUSY_MILLIS, "BUSY after " + waited + " ms");
                assertEquals(busy, other.call("MSET", "a", "1", "b", "2"));
                assertEquals("$1\r\n1\r\n", other.call("GET", "started"));
                assertTrue(other.call("SCRIPT", "KILL").startsWith("-UNKILLABLE"));
            } finally {
                runaway.socket.close(); // the server's close aborts the script
            }
        }
    }

    /** A connection that sees the script's first write was served while it runs, so on a loop of its own. */
    private static Wire servedWhileTheScriptRuns(int port) throws Exception {
        return answering(port, ":1\r\n", "EXISTS", "started");
    }

    /**
     * A connection made while the script runs is given a loop of its own, and kills the script.
     * One made before the script started shares its loop: it is answered NOTBUSY first, or never
     * (its SCRIPT KILL waits behind the script), and another is tried.
     */
    private static Wire killsTheScript(int port) throws Exception {
        return answering(port, "+OK\r\n", "SCRIPT", "KILL");
    }

    /**
     * Opens connections until one answers {@code command} with {@code want} within a second (one
     * made before the script started waits behind it, on its loop), and returns it, its reads
     * allowed 10 s from then on.
     */
    private static Wire answering(int port, String want, String... command) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Wire w = new Wire(port);
            w.socket.setSoTimeout(1000);
            try {
                if (w.call(command).equals(want)) {
                    w.socket.setSoTimeout(10_000);
                    return w;
                }
            } catch (java.net.SocketTimeoutException behindTheScript) {
                // made before the script started, on its loop: try again
            }
            w.close();
            Thread.sleep(50);
        }
        throw new AssertionError("no connection answered " + String.join(" ", command) + " with " + want + " in 20 s");
    }

    @Test
    void deepRecursionAndDeepResultsAreErrorsNotDeadLoops() throws Exception {
        try (ColossalServer s = server(1); Wire w = new Wire(s.port())) {
            String recurse = "local function f(n) return f(n + 1) + 1 end return f(1)";
            assertEquals("-ERR user_script:1: stack overflow script: " + RedisLib.sha1hex(recurse)
                    + ", on @user_script:1.\r\n", w.call("EVAL", recurse, "0"));
            String viaMetatable = "local t = setmetatable({}, {__index = function(t, k) return t[k + 1] end}) return t[1]";
            assertTrue(w.call("EVAL", viaMetatable, "0").contains("stack overflow"));
            String nested = "local t = {} for i = 1, 100000 do t = {t} end return t";
            assertEquals("-ERR reached lua stack limit\r\n", w.call("EVAL", nested, "0"));
            String cyclic = "local t = {} t[1] = t return t";
            assertEquals("-ERR reached lua stack limit\r\n", w.call("EVAL", cyclic, "0"));
            assertEquals("+PONG\r\n", w.call("PING"));
        }
    }

    /**
     * A token bucket as Redisson's RRateLimiter keeps one: its state packed with struct into a
     * string ({@code >dd}: tokens, last refill in ms), and each granted request recorded as
     * {@code Bc0I} (the id's length, the id, the permits) in a hash.
     */
    private static final String TOKEN_BUCKET = """
            local capacity, rate, now, wanted = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
            local tokens, last = capacity, now
            local state = redis.call('get', KEYS[1])
            if state then tokens, last = struct.unpack('>dd', state) end
            tokens = math.min(capacity, tokens + (now - last) * rate / 1000)
            local granted = tokens >= wanted
            if granted then
              tokens = tokens - wanted
              redis.call('hset', KEYS[2], ARGV[5], struct.pack('Bc0I', string.len(ARGV[5]), ARGV[5], wanted))
            end
            redis.call('set', KEYS[1], struct.pack('>dd', tokens, now), 'px', 60000)
            return {granted and 1 or 0, math.floor(tokens)}""";

    @Test
    void aTokenBucketInRedissonsStyleKeepsItsStateWithStruct() throws Exception {
        try (ColossalServer s = server(2); Jedis j = new Jedis("127.0.0.1", s.port())) {
            List<String> keys = List.of("bucket", "bucket:permits");
            for (int i = 0; i < 5; i++) {
                assertEquals(List.of(1L, 4L - i), j.eval(TOKEN_BUCKET, keys, List.of("5", "1", "0", "1", "r" + i)));
            }
            assertEquals(List.of(0L, 0L), j.eval(TOKEN_BUCKET, keys, List.of("5", "1", "0", "1", "r5")), "empty");
            assertEquals(List.of(1L, 0L), j.eval(TOKEN_BUCKET, keys, List.of("5", "1", "2000", "2", "r6")), "refilled");
            assertEquals(List.of(0L, 0L), j.eval(TOKEN_BUCKET, keys, List.of("5", "1", "2000", "1", "r7")));

            java.nio.ByteBuffer state = java.nio.ByteBuffer.wrap(j.get("bucket".getBytes()));
            assertEquals(16, state.remaining(), "two big-endian doubles");
            assertEquals(0.0, state.getDouble());
            assertEquals(2000.0, state.getDouble());
            byte[] permit = j.hget("bucket:permits".getBytes(), "r6".getBytes());
            assertEquals("[2, 114, 54, 2, 0, 0, 0]", java.util.Arrays.toString(permit), "Bc0I: length, id, native int");
            assertEquals(List.of("r6", 2L, 8L), j.eval(
                    "return {struct.unpack('Bc0I', redis.call('hget', KEYS[1], ARGV[1]))}", List.of("bucket:permits"),
                    List.of("r6")));
            assertFalse(j.hexists("bucket:permits", "r5"), "a refused request records nothing");
        }
    }

    /** BullMQ's way: job data and options travel as msgpack between the client and its scripts. */
    @Test
    void cmsgpackRoundTripsBetweenAClientAndAScript() throws Exception {
        try (ColossalServer s = server(2); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.eval("redis.call('set', KEYS[1], cmsgpack.pack({'job', 42, 1.5, true, {'a', 'b'}}, -200, 'x'))",
                    List.of("packed"), List.of());
            byte[] want = {(byte) 0x95, (byte) 0xa3, 'j', 'o', 'b', 42, (byte) 0xca, 0x3f, (byte) 0xc0, 0, 0,
                (byte) 0xc3, (byte) 0x92, (byte) 0xa1, 'a', (byte) 0xa1, 'b', (byte) 0xd1, (byte) 0xff, 0x38,
                (byte) 0xa1, 'x'};
            assertEquals(java.util.Arrays.toString(want), java.util.Arrays.toString(j.get("packed".getBytes())));

            // a map the client packed: {attempts=3, delay=1000, name='job'}, then two values more
            byte[] opts = {(byte) 0x83, (byte) 0xa8, 'a', 't', 't', 'e', 'm', 'p', 't', 's', 3, (byte) 0xa5, 'd', 'e',
                'l', 'a', 'y', (byte) 0xcd, 0x03, (byte) 0xe8, (byte) 0xa4, 'n', 'a', 'm', 'e', (byte) 0xa3, 'j', 'o',
                'b', (byte) 0xc2, (byte) 0xcb, 0x40, 0x09, 0x21, (byte) 0xf9, (byte) 0xf0, 0x1b, (byte) 0x86, 0x6e};
            Object got = j.eval(("local at, opts = cmsgpack.unpack_one(ARGV[1]) "
                    + "local after, flag = cmsgpack.unpack_one(ARGV[1], at) "
                    + "local rest = {cmsgpack.unpack_limit(ARGV[1], 1, after)} "
                    + "return {at, opts.attempts, opts.delay, opts.name, tostring(flag), rest[1], tostring(rest[2])}")
                    .getBytes(), 0, opts);
            assertEquals("[29, 3, 1000, job, false, -1, 3.14159]", readable(got));
            assertEquals("[3, 3]", readable(j.eval("local t = {cmsgpack.unpack(ARGV[1])} return {#t, t[1].attempts}"
                    .getBytes(), 0, opts)));
        }
    }

    /** A reply of Jedis's binary eval, its byte strings as text. */
    private static String readable(Object reply) {
        if (reply instanceof List<?> l) {
            return l.stream().map(ScriptingTest::readable).toList().toString();
        }
        return reply instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.ISO_8859_1) : String.valueOf(reply);
    }
}
