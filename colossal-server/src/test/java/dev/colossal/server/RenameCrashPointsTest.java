package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every point a kill could stop a RENAME of an element-backed key at: a list, a stream with a
 * consumer group, a bucketed hash, a bucketed set, a sorted-set tree and a chunked string, each
 * renamed over a missing key (RENAMENX) and over a key of every kind (RENAME). The rename is
 * stopped after its first map write, the server restarted on its files, and then, from the
 * original again, after its second write, and so on until it runs through ({@link StopPoints}).
 * After each restart the keys are as before the rename or as after it, every read of them whole,
 * and a write to the key holding the collection changes no other key.
 */
class RenameCrashPointsTest extends RestartedServer {

    private static final List<String> KINDS = ValueKinds.ELEMENT_BACKED;

    @Test
    void aRenameStoppedAfterAnyOfItsWritesIsWholeOrUndoneAfterARestart() throws Exception {
        start();
        try {
            int stops = 0;
            for (String from : KINDS) {
                List<String> onto = new ArrayList<>(KINDS);
                onto.add(0, "none");
                onto.add("plain");
                for (String to : onto) {
                    stops += renameStoppedAtEachWrite(from, to);
                }
            }
            assertTrue(stops >= KINDS.size() * (KINDS.size() + 2) * 5, "renames were stopped " + stops + " times");
        } finally {
            stop();
        }
    }

    @Test
    void twoRenamesStoppedAtOnceAreEachSettledAtTheRestart() throws Exception {
        start();
        try {
            make("s", "hash");
            make("t", "list");
            make("u", "zset");
            String s = read("s");
            String t = read("t");
            String u = read("u");
            stopAt(3, "s", "d");   // d's header written, s's not yet deleted: finished at the restart
            stopAt(2, "t", "u");   // the root names both, u not yet written: undone at the restart
            assertEquals(2, server.context().dbs.opened(0).elements(false).renamesInFlight().length, "both are noted");
            restart();
            assertEquals(List.of("none", s, t, u), List.of(read("s"), read("d"), read("t"), read("u")));
            assertEquals(0, server.context().dbs.opened(0).elements(false).renamesInFlight().length, "none is noted after the restart");
            j.hset("d", "written", "1");
            j.rpush("t", "written");
            assertEquals(u, read("u"), "u kept its own sorted set");
            j.rename("t", "u");
            assertEquals(0, server.context().dbs.opened(0).elements(false).renamesInFlight().length, "a RENAME that ran through leaves none");
        } finally {
            stop();
        }
    }

    /** Runs RENAME {@code from} {@code to} stopped after its write {@code write}. */
    private void stopAt(int write, String from, String to) {
        int[] writes = {0};
        StopPoints.hookOf(server).accept(() -> {
            if (++writes[0] == write) {
                throw new IllegalStateException("stopped for the test");
            }
        });
        try {
            j.rename(from, to);
            throw new AssertionError("RENAME " + from + " " + to + " was not stopped");
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            assertTrue(e.getMessage().contains("stopped for the test"), e.getMessage());
        } finally {
            StopPoints.hookOf(server).accept(() -> { });
        }
    }

    /** @return how many times RENAME of a {@code from} over a {@code to} was stopped before it ran through */
    private int renameStoppedAtEachWrite(String from, String to) throws Exception {
        String where = "RENAME of a " + from + " over " + to;
        Map<String, String> before = fill(from, to);
        Map<String, String> after = new LinkedHashMap<>(before);
        after.put("s", "none");
        after.put("d", before.get("s"));
        String[] command = to.equals("none") ? new String[] {"RENAMENX", "s", "d"} : new String[] {"RENAME", "s", "d"};
        int stops = StopPoints.each(h -> StopPoints.hookOf(server).accept(h), () -> j.sendCommand(() -> bytes(command[0]),
                bytes(command[1]), bytes(command[2])), stopAt -> {
                    String at = where + ", stopped after write " + stopAt + " and restarted";
                    restart();
                    Map<String, String> now = snapshot();
                    assertTrue(now.equals(before) || now.equals(after), at + ": the keys are " + now
                            + "\n  neither as before " + before + "\n  nor as after " + after);
                    writeToTheHolder(now, at);
                    fill(from, to);   // back to the original, to stop at the next write
                });
        assertEquals(after, snapshot(), where + " that ran through");
        writeToTheHolder(after, where + " that ran through");
        return stops;
    }

    /** Writes to whichever of s and d holds the renamed value; no other key may change. */
    private void writeToTheHolder(Map<String, String> now, String at) {
        String holder = now.get("s").equals("none") ? "d" : "s";
        ValueKinds.writeTo(j, holder);
        Map<String, String> later = snapshot();
        ValueKinds.onlyChanged(now, later, holder, at);
    }

    /** Empties the database and makes s a {@code from}, d a {@code to} (or nothing), x a bystander list. @return their snapshot */
    private Map<String, String> fill(String from, String to) {
        j.flushAll();
        make("s", from);
        make("d", to);
        make("x", "list");
        for (String k : List.of("s", "d")) {
            String kind = k.equals("s") ? from : to;
            if (!kind.equals("none") && !kind.equals("plain")) {
                KeyValueStore.Entry h = server.context().dbs.opened(0).raw(bytes(k));
                assertNotNull(ListCollector.held(h, ListCollector.idOf(h)), kind + " under " + k + " keeps its elements in the element map");
            }
        }
        return snapshot();
    }

    private void make(String key, String kind) {
        ValueKinds.make(j, key, kind);
    }

    /** @return s, d and x, each as every read of it gives it, "none" if missing */
    private Map<String, String> snapshot() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : List.of("s", "d", "x")) {
            m.put(k, read(k));
        }
        return m;
    }

    private String read(String key) {
        return ValueKinds.read(j, key);
    }

    private static byte[] bytes(String s) {
        return ValueKinds.bytes(s);
    }
}
