package dev.colossal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;

/**
 * Consumer groups' pending entries lists in chunks ({@link PendingList}, {@link GroupsLayout}): a
 * PEL of thousands is cut in chunks of at most {@link PendingList#MAX_CHUNK}, survives a restart,
 * and acknowledging leaves no auxiliary entry behind; groups stored in the first layout (whole PEL
 * in the group's entry) are read as they were and rewritten in chunks by their first change.
 */
class PendingChunksTest {

    private static final byte[] KEY = "jobs".getBytes(US_ASCII);

    @TempDir
    Path dir;

    @Test
    void aPelOfThousandsIsChunkedSurvivesARestartAndLeavesNothingWhenAcked() throws Exception {
        int n = 2_000;
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            for (int i = 1; i <= n; i++) {
                j.xadd("jobs", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
            }
            j.sendCommand(Protocol.Command.XGROUP, "CREATE", "jobs", "g", "0");
            for (int read = 0; read < n; ) {
                List<?> reply = (List<?>) j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "g", read % 2 == 0 ? "a" : "b",
                        "COUNT", "7", "STREAMS", "jobs", ">");
                read += ((List<?>) ((List<?>) reply.getFirst()).get(1)).size();
            }
            List<Long> chunks = chunkSlots(s);
            assertTrue(chunks.size() >= n / PendingList.MAX_CHUNK, "a PEL of " + n + " is in " + chunks.size() + " chunks");
            assertEquals(chunks.size() + 2, auxEntries(s), "the directory, the group's entry and its chunks");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            assertEquals((long) n, ((List<?>) j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")).getFirst());
            List<String> odd = new ArrayList<>(List.of("jobs", "g"));
            for (int i = 1; i <= n; i += 2) {
                odd.add(i + "-0");
            }
            assertEquals((long) n / 2, j.sendCommand(Protocol.Command.XACK, odd.toArray(String[]::new)));
            List<?> range = (List<?>) j.sendCommand(Protocol.Command.XPENDING, "jobs", "g", "-", "+", "3");
            assertEquals(List.of("2-0", "4-0", "6-0"), range.stream()
                    .map(e -> new String((byte[]) ((List<?>) e).getFirst(), US_ASCII)).toList());
            for (int i = 2; i <= n; i += 2) {
                assertEquals(1L, j.sendCommand(Protocol.Command.XACK, "jobs", "g", i + "-0"));
            }
            assertEquals(0L, ((List<?>) j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")).getFirst());
            assertEquals(List.of(), chunkSlots(s));
            assertEquals(2, auxEntries(s), "every chunk freed: the directory and the group's entry are left");
        }
    }

    @Test
    void groupsOfTheFirstLayoutAreReadAndRewrittenInChunksByTheirFirstChange() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            for (int i = 1; i <= 5; i++) {
                j.xadd("jobs", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
            }
            KeyValueStore store = s.context().dbs.store(0);
            StoredStream.locked(store, KEY, st -> {
                // as the first layout stored them: consumers by index, the whole PEL in the group's entry
                st.putAux(0, legacyGroup(3, 3, new String[] {"alice", "bob"},
                        new long[][] {{1, 1, 5_000, 2}, {2, 0, 6_000, 1}, {3, 1, 7_000, 1}}));
                st.putAux(1, legacyGroup(0, -1, new String[0], new long[0][]));
                st.putAux(2, legacyDirectory("g", 0, "idle", 1));
                st.setAux(3, 3);
                st.commit();
                return null;
            });
            assertEquals("[3, 1-0, 3-0, [[alice, 1], [bob, 2]]]", StreamsTest.show(j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")));
            assertEquals("[[name, g, consumers, 2, pending, 3, last-delivered-id, 3-0, entries-read, 3, lag, 2],"
                    + " [name, idle, consumers, 0, pending, 0, last-delivered-id, 0-0, entries-read, null, lag, 5]]",
                    StreamsTest.show(j.sendCommand(Protocol.Command.XINFO, "GROUPS", "jobs")));
            assertEquals(GroupsLayout.FIRST, layout(s), "reading changes nothing");

            assertEquals(1L, j.sendCommand(Protocol.Command.XACK, "jobs", "g", "2-0"));
            assertEquals(GroupsLayout.COUNTED, layout(s), "the first change rewrote the groups");
            assertEquals("[2, 1-0, 3-0, [[bob, 2]]]", StreamsTest.show(j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")));
            assertEquals("[[1-0, bob, 2], [3-0, bob, 1]]", StreamsTest.show(j.sendCommand(Protocol.Command.XPENDING, "jobs", "g", "-", "+",
                    "10")).replaceAll(", \\d+, (\\d+)]", ", $1]"));
            assertEquals("[[name, g, consumers, 2, pending, 2, last-delivered-id, 3-0, entries-read, 3, lag, 2],"
                    + " [name, idle, consumers, 0, pending, 0, last-delivered-id, 0-0, entries-read, null, lag, 5]]",
                    StreamsTest.show(j.sendCommand(Protocol.Command.XINFO, "GROUPS", "jobs")));
            assertEquals(1 + 2 + 1, auxEntries(s), "the directory, two groups' entries and g's one chunk: the old entries freed");
            assertEquals(List.of("1-0", "2-0"), StreamGroupsTest.ids(j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "idle", "c",
                    "COUNT", "2", "STREAMS", "jobs", ">")));
            assertEquals(1 + 2 + 2, auxEntries(s), "and idle's first chunk");
        }
    }

    @Test
    void groupsOfTheSecondLayoutAreCountedFromTheirChunksThenRewrittenWithCountsByTheirFirstChange() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            for (int i = 1; i <= 5; i++) {
                j.xadd("jobs", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
            }
            KeyValueStore store = s.context().dbs.store(0);
            StoredStream.locked(store, KEY, st -> {
                // as the second layout stored them: consumers without pending counts, the PEL in chunks
                st.putAux(0, pendingChunk(new long[][] {{1, 1, 5_000, 2}, {2, 0, 6_000, 1}}));
                st.putAux(1, pendingChunk(new long[][] {{3, 1, 7_000, 1}}));
                st.putAux(2, chunkedGroup(3, 3, new String[] {"alice", "bob"}, new long[][] {{1, 2, 0}, {3, 1, 1}}));
                st.putAux(3, chunkedDirectory("g", 2));
                st.setAux(4, 4);
                st.commit();
                return null;
            });
            assertEquals("[3, 1-0, 3-0, [[alice, 1], [bob, 2]]]", StreamsTest.show(j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")));
            assertEquals("[[name, alice, pending, 1], [name, bob, pending, 2]]", StreamsTest.show(
                    j.sendCommand(Protocol.Command.XINFO, "CONSUMERS", "jobs", "g")).replaceAll(", idle, \\d+", ""));
            assertEquals(GroupsLayout.CHUNKED, layout(s), "reading changes nothing");

            assertEquals(1L, j.sendCommand(Protocol.Command.XACK, "jobs", "g", "2-0"));
            assertEquals(GroupsLayout.COUNTED, layout(s), "the first change rewrote the group");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            assertEquals("[2, 1-0, 3-0, [[bob, 2]]]", StreamsTest.show(j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")),
                    "the counts stored");
            j.sendCommand(Protocol.Command.XAUTOCLAIM, "jobs", "g", "alice", "0", "0", "JUSTID");
            assertEquals("[[name, alice, pending, 2], [name, bob, pending, 0]]", StreamsTest.show(
                    j.sendCommand(Protocol.Command.XINFO, "CONSUMERS", "jobs", "g")).replaceAll(", idle, \\d+", ""),
                    "a claim moves the counts");
            assertEquals(2L, j.sendCommand(Protocol.Command.XGROUP, "DELCONSUMER", "jobs", "g", "alice"));
            assertEquals("[0, null, null, null]", StreamsTest.show(j.sendCommand(Protocol.Command.XPENDING, "jobs", "g")));
        }
    }

    /** A chunk: rows of {ms, consumer number, delivery time, delivery count} (seq 0). */
    private static byte[] pendingChunk(long[][] pending) {
        ByteBuffer b = ByteBuffer.allocate(pending.length * GroupsLayout.PENDING_BYTES);
        for (long[] p : pending) {
            b.putLong(p[0]).putLong(0).putInt((int) p[1]).putLong(p[2]).putLong(p[3]);
        }
        return b.array();
    }

    /** A group entry of the second layout: consumers numbered by index; chunk rows {low ms, entries, slot}. */
    private static byte[] chunkedGroup(long lastMs, long entriesRead, String[] consumers, long[][] chunks) {
        ByteBuffer b = ByteBuffer.allocate(1024);
        b.putLong(lastMs).putLong(0).putLong(entriesRead).putInt(consumers.length).putInt(consumers.length).putInt(chunks.length);
        for (int i = 0; i < consumers.length; i++) {
            byte[] name = consumers[i].getBytes(US_ASCII);
            b.putInt(i).putInt(name.length).put(name).putLong(1_000L * (i + 1));
        }
        for (long[] c : chunks) {
            b.putLong(c[0]).putLong(0).putInt((int) c[1]).putLong(c[2]);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    /** A directory of the second layout: mark -2, then names and slots. */
    private static byte[] chunkedDirectory(String name, long slot) {
        byte[] n = name.getBytes(US_ASCII);
        return ByteBuffer.allocate(4 + 4 + 8 + 4 + n.length).putInt(-2).putInt(1).putLong(slot).putInt(n.length).put(n).array();
    }

    private static StoredStream stream(ColossalServer s) {
        return StoredStream.read(s.context().dbs.store(0), KEY);
    }

    private static int layout(ColossalServer s) {
        StoredStream st = stream(s);
        return GroupsLayout.directory(st.aux(st.groupsState() - 1)).layout();
    }

    /** @return the slots of the chunks of group "g" */
    private static List<Long> chunkSlots(ColossalServer s) {
        StoredStream st = stream(s);
        for (GroupsLayout.Slot slot : GroupsLayout.directory(st.aux(st.groupsState() - 1)).slots()) {
            if (new String(slot.name(), US_ASCII).equals("g")) {
                return GroupsLayout.chunkSlots(st.aux(slot.slot()), layout(s));
            }
        }
        throw new AssertionError("no group g");
    }

    /** @return the auxiliary entries present below the header's count */
    private static int auxEntries(ColossalServer s) {
        StoredStream st = stream(s);
        int n = 0;
        for (long i = 0; i < st.auxCount(); i++) {
            n += st.aux(i) == null ? 0 : 1;
        }
        return n;
    }

    /** A group entry of the first layout; pending rows are {ms, consumer index, delivery time, delivery count} (seq 0). */
    private static byte[] legacyGroup(long lastMs, long entriesRead, String[] consumers, long[][] pending) {
        ByteBuffer b = ByteBuffer.allocate(1024);
        b.putLong(lastMs).putLong(0).putLong(entriesRead).putInt(consumers.length).putInt(pending.length);
        for (int i = 0; i < consumers.length; i++) {
            byte[] name = consumers[i].getBytes(US_ASCII);
            b.putInt(name.length).put(name).putLong(1_000L * (i + 1));
        }
        for (long[] p : pending) {
            b.putLong(p[0]).putLong(0).putInt((int) p[1]).putLong(p[2]).putLong(p[3]);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    /** A directory of the first layout: names and slots, no mark. */
    private static byte[] legacyDirectory(Object... nameSlot) {
        ByteBuffer b = ByteBuffer.allocate(1024);
        b.putInt(nameSlot.length / 2);
        for (int i = 0; i < nameSlot.length; i += 2) {
            byte[] name = ((String) nameSlot[i]).getBytes(US_ASCII);
            b.putLong((Integer) nameSlot[i + 1]).putInt(name.length).put(name);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }
}
