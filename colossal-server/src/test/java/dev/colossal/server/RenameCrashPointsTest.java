package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Every point a kill could stop a RENAME of an element-backed key at: a list, a stream with a
 * consumer group, a bucketed hash, a bucketed set, a sorted-set tree and a chunked string, each
 * renamed over a missing key (RENAMENX) and over a key of every kind (RENAME). The rename is
 * stopped after its first map write, the server restarted on its files, and then, from the
 * original again, after its second write, and so on until it runs through ({@link StopPoints}).
 * After each restart the keys are as before the rename or as after it, every read of them whole,
 * and a write to the key holding the collection changes no other key.
 */
class RenameCrashPointsTest {

    private static final List<String> KINDS = List.of("list", "stream", "hash", "set", "zset", "bigstring");

    @TempDir
    Path dir;

    private ColossalServer server;
    private Jedis j;

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
        String type = j.type(holder);
        switch (type) {
            case "list" -> j.rpush(holder, "written");
            case "stream" -> j.sendCommand(() -> bytes("XADD"), bytes(holder), bytes("*"), bytes("written"), bytes("1"));
            case "hash" -> j.hset(holder, "written", "1");
            case "set" -> j.sadd(holder, "written");
            case "zset" -> j.zadd(holder, 99, "written");
            default -> j.append(holder, "written");
        }
        Map<String, String> later = snapshot();
        for (String k : now.keySet()) {
            if (k.equals(holder)) {
                assertNotEquals(now.get(k), later.get(k), at + ": the write to " + holder + " took");
            } else {
                assertEquals(now.get(k), later.get(k), at + ": a write to " + holder + " changed " + k);
            }
        }
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
        String tag = key + "-";
        switch (kind) {
            case "none" -> { }
            case "plain" -> j.set(key, tag + "small");
            case "list" -> {
                for (int i = 0; i < 10; i++) {
                    j.rpush(key, tag + i);
                }
            }
            case "stream" -> {
                for (int i = 1; i <= 6; i++) {
                    j.sendCommand(() -> bytes("XADD"), bytes(key), bytes(i + "-1"), bytes(tag + "f"), bytes(Integer.toString(i)));
                }
                j.sendCommand(() -> bytes("XGROUP"), bytes("CREATE"), bytes(key), bytes(tag + "g"), bytes("0"));
                j.sendCommand(() -> bytes("XREADGROUP"), bytes("GROUP"), bytes(tag + "g"), bytes("c"), bytes("COUNT"), bytes("2"),
                        bytes("STREAMS"), bytes(key), bytes(">"));
            }
            case "hash" -> {
                for (int i = 0; i < 10; i++) {
                    j.hset(key, tag + i, Integer.toString(i));
                }
            }
            case "set" -> {
                for (int i = 0; i < 10; i++) {
                    j.sadd(key, tag + i);
                }
            }
            case "zset" -> {
                for (int i = 0; i < 10; i++) {
                    j.zadd(key, i, tag + i);
                }
            }
            case "bigstring" -> {
                byte[] v = new byte[100_000];
                Arrays.fill(v, (byte) tag.charAt(0));
                v[70_000] = '!';
                j.set(key, tag);
                j.append(bytes(key), v);   // grown past the 64 KB threshold: chunked
            }
            default -> throw new IllegalArgumentException(kind);
        }
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
        String type = j.type(key);
        return type.equals("none") ? type : type + " " + switch (type) {
            case "list" -> j.llen(key) + " " + j.lrange(key, 0, -1) + " " + j.lindex(key, 3);
            case "stream" -> render(j.sendCommand(() -> bytes("XLEN"), bytes(key))) + " "
                    + render(j.sendCommand(() -> bytes("XRANGE"), bytes(key), bytes("-"), bytes("+"))) + " "
                    + render(j.sendCommand(() -> bytes("XINFO"), bytes("GROUPS"), bytes(key)));
            case "hash" -> {
                java.util.TreeMap<String, String> all = new java.util.TreeMap<>(j.hgetAll(key));
                yield j.hlen(key) + " " + all + " " + j.hget(key, all.lastKey());
            }
            case "set" -> {
                java.util.TreeSet<String> all = new java.util.TreeSet<>(j.smembers(key));
                yield j.scard(key) + " " + all + " " + j.sismember(key, all.last());
            }
            case "zset" -> j.zcard(key) + " " + j.zrangeWithScores(key, 0, -1) + " " + j.zscore(key, j.zrange(key, -1, -1).get(0));
            default -> {
                byte[] v = j.get(bytes(key));
                yield j.strlen(key) + " " + v.length + " #" + Arrays.hashCode(v) + " " + j.getrange(key, 69_998, 70_002);
            }
        };
    }

    /** @return a reply as text: bulk strings as strings, arrays in brackets */
    private static String render(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            for (Object o : l) {
                parts.add(render(o));
            }
            return parts.toString();
        }
        return String.valueOf(reply);
    }

    private void start() throws Exception {
        server = TestServers.colossal(dir);
        j = new Jedis("127.0.0.1", server.port());
        j.configSet("hash-max-listpack-entries", "4");   // small values kept as buckets or trees
        j.configSet("set-max-intset-entries", "4");
        j.configSet("zset-max-listpack-entries", "4");
    }

    private void stop() throws Exception {
        j.close();
        server.close();
    }

    /** The stand-in for the restart after a kill: the stop left the files as a kill after that write would. */
    private void restart() {
        try {
            stop();
            start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
