package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Framing edge cases: split frames, pipelined bursts, empty and huge values, binary keys, RESP3. */
class ProtocolEdgeTest {

    @TempDir
    Path dir;
    ColossalServer server;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.colossal(dir);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void aRequestSplitAtEveryByteIsParsedLikeAWholeOne() throws Exception {
        byte[] set = Wire.encode("SET", "split-key", "split-value");
        byte[] get = Wire.encode("GET", "split-key");
        byte[] both = new byte[set.length + get.length];
        System.arraycopy(set, 0, both, 0, set.length);
        System.arraycopy(get, 0, both, set.length, get.length);
        try (Wire w = new Wire(server.port())) {
            for (int cut = 1; cut < both.length; cut++) {
                w.send(Arrays.copyOfRange(both, 0, cut));
                Thread.sleep(1); // let the server see the partial frame on its own
                w.send(Arrays.copyOfRange(both, cut, both.length));
                assertEquals("+OK\r\n", w.reply(), "cut at " + cut);
                assertEquals("$11\r\nsplit-value\r\n", w.reply(), "cut at " + cut);
            }
            for (byte b : both) { // and one byte per write
                w.send(new byte[] {b});
            }
            assertEquals("+OK\r\n", w.reply());
            assertEquals("$11\r\nsplit-value\r\n", w.reply());
        }
    }

    /**
     * GET copies the stored value into the reply buffer before it knows the header's length: values
     * whose header is longer or shorter than the one before (so the bytes move), with and without a
     * deadline (a longer stored prefix), longer than the reply buffer (it grows under a waiting
     * value), keys longer than the loop's key views, and expired keys, all in one pipeline.
     */
    @Test
    void pipelinedGetsOfEveryValueLengthAndDeadlineReplyByteForByte() throws Exception {
        int[] lengths = {0, 1, 9, 10, 99, 100, 999, 1000, 70_000, 3, 1_500_000, 12, 0, 100_000, 5};
        Random random = new Random(7);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        ByteArrayOutputStream gets = new ByteArrayOutputStream();
        try (Wire w = new Wire(server.port())) {
            for (int i = 0; i < lengths.length; i++) {
                byte[] value = new byte[lengths[i]];
                random.nextBytes(value);
                byte[] key = (i % 3 == 2 ? "k".repeat(300) + i : "k" + i).getBytes(StandardCharsets.UTF_8);
                byte[] set = i % 2 == 0 ? Wire.encode("SET".getBytes(StandardCharsets.UTF_8), key, value)
                        : Wire.encode("SET".getBytes(StandardCharsets.UTF_8), key, value,
                                "PX".getBytes(StandardCharsets.UTF_8), "600000".getBytes(StandardCharsets.UTF_8));
                w.send(set);
                assertEquals("+OK\r\n", w.reply());
                gets.writeBytes(Wire.encode("GET".getBytes(StandardCharsets.UTF_8), key));
                gets.writeBytes(Wire.encode("GET", "absent" + i));
                expected.writeBytes(("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                expected.writeBytes(value);
                expected.writeBytes("\r\n$-1\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            assertEquals("+OK\r\n", w.call("SET", "gone", "soon", "PX", "1"));
            Thread.sleep(20);
            gets.writeBytes(Wire.encode("GET", "gone"));
            expected.writeBytes("$-1\r\n".getBytes(StandardCharsets.US_ASCII));
            w.send(gets.toByteArray());
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            for (int i = 0; i < 2 * lengths.length + 1; i++) {
                got.writeBytes(w.readReply());
            }
            assertArrayEquals(expected.toByteArray(), got.toByteArray());
            assertEquals(":0\r\n", w.call("EXISTS", "gone"));
        }
    }

    /** Counters are added up once per batch of requests; INFO in the same batch still sees them. */
    @Test
    void infoInAPipelineCountsTheRequestsBeforeIt() throws Exception {
        try (Wire w = new Wire(server.port())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            burst.writeBytes(Wire.encode("SET", "counted", "1"));
            burst.writeBytes(Wire.encode("GET", "counted"));
            burst.writeBytes(Wire.encode("GET", "counted"));
            burst.writeBytes(Wire.encode("GET", "uncounted"));
            burst.writeBytes(Wire.encode("INFO", "stats"));
            w.send(burst.toByteArray());
            for (int i = 0; i < 4; i++) {
                w.reply();
            }
            String info = w.reply();
            assertTrue(info.contains("\r\ntotal_commands_processed:4\r\n"), info);
            assertTrue(info.contains("\r\nkeyspace_hits:2\r\n"), info);
            assertTrue(info.contains("\r\nkeyspace_misses:1\r\n"), info);
        }
    }

    @Test
    void configResetstatZeroesTheCountersButNotTheClients() throws Exception {
        try (Wire w = new Wire(server.port()); Wire other = new Wire(server.port())) {
            w.call("SET", "reset-me", "1");
            w.call("GET", "reset-me");
            w.call("GET", "reset-absent");
            w.call("NOSUCHCOMMAND");
            assertTrue(stat(w, "keyspace_hits") > 0 && stat(w, "total_error_replies") > 0);
            assertEquals("+OK\r\n", w.call("CONFIG", "RESETSTAT"));
            String info = w.call("INFO");
            assertTrue(info.contains("\r\nkeyspace_hits:0\r\n"), info);
            assertTrue(info.contains("\r\nkeyspace_misses:0\r\n"), info);
            assertTrue(info.contains("\r\ntotal_error_replies:0\r\n"), info);
            assertTrue(info.contains("\r\ntotal_connections_received:0\r\n"), info);
            assertEquals("+PONG\r\n", other.call("PING"));
            assertTrue(stat(w, "connected_clients") >= 2, info);
            w.call("GET", "reset-me");
            assertEquals(1, stat(w, "keyspace_hits"), "counting goes on after the reset");
        }
    }

    @Test
    void timeIsTheWallClockInMicrosecondsAndNeverGoesBack() throws Exception {
        try (Wire w = new Wire(server.port())) {
            long last = 0;
            for (int i = 0; i < 2000; i++) {
                long before = System.currentTimeMillis();
                String[] parts = w.call("TIME").split("\r\n");   // *2, $n, seconds, $n, micros
                long after = System.currentTimeMillis();
                long micros = Long.parseLong(parts[2]) * 1_000_000 + Long.parseLong(parts[4]);
                assertTrue(Long.parseLong(parts[4]) < 1_000_000, parts[4]);
                assertTrue(micros / 1000 >= before - 1 && micros / 1000 <= after + 1,
                        micros + " us is not between " + before + " and " + after + " ms");
                assertTrue(micros >= last, "TIME went back from " + last + " to " + micros);
                last = micros;
            }
        }
    }

    /** MGET reads each value as GET does, and counts a hit or a miss per key, as Redis does. */
    @Test
    void mgetRepliesEveryValueAndCountsHitsAndMissesPerKey() throws Exception {
        try (Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("MSET", "mg1", "one", "mg2", "", "mg3", "x".repeat(5000)));
            long hits = stat(w, "keyspace_hits");
            long misses = stat(w, "keyspace_misses");
            assertEquals("*4\r\n$3\r\none\r\n$-1\r\n$0\r\n\r\n$5000\r\n" + "x".repeat(5000) + "\r\n",
                    w.call("MGET", "mg1", "mg-absent", "mg2", "mg3"));
            assertEquals(hits + 3, stat(w, "keyspace_hits"));
            assertEquals(misses + 1, stat(w, "keyspace_misses"));
        }
    }

    /**
     * MGET and MSET of more keys than one read-ahead batch (32): every key in its place, a key
     * given twice in one MSET keeps its last value, as in Redis.
     */
    @Test
    void msetAndMgetOfManyKeysCrossReadAheadBatches() throws Exception {
        try (Wire w = new Wire(server.port())) {
            List<String> mset = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < 70; i++) {
                mset.add("many" + i);
                mset.add("v" + i + "-".repeat(i));
            }
            mset.add("many3");
            mset.add("last");
            assertEquals("+OK\r\n", w.call(mset.toArray(String[]::new)));
            List<String> mget = new ArrayList<>(List.of("MGET"));
            StringBuilder expected = new StringBuilder("*100\r\n");
            for (int i = 0; i < 100; i++) {
                String key = i % 4 == 1 ? "absent" + i : "many" + (i * 7 % 70);
                mget.add(key);
                int k = i * 7 % 70;
                String v = k == 3 ? "last" : "v" + k + "-".repeat(k);
                expected.append(i % 4 == 1 ? "$-1\r\n" : "$" + v.length() + "\r\n" + v + "\r\n");
            }
            assertEquals(expected.toString(), w.call(mget.toArray(String[]::new)));
        }
    }

    private static long stat(Wire w, String name) throws Exception {
        String info = w.call("INFO");
        int line = info.indexOf("\r\n" + name + ":");
        assertTrue(line >= 0, name + " is not in " + info);
        int at = line + name.length() + 3;
        return Long.parseLong(info.substring(at, info.indexOf("\r\n", at)));
    }

    @Test
    void aPipelinedBurstOfTenThousandCommandsGetsEveryReplyInOrder() throws Exception {
        int n = 10_000;
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            burst.writeBytes(Wire.encode("SET", "p" + i, "v" + i));
            burst.writeBytes(Wire.encode("GET", "p" + i));
        }
        try (Wire w = new Wire(server.port())) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    w.send(burst.toByteArray());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            for (int i = 0; i < n; i++) {
                assertEquals("+OK\r\n", w.reply());
                String v = "v" + i;
                assertEquals("$" + v.length() + "\r\n" + v + "\r\n", w.reply());
            }
            writer.join();
            assertEquals(":" + n + "\r\n", w.call("DBSIZE"));
        }
    }

    @Test
    void plainSetsStoredFromTheRequestBufferLeaveTheRequestsAfterThemIntact() throws Exception {
        byte[] big = new byte[1500];
        new Random(3).nextBytes(big);
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        burst.writeBytes(Wire.encode("set", "a", "1"));
        burst.writeBytes(Wire.encode("SeT", "empty", ""));
        burst.writeBytes(Wire.encode("SET".getBytes(), "big".getBytes(), big));
        burst.writeBytes(Wire.encode("SET", "a", "2", "GET"));
        burst.writeBytes(Wire.encode("SET", "ttl", "x", "EX", "100"));
        burst.writeBytes(Wire.encode("GET", "a"));
        burst.writeBytes(Wire.encode("SET", "a"));
        try (Wire w = new Wire(server.port())) {
            w.send(burst.toByteArray());
            assertEquals("+OK\r\n", w.reply());
            assertEquals("+OK\r\n", w.reply());
            assertEquals("+OK\r\n", w.reply());
            assertEquals("$1\r\n1\r\n", w.reply(), "SET ... GET sees the fast path's value");
            assertEquals("+OK\r\n", w.reply());
            assertEquals("$1\r\n2\r\n", w.reply());
            assertEquals("-ERR wrong number of arguments for 'set' command\r\n", w.reply());
            assertEquals("$0\r\n\r\n", w.call("GET", "empty"));
            assertArrayEquals(w.call("GET".getBytes(), "big".getBytes()),
                    ("$1500\r\n" + new String(big, java.nio.charset.StandardCharsets.ISO_8859_1) + "\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            assertEquals(":-1\r\n", w.call("TTL", "big"));
            assertEquals(":100\r\n", w.call("TTL", "ttl"));
        }
    }

    @Test
    void emptyAndSixtyFourMebibyteValuesRoundTrip() throws Exception {
        byte[] big = new byte[64 * 1024 * 1024];
        new Random(5).nextBytes(big);
        try (Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("SET", "empty", ""));
            assertEquals("$0\r\n\r\n", w.call("GET", "empty"));
            assertEquals(":0\r\n", w.call("STRLEN", "empty"));
            assertEquals("+OK\r\n", new String(w.call("SET".getBytes(), "big".getBytes(), big), StandardCharsets.US_ASCII));
            byte[] reply = w.call("GET".getBytes(), "big".getBytes());
            String header = "$" + big.length + "\r\n";
            assertEquals(header, new String(reply, 0, header.length(), StandardCharsets.US_ASCII));
            assertArrayEquals(big, Arrays.copyOfRange(reply, header.length(), header.length() + big.length));
            assertEquals(":" + big.length + "\r\n", w.call("STRLEN", "big"));
        }
    }

    /**
     * The trial: {@code SCAN -1} answered "invalid cursor" where redis-server reads the cursor with
     * C's strtoul, so -1 is 2^64-1, a cursor no step returns, which ends the scan. The same texts
     * are compared with redis-server itself in redis-compat.txt, on an empty database.
     */
    @Test
    void scanCursorsAreReadAsRedisReadsThem() throws Exception {
        try (Wire w = new Wire(server.port())) {
            for (int i = 0; i < 50; i++) {
                w.call("SET", "k" + i, "v");
            }
            String fromZero = w.call("SCAN", "0");
            String next = fromZero.split("\r\n")[2];
            String fromNext = w.call("SCAN", next);
            assertTrue(!next.equals("0") && !fromNext.equals(fromZero), fromZero + fromNext);
            String end = "*2\r\n$1\r\n0\r\n*0\r\n";
            String[][] same = {{"-1", end}, {"18446744073709551615", end}, {"-9223372036854775808", end},
                {"", fromZero}, {"-0", fromZero}, {"+0", fromZero}, {"\0" + "7", fromZero},
                {"+" + next, fromNext}, {"0000000000000000000000" + next, fromNext}, {next + "\0" + "x", fromNext},
                {"-" + Long.toUnsignedString(-Long.parseLong(next)), fromNext}};
            for (String[] c : same) {
                assertEquals(c[1], new String(w.call("SCAN".getBytes(), c[0].getBytes(StandardCharsets.ISO_8859_1)),
                        StandardCharsets.ISO_8859_1), "SCAN '" + c[0] + "'");
            }
            for (String bad : new String[] {"18446744073709551616", "-18446744073709551616", " 1", "1 ", "+", "-", "--1",
                "+-1", "0x10", "1.0", "abc"}) {
                assertEquals("-ERR invalid cursor\r\n", w.call("SCAN", bad), "SCAN '" + bad + "'");
            }
        }
    }

    @Test
    void binaryKeysWithCrLfAndNulAreDistinctKeys() throws Exception {
        byte[][] keys = {{'a', '\r', '\n', 'b'}, {'a', 0, 'b'}, {0}, {'\r', '\n'}, {(byte) 0xff, (byte) 0xfe}};
        try (Wire w = new Wire(server.port())) {
            for (int i = 0; i < keys.length; i++) {
                w.call("SET".getBytes(), keys[i], new byte[] {(byte) i, '\r', '\n', 0});
            }
            for (int i = 0; i < keys.length; i++) {
                assertArrayEquals(new byte[] {'$', '4', '\r', '\n', (byte) i, '\r', '\n', 0, '\r', '\n'},
                        w.call("GET".getBytes(), keys[i]));
            }
            assertEquals(":" + keys.length + "\r\n", w.call("DBSIZE"));
            byte[] all = w.call("KEYS".getBytes(), "*".getBytes());
            assertTrue(new String(all, StandardCharsets.ISO_8859_1).startsWith("*" + keys.length + "\r\n"));
        }
    }

    @Test
    void inlineCommandsWork() throws Exception {
        try (Wire w = new Wire(server.port())) {
            w.send("PING\r\n".getBytes());
            assertEquals("+PONG\r\n", w.reply());
            w.send("SET inl \"a b\\r\\n\"\nGET inl\n\r\n".getBytes());
            assertEquals("+OK\r\n", w.reply());
            assertEquals("$5\r\na b\r\n\r\n", w.reply());
            w.send("\r\n\r\nPING\r\n".getBytes()); // blank lines are skipped, as in Redis
            assertEquals("+PONG\r\n", w.reply());
        }
    }

    @Test
    void resp3RepliesUseResp3Types() throws Exception {
        try (Wire w = new Wire(server.port())) {
            assertTrue(w.call("HELLO", "3").startsWith("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n"));
            assertEquals("_\r\n", w.call("GET", "nope"));
            assertEquals("%1\r\n$4\r\nsave\r\n$0\r\n\r\n", w.call("CONFIG", "GET", "save"));
            assertTrue(w.call("INFO", "server").startsWith("="), "INFO is verbatim text in RESP3");
            assertTrue(w.call("HELLO", "2").startsWith("*14\r\n"));
            assertEquals("$-1\r\n", w.call("GET", "nope"));
        }
    }

    @Test
    void malformedFramesGetRedisErrorsAndAClose() throws Exception {
        String[][] cases = {
            {"*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
            {"*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
            {"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
            {"*1\r\n$999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
            {"*9999999\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
        };
        for (String[] c : cases) {
            try (Wire w = new Wire(server.port())) {
                w.send(c[0].getBytes(StandardCharsets.ISO_8859_1));
                assertEquals(c[1], w.reply(), c[0]);
                assertTrue(w.closedByServer(), c[0]);
            }
        }
        try (Wire w = new Wire(server.port())) {
            w.send(new byte[70 * 1024]); // no newline: too big inline request
            assertEquals("-ERR Protocol error: too big inline request\r\n", w.reply());
        }
        try (Wire w = new Wire(server.port())) {
            assertEquals("+PONG\r\n", w.call("PING"));
        }
    }
}
