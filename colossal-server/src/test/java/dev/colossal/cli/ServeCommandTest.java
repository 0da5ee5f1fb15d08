package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.server.ColossalServer;
import dev.colossal.server.ServerConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
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

    @Test
    void shouldRefuseABulkLengthTheMapCannotHold() {
        Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", dir.toString(), "--proto-max-bulk-len", "2G");
        assertOneLine(r, "--proto-max-bulk-len=2147483648 must be 1 KiB..1 GiB (1024..1073741824 bytes): the map holds no"
                + " longer value");
    }

    @Test
    void shouldSayADataDirectoryIsInUseInOneLine() throws Exception {
        try (ColossalServer first = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            assertTrue(first.port() > 0);
            Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", dir.toString());
            assertOneLine(r, "data directory " + dir.toAbsolutePath() + " is in use by another colossal serve (pid "
                    + ProcessHandle.current().pid() + "): stop it, or give this one another --data directory");
        }
    }

    @Test
    void shouldSayABindAddressDoesNotResolveInOneLine() {
        Cli.Run r = Cli.run("serve", "--bind", "nosuchhost.invalid", "--port", "0", "--http-port", "-1", "--data",
                dir.resolve("data").toString());
        assertOneLine(r, "cannot listen on nosuchhost.invalid: no such host; pass --bind with an address of this machine,"
                + " e.g. 127.0.0.1");
    }

    @Test
    void shouldSayThePortFlagsNameTheSamePort() {
        Cli.Run r = Cli.run("serve", "--port", "6383", "--http-port", "6383", "--data", dir.toString());
        assertOneLine(r, "--port and --http-port are both 6383: give them different ports (--http-port -1 turns HTTP off)");
    }

    @Test
    void shouldNameBadSettingsByTheirFlags() {
        String[][] cases = {
            {"--timeout", "-1", "--timeout=-1 must be >= 0 (seconds; 0 never closes idle connections)"},
            {"--io-threads", "0", "--io-threads=0 must be 1..256"},
            {"--busy-poll", "-5", "--busy-poll=-5 must be 0..1000000 (microseconds)"},
            {"--maxclients", "0", "--maxclients=0 must be at least 1"},
            {"--port", "70000", "--port=70000 must be 0..65535"},
            {"--http-port", "-2", "--http-port=-2 must be -1 (off) or 0..65535"},
            {"--proto-max-bulk-len", "1", "--proto-max-bulk-len=1 must be 1 KiB..1 GiB (1024..1073741824 bytes): the map"
                    + " holds no longer value"},
        };
        for (String[] c : cases) {
            Cli.Run r = Cli.run("serve", "--data", dir.toString(), c[0], c[1]);
            assertOneLine(r, c[2]);
        }
    }

    @Test
    void shouldSayADataPathIsAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("notes.txt"), "not a directory");
        Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", file.toString());
        assertOneLine(r, "data directory " + file + " is a file, not a directory: pass --data DIR with a directory"
                + " (created if absent)");
    }

    @Test
    void shouldSayADataDirectoryCannotBeCreated() throws Exception {
        Path file = Files.writeString(dir.resolve("notes.txt"), "not a directory");
        Path below = file.resolve("data");
        Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", below.toString());
        assertOneLine(r, "cannot use data directory " + below + ": Not a directory; pass --data DIR"
                + " with a directory you can write");
    }

    @Test
    void shouldNameAForeignMapFileAndWhatToDo() throws Exception {
        Path file = Files.writeString(Files.createDirectories(dir.resolve("data")).resolve("db0.map"), "x".repeat(5000));
        Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", file.getParent().toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().startsWith("colossal serve: " + file + " is not a Colossal map (magic=0x7878787878787878"), r.err());
        assertTrue(r.err().endsWith("; run 'colossal verify " + file + "' for details, restore it from a copy, or move it"
                + " away to start with an empty map" + System.lineSeparator()), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }
}
