package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Colossal as a replica of a real redis-server 7.0.15 (REPLICAOF): the full sync of every type
 * (diskless, Redis 7.0's default, and from a disk snapshot), a write workload the master sends on,
 * a link dropped (by either end) and resumed with a partial resync, and what clients see on the replica (READONLY,
 * byte for byte as a redis-server replica answers it; ROLE; INFO). After each, every key of every
 * database reads the same on both servers: type, value and TTL within a second and a half.
 */
class ReplicaDifferentialTest {

    private static final int DBS = 4;

    @TempDir
    Path dir;

    @Test
    void aDisklessFullSyncOfEveryTypeThenAWorkloadLeavesBothEqual() throws Exception {
        withMaster(master -> {
            fill(master);
            try (ColossalServer s = TestServers.colossal(dir); Wire replica = new Wire(s.port())) {
                assertEquals("+OK\r\n", replica.call("REPLICAOF", "127.0.0.1", Integer.toString(master.socket.getPort())));
                awaitInSync(master, replica);
                assertSameData(master, replica);
                // Redis lists a library's functions in its hash table's order: compared as sets
                assertEquals(sortedItems(master.call("FUNCTION", "LIST")), sortedItems(replica.call("FUNCTION", "LIST")));
                workload(master, new Random(7), 3000);
                awaitInSync(master, replica);
                assertSameData(master, replica);
            }
        });
    }

    /**
     * A server that starts to follow a master drops the replicas it had (their data is about to be
     * replaced under them), then serves them the master's stream: a late PSYNC gets the master's id
     * and offset. While its link is down, PSYNC gets Redis's NOMASTERLINK, byte for byte as a
     * redis-server replica of a dead master answers it.
     */
    @Test
    void aReplicaDropsItsReplicasWhenItFollowsThenServesThemTheMastersStream() throws Exception {
        withMaster(master -> {
            try (ColossalServer s = TestServers.colossal(dir); Wire ours = new Wire(s.port());
                    Wire sub = new Wire(s.port()); Wire admin = new Wire(s.port())) {
                sub.call("REPLCONF", "listening-port", "1");
                assertTrue(sub.call("PSYNC", "?", "-1").startsWith("+FULLRESYNC "), "a master serves it");
                assertTrue(admin.call("CLIENT", "LIST", "TYPE", "replica").contains(" flags=S "));
                ours.call("REPLICAOF", "127.0.0.1", Integer.toString(master.socket.getPort()));
                awaitInSync(master, ours);
                assertEquals("$0\r\n\r\n", TestServers.await("$0\r\n\r\n", 5_000,
                        () -> admin.call("CLIENT", "LIST", "TYPE", "replica")), "dropped once it follows");
                master.call("SET", "k", "v");
                awaitInSync(master, ours);
                String info = master.call("INFO", "replication");
                try (Wire late = new Wire(s.port())) {
                    assertEquals("+FULLRESYNC " + PolyglotClientsTest.field(info, "master_replid") + " "
                            + PolyglotClientsTest.field(info, "master_repl_offset"), late.call("PSYNC", "?", "-1").strip());
                }
                int dead = TestServers.freePort();
                ours.call("REPLICAOF", "127.0.0.1", Integer.toString(dead));
                Process theirs = redis("--replicaof", "127.0.0.1", Integer.toString(dead));
                try (Wire late = new Wire(s.port()); Wire redisReplica = new Wire(port(theirs))) {
                    assertEquals(redisReplica.call("PSYNC", "?", "-1"), late.call("PSYNC", "?", "-1"));
                    assertEquals("-NOMASTERLINK Can't SYNC while not connected with my master\r\n",
                            late.call("PSYNC", "?", "-1"));
                } finally {
                    stop(theirs);
                }
            }
        });
    }

    @Test
    void aFullSyncFromADiskSnapshot() throws Exception {
        withMaster(master -> {
            assertEquals("+OK\r\n", master.call("CONFIG", "SET", "repl-diskless-sync", "no"));
            fill(master);
            try (ColossalServer s = TestServers.colossal(dir); Wire replica = new Wire(s.port())) {
                // a key of our own that the sync must remove: the replica's databases are emptied first
                replica.call("SET", "stale", "x");
                replica.call("REPLICAOF", "127.0.0.1", Integer.toString(master.socket.getPort()));
                awaitInSync(master, replica);
                assertSameData(master, replica);
                assertEquals("$-1\r\n", replica.call("GET", "stale"));
                workload(master, new Random(11), 1000);
                awaitInSync(master, replica);
                assertSameData(master, replica);
            }
        });
    }

    @Test
    void aDroppedLinkResumesWithAPartialResyncAndLosesNoWrite() throws Exception {
        withMaster(master -> {
            fill(master);
            try (ColossalServer s = TestServers.colossal(dir); Wire replica = new Wire(s.port());
                    Wire admin = new Wire(master.socket.getPort())) {
                replica.call("REPLICAOF", "127.0.0.1", Integer.toString(master.socket.getPort()));
                awaitInSync(master, replica);
                workload(master, new Random(3), 500);
                assertEquals(":1\r\n", admin.call("CLIENT", "KILL", "TYPE", "replica"));
                workload(master, new Random(4), 500); // while the link is down: from the master's backlog
                awaitInSync(master, replica);
                String stats = master.call("INFO", "stats");
                assertTrue(stats.contains("sync_full:1\r\n"), stats);
                assertTrue(stats.contains("sync_partial_ok:1\r\n"), stats);
                assertSameData(master, replica);

                // the other end: the replica drops its master's client, which shows as Redis shows it
                String link = replica.call("CLIENT", "LIST", "TYPE", "master");
                assertTrue(link.contains(" addr=127.0.0.1:" + master.socket.getPort() + " ") && link.contains(" flags=M "), link);
                assertEquals("$0\r\n\r\n", replica.call("CLIENT", "LIST", "TYPE", "replica"));
                assertEquals(":1\r\n", replica.call("CLIENT", "KILL", "TYPE", "master"));
                workload(master, new Random(5), 300);
                awaitInSync(master, replica);
                stats = master.call("INFO", "stats");
                assertTrue(stats.contains("sync_full:1\r\n") && stats.contains("sync_partial_ok:2\r\n"), stats);
                assertSameData(master, replica);
            }
        });
    }

    @Test
    void writesOnTheReplicaAreRefusedAsARedisReplicaRefusesThemUntilReplicaofNoOne() throws Exception {
        withMaster(master -> {
            int masterPort = master.socket.getPort();
            master.call("SET", "k", "v");
            master.call("RPUSH", "l", "a", "b");
            master.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('rw', function(k) return 1 end)\n"
                    + "redis.register_function{function_name='ro', callback=function(k) return redis.call('GET', k[1]) end,"
                    + " flags={'no-writes'}}");
            Process redisReplica = redis("--replicaof", "127.0.0.1", Integer.toString(masterPort));
            int redisReplicaPort = port(redisReplica);
            try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
                    Wire ours = new Wire(s.port()); Wire theirs = new Wire(redisReplicaPort)) {
                ours.call("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
                awaitInSync(master, ours);
                awaitInSync(master, theirs);
                List<String[]> requests = List.of(new String[] {"SET", "k", "w"}, new String[] {"GET", "k"},
                        new String[] {"LPUSH", "l", "x"}, new String[] {"LRANGE", "l", "0", "-1"},
                        new String[] {"DEL", "k"}, new String[] {"INCR", "n"}, new String[] {"FLUSHALL"},
                        new String[] {"MULTI"}, new String[] {"SET", "a", "1"}, new String[] {"GET", "k"},
                        new String[] {"EXEC"}, new String[] {"EXISTS", "k"}, new String[] {"SELECT", "2"},
                        new String[] {"HSET", "h", "f", "v"}, new String[] {"SELECT", "0"},
                        new String[] {"REPLICAOF", "127.0.0.1", "x"}, new String[] {"SETEX", "k", "10", "v"},
                        new String[] {"EVAL", "return redis.call('GET', KEYS[1])", "1", "k"},
                        new String[] {"EVAL", "return redis.call('SET', KEYS[1], 'x')", "1", "k"},
                        new String[] {"EVAL", "#!lua\nreturn redis.call('SET', KEYS[1], 'x')", "1", "k"},
                        new String[] {"EVAL", "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "k"},
                        new String[] {"PUBLISH", "c", "m"}, new String[] {"SORT", "l", "ALPHA", "STORE", "d"},
                        new String[] {"SORT_RO", "l", "ALPHA"}, new String[] {"DBSIZE"},
                        new String[] {"FCALL", "rw", "1", "k"}, new String[] {"FCALL", "ro", "1", "k"},
                        new String[] {"FCALL_RO", "ro", "1", "k"});
                for (String[] request : requests) {
                    assertEquals(theirs.call(request), ours.call(request), String.join(" ", request));
                }
                // the HTTP API's writes too: 409, reads as ever
                java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
                java.net.URI key = java.net.URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/k");
                var put = http.send(java.net.http.HttpRequest.newBuilder(key)
                        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("w")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertEquals(409, put.statusCode(), put.body());
                assertTrue(put.body().contains(ReplicaCommands.READONLY), put.body());
                assertEquals(409, http.send(java.net.http.HttpRequest.newBuilder(key).DELETE().build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
                assertEquals("v", http.send(java.net.http.HttpRequest.newBuilder(key).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString()).body());
                String role = ours.call("ROLE");
                assertTrue(role.startsWith("*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:" + masterPort + "\r\n$9\r\nconnected\r\n:"),
                        role);
                String info = ours.call("INFO", "replication");
                assertTrue(info.contains("role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:" + masterPort
                        + "\r\nmaster_link_status:up\r\n"), info);
                // the names of Redis's fields, in its order
                String theirInfo = theirs.call("INFO", "replication");
                assertEquals(PolyglotClientsTest.fieldNames(theirInfo), PolyglotClientsTest.fieldNames(info));
                assertEquals(PolyglotClientsTest.field(master.call("INFO", "replication"), "master_replid"),
                        PolyglotClientsTest.field(info, "master_replid"));
                assertEquals("+OK Already connected to specified master\r\n",
                        ours.call("REPLICAOF", "127.0.0.1", Integer.toString(masterPort)));

                assertEquals("+OK\r\n", ours.call("REPLICAOF", "NO", "ONE"));
                assertEquals("+OK\r\n", ours.call("SET", "k", "mine"));
                assertEquals("$4\r\nmine\r\n", ours.call("GET", "k"));
                assertEquals(":3\r\n", ours.call("LPUSH", "l", "x"));
                assertTrue(ours.call("ROLE").startsWith("*3\r\n$6\r\nmaster\r\n"));
                master.call("SET", "k", "after");
                Thread.sleep(300);
                assertEquals("$4\r\nmine\r\n", ours.call("GET", "k"), "no longer following the master");
            } finally {
                stop(redisReplica);
            }
        });
    }

    @Test
    void keysPastTheirDeadlineReadAsGoneButStayUntilTheMastersDel() throws Exception {
        Process redis = redis("--enable-debug-command", "yes");
        if (redis == null) {
            return;
        }
        int port = port(redis);
        try (Wire master = new Wire(port); ColossalServer s = TestServers.colossal(dir); Wire replica = new Wire(s.port())) {
            quick(master);
            assertEquals("+OK\r\n", master.call("DEBUG", "SET-ACTIVE-EXPIRE", "0")); // k expires when the master reads it
            master.call("SET", "k", "v", "PX", "2000");
            long set = System.nanoTime();
            replica.call("REPLICAOF", "127.0.0.1", Integer.toString(port));
            awaitInSync(master, replica);
            assertEquals("$1\r\nv\r\n", replica.call("GET", "k"));
            // past the deadline, and the sweeper's time to act
            Thread.sleep(Math.max(0, 3500 - (System.nanoTime() - set) / 1_000_000));
            assertEquals("$-1\r\n", replica.call("GET", "k"), "read as gone");
            assertEquals(":0\r\n", replica.call("EXISTS", "k"));
            assertEquals(":1\r\n", replica.call("DBSIZE"), "but kept until the master deletes it");
            assertEquals("$-1\r\n", master.call("GET", "k")); // the master expires it and sends DEL
            awaitInSync(master, replica);
            assertEquals(":0\r\n", replica.call("DBSIZE"));
        } finally {
            stop(redis);
        }
    }

    @Test
    void aMasterWithAPasswordThenAnotherMaster() throws Exception {
        Process a = redis("--requirepass", "pw");
        if (a == null) {
            return;
        }
        Process b = redis();
        int portA = port(a);
        int portB = port(b);
        try (Wire masterA = new Wire(portA); Wire masterB = new Wire(portB); ColossalServer s = TestServers.colossal(dir);
                Wire replica = new Wire(s.port())) {
            masterA.call("AUTH", "pw");
            quick(masterA);
            quick(masterB);
            masterA.call("SET", "a", "1");
            masterB.call("SET", "b", "2");
            s.replicaOf("127.0.0.1", portA, null, "pw"); // serve --replicaof 127.0.0.1 PORT --masterauth pw
            awaitInSync(masterA, replica);
            assertEquals("$1\r\n1\r\n", replica.call("GET", "a"));
            assertEquals("*2\r\n$10\r\nmasterauth\r\n$2\r\npw\r\n", replica.call("CONFIG", "GET", "masterauth"));
            // as in Redis, an AUTH the master does not expect fails the link: the password goes first
            assertEquals("+OK\r\n", replica.call("CONFIG", "SET", "masterauth", ""));
            assertEquals("+OK\r\n", replica.call("REPLICAOF", "127.0.0.1", Integer.toString(portB)));
            awaitInSync(masterB, replica);
            assertEquals("$-1\r\n", replica.call("GET", "a"), "a full sync from the new master");
            assertEquals("$1\r\n2\r\n", replica.call("GET", "b"));
        } finally {
            stop(a);
            stop(b);
        }
    }

    @Test
    void aReplicaKilledKeepsWhatItAppliedAndARestartWithReplicaofSyncsAgain() throws Exception {
        withMaster(master -> {
            fill(master);
            String masterPort = Integer.toString(master.socket.getPort());
            int port = TestServers.freePort();
            Path data = dir.resolve("data");
            Process child = TestServers.serveInChildJvm(port, data, dir.resolve("serve1.log"), "--replicaof", "127.0.0.1",
                    masterPort);
            try (Wire replica = new Wire(port)) {
                awaitInSync(master, replica);
                workload(master, new Random(9), 300);
                awaitInSync(master, replica);
            } finally {
                child.destroyForcibly().waitFor(); // SIGKILL: no sync of the maps, no goodbye to the master
            }
            // without --replicaof: a master, with what the map files kept
            child = TestServers.serveInChildJvm(port, data, dir.resolve("serve2.log"));
            try (Wire restarted = new Wire(port)) {
                assertSameData(master, restarted);
                assertTrue(restarted.call("ROLE").startsWith("*3\r\n$6\r\nmaster\r\n"));
            } finally {
                child.destroy();
                child.waitFor();
            }
            // with it again: the SIGKILL left no checkpoint (and this master run, with no replicas, none), so a full sync
            child = TestServers.serveInChildJvm(port, data, dir.resolve("serve3.log"), "--replicaof", "127.0.0.1",
                    masterPort);
            try (Wire replica = new Wire(port)) {
                awaitInSync(master, replica);
                // a full sync, never a partial one (a loaded machine may have the link retry it: 2 or more)
                String stats = master.call("INFO", "stats");
                assertTrue(!stats.contains("sync_full:0\r\n") && !stats.contains("sync_full:1\r\n")
                        && stats.contains("sync_partial_ok:0\r\n"), stats);
                assertSameData(master, replica);
            } finally {
                child.destroy();
                child.waitFor();
            }
        });
    }

    @Test
    void whileASnapshotLoadsClientsGetLoadingAsFromRedis() throws Exception {
        Process redis = redis("--enable-debug-command", "yes");
        if (redis == null) {
            return;
        }
        try (Wire master = new Wire(port(redis)); ColossalServer s = TestServers.colossal(dir); Wire replica = new Wire(s.port());
                Wire poll = new Wire(s.port())) {
            quick(master);
            assertEquals("+OK\r\n", master.call("DEBUG", "POPULATE", "300000", "key", "20"));
            replica.call("SET", "key:1", "mine");
            replica.call("REPLICAOF", "127.0.0.1", Integer.toString(port(redis)));
            java.util.Set<String> seen = new java.util.TreeSet<>();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!"up".equals(PolyglotClientsTest.field(poll.call("INFO", "replication"), "master_link_status"))
                    && System.nanoTime() < deadline) {
                seen.add(poll.call("GET", "key:1"));
                seen.add(poll.call("HGET", "h", "f"));
            }
            // what a client saw: our key, then LOADING while the snapshot loaded, then the master's
            assertTrue(seen.contains("-" + ReplicaCommands.LOADING + "\r\n"), seen.toString());
            assertTrue(seen.stream().noneMatch(r -> r.startsWith("$") && !r.equals("$4\r\nmine\r\n")
                    && !r.equals("$-1\r\n") && !r.startsWith("$20\r\n")), seen.toString());
            awaitInSync(master, replica);
            assertEquals(":300000\r\n", replica.call("DBSIZE"));
        } finally {
            stop(redis);
        }
    }

    /** A check given a connection to a fresh redis-server master. */
    @FunctionalInterface
    interface MasterCheck {
        void run(Wire master) throws Exception;
    }

    static void withMaster(MasterCheck check) throws Exception {
        Process redis = redis();
        if (redis == null) {
            return;
        }
        try (Wire master = new Wire(port(redis))) {
            quick(master);
            check.run(master);
        } finally {
            stop(redis);
        }
    }

    /**
     * Starts a redis-server on a free port, and makes sure it is the one answering there: other
     * builds on the machine start servers too, and one may take the port between its choice and
     * the bind (the PONG would then be theirs).
     *
     * @return the process, or null if redis-server is not installed
     */
    static Process redis(String... settings) throws Exception {
        // its own directory: a disk-based sync writes dump.rdb there, which a later redis-server would load
        Path home = java.nio.file.Files.createTempDirectory("replica-test-redis");
        List<String> all = new ArrayList<>(List.of(settings));
        all.addAll(List.of("--dir", home.toString()));
        for (int attempt = 0; ; attempt++) {
            int port = TestServers.freePort();
            Process p = TestServers.redis(port, all.toArray(String[]::new));
            if (p == null) {
                return null;
            }
            String pid = null;
            try (Wire w = new Wire(port)) {
                if (settings.length > 1 && settings[0].equals("--requirepass")) {
                    w.call("AUTH", settings[1]);
                }
                pid = PolyglotClientsTest.field(w.call("INFO", "server"), "process_id");
            } catch (IOException e) {
                // not ours, or gone
            }
            if (p.isAlive() && Long.toString(p.pid()).equals(pid)) {
                PORTS.put(p, port);
                HOMES.put(p, home);
                return p;
            }
            stop(p);
            if (attempt == 5) {
                throw new AssertionError("no redis-server of this test's could keep a port");
            }
        }
    }

    private static final java.util.Map<Process, Integer> PORTS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.Map<Process, Path> HOMES = new java.util.concurrent.ConcurrentHashMap<>();

    static int port(Process redis) {
        return PORTS.get(redis);
    }

    static void stop(Process redis) throws InterruptedException, IOException {
        PORTS.remove(redis);
        redis.destroy();
        redis.waitFor();
        Path home = HOMES.remove(redis);
        if (home != null) {
            try (var files = java.nio.file.Files.walk(home)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.deleteIfExists(f);
                }
            }
        }
    }

    /** No wait before a diskless sync (Redis 7.0 waits 5 s for more replicas to join it). */
    private static void quick(Wire master) throws IOException {
        assertEquals("+OK\r\n", master.call("CONFIG", "SET", "repl-diskless-sync-delay", "0"));
    }

    /** Every type in several databases, some keys with a TTL, a stream with groups and a function library. */
    static void fill(Wire m) throws IOException {
        Random rnd = new Random(1);
        for (int db = 0; db < DBS; db++) {
            m.call("SELECT", Integer.toString(db));
            for (int i = 0; i < 30; i++) {
                m.call("SET", "str:" + i, i % 3 == 0 ? Integer.toString(i) : "v" + rnd.nextInt(1000));
                m.call("HSET", "hash:" + i, "f1", "a" + i, "f2", Integer.toString(i));
                m.call("SADD", "set:" + i, "m" + i, "n" + i, "x");
                m.call("SADD", "intset:" + i, Integer.toString(i), "7", "42");
                m.call("RPUSH", "list:" + i, "a", "b", Integer.toString(i));
                m.call("ZADD", "zset:" + i, "1.5", "a", Integer.toString(i), "b");
                if (i % 5 == 0) {
                    m.call("PEXPIRE", "str:" + i, Integer.toString(100_000 + i * 1000));
                    m.call("EXPIRE", "hash:" + i, "500");
                }
            }
            List<String> big = new ArrayList<>(List.of("HSET", "bighash"));
            List<String> bigSet = new ArrayList<>(List.of("SADD", "bigset"));
            List<String> bigZ = new ArrayList<>(List.of("ZADD", "bigzset"));
            List<String> bigList = new ArrayList<>(List.of("RPUSH", "biglist"));
            for (int i = 0; i < 700; i++) {
                big.add("field" + i);
                big.add("value" + i * 7);
                bigSet.add("member" + i);
                bigZ.add(Integer.toString(rnd.nextInt(10_000)));
                bigZ.add("z" + i);
                bigList.add("e" + i);
            }
            m.call(big.toArray(String[]::new));
            m.call(bigSet.toArray(String[]::new));
            m.call(bigZ.toArray(String[]::new));
            m.call(bigList.toArray(String[]::new));
            m.call("SET", "bigstring", "y".repeat(100_000));
            for (int i = 0; i < 50; i++) {
                m.call("XADD", "stream", "*", "n", Integer.toString(i), "db", Integer.toString(db));
            }
            m.call("XGROUP", "CREATE", "stream", "g1", "0");
            m.call("XGROUP", "CREATE", "stream", "g2", "$");
            m.call("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "10", "STREAMS", "stream", ">");
            m.call("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "5", "STREAMS", "stream", ">");
        }
        m.call("SELECT", "0");
        m.call("FUNCTION", "LOAD", "#!lua name=rlib\nredis.register_function('rlib_get', function(keys, args) "
                + "return redis.call('EXISTS', keys[1]) end)\nredis.register_function('rlib_set', function(keys, args) "
                + "return redis.call('SET', keys[1], args[1]) end)");
    }

    /** Random writes of every kind the master propagates in its own form (PEXPIREAT, SET KEEPTTL, SREM, LPOP, ...). */
    static void workload(Wire m, Random rnd, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            String db = Integer.toString(rnd.nextInt(DBS));
            String k = Integer.toString(rnd.nextInt(30));
            m.call("SELECT", db);
            switch (rnd.nextInt(20)) {
                case 0 -> m.call("SET", "str:" + k, "w" + rnd.nextInt(1000));
                case 1 -> m.call("APPEND", "str:" + k, "+");
                case 2 -> m.call("INCRBYFLOAT", "float:" + k, "1.25");
                case 3 -> m.call("EXPIRE", "list:" + k, Integer.toString(100 + rnd.nextInt(1000)));
                case 4 -> m.call("DEL", "set:" + k);
                case 5 -> m.call("HSET", "hash:" + k, "f" + rnd.nextInt(5), "h" + rnd.nextInt(100));
                case 6 -> m.call("HINCRBY", "hash:" + k, "count", "3");
                case 7 -> m.call("SADD", "set:" + k, "s" + rnd.nextInt(20));
                case 8 -> m.call("SPOP", "set:" + k);
                case 9 -> m.call("SPOP", "bigset", "2");
                case 10 -> m.call("LPUSH", "list:" + k, "p" + i);
                case 11 -> m.call("BLPOP", "list:" + k, "biglist", "0.01");
                case 12 -> m.call("ZINCRBY", "zset:" + k, "2.5", "m" + rnd.nextInt(5));
                case 13 -> m.call("ZPOPMIN", "bigzset");
                case 14 -> m.call("XADD", "stream", "*", "w", Integer.toString(i));
                case 15 -> {
                    m.call("MULTI");
                    m.call("INCR", "counter");
                    m.call("RPUSH", "list:" + k, "t" + i);
                    m.call("SREM", "set:" + k, "x");
                    m.call("EXEC");
                }
                case 16 -> m.call("EVAL", "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('INCR', KEYS[2])", "2",
                        "str:" + k, "evalcount", "e" + i);
                case 17 -> m.call("FCALL", "rlib_set", "1", "fn:" + k, "f" + i);
                case 18 -> m.call("PERSIST", "hash:" + k);
                default -> m.call("XACK", "stream", "g1", m.call("XRANGE", "stream", "-", "+", "COUNT", "1").split("\r\n")[3]);
            }
        }
        m.call("SELECT", "0");
    }

    /** Waits (up to 30 s) until the replica has applied all the master sent: their offsets equal. */
    static void awaitInSync(Wire master, Wire replica) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String want = null;
        String got = null;
        while (System.nanoTime() < deadline) {
            want = PolyglotClientsTest.field(master.call("INFO", "replication"), "master_repl_offset");
            String info = replica.call("INFO", "replication");
            // serve --replicaof answers PING a moment before it starts to follow
            if (info.contains("role:slave\r\n")) {
                got = PolyglotClientsTest.field(info, "slave_repl_offset");
                if ("up".equals(PolyglotClientsTest.field(info, "master_link_status")) && want.equals(got)) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the replica's offset " + got + " did not reach the master's " + want);
    }

    /** Every key of every database, on both servers: type, value (unordered collections sorted) and PTTL. */
    static void assertSameData(Wire master, Wire replica) throws IOException {
        for (int db = 0; db < DBS; db++) {
            master.call("SELECT", Integer.toString(db));
            replica.call("SELECT", Integer.toString(db));
            TreeMap<String, String> want = snapshot(master);
            TreeMap<String, String> got = snapshot(replica);
            assertEquals(want.keySet(), got.keySet(), "keys of database " + db);
            for (String k : want.keySet()) {
                String[] w = want.get(k).split(" ttl ");
                String[] g = got.get(k).split(" ttl ");
                assertEquals(w[0], g[0], "database " + db + " key " + k);
                long wantTtl = Long.parseLong(w[1]);
                long gotTtl = Long.parseLong(g[1]);
                // read a moment apart: within a second and a half, or both none (-1)
                assertTrue(wantTtl == gotTtl || wantTtl >= 0 && gotTtl >= 0 && Math.abs(wantTtl - gotTtl) <= 1500,
                        "database " + db + " key " + k + " PTTL " + wantTtl + " on the master, " + gotTtl + " here");
            }
        }
        master.call("SELECT", "0");
        replica.call("SELECT", "0");
    }

    private static TreeMap<String, String> snapshot(Wire w) throws IOException {
        TreeMap<String, String> all = new TreeMap<>();
        for (String k : bulks(w.call("KEYS", "*"))) {
            String type = w.call("TYPE", k);
            String value = switch (type) {
                case "+string\r\n" -> w.call("GET", k);
                case "+hash\r\n" -> sorted(w.call("HGETALL", k), 2);
                case "+set\r\n" -> sorted(w.call("SMEMBERS", k), 1);
                case "+list\r\n" -> w.call("LRANGE", k, "0", "-1");
                case "+zset\r\n" -> w.call("ZRANGE", k, "0", "-1", "WITHSCORES");
                case "+stream\r\n" -> w.call("XRANGE", k, "-", "+") + w.call("XINFO", "GROUPS", k)
                        + w.call("XPENDING", k, "g1")
                        // the radix tree's counts are how each server lays entries out
                        + w.call("XINFO", "STREAM", k).replaceAll("\\$\\d+\r\nradix-tree-\\w+\r\n:\\d+\r\n", "");
                default -> "?";
            };
            long ttl = Long.parseLong(w.call("PTTL", k).trim().substring(1));
            all.put(k, type + value + " ttl " + ttl);
        }
        return all;
    }

    /** @return an array reply's elements, grouped {@code group} at a time, groups sorted */
    private static String sorted(String reply, int group) {
        List<String> items = bulks(reply);
        List<String> groups = new ArrayList<>();
        for (int i = 0; i < items.size(); i += group) {
            groups.add(String.join("\u0000", items.subList(i, i + group)));
        }
        groups.sort(null);
        return groups.toString();
    }

    private static List<String> sortedItems(String reply) {
        List<String> items = bulks(reply);
        items.sort(java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder()));
        return items;
    }

    /** @return a flat RESP2 array's bulk strings (ASCII values) */
    private static List<String> bulks(String reply) {
        List<String> out = new ArrayList<>();
        int at = reply.indexOf("\r\n") + 2;
        while (at < reply.length()) {
            int eol = reply.indexOf("\r\n", at);
            String header = reply.substring(at, eol);
            if (header.startsWith("$")) {
                int len = Integer.parseInt(header.substring(1));
                out.add(len < 0 ? null : reply.substring(eol + 2, eol + 2 + len));
                at = eol + 2 + Math.max(0, len) + (len < 0 ? 0 : 2);
            } else {
                out.add(header);
                at = eol + 2;
            }
        }
        return out;
    }
}
