package dev.colossal.server;

import static dev.colossal.server.ReplicaDifferentialTest.assertSameData;
import static dev.colossal.server.ReplicaDifferentialTest.awaitInSync;
import static dev.colossal.server.ReplicaDifferentialTest.fill;
import static dev.colossal.server.ReplicaDifferentialTest.workload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas of a replica, as Redis chains them: the replica in the middle relays its master's stream
 * (same id, same offsets) and serves its replicas' full syncs from its own data; when it syncs in
 * full from above, they are dropped and sync again; REPLICAOF NO ONE in the middle lets them go on.
 */
class ChainedReplicasTest {

    @TempDir
    Path dir;

    /**
     * redis-server, Colossal, redis-server, beside redis-server, redis-server, redis-server: the
     * bottom has every write of the top, at the top's offset; the middle's INFO replication has the
     * fields a redis-server in the middle has, with the same id and offset.
     */
    @Test
    void redisToColossalToRedisCarriesTheTopsStreamByteForByte() throws Exception {
        ReplicaDifferentialTest.withMaster(top -> {
            String topPort = Integer.toString(top.socket.getPort());
            fill(top);
            Process theirMiddle = ReplicaDifferentialTest.redis("--replicaof", "127.0.0.1", topPort);
            Process theirBottom = ReplicaDifferentialTest.redis("--replicaof", "127.0.0.1",
                    Integer.toString(ReplicaDifferentialTest.port(theirMiddle)));
            Process bottom = null;
            try (ColossalServer s = replicaOf(dir.resolve("middle"), top.socket.getPort()); Wire middle = new Wire(s.port());
                    Wire redisMiddle = new Wire(ReplicaDifferentialTest.port(theirMiddle));
                    Wire redisBottom = new Wire(ReplicaDifferentialTest.port(theirBottom))) {
                top.call("SELECT", "2");
                top.call("SET", "db2:before", "1"); // the stream is in database 2 when the bottom syncs
                awaitInSync(top, middle);
                bottom = ReplicaDifferentialTest.redis("--replicaof", "127.0.0.1", Integer.toString(s.port()),
                        "--replica-read-only", "no");
                try (Wire b = new Wire(ReplicaDifferentialTest.port(bottom))) {
                    assertSyncedInTheStreamsDatabase(top, b);
                    workload(top, new Random(31), 600);
                    awaitInSync(top, b);
                    awaitInSync(top, redisBottom);
                    assertSameData(top, b);
                    String ours = middle.call("INFO", "replication");
                    String theirs = redisMiddle.call("INFO", "replication");
                    assertEquals(PolyglotClientsTest.fieldNames(theirs), PolyglotClientsTest.fieldNames(ours));
                    for (String field : new String[] {"role", "master_link_status", "connected_slaves", "master_replid",
                            "master_replid2", "master_repl_offset", "second_repl_offset", "repl_backlog_active"}) {
                        assertEquals(PolyglotClientsTest.field(theirs, field), PolyglotClientsTest.field(ours, field), field);
                    }
                    assertTrue(PolyglotClientsTest.field(ours, "slave0").startsWith("ip=127.0.0.1,port="
                            + ReplicaDifferentialTest.port(bottom) + ",state=online,offset="), ours);
                    assertEquals(PolyglotClientsTest.field(top.call("INFO", "replication"), "master_replid"),
                            PolyglotClientsTest.field(b.call("INFO", "replication"), "master_replid"));

                    // the middle's link drops and resumes: the bottom goes on (its own key survives)
                    assertEquals("+OK\r\n", b.call("SET", "bottom:own", "1"));
                    assertEquals(":1\r\n", middle.call("CLIENT", "KILL", "TYPE", "master"));
                    workload(top, new Random(32), 200);
                    awaitInSync(top, b);
                    assertEquals("$1\r\n1\r\n", b.call("GET", "bottom:own"), "not dropped by a partial resync above");
                    b.call("DEL", "bottom:own");
                    assertSameData(top, b);
                    b.call("SET", "bottom:own", "1");

                    // the middle syncs in full (the top's backlog no longer holds its offset): the bottom syncs again
                    assertEquals("+OK\r\n", top.call("CONFIG", "SET", "repl-backlog-size", "16384"));
                    top.call("CLIENT", "KILL", "TYPE", "replica");
                    String big = "x".repeat(1000);
                    for (int i = 0; i < 100; i++) {
                        top.call("SET", "big:" + i, big);
                    }
                    awaitInSync(top, middle);
                    awaitInSync(top, b);
                    assertEquals("$-1\r\n", b.call("GET", "bottom:own"), "a full sync replaced its data");
                    assertSameData(top, b);
                }
            } finally {
                if (bottom != null) {
                    ReplicaDifferentialTest.stop(bottom);
                }
                ReplicaDifferentialTest.stop(theirBottom);
                ReplicaDifferentialTest.stop(theirMiddle);
            }
        });
    }

    /**
     * Colossal, Colossal, Colossal: the bottom has the top's writes at the top's id and offset; then
     * REPLICAOF NO ONE in the middle: the bottom continues in the middle's new stream (whose second
     * id is the top's) and has the middle's own writes.
     */
    @Test
    void colossalToColossalToColossalAndThePromotionOfTheMiddle() throws Exception {
        try (ColossalServer a = TestServers.colossal(dir.resolve("a")); Wire top = new Wire(a.port());
                ColossalServer b = replicaOf(dir.resolve("b"), a.port()); Wire middle = new Wire(b.port())) {
            fill(top);
            top.call("SELECT", "2");
            top.call("SET", "db2:before", "1"); // the stream is in database 2 when the bottom syncs
            awaitInSync(top, middle);
            try (ColossalServer c = replicaOf(dir.resolve("c"), b.port()); Wire bottom = new Wire(c.port())) {
                chainAndPromote(top, middle, bottom);
            }
        }
    }

    /** The bottom follows the middle, which follows the top: then the middle is promoted. */
    private static void chainAndPromote(Wire top, Wire middle, Wire bottom) throws Exception {
        assertSyncedInTheStreamsDatabase(top, bottom);
        workload(top, new Random(41), 600);
        for (int i = 0; i < 300; i++) {
            top.call("INCR", "counter:chain");
        }
        awaitInSync(top, bottom);
        awaitInSync(top, middle);
        assertSameData(top, middle);
        assertSameData(top, bottom);
        assertEquals("$3\r\n300\r\n", bottom.call("GET", "counter:chain"));
        String topInfo = top.call("INFO", "replication");
        String bottomInfo = bottom.call("INFO", "replication");
        assertEquals(PolyglotClientsTest.field(topInfo, "master_replid"), PolyglotClientsTest.field(bottomInfo, "master_replid"));
        assertEquals(PolyglotClientsTest.field(topInfo, "master_repl_offset"),
                PolyglotClientsTest.field(bottomInfo, "slave_repl_offset"));
        assertEquals("1", PolyglotClientsTest.field(middle.call("INFO", "replication"), "connected_slaves"));

        String topId = PolyglotClientsTest.field(topInfo, "master_replid");
        assertEquals("+OK\r\n", middle.call("REPLICAOF", "NO", "ONE"));
        assertEquals("+OK\r\n", middle.call("SET", "middle:own", "m"));
        awaitInSync(middle, bottom);
        assertEquals("$1\r\nm\r\n", bottom.call("GET", "middle:own"));
        String middleInfo = middle.call("INFO", "replication");
        bottomInfo = bottom.call("INFO", "replication");
        assertEquals(topId, PolyglotClientsTest.field(middleInfo, "master_replid2"));
        assertEquals(PolyglotClientsTest.field(middleInfo, "master_replid"), PolyglotClientsTest.field(bottomInfo, "master_replid"));
        assertEquals(topId, PolyglotClientsTest.field(bottomInfo, "master_replid2"));
        assertEquals("$3\r\n300\r\n", bottom.call("GET", "counter:chain"), "every write kept");
    }

    /**
     * The bottom synced while the top's stream was in database 2: a write there, with no SELECT
     * before it in the stream, lands in database 2 below too, as the snapshot said where the stream was.
     */
    private static void assertSyncedInTheStreamsDatabase(Wire top, Wire bottom) throws Exception {
        awaitInSync(top, bottom);
        top.call("SET", "db2:after", "1");
        awaitInSync(top, bottom);
        bottom.call("SELECT", "2");
        assertEquals("$1\r\n1\r\n", bottom.call("GET", "db2:after"));
        bottom.call("SELECT", "0");
    }

    private static ColossalServer replicaOf(Path data, int masterPort) throws Exception {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(data).withPorts(0, -1), null, null,
                s -> s.replicaOf("127.0.0.1", masterPort, null, null));
    }
}
