package dev.colossal.server;

import static dev.colossal.server.ReplicaDifferentialTest.assertSameData;
import static dev.colossal.server.ReplicaDifferentialTest.awaitInSync;
import static dev.colossal.server.ReplicaDifferentialTest.fill;
import static dev.colossal.server.ReplicaDifferentialTest.workload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication across restarts ({@link ReplicationCheckpoint}): a replica of a redis-server 7.0.15
 * stopped cleanly and started again resumes with {@code +CONTINUE} and gets every write made while
 * it was down; one killed with SIGKILL syncs in full, and neither loses nor doubles an INCR; a
 * Colossal master restarted cleanly lets its replicas go on from where they were, as Redis 7.0's does.
 */
class ReplicationResumeTest {

    @TempDir
    Path dir;

    @Test
    void aReplicaStoppedCleanlyResumesWithContinueAndHasEveryWriteMadeWhileItWasDown() throws Exception {
        ReplicaDifferentialTest.withMaster(master -> {
            fill(master);
            Path data = dir.resolve("data");
            try (ColossalServer s = replicaOf(data, master); Wire replica = new Wire(s.port())) {
                awaitInSync(master, replica);
                workload(master, new Random(21), 300);
                master.call("SELECT", "3");
                master.call("INCR", "db3:counter"); // the stream is in database 3 when the replica stops
                awaitInSync(master, replica);
            }
            assertTrue(Files.exists(data.resolve(ReplicationCheckpoint.FILE_NAME)), "a clean stop leaves where it stood");
            for (int i = 0; i < 50; i++) {
                master.call("INCR", "db3:counter"); // no SELECT before these in the stream: it is still in 3
            }
            master.call("SELECT", "0");
            for (int i = 0; i < 200; i++) {
                master.call("INCR", "down:counter");
            }
            workload(master, new Random(22), 300);
            try (ColossalServer s = replicaOf(data, master); Wire replica = new Wire(s.port())) {
                assertFalse(Files.exists(data.resolve(ReplicationCheckpoint.FILE_NAME)), "taken by the start");
                awaitInSync(master, replica);
                String stats = master.call("INFO", "stats");
                assertTrue(stats.contains("sync_full:1\r\n") && stats.contains("sync_partial_ok:1\r\n"), stats);
                assertEquals("$3\r\n200\r\n", replica.call("GET", "down:counter"));
                replica.call("SELECT", "3");
                assertEquals("$2\r\n51\r\n", replica.call("GET", "db3:counter"), "resumed in the stream's database");
                replica.call("SELECT", "0");
                assertSameData(master, replica);
                workload(master, new Random(23), 200); // and it goes on following
                awaitInSync(master, replica);
                assertSameData(master, replica);
            }
        });
    }

    /**
     * A replica that resumed once and is then killed mid-stream must not resume again from that
     * offset: the checkpoint was taken at its start, its data has moved on since. It syncs in
     * full, and the counters the master kept incrementing read the master's, none lost or doubled.
     */
    @Test
    void aReplicaKilledAfterResumingSyncsInFullAndNoIncrIsLostOrDoubled() throws Exception {
        ReplicaDifferentialTest.withMaster(master -> {
            int port = TestServers.freePort();
            Process child = replicaInChildJvm(port, "serve1.log", master);
            try (Wire replica = new Wire(port)) {
                incr(master, 100);
                awaitInSync(master, replica);
            } finally {
                child.destroy(); // SIGTERM: a clean stop
                child.waitFor();
            }
            incr(master, 100);
            child = replicaInChildJvm(port, "serve2.log", master);
            try (Wire replica = new Wire(port)) {
                awaitInSync(master, replica);
                assertTrue(master.call("INFO", "stats").contains("sync_partial_ok:1\r\n"));
                Thread writer = Thread.ofPlatform().start(() -> {
                    try (Wire w = new Wire(master.socket.getPort())) {
                        incr(w, 3000);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
                // killed while the INCRs stream in
                TestServers.await(true, 10_000, () -> Long.parseLong(bulk(replica.call("GET", "c:0"))) > 400);
                child.destroyForcibly().waitFor();
                writer.join();
            } finally {
                child.destroyForcibly().waitFor();
            }
            child = replicaInChildJvm(port, "serve3.log", master);
            try (Wire replica = new Wire(port)) {
                awaitInSync(master, replica);
                String stats = master.call("INFO", "stats");
                assertTrue(stats.contains("sync_full:2\r\n") && stats.contains("sync_partial_ok:1\r\n"), stats);
                for (int i = 0; i < 4; i++) {
                    assertEquals(master.call("GET", "c:" + i), replica.call("GET", "c:" + i));
                }
                assertEquals("$4\r\n3200\r\n", replica.call("GET", "c:0"));
            } finally {
                child.destroy();
                child.waitFor();
            }
        });
    }

    /**
     * Colossal as the master, restarted cleanly on the same directory and port: its new stream
     * names the old one as {@code master_replid2}, and a redis-server replica goes on with
     * {@code +CONTINUE} (a key written on the replica alone survives, which a full sync would
     * drop), then gets the writes made after the restart.
     */
    @Test
    void aMasterRestartedCleanlyLetsItsReplicaContinue() throws Exception {
        int port = TestServers.freePort();
        ServerConfig config = ServerConfig.defaults().withDataDir(dir.resolve("data")).withPorts(port, -1);
        int replicaPort = TestServers.freePort();
        Process redis = TestServers.redis(replicaPort, "--replicaof", "127.0.0.1", Integer.toString(port),
                "--replica-read-only", "no", "--dir", Files.createDirectories(dir.resolve("redis")).toString());
        if (redis == null) {
            return;
        }
        try (Wire replica = new Wire(replicaPort)) {
            String oldId;
            long oldOffset;
            try (ColossalServer s = ColossalServer.start(config); Wire m = new Wire(s.port())) {
                incr(m, 50);
                awaitInSync(m, replica);
                // the master's view of the replica too: one not yet acknowledged makes the stop send a
                // REPLCONF GETACK, whose bytes would move the offset past the one read here
                assertTrue(TestServers.await(true, 30_000, () -> acknowledgedAll(m)), m.call("INFO", "replication"));
                String info = m.call("INFO", "replication");
                oldId = PolyglotClientsTest.field(info, "master_replid");
                oldOffset = Long.parseLong(PolyglotClientsTest.field(info, "master_repl_offset"));
                assertEquals("OK", bulkOrSimple(replica.call("SET", "replica:own", "1")));
            }
            try (ColossalServer s = ColossalServer.start(config); Wire m = new Wire(s.port())) {
                String info = m.call("INFO", "replication");
                assertEquals(oldId, PolyglotClientsTest.field(info, "master_replid2"));
                assertEquals(Long.toString(oldOffset + 1), PolyglotClientsTest.field(info, "second_repl_offset"));
                assertEquals(Long.toString(oldOffset), PolyglotClientsTest.field(info, "master_repl_offset"));
                incr(m, 30);
                awaitInSync(m, replica);
                assertEquals("$2\r\n80\r\n", replica.call("GET", "c:0"));
                assertEquals("$1\r\n1\r\n", replica.call("GET", "replica:own"), "a partial resync, not a full one");
                // a bare client with the old id and an offset the backlog no longer holds: a full sync
                try (Wire late = new Wire(s.port())) {
                    assertTrue(late.call("PSYNC", oldId, Long.toString(oldOffset)).startsWith("+FULLRESYNC "));
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /**
     * A failover as Sentinel makes it: a redis-server master with a Colossal replica and a
     * redis-server replica; the master goes, the Colossal replica is promoted (REPLICAOF NO ONE)
     * and written to at once, then the other replica is pointed at it and goes on with
     * {@code +CONTINUE} (a key it alone has survives, which a full sync would drop), the write made
     * after the promotion included: a promoted replica's backlog holds its old master's stream and
     * every write after it. A full sync of every sibling after each failover is what it avoids.
     */
    @Test
    void aPromotedReplicaLetsItsFormerSiblingContinue() throws Exception {
        Process master = ReplicaDifferentialTest.redis();
        if (master == null) {
            return;
        }
        int masterPort = ReplicaDifferentialTest.port(master);
        Process sibling = null;
        try (Wire m = new Wire(masterPort); ColossalServer s = replicaOf(dir.resolve("data"), m); Wire ours = new Wire(s.port())) {
            sibling = ReplicaDifferentialTest.redis("--replicaof", "127.0.0.1", Integer.toString(masterPort),
                    "--replica-read-only", "no");
            try (Wire other = new Wire(ReplicaDifferentialTest.port(sibling))) {
                incr(m, 50);
                awaitInSync(m, ours);
                awaitInSync(m, other);
                assertEquals("OK", bulkOrSimple(other.call("SET", "sibling:own", "1")));
                ReplicaDifferentialTest.stop(master);
                master = null;
                assertEquals("+OK\r\n", ours.call("REPLICAOF", "NO", "ONE"));
                incr(ours, 5);
                assertEquals("+OK\r\n", other.call("REPLICAOF", "127.0.0.1", Integer.toString(s.port())));
                awaitInSync(ours, other);
                assertEquals("$2\r\n55\r\n", other.call("GET", "c:0"), "the writes made after the promotion");
                assertEquals("$1\r\n1\r\n", other.call("GET", "sibling:own"), "a partial resync, not a full one");
                String stats = ours.call("INFO", "stats");
                assertEquals("1", PolyglotClientsTest.field(stats, "sync_partial_ok"));
                assertEquals("0", PolyglotClientsTest.field(stats, "sync_full"));
            }
        } finally {
            if (master != null) {
                ReplicaDifferentialTest.stop(master);
            }
            if (sibling != null) {
                ReplicaDifferentialTest.stop(sibling);
            }
        }
    }

    /** @return whether the master's only replica acknowledged its whole stream (INFO's slave0 offset) */
    private static boolean acknowledgedAll(Wire master) throws Exception {
        String info = master.call("INFO", "replication");
        String offset = PolyglotClientsTest.field(info, "master_repl_offset");
        return info.contains("slave0:") && PolyglotClientsTest.field(info, "slave0").contains(",offset=" + offset + ",");
    }

    /** A start that is not serve's (no --replicaof given before the first client): the in-process server follows from the start. */
    private static ColossalServer replicaOf(Path data, Wire master) throws Exception {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(data).withPorts(0, -1), null, null,
                s -> s.replicaOf("127.0.0.1", master.socket.getPort(), null, null));
    }

    /** {@code colossal serve --replicaof} the master, on the test's data directory, in a JVM a test can kill. */
    private Process replicaInChildJvm(int port, String log, Wire master) throws Exception {
        return TestServers.serveInChildJvm(port, dir.resolve("data"), dir.resolve(log), "--replicaof", "127.0.0.1",
                Integer.toString(master.socket.getPort()));
    }

    /** {@code n} rounds of INCR on four counters. */
    private static void incr(Wire w, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < 4; c++) {
                w.call("INCR", "c:" + c);
            }
        }
    }

    private static String bulk(String reply) {
        return reply.startsWith("$-1") ? "0" : reply.split("\r\n")[1];
    }

    private static String bulkOrSimple(String reply) {
        return reply.startsWith("+") ? reply.substring(1).strip() : bulk(reply);
    }
}
