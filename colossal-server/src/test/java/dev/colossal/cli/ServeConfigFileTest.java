package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.server.ColossalServer;
import dev.colossal.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** {@code colossal serve --config FILE}: the file's settings, flags over the file, clear errors. */
class ServeConfigFileTest {

    @TempDir
    Path dir;

    private ServerConfig resolve(String... args) throws IOException {
        ServeCommand cmd = new ServeCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd.resolve();
    }

    private Path file(String text) throws IOException {
        Path f = dir.resolve("serve.conf");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void replicaofAndTheMastersLoginComeFromTheFileOrTheFlags() throws IOException {
        Path f = file("replicaof old-redis 6379\nmasteruser repl\nmasterauth s3cret\n");
        ServeCommand cmd = new ServeCommand();
        new CommandLine(cmd).parseArgs("--config", f.toString());
        assertEquals(new ServeCommand.Master("old-redis", 6379, "repl", "s3cret"), cmd.resolveMaster());
        cmd = new ServeCommand();
        new CommandLine(cmd).parseArgs("--config", f.toString(), "--replicaof", "10.0.0.2", "6380", "--masterauth", "pw");
        assertEquals(new ServeCommand.Master("10.0.0.2", 6380, "repl", "pw"), cmd.resolveMaster());
        cmd = new ServeCommand();
        new CommandLine(cmd).parseArgs();
        assertNull(cmd.resolveMaster());
        ServeCommand badPort = new ServeCommand();
        new CommandLine(badPort).parseArgs("--replicaof", "h", "70000");
        assertTrue(assertThrows(IllegalArgumentException.class, badPort::resolveMaster).getMessage().contains("0..65535"));
        ServeCommand noPort = new ServeCommand();
        new CommandLine(noPort).parseArgs("--config", file("replicaof lonely\n").toString());
        assertTrue(assertThrows(IllegalArgumentException.class, noPort::resolveMaster).getMessage()
                .contains("replicaof HOST PORT"));
    }

    @Test
    void fileSetsEverySettingAndFlagsWin() throws IOException {
        Path f = file("""
                # a comment, then every setting
                bind 0.0.0.0
                port 7001
                http-port -1
                data /tmp/colossal-data
                requirepass "two words"
                maxclients 12
                proto-max-bulk-len 64M
                TIMEOUT 30
                io-threads 3
                busy-poll 0
                maxmemory 100mb
                maxmemory-policy allkeys-lru
                databases 4
                """);
        ServerConfig c = resolve("--config", f.toString());
        assertEquals(new ServerConfig("0.0.0.0", 7001, -1, Path.of("/tmp/colossal-data"), "two words", 12,
                64_000_000, 30, 3, 0, 100L << 20, "allkeys-lru", 4), c);
        ServerConfig over = resolve("--config", f.toString(), "--port", "7002", "--requirepass", "flag",
                "--proto-max-bulk-len", "1M", "--maxmemory", "1gb");
        assertEquals(7002, over.port());
        assertEquals("flag", over.requirePass());
        assertEquals(1_000_000, over.maxBulkBytes());
        assertEquals(1L << 30, over.maxMemoryBytes());
        assertEquals("allkeys-lru", over.maxMemoryPolicy(), "the file's policy with the flag's bound");
        assertEquals(12, over.maxClients(), "unset flags keep the file's value");
        assertEquals(4, over.databases());
        assertEquals(16, resolve("--config", f.toString(), "--databases", "16").databases(), "the flag wins");
        ServerConfig none = resolve();
        assertEquals(ServerConfig.defaults(), none);
        assertNull(none.requirePass());
    }

    /**
     * The lines a user pastes from redis.conf bound what redis-server bounds: {@code 100m} is
     * 100,000,000 bytes, not 100 MiB, in the file as on the command line.
     */
    @Test
    void redisConfSizesMeanWhatRedisServerMakesOfThem() throws Exception {
        Path redisServer = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .map(d -> Path.of(d, "redis-server")).filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(redisServer != null, "redis-server not installed");
        Path f = file("maxmemory 100m\nmaxmemory-policy allkeys-lru\nproto-max-bulk-len 64M\n");
        int redisPort = freePort();
        Process redis = new ProcessBuilder(redisServer.toString(), f.toString(), "--port", Integer.toString(redisPort),
                "--save", "", "--appendonly", "no", "--bind", "127.0.0.1").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        ServerConfig fromFile = resolve("--config", f.toString(), "--data", dir.resolve("data").toString());
        ServerConfig fromFlags = resolve("--maxmemory", "100m", "--maxmemory-policy", "allkeys-lru",
                "--proto-max-bulk-len", "64M");
        assertEquals(fromFile.maxMemoryBytes(), fromFlags.maxMemoryBytes());
        assertEquals(fromFile.maxBulkBytes(), fromFlags.maxBulkBytes());
        try (ColossalServer ours = ColossalServer.start(fromFile.withPorts(0, -1));
             Jedis o = new Jedis("127.0.0.1", ours.port()); Jedis r = new Jedis("127.0.0.1", redisPort)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!redisAnswers(r) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            for (String key : List.of("maxmemory", "proto-max-bulk-len")) {
                assertEquals(r.configGet(key), o.configGet(key));
            }
            assertEquals(Map.of("maxmemory", "100000000"), o.configGet("maxmemory"));
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    private static boolean redisAnswers(Jedis r) {
        try {
            return r.ping().equals("PONG");
        } catch (JedisConnectionException e) {
            return false;
        }
    }

    @Test
    void badFilesAreClearErrors() throws IOException {
        Path f = file("port 7001\nprot 7002\n");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString()));
        assertTrue(unknown.getMessage().startsWith(f + ":2: unknown setting 'prot'; the settings are bind, port,"),
                unknown.getMessage());
        file("port abc\n");
        assertEquals(f + ":1: port=abc is not an integer",
                assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString())).getMessage());
        file("port 1\n\nport 2\n");
        assertEquals(f + ":3: 'port' is set again (first on line 1); keep one",
                assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString())).getMessage());
        // in two files the later line wins, as Redis reads an include where it stands
        Path common = Files.writeString(dir.resolve("common.conf"), "port 7001\nmaxclients 50\n");
        file("include " + common + "\nport 7002\n");
        assertEquals(7002, resolve("--config", f.toString()).port());
        assertEquals(50, resolve("--config", f.toString()).maxClients());
        file("port 7002\ninclude " + common + "\n");
        assertEquals(7001, resolve("--config", f.toString()).port());
        file("proto-max-bulk-len lots\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString()))
                .getMessage().contains("proto-max-bulk-len=lots is not a size"));
        file("maxmemory 100mb\nmaxmemory-policy lfu\n");
        assertEquals("--maxmemory-policy=lfu is not a policy; the supported ones are noeviction (the default), allkeys-lru,"
                + " allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, volatile-random and volatile-ttl",
                assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString())).getMessage());
        file("maxmemory lots\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString()))
                .getMessage().contains("maxmemory=lots is not a size"));
        file("timeout\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString()))
                .getMessage().contains("'timeout' has no value"));
        Path missing = dir.resolve("missing.conf");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> resolve("--config", missing.toString()))
                .getMessage().contains("does not exist"));
    }

    @Test
    void serveExitsWithTheErrorAndNoServer() throws IOException {
        Path f = file("maxclient 5\n");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertEquals(2, new CommandLine(new ServeCommand()).execute("--config", f.toString()));
        } finally {
            System.setErr(err);
        }
        assertTrue(captured.toString(StandardCharsets.UTF_8).contains("unknown setting 'maxclient'"), captured.toString());
    }

    /**
     * A redis.conf serves as it is: Redis's settings this server has are set as CONFIG SET sets
     * them, the others are said and passed over, {@code include} reads another file, {@code bind}
     * takes the first of several addresses; the stock file of the redis-server package too.
     */
    @Test
    void aRedisConfServesAsItIs() throws Exception {
        int port = freePort();
        Path stock = Path.of("/etc/redis/redis.conf");
        Path extra = Files.writeString(dir.resolve("extra.conf"), """
                daemonize yes
                hz 100
                activerehashing yes
                slowlog-max-len 7
                lfu-log-factor 3
                notify-keyspace-events KEA
                client-output-buffer-limit replica 256mb 64mb 60
                client-output-buffer-limit pubsub 32mb 8mb 60
                enable-debug-command local
                """);
        Path f = file((Files.isReadable(stock) ? "include " + stock + "\n" : "bind \"127.0.0.1 -::1\"\n")
                + "include " + extra + "\n");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path log = dir.resolve("server.log");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--config", f.toString(), "--port", Integer.toString(port), "--http-port", "-1", "--data",
                dir.resolve("data").toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try (Jedis j = connect(port)) {
            assertEquals(Map.of("slowlog-max-len", "7"), j.configGet("slowlog-max-len"));
            assertEquals(Map.of("lfu-log-factor", "3"), j.configGet("lfu-log-factor"));
            assertEquals(Map.of("notify-keyspace-events", "AKE"), j.configGet("notify-keyspace-events"));
            assertEquals(Map.of("bind", "127.0.0.1 -::1"), j.configGet("bind"), "the line, as redis-server answers it");
            assertEquals(Map.of("enable-debug-command", "local"), j.configGet("enable-debug-command"));
            // the notes are written once the server is up, perhaps after these first replies
            String said = Files.readString(log);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); !said.contains("passed over")
                    && System.nanoTime() < end; said = Files.readString(log)) {
                Thread.sleep(50);
            }
            assertTrue(said.contains(extra + ":1: daemonize yes: this server stays in the foreground"), said);
            // hz has no setting here (CONFIG GET answers the 10 it runs with), activerehashing no counterpart
            assertTrue(said.contains(": passed over, as they have no effect here: ") && said.contains(" hz")
                    && said.contains(" activerehashing"), said);
            // its three client-output-buffer-limit lines (normal, replica, pubsub at Redis's defaults) are taken
            assertTrue(!said.contains("client-output-buffer-limit"), said);
            assertEquals(Map.of("hz", "10"), j.configGet("hz"));
            assertTrue(said.contains("bind 127.0.0.1 -::1: listening on 127.0.0.1 only"), said);
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** @return a connection to a server starting on {@code port}, once it answers (or asks for a password) */
    static Jedis connect(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Jedis j = new Jedis("127.0.0.1", port);
            try {
                j.ping();
                return j;
            } catch (redis.clients.jedis.exceptions.JedisAccessControlException e) {
                return j;
            } catch (JedisConnectionException e) {
                j.close();
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    @Test
    void aBadEnableDebugCommandFlagStopsTheStart() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = new CommandLine(new ServeCommand()).execute("--enable-debug-command", "always", "--port", "0",
                    "--http-port", "-1", "--data", dir.resolve("data").toString());
        } finally {
            System.setErr(err);
        }
        String said = captured.toString(StandardCharsets.UTF_8);
        assertEquals(2, exit, said);
        assertTrue(said.contains("--enable-debug-command=always must be no, yes or local"), said);
    }

    /** What redis-server would refuse to start with stops this one too, naming the line; so do two directives. */
    @Test
    void redisConfLinesThatCannotServeStopTheStart() throws IOException {
        String[][] cases = {
            {"slowlog-max-len many\n", ":1: slowlog-max-len many: CONFIG SET failed (possibly related to argument"
                    + " 'slowlog-max-len') - argument couldn't be parsed into an integer"},
            {"port 0\nhz 10\nnotify-keyspace-events KZ!\n", ":3: notify-keyspace-events KZ!: CONFIG SET failed"},
            {"enable-debug-command maybe\n", ":1: enable-debug-command maybe: CONFIG SET failed (possibly related to"
                    + " argument 'enable-debug-command') - argument(s) must be one of the following: no, yes, local"},
            // user lines define users, as in redis-server: a rule it refuses, a user twice, an ACL file beside them stop it
            {"user alice on >pw ~* bogus\n", ":1: Error in user declaration 'bogus': Syntax error"},
            {"user alice on >pw ~* +nosuchcommand\n", ":1: Error in user declaration '+nosuchcommand': Unknown command"
                    + " or category name in ACL"},
            {"user default on nopass ~*\nport 0\nuser default off\n", ":3: Error in user declaration 'default': Duplicate"
                    + " user found. A user can only be defined once in config files"},
            {"aclfile " + dir.resolve("users.acl") + "\nuser alice on\n", ":2: user lines and an ACL file ("
                    + dir.resolve("users.acl") + ") both define users: keep one"},
            {"rename-command FLUSHALL \"\"\n", ":1: rename-command is not supported: to keep clients from a command,"
                    + " deny it by ACL, e.g. in an aclfile: user default on nopass ~* &* +@all -flushall"},
            {"loadmodule /usr/lib/redis/modules/redisbloom.so\n", ":1: loadmodule: this server loads no Redis modules"},
            {"include " + dir.resolve("loop.conf") + "\n", ": include " + dir.resolve("loop.conf") + " is 16 files deep"},
        };
        Files.writeString(dir.resolve("loop.conf"), "include " + dir.resolve("loop.conf") + "\n");
        for (String[] c : cases) {
            Path f = file(c[0]);
            PrintStream err = System.err;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int exit;
            try {
                exit = new CommandLine(new ServeCommand()).execute("--config", f.toString(), "--port", "0",
                        "--http-port", "-1", "--data", dir.resolve("data").toString());
            } finally {
                System.setErr(err);
            }
            String said = captured.toString(StandardCharsets.UTF_8);
            assertEquals(2, exit, said);
            assertTrue(said.contains(c[1]), c[0] + " said: " + said);
        }
    }

    @Test
    void aServerProcessRunsFromTheFile() throws Exception {
        int port = freePort();
        Path data = dir.resolve("data");
        Path f = file("port " + port + "\nhttp-port -1\ndata " + data + "\nrequirepass pw\n");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--config", f.toString(), "--enable-debug-command", "yes").redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        try {
            String reply = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (reply == null && System.nanoTime() < deadline) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    OutputStream out = s.getOutputStream();
                    out.write("PING\r\nAUTH pw\r\nPING\r\nDEBUG ERROR faked\r\n".getBytes(StandardCharsets.US_ASCII));
                    InputStream in = s.getInputStream();
                    byte[] want = "-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n-faked\r\n"
                            .getBytes(StandardCharsets.US_ASCII);
                    reply = new String(in.readNBytes(want.length), StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    Thread.sleep(100);
                }
            }
            assertEquals("-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n-faked\r\n", reply, "--enable-debug-command yes");
            assertTrue(Files.isDirectory(data), "data directory from the file");
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
    }
}
