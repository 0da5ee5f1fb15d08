package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;

/**
 * Numbered databases as redis-server has them (16 by default): each its own keys and its own map
 * file, chosen per connection by SELECT or a client's {@code redis://host:port/N} URL.
 */
class DatabasesTest {

    @TempDir
    Path dir;

    private static Jedis jedis(ColossalServer s, int db) {
        // as redis-py, Jedis and Lettuce take it from a URL: SELECT n when the connection opens
        return new Jedis(URI.create("redis://127.0.0.1:" + s.port() + "/" + db));
    }

    @Test
    void theSameKeyInTwoDatabasesHoldsTwoValues() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set("k", "zero");
            assertEquals("OK", j.select(1));
            assertNull(j.get("k"), "database 1 does not see database 0's key");
            j.set("k", "one");
            j.set("only-in-1", "x");
            assertEquals("one", j.get("k"));
            assertEquals(2, j.dbSize());
            assertTrue(j.clientInfo().contains(" db=1 "), j.clientInfo());
            assertEquals("OK", j.select(0));
            assertEquals("zero", j.get("k"));
            assertEquals(1, j.dbSize());
            assertEquals(List.of("k"), List.copyOf(j.keys("*")));
            try (Jedis fresh = new Jedis("127.0.0.1", s.port()); Jedis one = jedis(s, 1)) {
                assertEquals("zero", fresh.get("k"), "a new connection starts on database 0");
                assertEquals("one", one.get("k"));
                assertEquals(List.of("one", "x"), one.mget("k", "only-in-1"));
                assertTrue(fresh.clientList().contains(" db=1 "), "CLIENT LIST shows each connection's db: " + fresh.clientList());
            }
            j.select(1);
            assertEquals("RESET", new String((byte[]) j.sendCommand(() -> "RESET".getBytes())));
            assertEquals("zero", j.get("k"), "RESET goes back to database 0");
        }
    }

    @Test
    void database3SurvivesARestartInItsOwnFileAndUnusedDatabasesHaveNone() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis three = jedis(s, 3); Jedis seven = jedis(s, 7)) {
            three.set("kept", "in db 3");
            three.setex("ttl", 1000, "also");
            // reads of a database without a file answer as empty, and make none
            assertNull(seven.get("kept"));
            assertEquals(0, seven.dbSize());
            assertFalse(seven.exists("kept"));
            assertEquals(0, seven.del("kept"));
            assertEquals(-2, seven.ttl("kept"));
            assertEquals(Set.of(), seven.keys("*"));
            assertEquals(List.of(), seven.scan(ScanParams.SCAN_POINTER_START).getResult());
            assertEquals("OK", seven.flushDB());
        }
        assertTrue(Files.exists(dir.resolve("db0.map")), "database 0's file is where it always was");
        assertTrue(Files.exists(dir.resolve("db3.map")), "database 3 has its own file");
        assertFalse(Files.exists(dir.resolve("db7.map")), "a database only read has no file");
        try (ColossalServer s = TestServers.colossal(dir); Jedis three = jedis(s, 3); Jedis zero = jedis(s, 0)) {
            assertEquals("in db 3", three.get("kept"));
            long ttl = three.ttl("ttl");
            assertTrue(ttl > 990 && ttl <= 1000, "its TTL too: " + ttl);
            assertEquals(2, three.dbSize());
            assertEquals(0, zero.dbSize());
            assertTrue(s.startupReport().stream().anyMatch(l -> l.contains(dir.resolve("db3.map").toAbsolutePath() + ": 2 keys")),
                    String.join("\n", s.startupReport()));
        }
    }

    @Test
    void moveGivesAKeyToAnotherDatabaseUnlessItHasOne() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port()); Jedis two = jedis(s, 2)) {
            j.set("a", "from 0");
            j.psetex("t", 100_000, "with ttl");
            assertEquals(1, j.move("a", 2));
            assertNull(j.get("a"));
            assertEquals("from 0", two.get("a"));
            assertEquals(1, j.move("t", 2));
            long pttl = two.pttl("t");
            assertTrue(pttl > 90_000 && pttl <= 100_000, "MOVE keeps the TTL: " + pttl);
            assertEquals(0, j.move("a", 2), "a key that is not here moves nothing");
            j.set("a", "new in 0");
            assertEquals(0, j.move("a", 2), "the target keeps its own key");
            assertEquals("new in 0", j.get("a"));
            assertEquals("from 0", two.get("a"));
            Wire w = new Wire(s.port());
            try (w) {
                assertEquals("-ERR source and destination objects are the same\r\n", w.call("MOVE", "a", "0"));
                assertEquals("-ERR DB index is out of range\r\n", w.call("MOVE", "a", "16"));
                assertEquals("-ERR value is not an integer or out of range\r\n", w.call("MOVE", "a", "x"));
            }
        }
    }

    @Test
    void swapdbTradesTheDatabasesForEveryClientAndAcrossARestart() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis zero = jedis(s, 0); Jedis one = jedis(s, 1);
             Jedis four = jedis(s, 4)) {
            zero.set("k", "was 0");
            zero.set("z", "z");
            one.set("k", "was 1");
            four.set("f", "was 4");
            assertEquals("OK", zero.swapDB(0, 1));
            assertEquals("was 1", zero.get("k"), "a client on 0 sees what 1 held, at once");
            assertEquals("was 0", one.get("k"));
            assertEquals(2, one.dbSize());
            assertEquals("OK", zero.swapDB(4, 9), "with a database that has no file");
            assertEquals(0, four.dbSize());
            four.select(9);
            assertEquals("was 4", four.get("f"));
        }
        assertFalse(Files.exists(dir.resolve("db4.map")), "the file moved with its keys");
        try (ColossalServer s = TestServers.colossal(dir); Jedis zero = jedis(s, 0); Jedis one = jedis(s, 1);
             Jedis nine = jedis(s, 9)) {
            assertEquals("was 1", zero.get("k"), "the swap is in the files");
            assertEquals("was 0", one.get("k"));
            assertEquals("z", one.get("z"));
            assertEquals("was 4", nine.get("f"));
        }
    }

    /** A SWAPDB whose renames a crash cut short is undone (or finished) at the next start, never half done. */
    @Test
    void aSwapCutShortByACrashIsUndoneAtStart() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis zero = jedis(s, 0); Jedis one = jedis(s, 1)) {
            zero.set("k", "zero");
            one.set("k", "one");
        }
        // the first of a swap's three renames, then the crash
        Files.move(dir.resolve("db0.map"), dir.resolve("swapdb-0-1.tmp"));
        try (ColossalServer s = TestServers.colossal(dir); Jedis zero = jedis(s, 0); Jedis one = jedis(s, 1)) {
            assertEquals("zero", zero.get("k"), String.join("\n", s.startupReport()));
            assertEquals("one", one.get("k"));
            assertTrue(s.startupReport().stream().anyMatch(l -> l.contains("SWAPDB 0 1 was cut short") && l.contains("undone")),
                    String.join("\n", s.startupReport()));
        }
        // the first two renames, then the crash
        Files.move(dir.resolve("db0.map"), dir.resolve("swapdb-0-1.tmp"));
        Files.move(dir.resolve("db1.map"), dir.resolve("db0.map"));
        try (ColossalServer s = TestServers.colossal(dir); Jedis zero = jedis(s, 0); Jedis one = jedis(s, 1)) {
            assertEquals("one", zero.get("k"), String.join("\n", s.startupReport()));
            assertEquals("zero", one.get("k"));
            assertTrue(s.startupReport().stream().anyMatch(l -> l.contains("SWAPDB 0 1 was cut short") && l.contains("finished")),
                    String.join("\n", s.startupReport()));
        }
        assertFalse(Files.exists(dir.resolve("swapdb-0-1.tmp")));
    }

    @Test
    void flushdbEmptiesTheClientsDatabaseAndFlushallEvery() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis zero = jedis(s, 0); Jedis five = jedis(s, 5);
             Jedis six = jedis(s, 6)) {
            for (Jedis j : List.of(zero, five, six)) {
                j.set("a", "1");
                j.set("b", "2");
            }
            assertEquals("OK", five.flushDB());
            assertEquals(0, five.dbSize());
            assertEquals(2, zero.dbSize());
            assertEquals(2, six.dbSize());
            assertEquals("OK", new String((byte[]) six.sendCommand(() -> "FLUSHDB".getBytes(), "ASYNC".getBytes())));
            assertEquals(0, six.dbSize());
            assertEquals(2, zero.dbSize());
            five.set("c", "3");
            assertEquals("OK", zero.flushAll());
            assertEquals(0, zero.dbSize());
            assertEquals(0, five.dbSize());
        }
    }

    @Test
    void infoKeyspaceHasALinePerDatabaseWithKeys() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis two = jedis(s, 2); Jedis eleven = jedis(s, 11)) {
            assertEquals("# Keyspace\r\n", j.info("keyspace"), "no line for an empty database, as in Redis");
            two.set("a", "1");
            two.set("b", "2", redis.clients.jedis.params.SetParams.setParams().ex(100));
            eleven.set("c", "3");
            eleven.del("c");
            eleven.set("d", "4");
            Pattern lines = Pattern.compile("# Keyspace\r\ndb2:keys=2,expires=(\\d),avg_ttl=(\\d+)\r\ndb11:keys=1,expires=0,avg_ttl=0\r\n");
            Callable<String> expires = () -> {
                Matcher m = lines.matcher(j.info("keyspace"));
                return m.matches() ? m.group(1) : j.info("keyspace");
            };
            assertEquals("1", TestServers.await("1", 2000, expires), "the key with a TTL is counted by the sweep of its database");
            Matcher m = lines.matcher(j.info("keyspace"));
            assertTrue(m.matches());
            long avg = Long.parseLong(m.group(2));
            assertTrue(avg > 90_000 && avg <= 100_000, "avg_ttl=" + avg);
        }
    }

    @Test
    void selectOutsideTheDatabasesAnswersAsRedisServer() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            assertEquals("+OK\r\n", w.call("SELECT", "15"));
            assertEquals("-ERR DB index is out of range\r\n", w.call("SELECT", "16"));
            assertEquals("-ERR DB index is out of range\r\n", w.call("SELECT", "-1"));
            assertEquals("-ERR value is not an integer or out of range\r\n", w.call("SELECT", "one"));
            assertEquals("-ERR value is out of range, value must between -2147483648 and 2147483647\r\n",
                    w.call("SELECT", "99999999999"));
            assertEquals("-ERR invalid first DB index\r\n", w.call("SWAPDB", "x", "1"));
            assertEquals("-ERR invalid second DB index\r\n", w.call("SWAPDB", "1", "x"));
            assertEquals("-ERR DB index is out of range\r\n", w.call("SWAPDB", "1", "16"));
            assertEquals("*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n", w.call("CONFIG", "GET", "databases"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config\r\n",
                    w.call("CONFIG", "SET", "databases", "16"));
            assertEquals("+OK\r\n", w.call("SET", "k", "v"), "the failed SELECTs left the client on 15");
            assertEquals(":1\r\n", w.call("DBSIZE"));
            assertEquals("+OK\r\n", w.call("SELECT", "0"));
            assertEquals(":0\r\n", w.call("DBSIZE"));
        }
    }

    @Test
    void aTransactionThatSelectsWritesWhereItSelected() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis two = jedis(s, 2)) {
            Transaction t = j.multi();
            t.set("a", "in 0");
            t.sendCommand(Protocol.Command.SELECT, "2");
            t.set("a", "in 2");
            t.incr("n");
            List<Object> done = t.exec();
            assertEquals("OK", new String((byte[]) done.get(1)), "SELECT inside the transaction");
            assertEquals(List.of("OK", "OK", 1L), List.of(done.get(0), done.get(2), done.get(3)));
            assertEquals("in 2", j.get("a"), "the client stays on the database the transaction selected");
            assertEquals("in 2", two.get("a"));
            j.select(0);
            assertEquals("in 0", j.get("a"));
            assertNull(j.get("n"));
            // WATCH is of a key in the client's database: a change to the same key elsewhere is no change
            j.select(2);
            j.watch("a");
            try (Jedis zero = jedis(s, 0)) {
                zero.set("a", "changed in 0");
            }
            t = j.multi();
            t.set("a", "mine");
            assertEquals(List.of("OK"), t.exec());
            j.watch("a");
            two.set("a", "changed in 2");
            t = j.multi();
            t.set("a", "mine again");
            assertNull(t.exec(), "a change in the watched key's database makes EXEC give up");
            assertEquals("changed in 2", two.get("a"));
        }
    }

    @Test
    void keysExpireInANonZeroDatabaseWithoutBeingRead() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis five = jedis(s, 5); Jedis zero = jedis(s, 0)) {
            zero.set("stays", "v");
            five.set("stays", "v");
            for (int i = 0; i < 20; i++) {
                five.psetex("k" + i, 300, "v");
            }
            assertEquals(21, five.dbSize());
            assertEquals(1L, TestServers.await(1L, 2000, five::dbSize), "the sweeper removes them from database 5 too");
            assertTrue(zero.info("stats").contains("\r\nexpired_keys:20\r\n"), zero.info("stats"));
            assertEquals(1, zero.dbSize());
        }
    }

    @Test
    void httpAddressesADatabaseWithTheDbParameter() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Jedis two = jedis(s, 2)) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.httpPort();
            HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/k?db=2"))
                    .PUT(HttpRequest.BodyPublishers.ofString("in two")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(204, put.statusCode(), put.body());
            assertEquals("in two", two.get("k"), "a PUT to ?db=2 is SELECT 2's key");
            two.set("j", "from resp");
            assertEquals("from resp", get(http, base + "/v1/keys/j?db=2").body());
            assertEquals(404, get(http, base + "/v1/keys/j").statusCode(), "no db is database 0");
            String listing = get(http, base + "/v1/keys?count=10&db=2").body();
            assertTrue(listing.equals("{\"cursor\":\"0\",\"keys\":[\"j\",\"k\"]}")
                    || listing.equals("{\"cursor\":\"0\",\"keys\":[\"k\",\"j\"]}"), listing);
            assertEquals("{\"cursor\":\"0\",\"keys\":[]}", get(http, base + "/v1/keys?db=3").body());
            HttpResponse<String> bad = get(http, base + "/v1/keys/k?db=16");
            assertEquals(400, bad.statusCode());
            assertEquals("{\"error\":\"db=16 is not a database of this server: give a number from 0 to 15 (--databases 16),"
                    + " or no db for 0\"}", bad.body());
            assertEquals(400, get(http, base + "/v1/keys?db=two").statusCode());
            assertEquals(400, get(http, base + "/v1/keys/k?db=-1").statusCode());
            HttpResponse<String> del = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/k?db=2")).DELETE().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(204, del.statusCode());
            assertFalse(two.exists("k"));
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
