package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Go, Node.js and Python clients (go-redis, redigo, ioredis, node-redis, redis-py) send that
 * Jedis and Lettuce do not, replayed as raw RESP: CI has none of those clients, and the bytes are
 * what they depend on. Where redis-server is installed, its replies are the reference.
 */
class PolyglotClientsTest {

    @TempDir
    Path dir;
    ColossalServer server;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.colossal(dir.resolve("data"));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    /**
     * go-redis's {@code InfoMap(ctx, "server", "memory")} sends {@code INFO server memory} and
     * wants both sections; Redis 7 takes any number of section names. Only the first was given.
     */
    @Test
    void infoGivesEverySectionNamed() throws Exception {
        String[][] asks = {{"INFO", "server", "memory"}, {"INFO", "replication", "clients"},
            {"INFO", "clients", "CLIENTS"}, {"INFO", "clients", "nosuchsection"}, {"INFO", "nosuchsection"},
            {"INFO", "keyspace"}, {"INFO", "stats", "cpu", "persistence"}};
        String[] want = {"# Server||# Memory|", "# Clients||# Replication|", "# Clients|", "# Clients|", "", "# Keyspace|",
            "# Persistence||# Stats||# CPU|"};
        try (Wire w = new Wire(server.port())) {
            for (int i = 0; i < asks.length; i++) {
                assertEquals(want[i], outline(w.call(asks[i])), String.join(" ", asks[i]));
            }
        }
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        if (redis == null) {
            return;
        }
        try (Wire r = new Wire(redisPort); Wire o = new Wire(server.port())) {
            for (String[] ask : asks) {
                assertEquals(outline(r.call(ask)), outline(o.call(ask)), "as redis-server: " + String.join(" ", ask));
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /**
     * The INFO fields {@code redis-cli --stat} reads every second: a missing one it prints as
     * -9223372036854775808 (the "blocked" column did), or takes as a child process at work.
     */
    @Test
    void infoHasTheFieldsRedisCliStatReads() throws Exception {
        try (Wire w = new Wire(server.port())) {
            String info = w.call("INFO");
            for (String field : List.of("connected_clients", "blocked_clients", "used_memory", "total_commands_processed",
                    "total_connections_received", "loading", "rdb_bgsave_in_progress", "aof_rewrite_in_progress")) {
                assertTrue(info.matches("(?s).*\r\n" + field + ":\\d+\r\n.*"), field + " in\n" + info);
            }
        }
    }

    /**
     * A backup script's BGSAVE, then LASTSAVE polled until it moves (redis-py {@code lastsave()},
     * go-redis {@code LastSave}): LASTSAVE was an unknown command, and the script failed or waited
     * for ever. It starts at the server's start, as redis-server's does, and INFO has it too.
     */
    @Test
    void lastsaveMovesWithABgsave() throws Exception {
        try (Wire w = new Wire(server.port())) {
            long started = Long.parseLong(w.call("LASTSAVE").trim().substring(1));
            long now = System.currentTimeMillis() / 1000;
            assertTrue(started <= now && started >= now - 60, started + " against " + now);
            Thread.sleep(1100);
            assertEquals("+Background saving started\r\n", w.call("BGSAVE"));
            long saved = Long.parseLong(w.call("LASTSAVE").trim().substring(1));
            assertTrue(saved > started, saved + " after " + started);
            assertTrue(w.call("INFO", "persistence").contains("\r\nrdb_last_save_time:" + saved + "\r\n"));
        }
    }

    /**
     * The handshakes of clients given a password, or none, against a server that wants one:
     * node-redis and redis-py with RESP3 send a bare {@code HELLO 3} when the URL has no password
     * and show its error text to the user (redis-py in its {@code AuthenticationError}).
     */
    @Test
    void passwordHandshakesAnswerAsRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort, "--requirepass", "s3cret");
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        String[][] asks = {{"HELLO", "3"}, {"GET", "k"}, {"CLIENT", "SETINFO", "LIB-NAME", "redis-py"},
            {"HELLO", "3", "AUTH", "default", "wrong"}, {"AUTH", "default", "wrong"}, {"AUTH", "wrong"},
            {"HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "nr"}, {"CLIENT", "GETNAME"}};
        try (ColossalServer ours = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("pw"))
                        .withRequirePass("s3cret").withPorts(0, -1));
             Wire r = new Wire(redisPort); Wire o = new Wire(ours.port())) {
            for (String[] ask : asks) {
                if (ask[0].equals("HELLO") && ask.length > 3 && ask[4].equals("s3cret")) {
                    // The reply names each server's connection id: only its start is compared.
                    assertEquals(r.call(ask).substring(0, 2), o.call(ask).substring(0, 2), String.join(" ", ask));
                } else if (ask[1].equals("SETINFO")) {
                    // Redis 7.0 has no SETINFO; what matters is that it is refused before AUTH.
                    assertEquals("-NOAUTH Authentication required.\r\n", o.call(ask));
                } else {
                    assertEquals(r.call(ask), o.call(ask), String.join(" ", ask));
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /**
     * What go-redis, node-redis, ioredis and redis-py send right after connecting. CLIENT LIST,
     * which go-redis's {@code ClientList} and redis-py's {@code client_list()} split at spaces,
     * shows the library; a value with a space or newline would break that parse for every
     * client, so it is refused as Redis 7.2 refuses it (7.0, our reference, has no SETINFO).
     */
    @Test
    void clientSetinfoKeepsClientListParseable() throws Exception {
        try (Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("CLIENT", "SETINFO", "LIB-NAME", "go-redis(,go1.26.8)"));
            assertEquals("+OK\r\n", w.call("CLIENT", "SETINFO", "LIB-VER", "9.23.0"));
            assertEquals("-ERR LIB-NAME cannot contain spaces, newlines or special characters.\r\n",
                    w.call("CLIENT", "SETINFO", "LIB-NAME", "my lib"));
            assertEquals("-ERR lib-ver cannot contain spaces, newlines or special characters.\r\n",
                    w.call("CLIENT", "SETINFO", "lib-ver", "1\n2"));
            assertEquals("-ERR Unrecognized option 'LIB-FOO'\r\n", w.call("CLIENT", "SETINFO", "LIB-FOO", "a b"));
            String line = w.call("CLIENT", "INFO");
            line = line.substring(line.indexOf("\r\n") + 2, line.length() - 3);
            java.util.Map<String, String> fields = new java.util.HashMap<>();
            for (String kv : line.split(" ")) {
                String[] p = kv.split("=", 2);
                assertEquals(2, p.length, "key=value: " + kv + " in " + line);
                fields.put(p[0], p[1]);
            }
            assertEquals("go-redis(,go1.26.8)", fields.get("lib-name"));
            assertEquals("9.23.0", fields.get("lib-ver"));
        }
    }

    /**
     * INFO server has Redis's fields in Redis's order (but those of Redis's own build: git sha,
     * build id, compiler, atomics), and a {@code run_id} new at every start, by which
     * redis_exporter and other tools tell a restart.
     */
    @Test
    void infoServerHasRedissFieldsAndARunIdPerStart() throws Exception {
        String runId;
        List<String> ours;
        try (Wire w = new Wire(server.port())) {
            String info = w.call("INFO", "server");
            ours = fieldNames(info);
            runId = field(info, "run_id");
            assertTrue(runId.matches("[0-9a-f]{40}"), runId);
        }
        server.close();
        server = TestServers.colossal(dir.resolve("data"));
        try (Wire w = new Wire(server.port())) {
            String again = field(w.call("INFO", "server"), "run_id");
            assertTrue(again.matches("[0-9a-f]{40}") && !again.equals(runId), runId + " then " + again);
        }
        List<String> build = List.of("redis_git_sha1", "redis_git_dirty", "redis_build_id", "atomicvar_api", "gcc_version");
        TestServers.onRedis(port -> {
            try (Wire r = new Wire(port)) {
                List<String> theirs = new ArrayList<>(fieldNames(r.call("INFO", "server")));
                theirs.removeAll(build);
                List<String> kept = new ArrayList<>(ours);
                kept.remove("colossal_version");
                assertEquals(theirs, kept);
            }
        });
    }

    /** @return an INFO reply's field names, in order (a replica's test compares them with Redis's too) */
    static List<String> fieldNames(String info) {
        List<String> names = new ArrayList<>();
        for (String line : info.split("\r\n")) {
            if (line.indexOf(':') > 0 && !line.startsWith("$") && !line.startsWith("=")) {
                names.add(line.substring(0, line.indexOf(':')));
            }
        }
        return names;
    }

    /** @return an INFO field's value; fails if the reply has none */
    static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        throw new AssertionError(name + " not in " + info);
    }

    /**
     * An INFO reply's section headers and blank lines, fields left out, joined by {@code |}:
     * {@code "# Clients||# Replication|"} is two sections with a blank line between them and none
     * after the last, as Redis writes them.
     */
    private static String outline(String bulk) {
        String body = bulk.substring(bulk.indexOf("\r\n") + 2, bulk.length() - 2);
        List<String> kept = new ArrayList<>();
        for (String line : body.split("\r\n", -1)) {
            if (line.isEmpty() || line.startsWith("#")) {
                kept.add(line);
            }
        }
        return String.join("|", kept);
    }
}
