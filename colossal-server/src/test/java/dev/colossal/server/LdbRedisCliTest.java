package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code redis-cli --ldb-sync-mode --eval FILE keys , args}, its standard input the
 * debugger's commands, against Colossal and against redis-server 7.0: the same transcript, colours
 * included, but for the help's sentences (ours are our own) and functions' addresses. And
 * {@code redis-cli --ldb}, which asks for SCRIPT DEBUG YES, is told no and runs nothing.
 */
class LdbRedisCliTest {

    @TempDir
    Path dir;

    private static final String SCRIPT = """
            local function fact(n)
              if n <= 1 then return 1 end
              return n * fact(n - 1)
            end
            local key = KEYS[1]
            redis.call('set', key, ARGV[1])
            local t = {fact(3), 'six', {ok = true}}
            for i = 1, 2 do
              redis.call('incrby', key, i)
            end
            redis.debug('t is', t)
            redis.breakpoint()
            return redis.call('get', key)
            """;

    /** Every command but help, whose text is Redis's own prose there and ours here. */
    private static final String COMMANDS = String.join("\n", "s", "s", "p", "b 2", "c", "t", "p n", "b -2", "s", "s",
            "s", "s", "p", "l 9 1", "w", "e #KEYS", "e key .. '!'", "r get k1", "r lrange k1 0 -1", "m 60", "p t",
            "m 0", "b", "b 11", "b 99", "x", "c", "c", "c", "") + "\n";

    private String cli(int port, String mode, String stdin) throws Exception {
        Path script = dir.resolve("script.lua");
        Files.writeString(script, SCRIPT);
        Path in = dir.resolve("stdin");
        Files.writeString(in, stdin);
        Path out = dir.resolve("out");
        ProcessBuilder pb = new ProcessBuilder(List.of("redis-cli", "-p", Integer.toString(port), mode, "--eval",
                script.toString(), "k1", ",", "10")).redirectErrorStream(true);
        pb.redirectInput(in.toFile());
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "redis-cli finished");
        return "exit=" + p.exitValue() + "\n" + Files.readString(out).replaceAll("@0x[0-9a-f]+", "@0x...");
    }

    @Test
    void aSyncSessionReadsAsOnRedisServer() throws Exception {
        Assumptions.assumeTrue(TestServers.onPath("redis-cli") != null, "redis-cli is not installed");
        String ours;
        try (ColossalServer s = TestServers.colossal(dir.resolve("c")); Wire w = new Wire(s.port())) {
            ours = cli(s.port(), "--ldb-sync-mode", COMMANDS);
            assertEquals("$2\r\n13\r\n", w.call("GET", "k1"), "a sync session keeps the script's writes");
        }
        for (String seen : new String[] {"* Stopped at 2, stop reason = break point", "<redis> get k1",
            "redis.breakpoint() called", "<debug> line 11:", "In fact:", "From top level:", "(Lua debugging session ended)",
            "\"13\""}) {
            assertTrue(ours.contains(seen), seen + " in\n" + ours);
        }
        TestServers.onRedis(port -> assertEquals(cli(port, "--ldb-sync-mode", COMMANDS), ours));
    }

    @Test
    void ldbInForkModeIsRefusedAndWritesNothing() throws Exception {
        Assumptions.assumeTrue(TestServers.onPath("redis-cli") != null, "redis-cli is not installed");
        try (ColossalServer s = TestServers.colossal(dir.resolve("y")); Wire w = new Wire(s.port())) {
            String out = cli(s.port(), "--ldb", "c\n");
            assertTrue(out.contains("ERR SCRIPT DEBUG YES (redis-cli --ldb) is not supported"), out);
            assertTrue(out.contains("--ldb-sync-mode"), out);
            assertEquals(":0\r\n", w.call("EXISTS", "k1"));
        }
    }
}
