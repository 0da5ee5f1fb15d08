package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What differs from Redis on purpose, where the compat lines cannot compare: COMMAND LIST names
 * subcommands as Redis 7.0 does (COUNT counting commands alone), LOLWUT draws our own picture,
 * and REPLICAOF to a master, BGREWRITEAOF and SCRIPT DEBUG YES (a forked debugger) are refused saying why.
 */
class AdminRefusalsTest {

    @TempDir
    Path dir;

    @Test
    void commandListNamesSubcommandsAndCountCountsCommands() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            List<String> names = Arrays.stream(c.call("COMMAND", "LIST").split("\r\n"))
                    .filter(l -> !l.startsWith("*") && !l.startsWith("$")).toList();
            assertTrue(names.containsAll(List.of("get", "client|pause", "client|reply", "config|get", "xgroup|create",
                    "object|idletime", "lolwut", "replicaof")), names.toString());
            long commands = names.stream().filter(n -> !n.contains("|")).count();
            assertEquals(":" + commands + "\r\n", c.call("COMMAND", "COUNT"));
            assertEquals(126, names.size() - commands, "Redis 7.0's 126 subcommands of the containers we have");
        }
    }

    @Test
    void lolwutDrawsOurOwnAndSignsWithBothVersions() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            String art = c.call("LOLWUT");
            assertTrue(art.endsWith("Colossal ver. " + ServerContext.COLOSSAL_VERSION + ", Redis ver. "
                    + ServerContext.REDIS_VERSION + "\n\r\n"), art);
            assertTrue(art.contains("#.#.#.#."), art);
            assertEquals(art, c.call("LOLWUT", "VERSION", "5"));
        }
    }

    @Test
    void aofAndTheForkedDebuggerAreRefusedSayingWhy() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            assertEquals("-" + NoReplicationCommands.NO_AOF + "\r\n", c.call("BGREWRITEAOF"));
            assertEquals("-" + ScriptCommands.NO_FORKED_DEBUGGING + "\r\n", c.call("SCRIPT", "DEBUG", "YES"));
            assertEquals("+OK\r\n", c.call("SCRIPT", "DEBUG", "no"));
            assertEquals("+OK\r\n", c.call("SCRIPT", "DEBUG", "sync"), "the synchronous debugger is here");
            assertEquals("+OK\r\n", c.call("SCRIPT", "DEBUG", "no"));
            assertEquals("+OK\r\n", c.call("REPLICAOF", "NO", "ONE"));
        }
    }
}
