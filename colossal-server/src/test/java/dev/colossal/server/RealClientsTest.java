package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;

/** The server driven by unmodified Redis clients: Jedis, Lettuce (RESP2 and RESP3), redis-cli, redis-benchmark. */
class RealClientsTest {

    @TempDir
    Path dir;
    ColossalServer server;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.colossal(dir.resolve("data"));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void jedisWorks() {
        try (JedisPool pool = new JedisPool("127.0.0.1", server.port());
             Jedis j = pool.getResource()) {
            assertEquals("PONG", j.ping());
            assertEquals("OK", j.set("jk", "jv"));
            assertEquals("jv", j.get("jk"));
            assertEquals("OK", j.set("ttl", "x", SetParams.setParams().ex(100)));
            assertTrue(j.ttl("ttl") > 90);
            assertEquals(5, j.incrBy("n", 5));
            assertEquals(List.of("jv", "5"), j.mget("jk", "n"));
            assertEquals(2, j.del("jk", "n"));
            assertNull(j.get("jk"));
            Pipeline p = j.pipelined();
            for (int i = 0; i < 1000; i++) {
                p.set("pk" + i, "v" + i);
            }
            p.sync();
            assertEquals(1001, j.dbSize());
            j.clientSetname("jedis-test");
            assertEquals("jedis-test", j.clientGetname());
        }
    }

    @Test
    void lettuceWorksWithResp3AndResp2() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> s = c.sync();
            assertEquals("PONG", s.ping());
            assertEquals("OK", s.set("lk", "lv"));
            assertEquals("lv", s.get("lk"));
            assertEquals(Boolean.TRUE, s.expire("lk", 100));
            assertTrue(s.ttl("lk") > 90);
            RedisAsyncCommands<String, String> a = c.async();
            List<io.lettuce.core.RedisFuture<String>> fs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                fs.add(a.set("ak" + i, "v" + i));
            }
            for (var f : fs) {
                assertEquals("OK", f.get(10, TimeUnit.SECONDS));
            }
            assertEquals("v999", a.get("ak999").get(10, TimeUnit.SECONDS));
            assertTrue(s.info("server").contains("redis_version:"));
        } finally {
            client.shutdown();
        }
        RedisClient resp2 = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
        resp2.setOptions(io.lettuce.core.ClientOptions.builder()
                .protocolVersion(io.lettuce.core.protocol.ProtocolVersion.RESP2).build());
        try (StatefulRedisConnection<String, String> c = resp2.connect()) {
            assertEquals("lv", c.sync().get("lk"));
        } finally {
            resp2.shutdown();
        }
    }

    @Test
    void redisCliOneShotAndScriptedSession() throws Exception {
        Path cli = TestServers.onPath("redis-cli");
        if (cli == null) {
            System.err.println("!!! redis-cli is not installed: redis-cli tests SKIPPED. Install redis-tools "
                    + "(./colossal test does this when apt-get is available).");
        }
        Assumptions.assumeTrue(cli != null, "redis-cli not installed");
        String port = Integer.toString(server.port());
        Path out = dir.resolve("out.txt");
        assertEquals(0, TestServers.run(List.of(cli.toString(), "-p", port, "SET", "cli", "one shot"), out));
        assertEquals("OK", Files.readString(out).trim());
        assertEquals(0, TestServers.run(List.of(cli.toString(), "-p", port, "GET", "cli"), out));
        assertEquals("one shot", Files.readString(out).trim());
        Path script = dir.resolve("script.txt");
        Files.writeString(script, "SET a 1\nINCR a\nINCRBY a 10\nGET a\nEXPIRE a 100\nTTL a\nDEL a\nEXISTS a\n");
        Process p = new ProcessBuilder(cli.toString(), "-p", port).redirectInput(script.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(List.of("OK", "2", "12", "12", "1", "100", "1", "0"), Files.readAllLines(out));
    }

    @Test
    void redisBenchmarkQuickRunCompletes() throws Exception {
        Path bench = TestServers.onPath("redis-benchmark");
        Assumptions.assumeTrue(bench != null, "redis-benchmark not installed");
        Path out = dir.resolve("bench.csv");
        assertEquals(0, TestServers.run(List.of(bench.toString(), "-p", Integer.toString(server.port()),
                "-t", "ping,set,get,incr,mset", "-n", "20000", "-c", "20", "-P", "8", "--csv"), out));
        String csv = Files.readString(out);
        // Every test of redis-benchmark's default list that needs strings only (lists, sets, hashes
        // and sorted sets are not there: the tool stops at the first error reply, as with Redis).
        for (String test : List.of("PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "MSET (10 keys)")) {
            assertTrue(csv.contains("\"" + test + "\""), test + " missing from\n" + csv);
        }
    }
}
