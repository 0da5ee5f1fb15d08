package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code colossal serve} refuses what it cannot serve with one line naming the cause, not a stack trace. */
class ServeCommandTest {

    @TempDir
    Path dir;

    private static void assertOneLine(Cli.Run r, String expected) {
        assertEquals(2, r.exit(), r.err());
        assertEquals("colossal serve: " + expected + System.lineSeparator(), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void shouldNameARespPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Cli.Run r = Cli.run("serve", "--port", "" + port, "--http-port", "-1", "--data", dir.toString());
            assertOneLine(r, "port " + port + " is in use (another server?): stop it or pass --port N");
        }
    }

    @Test
    void shouldNameAnHttpPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "" + port, "--data", dir.toString());
            assertOneLine(r, "port " + port + " is in use (another server?): stop it or pass --http-port N"
                    + " (-1 turns HTTP off)");
        }
    }
}
