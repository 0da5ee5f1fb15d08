package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RESP over a Unix socket ({@code unixsocket}, {@code unixsocketperm}), as redis-server serves it:
 * redis-rs's own suite runs over one (REDISRS_SERVER_TYPE=unix), and its clients, redis-py's and
 * Jedis's connect with {@code unix://} URLs; Colossal listened on TCP only. Where redis-server is
 * installed, its answers over its own socket are the reference.
 */
class UnixSocketTest {

    @TempDir
    Path dir;

    @Test
    void servesOverTheSocketAsRedis() throws Exception {
        Path sock = dir.resolve("c.sock");
        List<String> want = List.of("+PONG", "+OK", "$1 v", "addr=SOCK:0 laddr=SOCK:0 flags=U",
                "*2 $10 unixsocket SOCK", "*2 $14 unixsocketperm $3 700", "rwx------",
                "tcp: flags=N");
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("data"))
                .withPorts(0, -1), null, null, s -> s.unixSocket(new UnixSocket(sock, 0700)))) {
            assertEquals(want, seen(sock, server.port()), "colossal");
        }
        assertFalse(Files.exists(sock), "the socket file is removed at the end, as Redis removes it");
        Path redisSock = dir.resolve("r.sock");
        TestServers.onRedisWith(List.of("--unixsocket", redisSock.toString(), "--unixsocketperm", "700"),
                port -> assertEquals(want, seen(redisSock, port), "redis-server"));
    }

    /** A file a dead server left at the path does not stop the next one, as it does not stop Redis. */
    @Test
    void replacesAStaleSocketFile() throws Exception {
        Path sock = dir.resolve("stale.sock");
        Files.writeString(sock, "left behind");
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("data"))
                .withPorts(0, -1), null, null, s -> s.unixSocket(new UnixSocket(sock, 0)));
             Wire w = new Wire(sock)) {
            assertEquals("+PONG\r\n", w.call("PING"));
            assertTrue(server.port() > 0, "the TCP port is served too");
        }
    }

    /** serve's --unixsocket and --unixsocketperm, as a child JVM started with them shows. */
    @Test
    void serveTakesTheFlags() throws Exception {
        Path sock = dir.resolve("flag.sock");
        int port = TestServers.freePort();
        Process server = TestServers.serveInChildJvm(port, dir.resolve("child"), dir.resolve("child.log"),
                "--unixsocket", sock.toString(), "--unixsocketperm", "770");
        try (Wire w = new Wire(sock)) {
            assertEquals("*2\r\n$14\r\nunixsocketperm\r\n$3\r\n770\r\n", w.call("CONFIG", "GET", "unixsocketperm"));
            assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(sock)));
        } finally {
            server.destroy();
            server.waitFor();
        }
        assertTrue(Files.readString(dir.resolve("child.log")).contains("Unix socket " + sock), "its start line names it");
    }

    /** What one connection over {@code sock} sees, the path written SOCK, and a TCP client's flags. */
    private static List<String> seen(Path sock, int port) throws Exception {
        List<String> got = new ArrayList<>();
        try (Wire w = new Wire(sock)) {
            got.add(w.call("PING").strip());
            got.add(w.call("SET", "k", "v").strip());
            got.add(w.call("GET", "k").replace("\r\n", " ").strip());
            String info = w.call("CLIENT", "INFO");
            List<String> fields = new ArrayList<>();
            for (String f : info.split("[ \r\n]")) {
                if (f.startsWith("addr=") || f.startsWith("laddr=") || f.startsWith("flags=")) {
                    fields.add(f.replace(sock.toString(), "SOCK"));
                }
            }
            got.add(String.join(" ", fields));
            got.add(w.call("CONFIG", "GET", "unixsocket").replace("$" + sock.toString().length() + "\r\n" + sock, "SOCK")
                    .replace("\r\n", " ").strip());
            got.add(w.call("CONFIG", "GET", "unixsocketperm").replace("\r\n", " ").strip());
            got.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(sock)));
        }
        try (Wire t = new Wire(port)) {
            String info = t.call("CLIENT", "INFO");
            got.add("tcp: " + info.substring(info.indexOf("flags="), info.indexOf(' ', info.indexOf("flags="))));
        }
        return got;
    }
}
