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
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

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
        Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", dir.toString(), "--proto-max-bulk-len", "2gb");
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
        assertTrue(r.err().endsWith("; restore it from a copy, move it away to start with an empty map, or if a newer"
                + " Colossal wrote it, serve it with that one" + System.lineSeparator()), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void shouldRefuseAnUnknownEvictionPolicyAndABoundItCannotKeep() {
        String[][] cases = {
            {"lru", "100mb", "--maxmemory-policy=lru is not a policy; the supported ones are noeviction (the default),"
                    + " allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, volatile-random and volatile-ttl"},
            {"allkeys-lru", "100kb", "--maxmemory=102400 with allkeys-lru must be at least 1mb (1048576 bytes): each of"
                    + " the map's segments keeps its share of it, and a key and its value must fit in one"},
        };
        for (String[] c : cases) {
            Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", dir.toString(),
                    "--maxmemory-policy", c[0], "--maxmemory", c[1]);
            assertOneLine(r, c[2]);
        }
    }

    /** A data directory served with more databases than this start has: refused in one line naming the files. */
    @Test
    void shouldRefuseFewerDatabasesThanTheDirectoryHolds() throws Exception {
        Path data = dir.resolve("data");
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(data).withPorts(0, -1));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.select(6);
            j.set("k", "v");
        }
        assertOneLine(Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", data.toString(), "--databases", "6"),
                "data directory " + data.toAbsolutePath() + " holds " + data.resolve("db6.map") + ", of database beyond this"
                + " start's --databases 6 (0 to 5): it was served with more; start with --databases 7 or more to serve it, or"
                + " move that file out of the directory to drop its keys");
        assertOneLine(Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", data.toString(), "--databases", "0"),
                "--databases=0 must be 1..65536");
    }

    /** A data directory restarted with another bound or none: refused in one line, and the copy it advises serves. */
    @Test
    void shouldRefuseAnotherBoundThanTheMapsAndTheAdvisedCopyServes() throws Exception {
        Path data = dir.resolve("data");
        ServerConfig twoMb = ServerConfig.defaults().withDataDir(data).withPorts(0, -1)
                .withMaxMemory(2L << 20, ServerConfig.ALLKEYS_LRU);
        try (ColossalServer s = ColossalServer.start(twoMb); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < 4000; i++) {
                p.set("k" + i, "v".repeat(1000));
            }
            p.sync();
        }
        Path file = data.resolve("db0.map");
        // On a port in use: a start the bound did not stop fails there (the data is opened first), not serves on.
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(taken.getLocalPort());
            Cli.Run r = Cli.run("serve", "--port", port, "--http-port", "-1", "--data", data.toString(), "--maxmemory",
                    "1mb", "--maxmemory-policy", "allkeys-lru");
            assertOneLine(r, "data directory " + data.toAbsolutePath() + " holds a map created with --maxmemory 2mb"
                    + " --maxmemory-policy allkeys-lru (" + file + " keeps its bound), but this start asks for --maxmemory"
                    + " 1mb --maxmemory-policy allkeys-lru; a map's bound cannot change: start with --maxmemory 2mb"
                    + " --maxmemory-policy allkeys-lru, or copy the map into a new data directory with the bound you want"
                    + " ('colossal copy " + file + " NEW_DIR/db0.map --max-bytes 1mb', which evicts what does not fit) and"
                    + " serve that (--data NEW_DIR), or move the directory away to start empty");
            assertOneLine(Cli.run("serve", "--port", port, "--http-port", "-1", "--data", data.toString()),
                    "data directory " + data.toAbsolutePath() + " holds a map created with --maxmemory 2mb"
                    + " --maxmemory-policy allkeys-lru (" + file + " keeps its bound), but this start asks for no bound in"
                    + " the map file (no --maxmemory, or --maxmemory-policy noeviction, whose bound is the server's);"
                    + " a map's bound cannot change: start with --maxmemory 2mb --maxmemory-policy allkeys-lru, or copy"
                    + " the map into a new data directory with the bound you want ('colossal copy " + file
                    + " NEW_DIR/db0.map --max-bytes 0') and serve that (--data NEW_DIR), or move the directory away to"
                    + " start empty");
        }
        Path smaller = Files.createDirectories(dir.resolve("smaller"));
        Cli.Run copy = Cli.run("copy", "--no-progress", file.toString(), smaller.resolve("db0.map").toString(),
                "--max-bytes", "1mb");
        assertEquals(0, copy.exit(), copy.err());
        assertTrue(copy.out().matches("(?s).*: \\d+ entries, \\d+ kept within the bound\\s*"), copy.out());
        try (ColossalServer s = ColossalServer.start(twoMb.withDataDir(smaller).withMaxMemory(1L << 20,
                ServerConfig.ALLKEYS_LRU)); Jedis j = new Jedis("127.0.0.1", s.port())) {
            long kept = Long.parseLong(copy.out().replaceAll("(?s).*, (\\d+) kept within the bound\\s*", "$1"));
            assertEquals(kept, j.dbSize());
            assertTrue(j.info("memory").contains("\r\nmaxmemory:1048576\r\n"));
        }
        try (ColossalServer s = ColossalServer.start(twoMb)) {
            assertTrue(s.port() > 0, "the same flags serve the directory still");
        }
    }
}
