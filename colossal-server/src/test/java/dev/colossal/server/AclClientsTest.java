package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Unmodified clients connecting as a limited ACL user: Jedis (AUTH user pass, RESP2) and Lettuce
 * (HELLO 3 AUTH user pass, from a redis://user:pass@host URL), allowed what the user's rules allow
 * and refused the rest with Redis's NOPERM errors, logged in ACL LOG, shown in CLIENT LIST, and
 * disconnected when the user is deleted.
 */
class AclClientsTest {

    @TempDir
    Path dir;
    ColossalServer server;
    Jedis admin;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.colossal(dir.resolve("data"));
        admin = new Jedis("127.0.0.1", server.port());
        assertEquals("OK", admin.aclSetUser("app", "on", ">s3cret", "~app:*", "&news.*", "+@read", "+@write",
                "-@dangerous", "+publish", "-flushall", "+acl|whoami"));
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        server.close();
    }

    @Test
    void jedisAsLimitedUserIsAllowedItsKeysAndCommandsOnly() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", j.auth("app", "s3cret"));
            assertEquals("app", j.aclWhoAmI());
            assertEquals("OK", j.set("app:1", "v"));
            assertEquals("v", j.get("app:1"));
            assertEquals(0, j.publish("news.sport", "goal")); // allowed; nobody listens
            JedisAccessControlException key = assertThrows(JedisAccessControlException.class, () -> j.get("other"));
            assertEquals("NOPERM this user has no permissions to access one of the keys used as arguments",
                    key.getMessage());
            JedisAccessControlException cmd = assertThrows(JedisAccessControlException.class, j::flushAll);
            assertEquals("NOPERM this user has no permissions to run the 'flushall' command", cmd.getMessage());
            JedisAccessControlException sub = assertThrows(JedisAccessControlException.class,
                    () -> j.configGet("maxmemory"));
            assertEquals("NOPERM this user has no permissions to run the 'config|get' command", sub.getMessage());
            JedisAccessControlException ch = assertThrows(JedisAccessControlException.class,
                    () -> j.publish("weather", "rain"));
            assertEquals("NOPERM this user has no permissions to access one of the channels used as arguments",
                    ch.getMessage());
            assertThrows(JedisAccessControlException.class, () -> j.auth("app", "wrong"));
        }
        assertEquals("auth", log(0, "reason"));
        assertEquals("channel", log(1, "reason"));
        assertEquals("weather", log(1, "object"));
        assertEquals("command", log(2, "reason"));
        assertEquals("config|get", log(2, "object"));
        assertEquals("key", log(4, "reason"));
        assertEquals("other", log(4, "object"));
        assertEquals("app", log(4, "username"));
        assertTrue(log(4, "client-info").contains(" user=app "), log(4, "client-info"));
    }

    /**
     * A field of ACL LOG's entry {@code i} (0 the newest): read raw, as Jedis 5.2 reads the entries
     * with Redis 7.2's fields, which 7.0 has not.
     */
    private String log(int i, String field) {
        List<?> entries = (List<?>) admin.sendCommand(redis.clients.jedis.Protocol.Command.ACL, "LOG");
        List<?> entry = (List<?>) entries.get(i);
        for (int k = 0; k < entry.size(); k += 2) {
            if (new String((byte[]) entry.get(k), java.nio.charset.StandardCharsets.UTF_8).equals(field)) {
                Object v = entry.get(k + 1);
                return v instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(v);
            }
        }
        throw new AssertionError("no " + field + " in " + entry);
    }

    @Test
    void lettuceLogsInWithHello3FromTheUrl() {
        RedisClient client = RedisClient.create(RedisURI.create("redis://app:s3cret@127.0.0.1:" + server.port()));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> s = c.sync();
            assertEquals("app", s.aclWhoami());
            assertEquals("OK", s.set("app:2", "x"));
            assertEquals(List.of("x"), s.mget("app:2").stream().map(kv -> kv.getValue()).toList());
            RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class,
                    () -> s.mget("app:2", "secret"));
            assertTrue(e.getMessage().startsWith("NOPERM"), e.getMessage());
            assertTrue(admin.clientList().contains(" user=app "), "CLIENT LIST shows the user");
        } finally {
            client.shutdown();
        }
        RedisClient wrong = RedisClient.create(RedisURI.create("redis://app:nope@127.0.0.1:" + server.port()));
        try {
            assertThrows(RedisConnectionException.class, wrong::connect);
        } finally {
            wrong.shutdown();
        }
    }

    @Test
    void transactionsAndScriptsAreCheckedCommandByCommand() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.auth("app", "s3cret");
            redis.clients.jedis.Transaction t = j.multi();
            t.set("app:t", "1");
            JedisDataException refused = assertThrows(JedisDataException.class, () -> {
                t.get("nope");
                t.exec();
            });
            assertTrue(refused.getMessage().startsWith("EXECABORT"), refused.getMessage());
            assertEquals("OK", admin.aclSetUser("app", "+eval"));
            JedisDataException script = assertThrows(JedisDataException.class,
                    () -> j.eval("return redis.call('get', 'nope')"));
            assertTrue(script.getMessage().startsWith("ERR The user executing the script can't access at least one of"
                    + " the keys mentioned in the command arguments"), script.getMessage());
            assertEquals("lua", log(0, "context"));
        }
    }

    @Test
    void deletingAUserClosesItsConnectionsAndOffRefusesNewLogins() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.auth("app", "s3cret");
            assertEquals("OK", admin.aclSetUser("app", "off"));
            assertEquals("app", j.aclWhoAmI()); // as in Redis 7.0: off refuses new logins, keeps the connected
            try (Jedis k = new Jedis("127.0.0.1", server.port())) {
                assertThrows(JedisAccessControlException.class, () -> k.auth("app", "s3cret"));
            }
            assertEquals(1, admin.aclDelUser("app"));
            assertThrows(JedisConnectionException.class, () -> {
                for (int i = 0; i < 100; i++) { // the close comes from the deleting connection's loop
                    j.ping();
                    Thread.sleep(20);
                }
            });
        }
        assertEquals(List.of("default"), admin.aclUsers());
    }

    @Test
    void clientKillUserClosesThatUsersConnections() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.auth("app", "s3cret");
            assertEquals(1, admin.clientKill(redis.clients.jedis.params.ClientKillParams.clientKillParams()
                    .user("app")));
            assertThrows(JedisConnectionException.class, j::ping);
        }
        JedisDataException e = assertThrows(JedisDataException.class, () -> admin.clientKill(
                redis.clients.jedis.params.ClientKillParams.clientKillParams().user("nosuch")));
        assertEquals("ERR No such user 'nosuch'", e.getMessage());
        Map<String, Object> user = admin.aclGetUser("app").getUserInfo();
        assertEquals("~app:*", user.get("keys"));
    }

    @Test
    void subscribersOfChannelsNoLongerAllowedAreClosed() throws Exception {
        assertEquals("OK", admin.aclSetUser("app", "+@pubsub"));
        try (Wire kept = new Wire(server.port()); Wire dropped = new Wire(server.port())) {
            kept.call("AUTH", "app", "s3cret");
            dropped.call("AUTH", "app", "s3cret");
            assertEquals("*3\r\n$9\r\nsubscribe\r\n$10\r\nnews.sport\r\n:1\r\n", kept.call("SUBSCRIBE", "news.sport"));
            assertEquals("*3\r\n$10\r\npsubscribe\r\n$6\r\nnews.*\r\n:1\r\n", dropped.call("PSUBSCRIBE", "news.*"));
            // the pattern news.* is no longer one of the user's; the channel news.sport still matches news.s*
            assertEquals("OK", admin.aclSetUser("app", "resetchannels", "&news.s*"));
            assertEquals(1, admin.publish("news.sport", "goal"));
            assertTrue(kept.reply().contains("goal"));
            assertThrows(java.io.IOException.class, () -> {
                for (int i = 0; i < 100; i++) {
                    dropped.call("PING");
                    Thread.sleep(20);
                }
            });
        }
    }
}
