package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis Sentinel (Debian's redis-server in sentinel mode, three of them) watching a Colossal
 * master with a Colossal replica and a redis-server replica: the sentinels find both replicas and
 * each other through the master (INFO replication, the hello channel), and when the master stops
 * they promote the replica its {@code replica-priority} names (ours 10; the redis-server replica 0,
 * never to be promoted: with 100 a loaded machine once made the sentinels pass ours over for a late
 * INFO reply and take the other), point the other at it, and turn the old master, started again on
 * its data, into its replica.
 */
class SentinelFailoverTest {

    @TempDir
    Path dir;

    private final List<Process> sentinels = new ArrayList<>();

    @Test
    void sentinelsPromoteTheReplicaItsPriorityNamesAndTurnTheOldMasterIntoOneOfItsReplicas() throws Exception {
        int masterPort = TestServers.freePort();
        Process theirs = null;
        ColossalServer master = start(dir.resolve("master"), masterPort);
        try (ColossalServer ours = TestServers.colossal(dir.resolve("replica"), "replica-priority", "10")) {
            theirs = ReplicaDifferentialTest.redis("--replicaof", "127.0.0.1", Integer.toString(masterPort),
                    "--replica-priority", "0");
            if (theirs == null) {
                return; // redis-server is not installed: redis() said so loudly
            }
            // As if served with --config: the sentinels' CONFIG REWRITE keeps each role in its file
            Path oursFile = Files.writeString(dir.resolve("replica.conf"), "replica-priority 10\nreplicaof 127.0.0.1 " + masterPort + "\n");
            ours.context().configFile = oursFile;
            try (Wire m = new Wire(masterPort); Wire a = new Wire(ours.port()); Wire b = new Wire(ReplicaDifferentialTest.port(theirs))) {
                assertEquals("+OK\r\n", a.call("REPLICAOF", "127.0.0.1", Integer.toString(masterPort)));
                for (int i = 0; i < 100; i++) {
                    m.call("SET", "before:" + i, Integer.toString(i));
                }
                ReplicaDifferentialTest.awaitInSync(m, a);
                ReplicaDifferentialTest.awaitInSync(m, b);
                assertTrue(a.call("INFO", "replication").contains("slave_priority:10\r\n"));

                try (Wire s = new Wire(startSentinels(masterPort))) {
                    assertEquals("2", TestServers.await("2", 30_000, () -> masterField(s, "num-slaves")),
                            "the sentinels list both replicas from the master's INFO");
                    assertEquals("2", TestServers.await("2", 30_000, () -> masterField(s, "num-other-sentinels")),
                            "the sentinels find each other on the master's hello channel");

                    master.close();
                    master = null;
                    String promoted = "*2\r\n$9\r\n127.0.0.1\r\n$" + Integer.toString(ours.port()).length() + "\r\n" + ours.port() + "\r\n";
                    assertEquals(promoted, TestServers.await(promoted, 60_000,
                            () -> s.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")), "replica-priority 10 promoted, 0 never");
                }
            }
            // a sentinel that reconfigures a server kills its clients (CLIENT KILL TYPE normal): ask on a new connection each time
            int a = ours.port();
            int b = ReplicaDifferentialTest.port(theirs);
            assertTrue(TestServers.await(true, 10_000, () -> once(a, "ROLE").startsWith("*3\r\n$6\r\nmaster\r\n")), once(a, "ROLE"));
            assertTrue(TestServers.await(true, 10_000, () -> !Files.readString(oursFile).contains("replicaof")),
                    "the promoted replica's file follows no master any more: " + Files.readString(oursFile));
            assertTrue(Files.readString(oursFile).startsWith("replica-priority 10\n"), Files.readString(oursFile));
            assertEquals(Integer.toString(a), TestServers.await(Integer.toString(a), 30_000,
                    () -> masterPort(b)),
                    "the redis-server replica now follows the promoted Colossal replica");
            assertEquals("+OK\r\n", once(a, "SET", "after", "failover"));
            String written = "$8\r\nfailover\r\n";
            assertEquals(written, TestServers.await(written, 30_000, () -> once(b, "GET", "after")));

            master = start(dir.resolve("master"), masterPort);
            Path masterFile = Files.writeString(dir.resolve("master.conf"), "# the old master\n");
            master.context().configFile = masterFile;
            assertEquals(Integer.toString(a), TestServers.await(Integer.toString(a), 60_000,
                    () -> masterPort(masterPort)),
                    "the old master, back, is told to follow the new one");
            String follows = "\nreplicaof 127.0.0.1 " + a + "\n";
            assertTrue(TestServers.await(true, 10_000, () -> Files.readString(masterFile).contains(follows)),
                    "a restart of the old master from its file would follow the new one: " + Files.readString(masterFile));
            assertEquals(written, TestServers.await(written, 30_000, () -> once(masterPort, "GET", "after")));
            assertEquals("$2\r\n99\r\n", once(masterPort, "GET", "before:99"));
        } finally {
            for (Process p : sentinels) {
                p.destroy();
                p.waitFor(30, TimeUnit.SECONDS);
            }
            if (theirs != null) {
                ReplicaDifferentialTest.stop(theirs);
            }
            if (master != null) {
                master.close();
            }
        }
    }

    /**
     * A replica behind NAT or in a container names the address it is reached at (replica-announce-ip
     * and -port), and its master lists it so in INFO and ROLE, where Sentinel learns it: ours
     * announcing to ours, and redis-server announcing to ours.
     */
    @Test
    void aMasterListsItsReplicasAtTheAddressesTheyAnnounce() throws Exception {
        try (ColossalServer master = TestServers.colossal(dir.resolve("m"));
                ColossalServer ours = TestServers.colossal(dir.resolve("r"), "replica-announce-ip", "10.9.8.7",
                        "replica-announce-port", "4242");
                Wire m = new Wire(master.port()); Wire r = new Wire(ours.port())) {
            assertEquals("+OK\r\n", r.call("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
            assertTrue(TestServers.await(true, 30_000, () -> m.call("INFO", "replication").contains("ip=10.9.8.7,port=4242,")),
                    m.call("INFO", "replication"));
            assertTrue(m.call("ROLE").contains("$8\r\n10.9.8.7\r\n$4\r\n4242\r\n"), m.call("ROLE"));
            Process theirs = ReplicaDifferentialTest.redis("--replicaof", "127.0.0.1", Integer.toString(master.port()),
                    "--replica-announce-ip", "10.1.1.1", "--replica-announce-port", "5151");
            if (theirs == null) {
                return;
            }
            try {
                assertTrue(TestServers.await(true, 30_000, () -> m.call("INFO", "replication").contains("ip=10.1.1.1,port=5151,")),
                        m.call("INFO", "replication"));
            } finally {
                ReplicaDifferentialTest.stop(theirs);
            }
        }
    }

    /** The master_port of the server on {@code port}'s INFO, or null while it is a master. */
    private static String masterPort(int port) throws Exception {
        String info = once(port, "INFO", "replication");
        return info.contains("\r\nmaster_port:") ? PolyglotClientsTest.field(info, "master_port") : null;
    }

    /** {@code args}' reply on a connection of its own, or the exception's text if the connection was closed under it. */
    private static String once(int port, String... args) throws Exception {
        try (Wire w = new Wire(port)) {
            return w.call(args);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** A Colossal server on {@code port} with its data in {@code data}. */
    private static ColossalServer start(Path data, int port) throws Exception {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(data).withPorts(port, -1));
    }

    /**
     * Starts three sentinels watching the master on {@code masterPort} as {@code mymaster} with a
     * quorum of two, quick to judge it down (3 s; 30 s by default).
     *
     * @return the port of the first
     */
    private int startSentinels(int masterPort) throws Exception {
        Path exe = TestServers.onPath("redis-server");
        int first = -1;
        for (int i = 0; i < 3; i++) {
            int port = TestServers.freePort();
            first = first < 0 ? port : first;
            Path conf = dir.resolve("sentinel" + i + ".conf");
            Files.writeString(conf, "port " + port + "\nbind 127.0.0.1\ndir " + dir + "\n"
                    + "sentinel monitor mymaster 127.0.0.1 " + masterPort + " 2\n"
                    + "sentinel down-after-milliseconds mymaster 3000\n"
                    + "sentinel failover-timeout mymaster 10000\n");
            Path log = dir.resolve("sentinel" + i + ".log");
            Process p = new ProcessBuilder(exe.toString(), conf.toString(), "--sentinel").redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            sentinels.add(p);
            TestServers.awaitPong(port, p, log);
        }
        return first;
    }

    /** A field of {@code SENTINEL MASTER mymaster}'s flat list of names and values. */
    private static String masterField(Wire sentinel, String name) throws Exception {
        String[] lines = sentinel.call("SENTINEL", "MASTER", "mymaster").split("\r\n");
        for (int i = 2; i + 2 < lines.length; i += 4) { // $len, name, $len, value
            if (lines[i].equals(name)) {
                return lines[i + 2];
            }
        }
        return null;
    }
}
