package dev.colossal.server;

import static dev.colossal.server.StreamsTest.eventually;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;


import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XTrimParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * A server in another JVM killed with SIGKILL while clients XADD to one stream and XADD with
 * MAXLEN and XTRIM another: after a restart every acknowledged XADD is there exactly once and in
 * order (the one in flight at most once more), IDs rise, XLEN agrees with XRANGE, the trimmed
 * stream is an unbroken run of what was added, the next XADD goes on after the last entry, and
 * the collector frees the nodes the kill left outside the headers. Killed while consumers of a
 * group XREADGROUP and XACK, every acknowledged XACK stays acknowledged and every delivered entry
 * is pending or acknowledged.
 */
class StreamsCrashTest {

    @TempDir
    Path dir;

    @Test
    void aKillWhileAddingAndTrimmingLosesNoAcknowledgedEntry() throws Exception {
        Path data = dir.resolve("data");
        for (int round = 0; round < 3; round++) {
            int port = TestServers.freePort();
            Path log = dir.resolve("server" + round + ".log");
            Process server = TestServers.serveInChildJvm(port, data, log);
            long addedBefore;
            long trimmedBefore;
            AtomicLong acked = new AtomicLong(-1);
            AtomicLong trimAcked = new AtomicLong(-1);
            try {
                try (Jedis j = StreamsTest.jedis(port)) {
                    addedBefore = j.xlen("q");
                    List<StreamEntry> last = j.xrevrange("t", "+", "-", 1);
                    trimmedBefore = last.isEmpty() ? 0 : Long.parseLong(last.getFirst().getFields().get("n")) + 1;
                    j.configSet("stream-node-max-entries", "7"); // many node changes a second
                }
                AtomicBoolean stop = new AtomicBoolean();
                Thread adder = new Thread(() -> {
                    try (Jedis j = StreamsTest.jedis(port)) {
                        for (long i = addedBefore; !stop.get(); i++) {
                            j.xadd("q", StreamEntryID.NEW_ENTRY, Map.of("n", Long.toString(i)));
                            acked.set(i);
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call: not acknowledged
                    }
                });
                Thread trimmer = new Thread(() -> {
                    try (Jedis j = StreamsTest.jedis(port)) {
                        for (long i = trimmedBefore; !stop.get(); i++) {
                            j.xadd("t", XAddParams.xAddParams().maxLen(50).approximateTrimming(), Map.of("n", Long.toString(i)));
                            trimAcked.set(i);
                            if (i % 10 == 0) {
                                j.xtrim("t", XTrimParams.xTrimParams().maxLen(20));
                            }
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call
                    }
                });
                adder.start();
                trimmer.start();
                Thread.sleep(800 + 500L * round);
                TestServers.awaitAbove(acked, addedBefore);
                server.destroyForcibly().waitFor();
                stop.set(true);
                adder.join();
                trimmer.join();
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(acked.get() > addedBefore, "round " + round + ": some XADDs were acknowledged");
            try (ColossalServer s = TestServers.colossal(data); Jedis j = StreamsTest.jedis(s.port())) {
                List<StreamEntry> q = j.xrange("q", "-", "+");
                assertEquals(q.size(), j.xlen("q"), "XLEN agrees with XRANGE");
                assertTrue(q.size() == acked.get() + 1 || q.size() == acked.get() + 2,
                        "round " + round + ": " + q.size() + " entries after " + (acked.get() + 1) + " acknowledged XADDs");
                for (int i = 0; i < q.size(); i++) {
                    assertEquals(Integer.toString(i), q.get(i).getFields().get("n"), "round " + round + ": entry " + i);
                    assertTrue(i == 0 || q.get(i).getID().compareTo(q.get(i - 1).getID()) > 0, "IDs rise");
                }
                List<StreamEntry> t = j.xrange("t", "-", "+");
                assertEquals(t.size(), j.xlen("t"));
                long lastT = Long.parseLong(t.getLast().getFields().get("n"));
                assertTrue(lastT == trimAcked.get() || lastT == trimAcked.get() + 1, "round " + round + ": the trimmed"
                        + " stream ends at " + lastT + " after " + trimAcked.get() + " acknowledged");
                for (int i = 1; i < t.size(); i++) {
                    assertEquals(Long.parseLong(t.get(i - 1).getFields().get("n")) + 1,
                            Long.parseLong(t.get(i).getFields().get("n")), "an unbroken run");
                }
                StreamEntryID next = j.xadd("q", StreamEntryID.NEW_ENTRY, Map.of("n", "probe"));
                assertTrue(next.compareTo(q.getLast().getID()) > 0, "XADD goes on after the last entry");
                assertEquals(List.of("probe"), j.xrevrange("q", "+", "-", 1).stream().map(e -> e.getFields().get("n")).toList());
                j.xdel("q", next);
                long nodes = 0;
                for (String key : List.of("q", "t")) {
                    nodes += radixKeys(j, key) + 1; // its nodes and its root
                }
                long want = nodes;
                ListElements e = s.context().dbs.opened(0).elements(false);
                eventually(() -> e.size() == want, "the collector to free what the kill left: " + e.size() + " entries for "
                        + want + " nodes and roots");
            }
        }
    }

    @Test
    void aKillWhileReadingAndAckingInAGroupLosesNoDeliveryAndNoAck() throws Exception {
        Path data = dir.resolve("groups");
        for (int round = 0; round < 2; round++) {
            String key = "g" + round;
            int port = TestServers.freePort();
            Path log = dir.resolve("groups" + round + ".log");
            String java = ProcessHandle.current().info().command().orElseThrow();
            Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                    "serve", "--port", Integer.toString(port), "--http-port", "-1", "--data", data.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Set<String> delivered = ConcurrentHashMap.newKeySet();
            Set<String> acked = ConcurrentHashMap.newKeySet();
            Set<String> ackInFlight = ConcurrentHashMap.newKeySet();
            try {
                TestServers.awaitPong(port, server, log);
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    j.sendCommand(Protocol.Command.XGROUP, "CREATE", key, "g", "0", "MKSTREAM");
                }
                AtomicBoolean stop = new AtomicBoolean();
                Thread adder = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port)) {
                        for (long i = 0; !stop.get(); i++) {
                            j.xadd(key, StreamEntryID.NEW_ENTRY, Map.of("n", Long.toString(i)));
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call
                    }
                });
                List<Thread> consumers = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    String me = "c" + c;
                    consumers.add(new Thread(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", port)) {
                            for (int batch = 0; !stop.get(); batch++) {
                                List<String> got = new ArrayList<>();
                                Object reply = j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "g",
                                        me, "COUNT", "5", "STREAMS", key, ">");
                                for (Object st : reply == null ? List.of() : (List<?>) reply) {
                                    for (Object e : (List<?>) ((List<?>) st).get(1)) {
                                        got.add(new String((byte[]) ((List<?>) e).getFirst(), US_ASCII));
                                    }
                                }
                                delivered.addAll(got);
                                if (got.isEmpty() || me.equals("c1") && batch % 3 != 0) {
                                    continue;   // c1 leaves most of its entries pending: the PEL spans chunks
                                }
                                ackInFlight.addAll(got);
                                List<String> args = new ArrayList<>(List.of(key, "g"));
                                args.addAll(got);
                                j.sendCommand(Protocol.Command.XACK, args.toArray(String[]::new));
                                acked.addAll(got);
                                ackInFlight.removeAll(got); // only this consumer's: the other's XACK may be in flight
                            }
                        } catch (RuntimeException killed) {
                            // the server died under the call: that read or ack was not answered
                        }
                    }));
                }
                adder.start();
                consumers.forEach(Thread::start);
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    while ((Long) ((List<?>) j.sendCommand(Protocol.Command.XPENDING, key, "g")).getFirst() < 3L * PendingList.MAX_CHUNK
                            && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                }
                Thread.sleep(100 + 200L * round);
                server.destroyForcibly().waitFor();
                stop.set(true);
                adder.join();
                for (Thread t : consumers) {
                    t.join();
                }
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(acked.size() > 10, "round " + round + ": some XACKs were answered: " + acked.size());
            try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
                Set<String> pending = new HashSet<>();
                Object reply = j.sendCommand(Protocol.Command.XPENDING, key, "g", "-", "+", "1000000");
                for (Object p : (List<?>) reply) {
                    pending.add(new String((byte[]) ((List<?>) p).getFirst(), US_ASCII));
                }
                assertTrue(pending.size() > PendingList.MAX_CHUNK, "round " + round + ": the PEL spans chunks: " + pending.size());
                assertEquals((long) pending.size(), ((List<?>) j.sendCommand(Protocol.Command.XPENDING, key, "g")).getFirst(),
                        "round " + round + ": the summary counts what the range lists");
                for (String id : acked) {
                    assertTrue(!pending.contains(id), "round " + round + ": acknowledged " + id + " is pending again");
                }
                for (String id : delivered) {
                    assertTrue(pending.contains(id) || acked.contains(id) || ackInFlight.contains(id),
                            "round " + round + ": delivered " + id + " is neither pending nor acknowledged");
                }
                String last = delivered.stream().max(Comparator.comparing(id -> new StreamId(
                        Long.parseLong(id.substring(0, id.indexOf('-'))), Long.parseLong(id.substring(id.indexOf('-') + 1)))))
                        .orElseThrow();
                List<?> next = (List<?>) j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "g", "after",
                        "STREAMS", key, ">");
                if (next != null) {
                    for (Object e : (List<?>) ((List<?>) next.getFirst()).get(1)) {
                        String id = new String((byte[]) ((List<?>) e).getFirst(), US_ASCII);
                        assertTrue(!delivered.contains(id), "round " + round + ": " + id + " delivered again after " + last);
                    }
                }
            }
        }
    }

    /**
     * What a kill between an XADD's node and its header leaves: the last node with an entry the
     * header does not count. It is not part of the stream, and the next XADD writes over it.
     */
    @Test
    void aNodeWrittenWithoutItsHeaderIsNotPartOfTheStream() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            for (int i = 1; i <= 5; i++) {
                j.xadd("torn", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
            }
            KeyValueStore store = s.context().dbs.store(0);
            StoredStream st = StoredStream.read(store, "torn".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            long last = st.firstNode() + st.nodes() - 1;
            byte[] node = st.elements().get(st.id(), last);
            byte[][] fields = {"n".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    "phantom".getBytes(java.nio.charset.StandardCharsets.US_ASCII)};
            st.elements().put(st.id(), last, StreamNode.append(node, new StreamId(1_000_000_000_000_000L, 0), fields, 0, 2));
            assertEquals(5, j.xlen("torn"));
            assertEquals(List.of("5-0", "4-0"), j.xrevrange("torn", "+", "-", 2).stream().map(e -> e.getID().toString())
                    .toList(), "the uncounted entry is not read");
            StreamEntryID next = j.xadd("torn", StreamEntryID.NEW_ENTRY, Map.of("n", "6"));
            List<StreamEntry> all = j.xrange("torn", "-", "+");
            assertEquals(6, all.size());
            assertEquals(next, all.getLast().getID());
            assertEquals("6", all.getLast().getFields().get("n"), "the next XADD wrote over the phantom");
        }
    }

    private static long radixKeys(Jedis j, String key) {
        List<?> info = (List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.XINFO, "STREAM", key);
        for (int i = 0; i < info.size(); i += 2) {
            if ("radix-tree-keys".equals(new String((byte[]) info.get(i), java.nio.charset.StandardCharsets.US_ASCII))) {
                return (Long) info.get(i + 1);
            }
        }
        throw new AssertionError("no radix-tree-keys");
    }
}
