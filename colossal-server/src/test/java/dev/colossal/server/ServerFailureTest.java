package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors kill nothing silently: an {@link Error} thrown while serving one request (a command
 * injected to throw it) closes that connection and is logged with the client's address, and the
 * other clients go on; an error after which the JVM cannot be trusted stops the whole server,
 * loudly, and no client is left waiting.
 */
class ServerFailureTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    /** Two event loops, so that the failing request and the bystanders share no thread by chance. */
    private ColossalServer start(Supplier<Error> thrownByBoom) throws IOException {
        ServerConfig d = ServerConfig.defaults();
        ServerConfig twoLoops = new ServerConfig(d.bind(), 0, -1, dir, null, d.maxClients(), d.maxBulkBytes(), 0, 2, d.busyPollMicros());
        return ColossalServer.start(twoLoops, t -> t.add("boom", 1, List.of(), 0, 0, 0, (c, a, r) -> {
            throw thrownByBoom.get();
        }));
    }

    @Test
    void anErrorInOneRequestClosesThatConnectionOnlyAndIsLogged() throws Exception {
        try (ColossalServer server = start(() -> new NoSuchMethodError("injected by the test"));
             Wire a = new Wire(server.port()); Wire b = new Wire(server.port());
             Wire victim = new Wire(server.port()); Wire victim2 = new Wire(server.port())) {
            assertEquals("+OK\r\n", a.call("SET", "k", "v"));
            assertEquals("+PONG\r\n", b.call("PING"));
            // One failing request on each loop (connections are handed out round-robin).
            victim.send(Wire.encode("BOOM"));
            victim2.send(Wire.encode("BOOM"));
            assertTrue(victim.closedByServer(), "the failing connection is closed, not left hanging");
            assertTrue(victim2.closedByServer());
            assertEquals("$1\r\nv\r\n", a.call("GET", "k"));
            assertEquals("+PONG\r\n", b.call("PING"));
            for (int i = 0; i < 2; i++) {
                try (Wire fresh = new Wire(server.port())) {
                    assertEquals("+PONG\r\n", fresh.call("PING"), "both loops still serve new connections");
                }
            }
            String log = stderr.text();
            assertTrue(log.contains("addr=127.0.0.1:" + victim.socket.getLocalPort()), log);
            assertTrue(log.contains("addr=127.0.0.1:" + victim2.socket.getLocalPort()), log);
            assertTrue(log.contains("java.lang.NoSuchMethodError: injected by the test"), log);
            assertTrue(log.contains("CommandTable.execute"), "with the stack trace: " + log);
        }
    }

    @Test
    void anErrorThatPoisonsTheJvmStopsTheServerLoudly() throws Exception {
        ColossalServer server = start(() -> new InternalError("injected fault"));
        try (server) {
            CompletableFuture<Optional<Throwable>> stopped = CompletableFuture.supplyAsync(server::awaitShutdown);
            int port = server.port();
            try (Wire bystander = new Wire(port); Wire other = new Wire(port); Wire victim = new Wire(port)) {
                assertEquals("+OK\r\n", bystander.call("SET", "k", "v"));
                assertEquals("+PONG\r\n", other.call("PING"));
                victim.send(Wire.encode("BOOM"));
                Optional<Throwable> failure = stopped.get(30, TimeUnit.SECONDS);
                assertInstanceOf(InternalError.class, failure.orElseThrow());
                assertTrue(victim.closedByServer());
                assertTrue(bystander.closedByServer(), "clients of the failed loop are told, not left waiting");
                assertTrue(other.closedByServer(), "clients of the other loop too: the server stopped");
            }
            assertThrows(ConnectException.class, () -> new Wire(port).close(), "nothing accepts connections nobody serves");
            assertTrue(stderr.text().contains("colossal-io-"), stderr.text());
            assertTrue(stderr.text().contains("failed, stopping the server: java.lang.InternalError: injected fault"), stderr.text());
        }
        try (ColossalServer again = TestServers.colossal(dir); Wire w = new Wire(again.port())) {
            assertEquals("$1\r\nv\r\n", w.call("GET", "k"), "the stopped server synced and closed its map");
        }
    }
}
