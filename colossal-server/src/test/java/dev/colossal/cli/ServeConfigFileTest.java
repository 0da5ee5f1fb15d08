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
        int redisPort;
        try (ServerSocket s = new ServerSocket(0)) {
            redisPort = s.getLocalPort();
        }
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
        file("proto-max-bulk-len lots\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> resolve("--config", f.toString()))
                .getMessage().contains("proto-max-bulk-len=lots is not a size"));
        file("maxmemory 100mb\nmaxmemory-policy allkeys-lfu\n");
        assertEquals("--maxmemory-policy=allkeys-lfu is not supported: this server keeps no access counts; its policies"
                + " are noeviction (the default), allkeys-lru, allkeys-random, volatile-lru, volatile-random and volatile-ttl",
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

    @Test
    void aServerProcessRunsFromTheFile() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = dir.resolve("data");
        Path f = file("port " + port + "\nhttp-port -1\ndata " + data + "\nrequirepass pw\n");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--config", f.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        try {
            String reply = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (reply == null && System.nanoTime() < deadline) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    OutputStream out = s.getOutputStream();
                    out.write("PING\r\nAUTH pw\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                    InputStream in = s.getInputStream();
                    byte[] want = "-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n".getBytes(StandardCharsets.US_ASCII);
                    reply = new String(in.readNBytes(want.length), StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    Thread.sleep(100);
                }
            }
            assertEquals("-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n", reply);
            assertTrue(Files.isDirectory(data), "data directory from the file");
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
    }
}
