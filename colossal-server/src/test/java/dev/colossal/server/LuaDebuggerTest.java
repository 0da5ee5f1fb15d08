package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Lua debugger's protocol (SCRIPT DEBUG SYNC, then EVAL): whole sessions run against Colossal and
 * against redis-server 7.0, the reference, must give the same bytes, reply by reply, but for the
 * addresses of functions; and what only Colossal does (SCRIPT DEBUG YES refused) holds.
 */
class LuaDebuggerTest {

    @TempDir
    Path dir;

    /** A script that sets a key, loops, nests a table, logs and breaks. */
    private static final String COUNTER = """
            local src = KEYS[1]
            local n = tonumber(ARGV[1])
            redis.call('set', src, n)
            local t = {1, 'two', {3}}
            for i = 1, 2 do
              n = n + i
            end
            redis.debug('n is', n, t)
            redis.breakpoint()
            return n
            """;

    /** Functions, to step into and trace. */
    private static final String CALLS = """
            local function add(a, b)
              local s = a + b
              return s
            end
            local big = string.rep('x', 100)
            local t = {a = 1, b = {true, false}, [3] = 'z'}
            local r = add(1, 2)
            redis.call('set', KEYS[1], big)
            r = add(r, 4)
            return {r, big}
            """;

    /** Replies of every kind, and a script that fails. */
    private static final String REPLIES = """
            redis.call('rpush', 'l2', 'a', 'b')
            redis.call('hset', 'h2', 'f', 'v')
            local ok, err = pcall(function() return redis.call('incr', 'h2') end)
            local x = 1.5
            error('bad thing')
            """;

    /** Loops, pcall, a tail call, recursion, and redis.debug with nothing and with nil. */
    private static final String FLOW = """
            local function inner(v)
              return v * 2
            end
            local function outer(v)
              local w = inner(v)
              return w
            end
            local m = {}
            function m.go(v) return outer(v) end
            local total = m.go(3)
            for k, v in pairs({a = 1}) do
              total = total + v
            end
            local ok, err = pcall(function() return redis.call('incr', KEYS[1]) end)
            redis.call('set', KEYS[1], 'str')
            local e2 = redis.pcall('incr', KEYS[1])
            local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
            local f = fact(3)
            redis.debug()
            redis.debug(nil, true, 'x')
            redis.call('incr', KEYS[1])
            return total
            """;

    /** @return each reply of a session of {@code commands} on {@code script}, the EVAL's first, then whether the server closed */
    private static List<String> session(int port, String script, String... commands) throws Exception {
        List<String> seen = new ArrayList<>();
        try (Wire w = new Wire(port)) {
            seen.add(w.call("FLUSHALL"));
            seen.add(w.call("SCRIPT", "DEBUG", "SYNC"));
            seen.add(w.call("EVAL", script, "1", "k1", "10"));
            for (String c : commands) {
                String reply = w.call(c.split(" "));
                seen.add(c + " => " + reply.replaceAll("@0x[0-9a-f]+", "@0x..."));
                if (reply.contains("+<endsession>\r\n")) {
                    seen.add("final " + w.reply());
                    seen.add("closed " + w.closedByServer());
                    break;
                }
            }
        }
        return seen;
    }

    private void sameAsRedis(String script, String... commands) throws Exception {
        List<String> ours;
        try (ColossalServer s = TestServers.colossal(dir.resolve("c" + System.nanoTime()))) {
            ours = session(s.port(), script, commands);
        }
        assertTrue(ours.stream().anyMatch(l -> l.startsWith("closed true")), "the session ended: " + ours);
        TestServers.onRedis(port -> assertEquals(String.join("\n", session(port, script, commands)), String.join("\n", ours)));
    }

    @Test
    void steppingPrintingListingAndBreakpointsAnswerAsRedis() throws Exception {
        sameAsRedis(COUNTER, "s", "n", "p", "p n", "p nope", "p KEYS", "p ARGV", "l", "l 3 1", "l 0", "l -2", "l 100", "w",
                "b 6", "b", "b 6", "b -6", "b -6", "b 0", "b x", "b 100", "b 6 9", "t", "c", "p", "p i", "s", "s", "c",
                "c", "c");
    }

    @Test
    void evalRedisAndMaxlenAnswerAsRedis() throws Exception {
        sameAsRedis(CALLS, "e 1+1", "e return redis.call('get', KEYS[1])", "e a", "e x = 1", "e error('boom')", "e (",
                "e return 1,2", "e return {1,nil,3}", "e return 2^53", "e", "r get k1", "r set k2 v", "r get k2",
                "r incr", "r", "r hello", "m", "m 5", "m 0", "m 70", "s", "s", "s", "p big", "r get k1", "b 3", "c", "t",
                "p", "p a", "foo", "c", "c");
    }

    @Test
    void aStepLogsTheScriptsCallsAndTheSessionEndsWithItsError() throws Exception {
        sameAsRedis(REPLIES, "s", "s", "s", "p", "r lrange l2 0 -1", "r hgetall h2", "r incr h2", "r ping",
                "r lrange nokey 0 -1", "s", "s", "s");
    }

    @Test
    void tracesThroughTailCallsAndRecursionAndStepsThroughLoopsAnswerAsRedis() throws Exception {
        sameAsRedis(FLOW, "b 2", "c", "t", "p", "p v", "s", "s", "t", "b 0", "b 18", "c", "t", "c", "t", "c", "t", "b 0",
                "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s",
                "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s");
    }

    @Test
    void aLoopLetGoStopsOnceItRanBusyReplyThresholdAsInRedis() throws Exception {
        String loop = "local i = 0\nwhile true do\n  i = i + 1\nend\n";
        String[] commands = {"c", "s", "s", "c", "a"};
        List<String> ours;
        try (ColossalServer s = TestServers.colossal(dir.resolve("loop")); Wire w = new Wire(s.port())) {
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "busy-reply-threshold", "200"));
            ours = session(s.port(), loop, commands);
        }
        assertTrue(String.join("", ours).contains("stop reason = timeout reached, infinite loop?"), ours.toString());
        TestServers.onRedis(port -> {
            try (Wire w = new Wire(port)) {
                w.call("CONFIG", "SET", "busy-reply-threshold", "200");
            }
            assertEquals(String.join("\n", session(port, loop, commands)), String.join("\n", ours));
        });
    }

    @Test
    void abortEndsTheScriptWithItsWritesKept() throws Exception {
        sameAsRedis(REPLIES, "s", "s", "a");
        try (ColossalServer s = TestServers.colossal(dir.resolve("abort")); Wire w = new Wire(s.port())) {
            session(s.port(), REPLIES, "s", "s", "a");
            assertEquals("*2\r\n$1\r\na\r\n$1\r\nb\r\n", w.call("LRANGE", "l2", "0", "-1"));
        }
    }

    @Test
    void withoutASessionTheDebuggerFunctionsDoNothing() throws Exception {
        TestServers.sameOnBoth(dir.resolve("none"), "$5\r\nfalse\r\n", port -> {
            try (Wire w = new Wire(port)) {
                return w.call("EVAL", "redis.debug('x') return tostring(redis.breakpoint())", "0");
            }
        });
    }

    @Test
    void evalshaIsRefusedWhileDebuggingIsAsked() throws Exception {
        TestServers.sameOnBoth(dir.resolve("sha"), "-ERR Please use EVAL instead of EVALSHA for debugging\r\n", port -> {
            try (Wire w = new Wire(port)) {
                w.call("SCRIPT", "DEBUG", "SYNC");
                return w.call("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0");
            }
        });
    }

    @Test
    void debugYesIsRefusedAndSoIsTheEvalAfterItSoNothingIsWritten() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("yes")); Wire w = new Wire(s.port())) {
            String refused = w.call("SCRIPT", "DEBUG", "YES");
            assertTrue(refused.startsWith("-ERR SCRIPT DEBUG YES") && refused.contains("--ldb-sync-mode"), refused);
            assertEquals(refused, w.call("EVAL", "redis.call('set', 'k', 'v')", "0"));
            assertEquals("$-1\r\n", w.call("GET", "k"));
            assertEquals("$-1\r\n", w.call("EVAL", "redis.call('set', 'k', 'v')", "0"), "only the next EVAL is refused");
            assertEquals("$1\r\nv\r\n", w.call("GET", "k"));
            assertEquals("+OK\r\n", w.call("SCRIPT", "DEBUG", "NO"));
        }
    }

    @Test
    void scriptKillEndsAStoppedSessionThatDidNotWrite() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("kill")); Wire w = new Wire(s.port())) {
            w.call("SCRIPT", "DEBUG", "SYNC");
            assertTrue(w.call("EVAL", "local x = 1\nreturn x", "0").contains("Stopped at 1"));
            // connected while the session holds its loop: the server gives it another one
            try (Wire other = new Wire(s.port())) {
                assertEquals("+OK\r\n", other.call("SCRIPT", "KILL"));
                assertEquals("*1\r\n+<endsession>\r\n", w.reply());
                assertTrue(w.reply().startsWith("-ERR Script killed by user with SCRIPT KILL..."));
                assertTrue(w.closedByServer());
                assertEquals("$1\r\n2\r\n", other.call("EVAL", "return '2'", "0"), "the server goes on");
            }
        }
    }

    @Test
    void aClientThatGoesAwayMidSessionLeavesTheServerWorking() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("gone")); Wire other = new Wire(s.port())) {
            try (Wire w = new Wire(s.port())) {
                w.call("SCRIPT", "DEBUG", "SYNC");
                assertTrue(w.call("EVAL", "redis.call('set', 'k', 'v')\nreturn 1", "0").contains("Stopped at 1"));
            }
            assertEquals(":1\r\n", TestServers.await(":1\r\n", 5000, () -> other.call("EVAL", "return 1", "0")));
            assertEquals("$-1\r\n", other.call("GET", "k"), "aborted before its first line");
        }
    }

    @Test
    void aSessionRunsOverTheUnixSocket() throws Exception {
        Path sock = dir.resolve("ldb.sock");
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("unix"))
                .withPorts(0, -1), null, null, s -> s.unixSocket(new UnixSocket(sock, 0)));
             Wire w = new Wire(sock)) {
            assertTrue(server.port() > 0);
            assertEquals("+OK\r\n", w.call("SCRIPT", "DEBUG", "SYNC"));
            assertEquals("*2\r\n+* Stopped at 1, stop reason = step over\r\n+-> 1   local x = 41\r\n",
                    w.call("EVAL", "local x = 41\nreturn x + 1", "0"));
            assertEquals("*1\r\n+No local variables in the current context.\r\n", w.call("p"));
            assertEquals("*2\r\n+* Stopped at 2, stop reason = step over\r\n+-> 2   return x + 1\r\n", w.call("s"));
            assertEquals("*1\r\n+<value> x = 41\r\n", w.call("p"));
            assertEquals("*1\r\n+<endsession>\r\n", w.call("c"));
            assertEquals(":42\r\n", w.reply());
            assertTrue(w.closedByServer());
        }
    }

    @Test
    void helpNamesEveryCommand() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("help")); Wire w = new Wire(s.port())) {
            w.call("SCRIPT", "DEBUG", "SYNC");
            w.call("EVAL", "return 1", "0");
            String help = w.call("h");
            for (String c : new String[] {"[h]elp", "[s]tep", "[n]ext", "[c]ontinue", "[l]ist", "[w]hole", "[p]rint",
                "[b]reak", "[t]race", "[e]val", "[r]edis", "[m]axlen", "[a]bort", "redis.debug", "redis.breakpoint"}) {
                assertTrue(help.contains(c), c + " in " + help);
            }
        }
    }
}
