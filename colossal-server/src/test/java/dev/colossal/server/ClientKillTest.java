package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT KILL closes other clients' connections, which redis-compat.txt (one connection) cannot
 * show: by ID, by address in the old form, and the sender itself with SKIPME no, after its reply.
 */
class ClientKillTest {

    @TempDir
    Path dir;

    private static long id(Wire w) throws Exception {
        String reply = w.call("CLIENT", "ID");
        return Long.parseLong(reply.substring(1, reply.length() - 2));
    }

    @Test
    void killsByIdByAddressAndItselfWhenAsked() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir);
             Wire operator = new Wire(server.port());
             Wire runaway = new Wire(server.port());
             Wire stuck = new Wire(server.port())) {
            long runawayId = id(runaway);
            assertEquals(":1\r\n", operator.call("CLIENT", "KILL", "ID", Long.toString(runawayId)));
            assertTrue(runaway.closedByServer(), "the killed client's connection is closed");
            assertFalse(operator.call("CLIENT", "LIST").contains("id=" + runawayId + " "), "and it is gone from CLIENT LIST");

            String stuckAddr = "127.0.0.1:" + stuck.socket.getLocalPort();
            assertEquals("+OK\r\n", operator.call("CLIENT", "KILL", stuckAddr));
            assertTrue(stuck.closedByServer());
            assertEquals("-ERR No such client\r\n", operator.call("CLIENT", "KILL", stuckAddr));

            assertEquals(":0\r\n", operator.call("CLIENT", "KILL", "TYPE", "normal"), "SKIPME yes by default");
            assertEquals(":1\r\n", operator.call("CLIENT", "KILL", "ID", Long.toString(id(operator)), "SKIPME", "no"));
            assertTrue(operator.closedByServer(), "the sender is closed once it has its reply");
        }
    }
}
