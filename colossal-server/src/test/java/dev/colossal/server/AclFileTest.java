package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ACL file: users ACL SAVE wrote are there after a restart, in Redis's format (redis-server
 * loads our file and lists the same users); ACL LOAD takes a whole valid file or nothing; a bad
 * file stops the start.
 */
class AclFileTest {

    private static final String[] USERS = {
        "ACL SETUSER app on >s3cret ~app:* &news.* -@all +@read +set",
        "ACL SETUSER ops on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 allkeys allchannels +@all -@dangerous",
        "ACL SETUSER reader off nopass %R~r* resetchannels -@all +@read -keys"};

    @TempDir
    Path dir;

    private ColossalServer start(Path acl) throws Exception {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("data")).withPorts(0, -1), acl);
    }

    @Test
    void savedUsersAreThereAfterARestart() throws Exception {
        Path acl = dir.resolve("users.acl");
        Files.writeString(acl, "");
        String list;
        try (ColossalServer s = start(acl); Wire w = new Wire(s.port())) {
            for (String u : USERS) {
                assertEquals("+OK\r\n", w.call(u.split(" ")));
            }
            list = w.call("ACL", "LIST");
            assertEquals("+OK\r\n", w.call("ACL", "SAVE"));
        }
        List<String> lines = Files.readAllLines(acl);
        assertEquals(4, lines.size());
        assertEquals("user app on #1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0 ~app:* resetchannels"
                + " &news.* -@all +@read +set", lines.get(0));
        try (ColossalServer s = start(acl); Wire w = new Wire(s.port())) {
            assertEquals(list, w.call("ACL", "LIST"));
            assertEquals("+OK\r\n", w.call("AUTH", "app", "s3cret"));
            assertEquals("+OK\r\n", w.call("SET", "app:1", "v"));
            assertEquals("-NOPERM this user has no permissions to access one of the keys used as arguments\r\n",
                    w.call("GET", "other"));
            assertEquals("+OK\r\n", w.call("AUTH", "ops", "password"));
        }
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort, "--aclfile", acl.toString());
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (Wire r = new Wire(redisPort)) {
            assertEquals(list, r.call("ACL", "LIST"), "redis-server reads our file as we do");
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    @Test
    void loadTakesAWholeValidFileOrNothing() throws Exception {
        Path acl = dir.resolve("users.acl");
        Files.writeString(acl, "user default on nopass ~* &* +@all\nuser bob on >pw ~* &* +@all\n");
        try (ColossalServer s = start(acl); Wire w = new Wire(s.port()); Wire bob = new Wire(s.port())) {
            assertEquals("+OK\r\n", bob.call("AUTH", "bob", "pw"));
            Files.writeString(acl, "user default on nopass ~* &* +@all\nuser carol on >pw +nosuchcommand\n");
            String refused = w.call("ACL", "LOAD");
            assertTrue(refused.startsWith("-ERR " + acl + ":2: Unknown command or category name in ACL"), refused);
            assertEquals("*2\r\n$3\r\nbob\r\n$7\r\ndefault\r\n", w.call("ACL", "USERS"));
            Files.writeString(acl, "user default on nopass ~* &* +@all\nuser carol on >pw ~* &* +@all\n");
            assertEquals("+OK\r\n", w.call("ACL", "LOAD"));
            assertEquals("*2\r\n$5\r\ncarol\r\n$7\r\ndefault\r\n", w.call("ACL", "USERS"));
            assertEquals("+PONG\r\n", w.call("PING"), "the default user's connections stay");
            assertThrows(java.io.IOException.class, () -> {
                for (int i = 0; i < 100; i++) { // bob is gone: its connection is closed, as Redis closes it
                    bob.call("PING");
                    Thread.sleep(20);
                }
            });
        }
    }

    @Test
    void aBadFileStopsTheStart() throws Exception {
        Path acl = dir.resolve("users.acl");
        Files.writeString(acl, "user bob on ~* +@nosuchcategory\n", StandardCharsets.US_ASCII);
        AclFileException e = assertThrows(AclFileException.class, () -> start(acl));
        assertTrue(e.getMessage().contains(acl + ":1: Unknown command or category name in ACL"), e.getMessage());
        AclFileException missing = assertThrows(AclFileException.class, () -> start(dir.resolve("nosuch.acl")));
        assertTrue(missing.getMessage().contains("create it"), missing.getMessage());
        assertFalse(Files.exists(dir.resolve("data").resolve("db0.map")), "nothing was opened");
    }
}
