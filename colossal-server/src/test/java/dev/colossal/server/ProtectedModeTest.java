package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Protected mode ({@link ProtectedMode}): a server bound to every interface, with no password,
 * serves loopback clients only, until a password is set or protected mode is turned off; the
 * HTTP port likewise, but for its health check.
 */
class ProtectedModeTest {

    @TempDir
    Path dir;

    /** An address of this machine that is not loopback, or null if it has none. */
    private static InetAddress outward() throws IOException {
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (n.isUp() && !n.isLoopback()) {
                for (InetAddress a : Collections.list(n.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                }
            }
        }
        return null;
    }

    /** @return the first line the server sends a client from {@code from} that says PING */
    private static String firstWords(InetAddress from, int port) throws IOException {
        try (Socket s = new Socket(from, port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder said = new StringBuilder();
            for (int b; !said.toString().endsWith("\r\n") && (b = in.read()) >= 0; ) {
                said.append((char) b);
            }
            return said.toString();
        }
    }

    private static int httpStatus(InetAddress host, int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://" + host.getHostAddress() + ":" + port + path)
                .toURL().openConnection();
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }

    @Test
    void onlyLoopbackClientsAreServedUntilAPasswordOrProtectedModeOff() throws Exception {
        InetAddress outward = outward();
        Assumptions.assumeTrue(outward != null, "this machine has no address but loopback");
        ServerConfig config = new ServerConfig("0.0.0.0", 0, 0, dir, null, 100, 512L << 20, 0, 1, 0);
        try (ColossalServer s = ColossalServer.start(config); Jedis local = new Jedis("127.0.0.1", s.port())) {
            assertEquals("-" + ProtectedMode.DENIED + "\r\n", firstWords(outward, s.port()), "refused, then closed");
            assertEquals("+PONG\r\n", firstWords(InetAddress.getLoopbackAddress(), s.port()));
            assertEquals(403, httpStatus(outward, s.httpPort(), "/v1/keys/k"));
            assertEquals(200, httpStatus(outward, s.httpPort(), "/health"));
            assertEquals(404, httpStatus(InetAddress.getLoopbackAddress(), s.httpPort(), "/v1/keys/k"));
            assertTrue(local.info("stats").contains("\r\nrejected_connections:1\r\n"), local.info("stats"));

            assertEquals("OK", local.configSet("protected-mode", "no"));
            assertEquals("no", local.configGet("protected-mode").get("protected-mode"));
            assertEquals("+PONG\r\n", firstWords(outward, s.port()));
            assertEquals(404, httpStatus(outward, s.httpPort(), "/v1/keys/k"));

            assertEquals("OK", local.configSet("protected-mode", "yes"));
            assertEquals("-" + ProtectedMode.DENIED + "\r\n", firstWords(outward, s.port()));
            // With a password for the default user, others connect, and must authenticate
            assertEquals("OK", local.aclSetUser("default", "on", ">secret"));
            assertEquals("-NOAUTH Authentication required.\r\n", firstWords(outward, s.port()));
        }
    }
}
