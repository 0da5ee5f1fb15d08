package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@code --maxmemory} with {@code noeviction}, Redis's default policy: past the bound the commands
 * that may add data are refused with {@code OOM}, byte for byte as redis-server refuses them, and
 * nothing is evicted; reads, deletes and the rest go on, so that a full server can be emptied.
 */
class NoEvictionTest {

    @TempDir
    Path dir;

    private static final String LIBRARY = "#!lua name=lib\n"
            + "redis.register_function('w', function(k) return redis.call('set', k[1], 'x') end)\n"
            + "redis.register_function{function_name='oomok', callback=function(k) return redis.call('set', k[1], 'y') end,"
            + " flags={'allow-oom'}}\n"
            + "redis.register_function{function_name='ro', callback=function(k) return redis.call('get', k[1]) end,"
            + " flags={'no-writes'}}";

    /** Data both servers hold before the bound is set below it; the anchor is never deleted, so both stay over. */
    private static final List<String[]> SETUP = List.of(
            new String[] {"CONFIG", "SET", "maxmemory", "0"}, new String[] {"FLUSHALL"}, new String[] {"FUNCTION", "FLUSH"},
            new String[] {"SET", "anchor", "v"}, new String[] {"RPUSH", "alist", "a", "b", "c"},
            new String[] {"HSET", "ahash", "f", "v", "g", "w"}, new String[] {"SADD", "aset", "m", "n"},
            new String[] {"ZADD", "azset", "1", "m"}, new String[] {"XADD", "astream", "1-1", "f", "v"},
            new String[] {"SET", "victim", "x"}, new String[] {"SET", "victim2", "x"},
            new String[] {"FUNCTION", "LOAD", LIBRARY}, new String[] {"CONFIG", "SET", "maxmemory", "1"});

    private static final List<String[]> COMMANDS = List.of(
            new String[] {"GET", "anchor"}, new String[] {"SET", "k", "v"}, new String[] {"SET", "anchor", "v2"},
            new String[] {"APPEND", "anchor", "x"}, new String[] {"INCR", "counter"}, new String[] {"SETRANGE", "anchor", "0", "z"},
            new String[] {"SETBIT", "bits", "7", "1"}, new String[] {"MSET", "a", "1", "b", "2"}, new String[] {"GETSET", "anchor", "q"},
            new String[] {"RPUSH", "alist", "d"}, new String[] {"LPOP", "alist"}, new String[] {"LSET", "alist", "0", "z"},
            new String[] {"LRANGE", "alist", "0", "-1"}, new String[] {"HSET", "ahash", "f2", "v"}, new String[] {"HDEL", "ahash", "f"},
            new String[] {"HINCRBY", "ahash", "n", "1"}, new String[] {"SADD", "aset", "o"}, new String[] {"SREM", "aset", "m"},
            new String[] {"SUNIONSTORE", "dst", "aset"}, new String[] {"ZADD", "azset", "2", "n"},
            new String[] {"ZINCRBY", "azset", "1", "m"}, new String[] {"ZREM", "azset", "m"}, new String[] {"PFADD", "hll", "a"},
            new String[] {"GEOADD", "geo", "1", "1", "p"}, new String[] {"XADD", "astream", "*", "f", "v"},
            new String[] {"XGROUP", "CREATE", "astream", "g", "$"}, new String[] {"XGROUP", "CREATECONSUMER", "astream", "g", "c"},
            new String[] {"XGROUP", "DESTROY", "astream", "g"}, new String[] {"XDEL", "astream", "1-1"},
            new String[] {"COPY", "anchor", "copied"}, new String[] {"RENAME", "victim2", "renamed"},
            new String[] {"EXPIRE", "anchor", "100"}, new String[] {"PERSIST", "anchor"}, new String[] {"DEL", "victim"},
            new String[] {"PUBLISH", "ch", "m"}, new String[] {"SCRIPT", "LOAD", "return 1"},
            new String[] {"MULTI"}, new String[] {"GET", "anchor"}, new String[] {"SET", "x", "y"}, new String[] {"EXEC"},
            new String[] {"MULTI"}, new String[] {"EXEC"}, new String[] {"MULTI"}, new String[] {"DISCARD"},
            new String[] {"EVAL", "return redis.call('get','anchor')", "0"},
            new String[] {"EVAL", "return redis.call('set','k','v')", "0"},
            new String[] {"EVAL", "return redis.pcall('set','k','v')", "0"},
            new String[] {"EVAL", "redis.call('del','nothing'); return redis.call('lpush','k2','v')", "0"},
            new String[] {"EVAL", "#!lua\nreturn redis.call('get','anchor')", "0"},
            new String[] {"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','anchor')", "0"},
            new String[] {"EVAL", "#!lua flags=allow-oom\nreturn redis.call('set','k3','v')", "0"},
            new String[] {"EVAL_RO", "#!lua\nreturn redis.call('get','anchor')", "0"},
            new String[] {"FCALL", "w", "1", "kk"}, new String[] {"FCALL", "oomok", "1", "kk"}, new String[] {"FCALL", "ro", "1", "anchor"},
            new String[] {"FCALL_RO", "ro", "1", "anchor"}, new String[] {"FUNCTION", "LOAD", "REPLACE", LIBRARY},
            new String[] {"GET", "k3"}, new String[] {"GET", "kk"}, new String[] {"EXISTS", "k2"},
            new String[] {"CONFIG", "SET", "maxmemory", "0"}, new String[] {"SET", "k", "v"}, new String[] {"RPUSH", "alist", "d"},
            new String[] {"MULTI"}, new String[] {"SET", "x", "y"}, new String[] {"EXEC"}, new String[] {"FCALL", "w", "1", "kk"});

    @Test
    void pastTheBoundTheCommandsRedisRefusesAreRefusedAsRedisRefusesThem() throws Exception {
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        ServerConfig config = ServerConfig.defaults().withDataDir(dir.resolve("data")).withPorts(0, -1);
        try (ColossalServer s = ColossalServer.start(config); Wire theirs = new Wire(port); Wire mine = new Wire(s.port())) {
            for (String[] cmd : SETUP) {
                assertEquals(theirs.call(cmd), mine.call(cmd), String.join(" ", cmd));
            }
            List<String> sent = new ArrayList<>();
            int refused = 0;
            for (String[] cmd : COMMANDS) {
                sent.add(String.join(" ", cmd).replace("\n", "\\n"));
                String want = theirs.call(cmd);
                assertEquals(want, mine.call(cmd), "after:\n  " + String.join("\n  ", sent));
                refused += want.contains("OOM") ? 1 : 0;
            }
            assertTrue(refused >= 20, "the bound refused " + refused + " commands");
            // what the refusals and the rest left is the same data
            for (String key : List.of("anchor", "alist", "ahash", "aset", "azset", "astream", "k", "k2", "k3", "kk", "copied",
                    "renamed", "victim", "victim2", "dst", "bits", "x")) {
                String type = theirs.call("TYPE", key);
                assertEquals(type, mine.call("TYPE", key), key);
                String[] read = switch (type) {
                    case "+string\r\n" -> new String[] {"GET", key};
                    case "+list\r\n" -> new String[] {"LRANGE", key, "0", "-1"};
                    case "+hash\r\n" -> new String[] {"HGETALL", key};
                    case "+set\r\n" -> new String[] {"SORT", key, "ALPHA"};
                    case "+zset\r\n" -> new String[] {"ZRANGE", key, "0", "-1", "WITHSCORES"};
                    case "+stream\r\n" -> new String[] {"XRANGE", key, "-", "+"};
                    default -> new String[] {"EXISTS", key};
                };
                assertEquals(theirs.call(read), mine.call(read), key);
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** An EXEC whose queue holds a write is aborted when the bound filled while it was queued. */
    @Test
    void anExecOfWritesIsAbortedIfTheDataWentOverTheBoundMeanwhile() throws Exception {
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        ServerConfig config = ServerConfig.defaults().withDataDir(dir.resolve("data")).withPorts(0, -1);
        try (ColossalServer s = ColossalServer.start(config); Wire theirs = new Wire(port); Wire mine = new Wire(s.port());
             Wire theirAdmin = new Wire(port); Wire myAdmin = new Wire(s.port())) {
            List<String[]> script = List.of(new String[] {"SET", "anchor", "v"}, new String[] {"WATCH", "anchor"},
                    new String[] {"MULTI"}, new String[] {"SET", "x", "y"}, new String[] {"GET", "anchor"});
            for (String[] cmd : script) {
                assertEquals(theirs.call(cmd), mine.call(cmd), String.join(" ", cmd));
            }
            assertEquals(theirAdmin.call("CONFIG", "SET", "maxmemory", "1"), myAdmin.call("CONFIG", "SET", "maxmemory", "1"));
            String aborted = theirs.call("EXEC");
            assertTrue(aborted.startsWith("-EXECABORT") && aborted.contains("OOM"), aborted);
            assertEquals(aborted, mine.call("EXEC"));
            assertEquals(theirs.call("EXEC"), mine.call("EXEC"), "the transaction is gone");
            assertEquals(theirs.call("EXISTS", "x"), mine.call("EXISTS", "x"));
            assertEquals(theirs.call("MULTI"), mine.call("MULTI"));
            assertEquals(theirs.call("EXEC"), mine.call("EXEC"), "an empty transaction runs");
            assertEquals(theirAdmin.call("CONFIG", "SET", "maxmemory", "0"), myAdmin.call("CONFIG", "SET", "maxmemory", "0"));
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    /**
     * Started with {@code --maxmemory 2mb} and Redis's default policy: filled until refused, every
     * key written is there (none evicted), the bound holds within one look's slack, HTTP is refused
     * too, a DEL makes room, and the files keep no bound, so a restart may raise it.
     */
    @Test
    void aServerBoundWithNoevictionFillsToTheBoundAndThenRefusesWrites() throws Exception {
        long bound = 2L << 20;
        ServerConfig config = ServerConfig.defaults().withDataDir(dir.resolve("full")).withPorts(0, 0)
                .withMaxMemory(bound, ServerConfig.NOEVICTION);
        String value = "v".repeat(1000);
        int written = 0;
        try (ColossalServer s = ColossalServer.start(config); Jedis j = new Jedis("127.0.0.1", s.port())) {
            JedisDataException refusal = null;
            for (int i = 0; i < 10_000 && refusal == null; i++) {
                try {
                    j.set("k" + i, value);
                    written++;
                } catch (JedisDataException e) {
                    refusal = e;
                }
            }
            assertTrue(refusal != null && refusal.getMessage().equals(OomRefusal.ERROR), String.valueOf(refusal));
            long used = field(j.info("memory"), "used_memory");
            assertTrue(used > bound && used < bound + bound / 32, "used_memory " + used + " at a bound of " + bound);
            assertEquals(written, j.dbSize(), "nothing evicted");
            assertEquals(0, field(j.info("stats"), "evicted_keys"));
            assertEquals(value, j.get("k0"), "reads go on");
            HttpResponse<String> put = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/http")).PUT(HttpRequest.BodyPublishers.ofString("x"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(507, put.statusCode(), put.body());
            assertTrue(put.body().contains("OOM"), put.body());
            for (int i = 0; i < 100; i++) {
                j.del("k" + i);
            }
            assertEquals("OK", j.set("after", value), "a DEL made room");
            assertEquals(written - 99, j.dbSize());
        }
        ServerConfig bigger = config.withMaxMemory(4 * bound, ServerConfig.NOEVICTION);
        try (ColossalServer s = ColossalServer.start(bigger); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals("OK", j.set("more", value), "a restart raised the bound: the files keep none");
            assertEquals(written - 98, j.dbSize());
            assertEquals(String.valueOf(4 * bound), j.configGet("maxmemory").get("maxmemory"));
        }
    }
}
