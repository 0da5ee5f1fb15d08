package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.FunctionRestorePolicy;

/**
 * Redis 7.0 functions beyond {@code redis-compat.txt}'s replies: libraries survive a restart, move
 * between redis-server and Colossal both ways by FUNCTION DUMP and RESTORE, run on every event loop
 * (each loads the library into its own Lua), and a library whose load never ends is stopped.
 */
class FunctionsTest {

    private static final String LIBRARY = "#!lua name=counters\n"
            + "local function bump(keys, args) return redis.call('incrby', keys[1], args[1]) end\n"
            + "redis.register_function('bump', bump)\n"
            + "redis.register_function{function_name='peek', callback=function(keys) return redis.call('get', keys[1]) end,"
            + " flags={'no-writes'}}\n";

    @TempDir
    Path dir;

    @Test
    void librariesSurviveARestart() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals("counters", j.functionLoad(LIBRARY));
            assertEquals(5L, j.fcall("bump", List.of("c"), List.of("5")));
        }
        assertTrue(Files.exists(dir.resolve(FunctionLibraries.FILE)));
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(7L, j.fcall("bump", List.of("c"), List.of("2")));
            assertEquals("7", j.fcallReadonly("peek", List.of("c"), List.of()));
            j.functionDelete("counters");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(0, j.functionList().size(), "the delete persisted too");
        }
    }

    @Test
    void librariesMoveBetweenRedisAndColossalBothWays() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir); Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                redis.functionFlush();
                redis.functionLoad(LIBRARY);
                assertEquals("OK", colossal.functionRestore(redis.functionDump()));
                assertEquals(3L, colossal.fcall("bump", List.of("c"), List.of("3")));
                assertEquals("OK", colossal.functionRestore(redis.functionDump(),
                        FunctionRestorePolicy.REPLACE));
                colossal.functionLoad("#!lua name=second\nredis.register_function('two', function() return 2 end)");
                redis.functionFlush();
                assertEquals("OK", redis.functionRestore(colossal.functionDump()));
                assertEquals(2L, redis.fcall("two", List.of(), List.of()));
                assertEquals(4L, redis.fcall("bump", List.of("c"), List.of("4")));
                assertEquals(2, redis.functionList().size());
                redis.functionFlush();
            }
        });
    }

    @Test
    void everyEventLoopRunsTheFunctionsAndALoadThatNeverEndsIsStopped() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.functionLoad(LIBRARY);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    done.add(pool.submit(() -> {
                        try (Jedis c = new Jedis("127.0.0.1", s.port())) { // connections spread over the loops
                            for (int i = 0; i < 250; i++) {
                                c.fcall("bump", List.of("shared"), List.of("1"));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals("2000", j.get("shared"), "every call counted once: functions run atomically");
            long t0 = System.nanoTime();
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> j.functionLoad(
                    "#!lua name=forever\nredis.register_function('f', function() end)\nwhile true do end"));
            assertEquals("ERR Error registering functions: ERR FUNCTION LOAD timeout", e.getMessage());
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "stopped after its 500 ms");
            assertEquals("PONG", j.ping());
            assertEquals(1, j.functionList().size(), "the stopped library is not loaded");
        }
    }
}
