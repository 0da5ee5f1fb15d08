package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.cli.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;

/**
 * {@code redis-cli --rdb FILE} against this server (SYNC, {@link SyncCommands}): redis-server 7.0
 * starts from the file and holds every key of every database with its type, value and TTL, the
 * stream's consumer group and the function library; {@code colossal import-rdb} of the same file
 * serves it all again.
 */
class RdbSnapshotTest {

    @TempDir
    Path dir;

    @Test
    void redisServerLoadsTheSnapshotRedisCliTakes() throws Exception {
        Path file = dir.resolve("snap").resolve("dump.rdb");
        Files.createDirectories(file.getParent());
        Map<String, String> ours;
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j);
            ours = everything(j);
            take(s, "--rdb", file);
        }
        TestServers.onRedisWith(loading(file), port -> {
            try (Jedis theirs = new Jedis("127.0.0.1", port)) {
                assertEquals(ours, everything(theirs));
                assertEquals("hi", theirs.fcall("hi", List.of(), List.of()));
            }
        });
        Cli.Run run = Cli.run("import-rdb", file.toString(), "--data", dir.resolve("imported").toString());
        assertEquals(0, run.exit(), run.err());
        try (ColossalServer s = TestServers.colossal(dir.resolve("imported")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(ours, everything(j), "import-rdb of the snapshot gives back what was served");
            assertEquals("hi", j.fcall("hi", List.of(), List.of()));
        }
    }

    /**
     * {@code redis-cli --functions-rdb FILE} (REPLCONF rdb-filter-only functions): the file holds
     * the function libraries and no key, and redis-server starts from it with the library loaded.
     */
    @Test
    void theFunctionsOnlySnapshotHoldsTheLibrariesAlone() throws Exception {
        Path file = dir.resolve("fsnap").resolve("functions.rdb");
        Files.createDirectories(file.getParent());
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j);
            take(s, "--functions-rdb", file);
            assertEquals("PONG", j.ping(), "the server goes on");
        }
        assertTrue(Files.size(file) < 4096, "no key's bytes in it: " + Files.size(file));
        TestServers.onRedisWith(loading(file), port -> {
            try (Jedis theirs = new Jedis("127.0.0.1", port)) {
                assertEquals(0L, theirs.dbSize());
                assertEquals("hi", theirs.fcall("hi", List.of(), List.of()));
            }
        });
    }

    /**
     * The snapshot is of one moment although writes go on while it is built: transfers between
     * accounts (MULTI, DECRBY one, INCRBY another, EXEC) run on other connections throughout a
     * slowed snapshot, and the accounts in the file still add up to what they held in all.
     */
    @Test
    void theSnapshotIsOfOneMomentWhileTransactionsGoOn() throws Exception {
        Path file = dir.resolve("moment").resolve("dump.rdb");
        Files.createDirectories(file.getParent());
        int accounts = 100;
        ServerConfig config = new ServerConfig("127.0.0.1", 0, -1, dir.resolve("data"), null, 10_000, 512L << 20, 0, 3, 0);
        java.util.concurrent.atomic.AtomicLong transfers = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long during;
        try (ColossalServer s = ColossalServer.start(config); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < accounts; i++) {
                j.set("acct:" + i, "1000");
            }
            j.configSet("rdb-key-save-delay", "20000"); // 20 ms a key: two seconds in all
            List<Thread> writers = transferring(s.port(), accounts, stop, transfers, failures);
            Thread.sleep(100);
            long before = transfers.get();
            take(s, "--rdb", file);
            during = transfers.get() - before;
            stop.set(true);
            for (Thread t : writers) {
                t.join();
            }
            j.configSet("rdb-key-save-delay", "0");
        }
        assertEquals(List.of(), failures);
        assertTrue(during > 50, "transfers went on while the snapshot was built: " + during);
        TestServers.onRedisWith(loading(file), port -> {
            try (Jedis theirs = new Jedis("127.0.0.1", port)) {
                long total = 0;
                for (int i = 0; i < accounts; i++) {
                    total += Long.parseLong(theirs.get("acct:" + i));
                }
                assertEquals(1000L * accounts, total, "the accounts in the snapshot add up");
            }
        });
    }

    /**
     * HTTP PUTs keep their keys for a snapshot being built, as commands do: keys are rewritten over
     * HTTP once INFO says the (slowed) snapshot is being built, so the file has none of the new
     * values; a snapshot reading each key as it found it had those the builder reached late.
     */
    @Test
    void httpWritesAfterTheSnapshotsMomentAreNotInIt() throws Exception {
        Path file = dir.resolve("http").resolve("dump.rdb");
        Files.createDirectories(file.getParent());
        int keys = 3000; // several of the builder's scan steps (512 keys each, read a step at a time)
        int rewritten = 200;
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("hdata")).withPorts(0, 0));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            redis.clients.jedis.Pipeline p = j.pipelined();
            for (int i = 0; i < keys; i++) {
                p.set("k" + i, "before");
            }
            p.sync();
            j.configSet("rdb-key-save-delay", "5000"); // 5 ms a key: 15 s in all, cut short after the writes
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread taker = new Thread(() -> {
                try {
                    take(s, "--rdb", file);
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            taker.start();
            assertEquals("1", TestServers.await("1", 20_000, () -> field(j.info("persistence"), "rdb_bgsave_in_progress")),
                    "INFO says a snapshot is being built");
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            for (int i = 0; i < rewritten; i++) {
                assertEquals(204, http.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/k" + i))
                        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("after")).build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode());
            }
            assertEquals("1", field(j.info("persistence"), "rdb_bgsave_in_progress"), "the writes went in while it was built");
            j.configSet("rdb-key-save-delay", "0");
            taker.join();
            assertEquals(List.of(), failures);
            assertEquals("0", field(j.info("persistence"), "rdb_bgsave_in_progress"));
            j.configSet("rdb-key-save-delay", "0");
        }
        TestServers.onRedisWith(loading(file), port -> {
            try (Jedis theirs = new Jedis("127.0.0.1", port)) {
                assertEquals((long) keys, theirs.dbSize());
                StringBuilder seen = new StringBuilder();
                for (int i = 0; i < rewritten; i++) {
                    seen.append(theirs.get("k" + i).equals("after") ? 'A' : 'b');
                }
                assertEquals("b".repeat(rewritten), seen.toString(), "keys rewritten after the snapshot's moment, as the file has them");
            }
        });
    }

    /**
     * A snapshot asked for while a script is writing waits for the script to end (its writes are
     * before the snapshot's moment) and the script's own commands do not wait for the snapshot: a
     * script's inner commands waiting at the start while the start waited for the script would hang both.
     */
    @Test
    void aSnapshotAskedForWhileAScriptWritesWaitsForItAndTheScriptGoesOn() throws Exception {
        Path file = dir.resolve("script").resolve("dump.rdb");
        Files.createDirectories(file.getParent());
        ServerConfig config = new ServerConfig("127.0.0.1", 0, -1, dir.resolve("sdata"), null, 10_000, 512L << 20, 0, 3, 0);
        try (ColossalServer s = ColossalServer.start(config)) {
            java.util.concurrent.CompletableFuture<Object> script = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (Jedis e = new Jedis("127.0.0.1", s.port(), 30_000)) {
                    return e.eval("for i = 1, 50000 do redis.call('INCR', 'n') end return redis.call('GET', 'n')");
                }
            });
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals("under way", TestServers.await("under way", 20_000, () -> j.get("n") != null ? "under way" : "not yet"));
            }
            take(s, "--rdb", file);
            assertEquals("50000", script.get(30, TimeUnit.SECONDS));
        }
        TestServers.onRedisWith(loading(file), port -> {
            try (Jedis theirs = new Jedis("127.0.0.1", port)) {
                assertEquals("50000", theirs.get("n"), "the script ended before the snapshot's moment");
            }
        });
    }

    /** @return an INFO field's value */
    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return "";
    }

    /** Runs {@code redis-cli --rdb FILE} (or {@code --functions-rdb}) against {@code s} and checks it says it succeeded. */
    private static void take(ColossalServer s, String option, Path file) throws Exception {
        Process cli = new ProcessBuilder("redis-cli", "-p", Integer.toString(s.port()), option, file.toString())
                .redirectErrorStream(true).start();
        String said = new String(cli.getInputStream().readAllBytes());
        assertTrue(cli.waitFor(60, TimeUnit.SECONDS) && cli.exitValue() == 0, said);
        assertTrue(said.contains("Transfer finished with success"), said);
    }

    /** redis-server's settings that start it from the RDB file {@code file}. */
    private static List<String> loading(Path file) {
        return List.of("--dir", file.getParent().toString(), "--dbfilename", file.getFileName().toString());
    }

    private static void fill(Jedis j) {
        j.set("str", "hello");
        j.set("num", "12345");
        j.setex("ttl", 1000, "soon");
        j.set("big", "x".repeat(100_000));
        j.rpush("list", "a", "b", "c");
        j.hset("hash", Map.of("f", "v", "g", "w"));
        Map<String, String> fields = new java.util.HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            fields.put("f" + i, "v" + i);
        }
        j.hset("bighash", fields);   // past hash-max-listpack-entries: bucketed
        j.sadd("ints", "3", "1", "2");
        j.sadd("set", "a", "b", "c");
        j.zadd("zset", Map.of("a", 1.5, "b", -2.0));
        for (int i = 1; i <= 300; i++) {
            j.xadd("stream", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
        }
        j.sendCommand(Protocol.Command.XGROUP, "CREATE", "stream", "g", "0");
        j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "g", "alice", "COUNT", "5", "STREAMS", "stream", ">");
        j.functionLoad("#!lua name=mylib\nredis.register_function('hi', function() return 'hi' end)");
        j.select(5);
        j.set("in5", "five");
        j.select(0);
    }

    /** @return every key of databases 0 and 5 with its type, TTL (rounded to minutes) and contents, in one comparable form */
    private static Map<String, String> everything(Jedis j) {
        Map<String, String> out = new TreeMap<>();
        for (int db : new int[] {0, 5}) {
            j.select(db);
            for (String k : new TreeSet<>(j.keys("*"))) {
                String type = j.type(k);
                String value = switch (type) {
                    case "string" -> j.get(k);
                    case "list" -> j.lrange(k, 0, -1).toString();
                    case "hash" -> new TreeMap<>(j.hgetAll(k)).toString();
                    case "set" -> new TreeSet<>(j.smembers(k)).toString() + " " + j.objectEncoding(k);
                    case "zset" -> j.zrangeWithScores(k, 0, -1).toString();
                    case "stream" -> j.xlen(k) + " " + j.xrange(k, "-", "+", 3) + " " + show(j.sendCommand(Protocol.Command.XINFO, "GROUPS", k))
                            + " " + show(j.sendCommand(Protocol.Command.XPENDING, k, "g"));
                    default -> "?";
                };
                long ttl = j.ttl(k);
                out.put(db + ":" + k, type + " ttl " + (ttl < 0 ? ttl : (ttl + 30) / 60) + " " + value);
            }
        }
        j.select(0);
        return out;
    }

    private static String show(Object reply) {
        return StreamsTest.show(reply);
    }

    /**
     * Two threads that move random amounts between random accounts {@code acct:0..accounts-1} in
     * MULTI/EXEC transactions until {@code stop}: the total stays what it was, in any one-moment view.
     */
    static List<Thread> transferring(int port, int accounts, java.util.concurrent.atomic.AtomicBoolean stop,
                                     java.util.concurrent.atomic.AtomicLong transfers, List<Throwable> failures) {
        List<Thread> writers = new java.util.ArrayList<>();
        for (int w = 0; w < 2; w++) {
            java.util.Random rnd = new java.util.Random(w);
            Thread t = new Thread(() -> {
                try (Jedis tj = new Jedis("127.0.0.1", port)) {
                    while (!stop.get()) {
                        redis.clients.jedis.Transaction tx = tj.multi();
                        int amount = 1 + rnd.nextInt(50);
                        tx.decrBy("acct:" + rnd.nextInt(accounts), amount);
                        tx.incrBy("acct:" + rnd.nextInt(accounts), amount);
                        tx.exec();
                        transfers.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            t.start();
            writers.add(t);
        }
        return writers;
    }
}
