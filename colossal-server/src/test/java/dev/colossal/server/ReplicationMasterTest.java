package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * redis-server 7.0.15 as a replica of Colossal ({@code --replicaof}): the full sync of every type,
 * a random write workload of the commands replication rewrites, expiry, a broken link resumed
 * with {@code +CONTINUE}, WAIT, and writes during a full sync. After each, every key of both
 * servers must compare equal: type, value, and deadline within a second.
 */
class ReplicationMasterTest {

    private static final int DBS = 3;

    @TempDir
    Path dir;

    @TempDir
    Path replicaDirs;

    /**
     * A replica of {@code masterPort}, or null (the test is skipped) without redis-server. Its
     * directory is the test's: a replica writes the snapshot it receives to dump.rdb there, which
     * the next redis-server started in the working directory would load.
     */
    private Process replica(int port, int masterPort) throws Exception {
        return TestServers.redis(port, "--replicaof", "127.0.0.1", Integer.toString(masterPort), "--dir",
                java.nio.file.Files.createTempDirectory(replicaDirs, "replica").toString());
    }

    private static String info(Wire w, String field) throws Exception {
        for (String line : w.call("INFO", "replication").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return "";
    }

    /** A check with a replica of ours. */
    @FunctionalInterface
    private interface ReplicaCheck {
        void run(Wire replica, Process process) throws Exception;
    }

    /** Runs {@code check} with a redis-server replicating {@code ours}, stopped after; skipped without redis-server. */
    private void withReplica(ColossalServer ours, ReplicaCheck check) throws Exception {
        int port = TestServers.freePort();
        Process redis = replica(port, ours.port());
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (Wire r = new Wire(port)) {
            check.run(r, redis);
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** Sends {@code SIGname} to {@code process}. */
    private static void signal(Process process, String name) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor());
    }

    /** Waits until the replica's link is up and it has applied all the master sent. */
    private static void caughtUp(Wire master, Wire replica) throws Exception {
        String up = TestServers.await("up", 20_000, () -> info(replica, "master_link_status"));
        assertEquals("up", up, "the replica's link to us");
        String offset = TestServers.await("true", 20_000,
                () -> Boolean.toString(info(replica, "slave_repl_offset").equals(info(master, "master_repl_offset"))));
        assertEquals("true", offset, "the replica has the whole stream: " + info(replica, "slave_repl_offset") + " of "
                + info(master, "master_repl_offset"));
    }

    /** Every key of every database on {@code w}: its type, its value in an order-free form, its deadline in seconds. */
    private static TreeMap<String, String> contents(Wire w) throws Exception {
        TreeMap<String, String> all = new TreeMap<>();
        for (int db = 0; db < DBS; db++) {
            w.call("SELECT", Integer.toString(db));
            for (RespFrame k : parsed(w, "KEYS", "*").children()) {
                String key = bulk(k);
                all.put(db + ":" + key, value(w, key));
            }
        }
        w.call("SELECT", "0");
        return all;
    }

    /** Asserts both servers hold the same keys, naming the ones that differ. */
    private static void sameContents(Wire m, Wire r, String when) throws Exception {
        TreeMap<String, String> ours = contents(m);
        TreeMap<String, String> theirs = contents(r);
        StringBuilder diff = new StringBuilder();
        java.util.TreeSet<String> keys = new java.util.TreeSet<>(ours.keySet());
        keys.addAll(theirs.keySet());
        for (String k : keys) {
            if (!java.util.Objects.equals(ours.get(k), theirs.get(k))) {
                diff.append("\n").append(k).append("\n  master:  ").append(ours.get(k)).append("\n  replica: ").append(theirs.get(k));
            }
        }
        assertEquals("", diff.toString(), when + ": keys that differ");
        assertTrue(ours.size() > 0);
    }

    /** @return a bulk string's text */
    private static String bulk(RespFrame f) {
        String t = new String(f.bytes(), StandardCharsets.ISO_8859_1);
        return t.substring(t.indexOf("\r\n") + 2, t.length() - 2);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String frame(Wire w, String... args) throws Exception {
        byte[][] a = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            a[i] = b(args[i]);
        }
        return new String(w.call(a), StandardCharsets.ISO_8859_1);
    }

    private static RespFrame parsed(Wire w, String... args) throws Exception {
        return RespFrame.parse(frame(w, args).getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String value(Wire w, String key) throws Exception {
        String type = frame(w, "TYPE", key);
        long at = Long.parseLong(frame(w, "PEXPIRETIME", key).substring(1).trim());
        String ttl = at < 0 ? "none" : Long.toString(Math.round(at / 1000.0));
        String v = switch (type) {
            case "+string\r\n" -> frame(w, "GET", key);
            case "+hash\r\n" -> parsed(w, "HGETALL", key).sortedPairs().text();
            case "+set\r\n" -> parsed(w, "SMEMBERS", key).sorted().text();
            case "+list\r\n" -> frame(w, "LRANGE", key, "0", "-1");
            case "+zset\r\n" -> frame(w, "ZRANGE", key, "0", "-1", "WITHSCORES");
            case "+stream\r\n" -> stream(w, key);
            default -> type;
        };
        return (type.trim() + " ttl=" + ttl + " " + v).replace("\r\n", " ");
    }

    /** A stream's entries, its groups (name, consumers, pending, last ID) and each group's pending entries less their idle time. */
    private static String stream(Wire w, String key) throws Exception {
        StringBuilder sb = new StringBuilder(frame(w, "XRANGE", key, "-", "+"));
        for (RespFrame g : parsed(w, "XINFO", "GROUPS", key).children()) {
            String name = bulk(g.children().get(1));
            for (int i = 0; i < 8; i++) {
                sb.append(g.children().get(i).text());
            }
            for (RespFrame p : parsed(w, "XPENDING", key, name, "-", "+", "1000").children()) {
                sb.append(p.children().get(0).text()).append(p.children().get(1).text()).append(p.children().get(3).text());
            }
        }
        return sb.toString();
    }

    /** Strings, hashes small and big, sets, lists, sorted sets small and big, streams with groups, TTLs, three databases, a function library. */
    private static void fill(Wire w) throws Exception {
        for (int db = 0; db < DBS; db++) {
            w.call("SELECT", Integer.toString(db));
            w.call("SET", "s", "text" + db);
            w.call("SET", "n", "42");
            w.call("SET", "ttl", "v", "EX", "1000");
            w.call("HSET", "h", "f", "v", "g", "2");
            for (int i = 0; i < 700; i++) {
                w.call("HSET", "bigh", "f" + i, "v" + i);
                w.call("ZADD", "bigz", Integer.toString(i), "m" + i);
                w.call("SADD", "bigset", "member" + i);
            }
            w.call("SADD", "ints", "1", "2", "3");
            w.call("SADD", "set", "a", "b", "c", "d", "e", "f");
            w.call("RPUSH", "l", "a", "b", "c", "d");
            w.call("ZADD", "z", "1", "a", "2.5", "b");
            w.call("XADD", "x", "1-1", "f", "v");
            w.call("XADD", "x", "2-1", "f", "w");
            w.call("XADD", "x", "3-1", "f", "y");
            w.call("XGROUP", "CREATE", "x", "g", "0");
            w.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "x", ">");
            w.call("PEXPIRE", "l", "900000");
        }
        w.call("SELECT", "0");
        w.call("FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('bump', function(keys, args) "
                + "redis.call('INCR', keys[1]); return redis.call('INCRBYFLOAT', keys[2], '0.5') end)");
    }

    @Test
    void fullSyncThenRewrittenWritesLeaveEqualData() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port())) {
            fill(m);
            withReplica(ours, (r, process) -> {
                try (Wire blocked = new Wire(ours.port())) {
                    caughtUp(m, r);
                    sameContents(m, r, "after the full sync");
                    assertTrue(frame(r, "FUNCTION", "LIST").contains("mylib"), "the function library came with the snapshot");
                    workload(m, blocked, new Random(7));
                    caughtUp(m, r);
                    sameContents(m, r, "after the workload");
                }
            });
        }
    }

    /**
     * A replica's snapshot is built while the master goes on writing, and is of the moment its
     * stream starts from: the workload runs (keys kept before the snapshot takes them, keys created,
     * renamed, moved to another database) while the replica waits, and the replica ends equal.
     */
    @Test
    void writesGoOnWhileASnapshotIsBuiltAndItIsOfOneMoment() throws Exception {
        ServerConfig config = new ServerConfig("127.0.0.1", 0, -1, dir, null, 10_000, 512L << 20, 0, 3, 0);
        try (ColossalServer ours = ColossalServer.start(config); Wire m = new Wire(ours.port());
             Wire blocked = new Wire(ours.port())) {
            fill(m);
            workload(m, blocked, new Random(3), new AtomicLong()); // every key the workload writes exists at the start
            assertEquals("+OK\r\n", m.call("CONFIG", "SET", "rdb-key-save-delay", "20000")); // 20 ms a key: seconds in all
            AtomicLong ops = new AtomicLong();
            AtomicLong opsWhileWaiting = new AtomicLong(-1);
            withReplica(ours, (r, process) -> {
                int secondPort = TestServers.freePort();
                Process second = null;
                try (Wire watcher = new Wire(ours.port())) {
                    TestServers.await("true", 20_000, () -> Boolean.toString(watcher.call("INFO", "replication").contains("state=wait_bgsave")));
                    // a second replica that comes meanwhile waits for the same snapshot
                    second = replica(secondPort, ours.port());
                    TestServers.await("true", 20_000, () -> Boolean.toString(watcher.call("INFO", "replication").contains("slave1:")));
                    assertTrue(watcher.call("INFO", "replication").matches("(?s).*slave1:[^\r]*state=wait_bgsave.*"),
                            watcher.call("INFO", "replication"));
                    Thread poller = new Thread(() -> {
                        try {
                            while (watcher.call("INFO", "replication").contains("state=wait_bgsave")) {
                                opsWhileWaiting.set(ops.get());
                                Thread.sleep(10);
                            }
                        } catch (Exception e) {
                            opsWhileWaiting.set(-2);
                        }
                    });
                    poller.start();
                    workload(m, blocked, new Random(11), ops);
                    poller.join();
                    assertTrue(opsWhileWaiting.get() > 100, "writes ran while the snapshot was built: " + opsWhileWaiting.get());
                    caughtUp(m, r);
                    sameContents(m, r, "after writes during the snapshot");
                    assertTrue(frame(r, "FUNCTION", "LIST").contains("mylib"), "the function library came with the snapshot");
                    try (Wire r2 = new Wire(secondPort)) {
                        caughtUp(m, r2);
                        sameContents(m, r2, "the replica that joined the snapshot");
                    }
                } finally {
                    if (second != null) {
                        second.destroy();
                        second.waitFor();
                    }
                }
            });
            m.call("CONFIG", "SET", "rdb-key-save-delay", "0");
        }
    }

    /** SWAPDB moves whole databases, which no key-by-key copy follows: a replica waiting for its snapshot syncs again. */
    @Test
    void aSwapdbWhileASnapshotIsBuiltMakesItsReplicaSyncAgain() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port())) {
            fill(m);
            m.call("CONFIG", "SET", "rdb-key-save-delay", "20000");
            withReplica(ours, (r, process) -> {
                TestServers.await("true", 20_000, () -> Boolean.toString(m.call("INFO", "replication").contains("state=wait_bgsave")));
                assertEquals("+OK\r\n", m.call("SWAPDB", "0", "1"));
                m.call("CONFIG", "SET", "rdb-key-save-delay", "0");
                m.call("SET", "after", "swap");
                caughtUp(m, r);
                sameContents(m, r, "after SWAPDB during the snapshot");
                String stats = m.call("INFO", "stats");
                assertTrue(stats.contains("sync_full:2\r\n"), "a second full sync: " + stats);
            });
        }
    }

    private static void workload(Wire w, Wire blocked, Random rnd) throws Exception {
        workload(w, blocked, rnd, new AtomicLong());
    }

    /** Every command replication rewrites, and the plain ones, at random over a few keys of each type; {@code ops} counts them. */
    private static void workload(Wire w, Wire blocked, Random rnd, AtomicLong ops) throws Exception {
        for (int i = 0; i < 1500; i++, ops.incrementAndGet()) {
            String k = Integer.toString(rnd.nextInt(4));
            String v = Integer.toString(rnd.nextInt(1000));
            switch (rnd.nextInt(34)) {
                case 0 -> w.call("SET", "s" + k, v, "EX", "500");
                case 1 -> w.call("SETEX", "s" + k, "600", v);
                case 2 -> w.call("PSETEX", "s" + k, "700000", v);
                case 3 -> w.call("EXPIRE", "s" + k, "800");
                case 4 -> w.call("PEXPIRE", "h" + k, "900000");
                case 5 -> w.call("GETEX", "s" + k, "PX", "400000");
                case 6 -> w.call("GETEX", "s" + k, "PERSIST");
                case 7 -> w.call("INCRBYFLOAT", "f" + k, "0.1");
                case 8 -> w.call("HINCRBYFLOAT", "h" + k, "fl", "1.25");
                case 9 -> w.call("SADD", "set" + k, v, v + "x", v + "y");
                case 10 -> w.call("SPOP", "set" + k);
                case 11 -> w.call("SPOP", "set" + k, "2");
                case 12 -> w.call("RPUSH", "l" + k, v, v);
                case 13 -> w.call("BLPOP", "l" + k, "l9", "0.01");
                case 14 -> w.call("BLMOVE", "l" + k, "l" + v.charAt(0), "LEFT", "RIGHT", "0.01");
                case 15 -> w.call("ZADD", "z" + k, v, "m" + v);
                case 16 -> w.call("BZPOPMIN", "z" + k, "0.01");
                case 17 -> w.call("BLMPOP", "0.01", "2", "l" + k, "l8", "RIGHT", "COUNT", "2");
                case 18 -> w.call("XADD", "x" + k, "MAXLEN", "~", "5", "*", "f", v);
                case 19 -> {
                    w.call("XGROUP", "CREATE", "x" + k, "g", "0", "MKSTREAM");
                    w.call("XREADGROUP", "GROUP", "g", "c" + v.charAt(0), "COUNT", "2", "STREAMS", "x" + k, ">");
                }
                case 20 -> w.call("XCLAIM", "x" + k, "g", "bob", "0", "0-1");
                case 21 -> w.call("XAUTOCLAIM", "x" + k, "g", "carol", "0", "0", "COUNT", "3");
                case 22 -> w.call("EVAL", "redis.call('SET', KEYS[1], ARGV[1], 'PX', 300000); "
                        + "return redis.call('SPOP', KEYS[2])", "2", "s" + k, "set" + k, v);
                case 23 -> w.call("FCALL", "bump", "2", "n" + k, "f" + k);
                case 24 -> {
                    w.call("MULTI");
                    w.call("INCR", "n" + k);
                    w.call("SPOP", "set" + k);
                    w.call("EXPIRE", "n" + k, "1000");
                    w.call("EXEC");
                }
                case 25 -> {
                    w.call("SELECT", Integer.toString(1 + rnd.nextInt(DBS - 1)));
                    w.call("SET", "s" + k, v, "PX", "100000");
                    w.call("SPOP", "set");
                    w.call("SELECT", "0");
                }
                case 26 -> w.call("COPY", "h" + k, "hcopy" + k, "REPLACE");
                case 27 -> w.call("RENAME", "hcopy" + k, "hren" + k);
                case 28 -> w.call("MOVE", "hren" + k, "2");
                case 29 -> {
                    byte[] dump = w.call(b("DUMP"), b("z" + k));
                    if (dump[0] == '$' && dump[1] != '-') {
                        String d = new String(dump, StandardCharsets.ISO_8859_1);
                        byte[] payload = d.substring(d.indexOf("\r\n") + 2, d.length() - 2).getBytes(StandardCharsets.ISO_8859_1);
                        w.call(b("RESTORE"), b("zr" + k), b("0"), payload, b("REPLACE"));
                    }
                }
                case 30 -> {
                    // served later: a blocked client takes what another pushes
                    blocked.send(Wire.encode("BLPOP", "q" + k, "5"));
                    Thread.sleep(5);
                    w.call("LPUSH", "q" + k, v);
                    blocked.reply();
                }
                case 31 -> w.call("HSET", "h" + k, "f" + v, v);
                case 32 -> w.call("DEL", "nosuch" + k, "f" + k);
                default -> w.call("SET", "s" + k, v, "NX", "GET");
            }
        }
        w.call("SELECT", "2");
        w.call("FLUSHDB");
        w.call("SET", "after", "flush");
        w.call("SELECT", "0");
    }

    @Test
    void writesOverHttpReachTheReplica() throws Exception {
        try (ColossalServer ours = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Wire m = new Wire(ours.port())) {
            withReplica(ours, (r, process) -> {
                m.call("SET", "gone", "soon");
                caughtUp(m, r);
                java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + ours.httpPort() + "/v1/keys/";
                assertEquals(204, http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "put?ttl=100"))
                        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("over http")).build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode());
                assertEquals(204, http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "gone")).DELETE().build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode());
                caughtUp(m, r);
                assertEquals("$9\r\nover http\r\n", r.call("GET", "put"));
                assertEquals(":0\r\n", r.call("EXISTS", "gone"));
                sameContents(m, r, "after HTTP writes");
            });
        }
    }

    @Test
    void keysExpiringOnTheMasterGoFromTheReplica() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port())) {
            withReplica(ours, (r, process) -> {
                m.call("SET", "kept", "v");
                caughtUp(m, r);
                m.call("SET", "brief", "v", "PX", "1500");
                m.call("HSET", "brief2", "f", "v");
                m.call("PEXPIRE", "brief2", "1800");
                caughtUp(m, r);
                // DBSIZE counts what the replica holds, not what it hides: a replica deletes nothing itself
                assertEquals(":3\r\n", r.call("DBSIZE"));
                assertEquals(":1\r\n", TestServers.await(":1\r\n", 15_000, () -> r.call("DBSIZE")), "the expired keys went");
                assertEquals("$1\r\nv\r\n", r.call("GET", "kept"));
            });
        }
    }

    @Test
    void aBrokenLinkResumesWithContinueAndLosesNothing() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port())) {
            withReplica(ours, (r, process) -> {
                m.call("SET", "a", "1");
                caughtUp(m, r);
                // a key of the replica's own: a full sync would flush it, a partial one keeps it
                r.call("CONFIG", "SET", "replica-read-only", "no");
                r.call("SET", "only-on-replica", "1");
                // stopped, the replica reads none of these before it comes back for them
                signal(process, "STOP");
                try {
                    assertEquals(":1\r\n", m.call("CLIENT", "KILL", "TYPE", "replica"));
                    assertEquals("0", TestServers.await("0", 5_000, () -> info(m, "connected_slaves")));
                    for (int i = 0; i < 200; i++) {
                        m.call("INCR", "counter");
                        m.call("RPUSH", "list", Integer.toString(i));
                    }
                } finally {
                    signal(process, "CONT");
                }
                caughtUp(m, r);
                assertEquals("$1\r\n1\r\n", r.call("GET", "only-on-replica"), "resumed, not synced again");
                r.call("DEL", "only-on-replica");
                sameContents(m, r, "after the resumed link");
                assertEquals("1", info(m, "connected_slaves"));
            });
        }
    }

    @Test
    void psyncContinuesWithinTheBacklogAndSyncsInFullBeyondIt() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port())) {
            assertEquals("+OK\r\n", m.call("CONFIG", "SET", "repl-backlog-size", "16kb"));
            m.call("SET", "a", "1");
            String[] full;
            try (java.net.Socket first = new java.net.Socket("127.0.0.1", ours.port())) {
                full = psync(first, "?", "-1").split(" ");
                assertEquals("+FULLRESYNC", full[0]);
                assertEquals(40, full[1].length());
                assertEquals("0", full[2], "nothing was written since the first replica came");
            }
            long start = Long.parseLong(full[2]);
            m.call("SET", "b", "2");
            String set = "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n";
            try (java.net.Socket again = new java.net.Socket("127.0.0.1", ours.port())) {
                assertEquals("+CONTINUE " + full[1], psync(again, full[1], Long.toString(start + 1)));
                // what the first replica missed: the SELECT and the SET after its snapshot
                String missed = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + set;
                assertEquals(missed, new String(again.getInputStream().readNBytes(missed.length()), StandardCharsets.US_ASCII));
            }
            List<String> mset = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < 40; i++) {
                mset.add("big" + i);
                mset.add("x".repeat(1000));
            }
            m.call(mset.toArray(new String[0]));
            m.call("SET", "b", "2");
            long end = Long.parseLong(info(m, "master_repl_offset"));
            try (java.net.Socket late = new java.net.Socket("127.0.0.1", ours.port())) {
                assertTrue(psync(late, full[1], Long.toString(start + 1)).startsWith("+FULLRESYNC " + full[1] + " " + end),
                        "40 kB missed of a 16 kB backlog: a full sync");
            }
            try (java.net.Socket recent = new java.net.Socket("127.0.0.1", ours.port())) {
                assertEquals("+CONTINUE " + full[1], psync(recent, full[1], Long.toString(end + 1 - set.length())));
                assertEquals(set, new String(recent.getInputStream().readNBytes(set.length()), StandardCharsets.US_ASCII));
            }
            try (java.net.Socket other = new java.net.Socket("127.0.0.1", ours.port())) {
                assertTrue(psync(other, "0".repeat(40), Long.toString(end + 1)).startsWith("+FULLRESYNC "),
                        "another master's ID: a full sync");
            }
            assertTrue(info(m, "repl_backlog_size").equals("16384"));
        }
    }

    /**
     * SYNC, the protocol before PSYNC that {@code redis-cli --replica} and replication tools speak:
     * the snapshot, then the stream of writes, with no {@code +FULLRESYNC} line; a multi-key pop
     * goes as its one key's pop with the count popped and GETDEL as DEL, as Redis sends them. After
     * {@code REPLCONF rdb-only 1} ({@code redis-cli --rdb}) the snapshot alone: the connection
     * answers commands again and is sent no writes. SYNC sent a snapshot only, and then nothing.
     */
    @Test
    void syncIsFollowedByTheStreamUnlessRdbOnly() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port());
             java.net.Socket follower = new java.net.Socket("127.0.0.1", ours.port());
             java.net.Socket snapshotOnly = new java.net.Socket("127.0.0.1", ours.port())) {
            m.call("RPUSH", "l", "a", "b", "c");
            m.call("ZADD", "z", "1", "x", "2", "y");
            m.call("SET", "g", "v");
            follower.setSoTimeout(10_000);
            follower.getOutputStream().write(Wire.encode("SYNC"));
            skipSnapshot(follower.getInputStream());
            snapshotOnly.setSoTimeout(10_000);
            snapshotOnly.getOutputStream().write(Wire.encode("REPLCONF", "rdb-only", "1"));
            assertEquals("+OK\r\n", read(snapshotOnly, 5));
            snapshotOnly.getOutputStream().write(Wire.encode("SYNC"));
            skipSnapshot(snapshotOnly.getInputStream());
            m.call("LMPOP", "2", "none", "l", "RIGHT", "COUNT", "2");
            m.call("BZMPOP", "0", "1", "z", "MIN");
            m.call("GETDEL", "g");
            m.call("GETDEL", "g"); // nothing deleted: nothing sent
            m.call("SET", "end", "1");
            String stream = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + "*3\r\n$4\r\nRPOP\r\n$1\r\nl\r\n$1\r\n2\r\n"
                    + "*3\r\n$7\r\nZPOPMIN\r\n$1\r\nz\r\n$1\r\n1\r\n" + "*2\r\n$3\r\nDEL\r\n$1\r\ng\r\n"
                    + "*3\r\n$3\r\nSET\r\n$3\r\nend\r\n$1\r\n1\r\n";
            assertEquals(stream, read(follower, stream.length()));
            byte[] dump = m.call("DUMP".getBytes(StandardCharsets.US_ASCII), "l".getBytes(StandardCharsets.US_ASCII));
            int header = new String(dump, StandardCharsets.ISO_8859_1).indexOf("\r\n") + 2;
            byte[] payload = java.util.Arrays.copyOfRange(dump, header, dump.length - 2);
            m.call("RESTORE".getBytes(StandardCharsets.US_ASCII), "l2".getBytes(StandardCharsets.US_ASCII),
                    "100000".getBytes(StandardCharsets.US_ASCII), payload);
            // a TTL relative to now goes as the deadline it gave (13 digits of ms), with ABSTTL
            String restore = new String(follower.getInputStream().readNBytes(
                    "*5\r\n$7\r\nRESTORE\r\n$2\r\nl2\r\n$13\r\n".length() + 15 + header + payload.length + 2
                    + "$6\r\nABSTTL\r\n".length()), StandardCharsets.ISO_8859_1);
            assertTrue(restore.startsWith("*5\r\n$7\r\nRESTORE\r\n$2\r\nl2\r\n$13\r\n")
                    && restore.endsWith("\r\n$6\r\nABSTTL\r\n"), restore);
            snapshotOnly.getOutputStream().write(Wire.encode("PING"));
            assertEquals("+PONG\r\n", read(snapshotOnly, 7), "an ordinary connection, sent no writes");
        }
    }

    /**
     * A blocked BLMPOP that another client's push serves goes in the stream after the push, as a
     * command of its own, as Redis 7.0 sends it (its suite's {@code BLMPOP propagate as pop with
     * count command to replica}); it went inside a MULTI/EXEC with the push. A transaction that
     * pushes stays one MULTI/EXEC, the served pop after its EXEC.
     */
    @Test
    void aServedBlockedPopFollowsThePushOutsideItsTransaction() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port());
             java.net.Socket follower = new java.net.Socket("127.0.0.1", ours.port());
             java.net.Socket blocked = new java.net.Socket("127.0.0.1", ours.port())) {
            follower.setSoTimeout(10_000);
            follower.getOutputStream().write(Wire.encode("SYNC"));
            skipSnapshot(follower.getInputStream());
            blocked.setSoTimeout(10_000);
            blocked.getOutputStream().write(Wire.encode("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "1"));
            awaitBlocked(m, 1);
            m.call("LPUSH", "l", "a");
            assertEquals("*2\r\n$1\r\nl\r\n*1\r\n$1\r\na\r\n", read(blocked, 22));
            blocked.getOutputStream().write(Wire.encode("BLMPOP", "0", "1", "l", "RIGHT", "COUNT", "5"));
            awaitBlocked(m, 1);
            m.call("MULTI");
            m.call("LPUSH", "l", "b");
            m.call("LPUSH", "l", "c");
            m.call("EXEC");
            m.call("SET", "end", "1");
            String stream = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                    + "*3\r\n$5\r\nLPUSH\r\n$1\r\nl\r\n$1\r\na\r\n" + "*3\r\n$4\r\nLPOP\r\n$1\r\nl\r\n$1\r\n1\r\n"
                    + "*1\r\n$5\r\nMULTI\r\n" + "*3\r\n$5\r\nLPUSH\r\n$1\r\nl\r\n$1\r\nb\r\n"
                    + "*3\r\n$5\r\nLPUSH\r\n$1\r\nl\r\n$1\r\nc\r\n" + "*1\r\n$4\r\nEXEC\r\n"
                    + "*3\r\n$4\r\nRPOP\r\n$1\r\nl\r\n$1\r\n2\r\n" + "*3\r\n$3\r\nSET\r\n$3\r\nend\r\n$1\r\n1\r\n";
            assertEquals(stream, read(follower, stream.length()));
        }
    }

    /** Waits until INFO clients counts {@code n} blocked clients. */
    private static void awaitBlocked(Wire m, int n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!m.call("INFO", "clients").contains("blocked_clients:" + n + "\r\n")) {
            assertTrue(System.nanoTime() < deadline, "no client blocked");
            Thread.sleep(10);
        }
    }

    /** Reads SYNC's snapshot off {@code in}: newlines while it is made, {@code $length}, the file. */
    private static void skipSnapshot(java.io.InputStream in) throws Exception {
        int b;
        while ((b = in.read()) != '$') {
            assertEquals('\n', b);
        }
        StringBuilder length = new StringBuilder();
        while ((b = in.read()) != '\r') {
            length.append((char) b);
        }
        in.skipNBytes(1 + Long.parseLong(length.toString()));
    }

    private static String read(java.net.Socket s, int n) throws Exception {
        return new String(s.getInputStream().readNBytes(n), StandardCharsets.US_ASCII);
    }

    /** Sends PSYNC on {@code s} and reads its first line, as a replica would. */
    private static String psync(java.net.Socket s, String id, String offset) throws Exception {
        s.setSoTimeout(10_000);
        s.getOutputStream().write(Wire.encode("PSYNC", id, offset));
        StringBuilder line = new StringBuilder();
        java.io.InputStream in = s.getInputStream();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /**
     * SHUTDOWN (and SIGTERM, the same close) holds writes and waits for the replicas to have the
     * whole stream, as Redis 7.0 waits shutdown-timeout: a stopped replica that 30 MB of writes
     * piled up behind is sent all of them once it runs again, before the master stops. Without
     * the wait the master closed the link with most of them unsent.
     */
    @Test
    void aStoppingMasterWaitsForItsReplicasToCatchUp() throws Exception {
        ColossalServer ours = TestServers.colossal(dir);
        try {
            withReplica(ours, (replica, process) -> {
                String value = "v".repeat(100_000);
                long tookMillis;
                try (Wire m = new Wire(ours.port())) {
                    caughtUp(m, replica);
                    signal(process, "STOP"); // the replica reads nothing: the stream piles up here
                    for (int i = 0; i < 300; i++) {
                        m.call("SET", "big" + i, value);
                    }
                    m.call("INCR", "last");
                    Thread resume = new Thread(() -> {
                        try {
                            Thread.sleep(1500);
                            signal(process, "CONT");
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    resume.start();
                    long t0 = System.nanoTime();
                    m.send(Wire.encode(new byte[][] {b("SHUTDOWN")}));
                    ours.awaitShutdown();
                    tookMillis = (System.nanoTime() - t0) / 1_000_000;
                    resume.join();
                }
                assertEquals(":301\r\n", replica.call("DBSIZE"), "every write reached the replica");
                assertEquals("$1\r\n1\r\n", replica.call("GET", "last"));
                assertEquals(":100000\r\n", replica.call("STRLEN", "big299"));
                assertTrue(tookMillis >= 1000, "stopped after " + tookMillis + " ms: before the replica ran again");
            });
        } finally {
            ours.close();
        }
    }

    @Test
    void waitCountsTheReplicasThatHaveTheWrites() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire m = new Wire(ours.port())) {
            m.call("SET", "k", "v");
            assertEquals(":0\r\n", m.call("WAIT", "1", "100"), "no replica yet: 0 after the timeout");
            withReplica(ours, (r, process) -> {
                caughtUp(m, r);
                m.call("SET", "k", "w");
                assertEquals(":1\r\n", m.call("WAIT", "1", "5000"));
                assertEquals("$1\r\nw\r\n", r.call("GET", "k"));
                long t = System.nanoTime();
                assertEquals(":1\r\n", m.call("WAIT", "2", "300"), "one replica of the two asked for, after the timeout");
                assertTrue(System.nanoTime() - t >= 250_000_000L, "WAIT waited out its timeout");
                String role = m.call("ROLE");
                assertTrue(role.startsWith("*3\r\n$6\r\nmaster\r\n:") && role.contains("$" + Integer.toString(r.socket.getPort()).length()
                        + "\r\n" + r.socket.getPort() + "\r\n"), role);
                assertTrue(m.call("INFO", "replication").contains("slave0:ip=127.0.0.1,port=" + r.socket.getPort() + ",state=online"));
            });
        }
    }

    @Test
    void writesDuringAFullSyncAreNeitherLostNorDoubled() throws Exception {
        // Several event loops: the writer's and the replica's connections run on different threads
        ServerConfig config = new ServerConfig("127.0.0.1", 0, -1, dir, null, 10_000, 512L << 20, 0, 3, 0);
        try (ColossalServer ours = ColossalServer.start(config); Wire m = new Wire(ours.port())) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 100_000; i++) {
                batch.append("*3\r\n$3\r\nSET\r\n$").append(("key:" + i).length()).append("\r\nkey:").append(i)
                        .append("\r\n$5\r\nvalue\r\n");
            }
            m.send(batch.toString().getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 100_000; i++) {
                m.reply();
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong done = new AtomicLong();
            List<Throwable> failures = new ArrayList<>();
            Thread writer = new Thread(() -> {
                try (Wire w = new Wire(ours.port())) {
                    while (!stop.get()) {
                        w.call("INCR", "counter");
                        w.call("SADD", "members", Long.toString(done.incrementAndGet()));
                    }
                } catch (Exception e) {
                    failures.add(e);
                }
            });
            writer.start();
            Thread.sleep(50);
            withReplica(ours, (r, process) -> {
                TestServers.await("up", 20_000, () -> info(r, "master_link_status"));
                Thread.sleep(200);
                stop.set(true);
                writer.join();
                assertEquals(List.of(), failures);
                caughtUp(m, r);
                assertEquals(":" + done.get() + "\r\n", m.call("GET", "counter").replaceFirst("^\\$\\d+\r\n", ":"));
                assertEquals(m.call("GET", "counter"), r.call("GET", "counter"));
                assertEquals(m.call("SCARD", "members"), r.call("SCARD", "members"));
                assertEquals(":100002\r\n", r.call("DBSIZE"));
            });
        }
    }
}
