package dev.colossal.server;

import static dev.colossal.server.ValueKinds.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Every point a kill could stop a MOVE to another database at ({@link KeyMove}), and a COPY ...
 * DB: a value of every kind (each element-backed one and a plain string) is moved from database
 * 0 to database 1, stopped after its first map write (of either database), the server restarted
 * on its files, and so on until the move runs through ({@link StopPoints}). After each restart
 * the key is in exactly one database, whole; a write to it changes no other key; and the
 * collector frees every element the stop left, so that the element maps hold what a move that ran
 * through leaves (once the collector has walked them). And servers in child JVMs are killed
 * outright (Runtime.halt, no clean close): with the key in both databases, for every kind, and
 * after each write of a MOVE of a plain string and of a bucketed hash.
 */
class MoveCrashPointsTest extends RestartedServer {

    private static final List<String> KINDS = kinds();

    private static List<String> kinds() {
        List<String> all = new ArrayList<>(ValueKinds.ELEMENT_BACKED);
        all.add("plain");
        return all;
    }

    @Test
    void aMoveStoppedAfterAnyOfItsWritesLeavesTheKeyInOneDatabaseAfterARestart() throws Exception {
        start();
        try {
            for (String kind : KINDS) {
                String where = "MOVE of a " + kind;
                Map<String, String> before = fill(kind, "none");
                Map<String, String> after = new LinkedHashMap<>(before);
                after.put("0:s", "none");
                after.put("1:s", before.get("0:s"));
                long elementsBefore = collectedElements();
                fill(kind, "none");
                assertEquals(1L, j.move("s", 1), where);
                assertEquals(after, snapshot(), where + " that ran through");
                long elementsAfter = collectedElements();
                fill(kind, "none");
                int stops = StopPoints.each(hooks(), () -> j.sendCommand(() -> bytes("MOVE"), bytes("s"), bytes("1")), stopAt -> {
                    String at = where + ", stopped after write " + stopAt + " and restarted";
                    restart();
                    Map<String, String> now = snapshot();
                    assertTrue(now.equals(before) || now.equals(after), at + ": the keys are " + now
                            + "\n  neither as before " + before + "\n  nor as after " + after);
                    long whole = now.equals(before) ? elementsBefore : elementsAfter;
                    assertEquals(whole, collected(), at + ": the element maps hold what a whole move leaves, and no more");
                    writeToTheHolder(now, "s", at);
                    fill(kind, "none");   // back to the original, to stop at the next write
                });
                assertTrue(stops >= 4, where + " was stopped " + stops + " times");
                assertEquals(0, server.context().dbs.opened(0).elements(false).movesInFlight().size(), where + ": none in flight");
            }
        } finally {
            stop();
        }
    }

    @Test
    void aCopyToAnotherDatabaseStoppedAnywhereIsWholeOrAbsentAfterARestart() throws Exception {
        start();
        try {
            for (String kind : KINDS) {
                for (String over : List.of("none", "list", "plain")) {
                    String where = "COPY of a " + kind + " over " + over + " in database 1";
                    Map<String, String> before = fill(kind, over);
                    Map<String, String> after = new LinkedHashMap<>(before);
                    after.put("1:d", before.get("0:s"));
                    int stops = StopPoints.each(hooks(), () -> j.sendCommand(() -> bytes("COPY"), bytes("s"), bytes("d"),
                            bytes("DB"), bytes("1"), bytes("REPLACE")), stopAt -> {
                                String at = where + ", stopped after write " + stopAt + " and restarted";
                                restart();
                                Map<String, String> now = snapshot();
                                assertTrue(now.equals(before) || now.equals(after), at + ": the keys are " + now
                                        + "\n  neither as before " + before + "\n  nor as after " + after);
                                writeToTheHolder(now, "d", at);
                                fill(kind, over);
                            });
                    assertEquals(after, snapshot(), where + " that ran through");
                    writeToTheHolder(after, "d", where + " that ran through");
                    assertTrue(kind.equals("plain") || kind.equals("bigstring") || stops >= 2, where + " was stopped " + stops + " times");
                }
            }
        } finally {
            stop();
        }
    }

    @Test
    void aServerKilledWithTheKeyInBothDatabasesKeepsItInOne() throws Exception {
        for (String kind : KINDS) {
            assertEquals(MoveKillChild.HALTED, killedAt(kind, "both"), kind + ": the child was not killed mid-MOVE");
        }
    }

    @Test
    void aServerKilledAfterAnyWriteOfAMoveKeepsTheKeyInOneDatabase() throws Exception {
        for (String kind : List.of("plain", "hash")) {
            int kills = 0;
            while (killedAt(kind, Integer.toString(kills + 1)) == MoveKillChild.HALTED) {
                kills++;
            }
            assertTrue(kills >= 4, kind + ": killed " + kills + " times before a MOVE ran through");
        }
    }

    /**
     * Runs {@link MoveKillChild} on a data directory of its own, halted {@code where}, then serves
     * its files here: the key is in exactly one database, as it was, and a write to it changes no
     * other key, with no move left in flight.
     *
     * @return the child's exit status
     */
    private int killedAt(String kind, String where) throws Exception {
        Path data = dir.resolve("killed-" + kind + "-" + where);
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path log = dir.resolve(kind + "-" + where + ".log");
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), MoveKillChild.class.getName(),
                data.toString(), kind, where).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String at = "MOVE of a " + kind + " killed at write " + where;
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), at + ": the child did not stop");
        assertTrue(child.exitValue() == MoveKillChild.HALTED || child.exitValue() == MoveKillChild.RAN_THROUGH,
                at + ": the child failed: " + Files.readString(log));
        String moved = Files.readString(data.resolve(MoveKillChild.VALUE_FILE));
        server = TestServers.colossal(data);
        j = new Jedis("127.0.0.1", server.port());
        try {
            Map<String, String> now = snapshot();
            assertEquals(moved, now.get("0:s").equals("none") ? now.get("1:s") : now.get("0:s"), at + ": the key is whole: " + now);
            assertTrue(now.get("0:s").equals("none") != now.get("1:s").equals("none"), at + ": the key is in one database: " + now);
            assertEquals(0, server.context().dbs.opened(0).elements(true).movesInFlight().size(), at + ": settled");
            writeToTheHolder(now, "s", at);
        } finally {
            stop();
        }
        return child.exitValue();
    }

    /** @return what sets the after-write hook of the element maps of databases 0 and 1 at once: a move writes both */
    private Consumer<Runnable> hooks() {
        return h -> {
            StopPoints.hookOf(server).accept(h);
            server.context().dbs.opened(1).elements(true).afterWrite = h;
        };
    }

    /** @return the entries of both element maps once the collector has walked them after a restart: no garbage left */
    private long collectedElements() {
        restart();
        return collected();
    }

    /** @return the entries of both element maps after a walk of each by the collector: what is left is held by a key */
    private long collected() {
        for (int db : new int[] {0, 1}) {
            MapStore m = server.context().dbs.opened(db);
            ListElements e = m.elements(false);
            if (e != null) {
                server.context().collector.walk(m, e);
            }
        }
        return elementEntries();
    }

    private long elementEntries() {
        long n = 0;
        for (int db : new int[] {0, 1}) {
            ListElements e = server.context().dbs.opened(db).elements(false);
            n += e == null ? 0 : e.size();
        }
        return n;
    }

    /** Writes to whichever database's {@code key} holds the value; no other key may change. */
    private void writeToTheHolder(Map<String, String> now, String key, String at) {
        String holder = now.get("1:" + key).equals("none") ? "0:" + key : "1:" + key;
        j.select(holder.charAt(0) - '0');
        ValueKinds.writeTo(j, key);
        Map<String, String> later = snapshot();
        ValueKinds.onlyChanged(now, later, holder, at);
    }

    /**
     * Empties both databases and makes s in database 0 a {@code kind}, d in database 1 an {@code over}
     * (or nothing), and a bystander list in each (x, y: database 1 has an element map from the start).
     *
     * @return their snapshot
     */
    private Map<String, String> fill(String kind, String over) {
        j.flushAll();
        j.select(1);
        ValueKinds.make(j, "y", "list");
        ValueKinds.make(j, "d", over);
        j.select(0);
        ValueKinds.make(j, "s", kind);
        ValueKinds.make(j, "x", "list");
        return snapshot();
    }

    /** @return s and x of database 0, s, d and y of database 1, each as every read gives it */
    private Map<String, String> snapshot() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : List.of("0:s", "0:x", "1:s", "1:d", "1:y")) {
            j.select(k.charAt(0) - '0');
            m.put(k, ValueKinds.read(j, k.substring(2)));
        }
        j.select(0);
        return m;
    }
}
