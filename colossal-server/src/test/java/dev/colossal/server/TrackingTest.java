package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.server.SideBySideConnections.Step;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT TRACKING against redis-server 7: four connections run the same steps on both servers and
 * every connection must receive the same bytes (client ids aside): RESP3 invalidations in default
 * mode (a client's own after its reply), BCAST with prefixes and NOLOOP (one message per prefix of
 * the keys one command changed), OPTIN/OPTOUT with CLIENT CACHING, a RESP2 REDIRECT to a subscriber,
 * FLUSHALL's null, keys read by scripts (the caller's), a REDIRECT client gone (tracking-redir-broken), TRACKINGINFO, GETREDIR and every refusal's text.
 */
class TrackingTest {

    private static final List<Step> SCRIPT = List.of(
            new Step(0, "HELLO", "3"),
            new Step(0, "CLIENT", "TRACKING", "ON"),
            new Step(0, "GET", "k"),
            new Step(0, "MGET", "k2", "k3"),
            new Step(0, "HGET", "h", "f"),
            // keys a command names past its key positions (movable keys), found by its key specs
            new Step(0, "SINTERCARD", "2", "m1", "m2"),
            new Step(0, "ZUNION", "2", "m3", "m4"),
            new Step(0, "XREAD", "STREAMS", "m5", "m6", "0", "0"),
            new Step(1, "SADD", "m2", "a"),
            new Step(1, "ZADD", "m4", "1", "a"),
            new Step(1, "XADD", "m6", "1-1", "f", "v"),
            new Step(1, "SET", "k", "x"),
            new Step(1, "SET", "k", "again: told once"),
            new Step(1, "HSET", "h", "f", "v"),
            new Step(1, "MSET", "k2", "1", "k3", "2"),
            new Step(1, "DEL", "nosuch"),
            new Step(0, "GET", "k"),
            new Step(0, "SET", "k", "own write"),
            new Step(0, "GET", "k"),
            new Step(1, "INCR", "counter"),
            new Step(0, "EVAL", "return redis.call('get', KEYS[1])", "1", "s1"),
            new Step(0, "EVAL", "return redis.call('mget', 's2', 's3')", "0"),
            new Step(1, "SET", "s1", "a script's read is its caller's"),
            new Step(1, "MSET", "s2", "1", "s3", "2"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(0, "CLIENT", "GETREDIR"),
            new Step(1, "CLIENT", "GETREDIR"),
            new Step(0, "GET", "k"),
            new Step(1, "FLUSHALL"),
            new Step(1, "SET", "k", "after flush"),
            new Step(0, "CLIENT", "TRACKING", "ON", "BCAST"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(0, "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p", "PREFIX", "q", "NOLOOP"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(1, "MSET", "pb", "1", "pa", "2", "qa", "3", "ra", "4", "pa", "5"),
            new Step(0, "SET", "pz", "own: not told"),
            new Step(1, "DEL", "pa", "qa"),
            new Step(0, "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "pq"),
            new Step(0, "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "r"),
            new Step(1, "SET", "ra", "now r too"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(1, "SET", "pa", "off: not told"),
            new Step(0, "CLIENT", "TRACKING", "ON", "OPTIN"),
            new Step(0, "GET", "o1"),
            new Step(0, "CLIENT", "CACHING", "YES"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(0, "GET", "o2"),
            new Step(1, "MSET", "o1", "a", "o2", "b"),
            new Step(0, "EVAL", "return redis.call('get', KEYS[1])", "1", "o5"),
            new Step(0, "CLIENT", "CACHING", "YES"),
            new Step(0, "EVAL", "return redis.call('get', KEYS[1])", "1", "o6"),
            new Step(1, "MSET", "o5", "a", "o6", "b"),
            new Step(0, "CLIENT", "CACHING", "NO"),
            new Step(0, "CLIENT", "TRACKING", "ON", "OPTOUT"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(0, "CLIENT", "TRACKING", "ON", "OPTOUT"),
            new Step(0, "GET", "o3"),
            new Step(0, "CLIENT", "CACHING", "NO"),
            new Step(0, "GET", "o4"),
            new Step(1, "MSET", "o3", "a", "o4", "b"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(2, "SUBSCRIBE", "__redis__:invalidate"),
            new Step(3, "CLIENT", "TRACKING", "ON", "REDIRECT", "{id:2}"),
            new Step(3, "GET", "r1"),
            new Step(3, "CLIENT", "TRACKINGINFO"),
            new Step(1, "SET", "r1", "x"),
            new Step(1, "FLUSHDB"),
            new Step(3, "CLIENT", "TRACKING", "OFF"),
            new Step(0, "CLIENT", "TRACKING", "ON", "REDIRECT", "999999"),
            new Step(0, "CLIENT", "TRACKING", "ON", "REDIRECT", "{id:1}", "REDIRECT", "{id:1}"),
            new Step(0, "CLIENT", "TRACKING", "ON", "REDIRECT", "x"),
            new Step(0, "CLIENT", "TRACKING", "ON", "PREFIX", "a"),
            new Step(0, "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "ab"),
            new Step(0, "CLIENT", "TRACKING", "ON", "BCAST", "OPTIN"),
            new Step(0, "CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT"),
            new Step(0, "CLIENT", "TRACKING", "ON", "FOO"),
            new Step(0, "CLIENT", "TRACKING", "MAYBE"),
            new Step(0, "CLIENT", "TRACKING"),
            new Step(0, "CLIENT", "CACHING", "YES"),
            new Step(0, "CLIENT", "CACHING", "MAYBE", "X"),
            new Step(0, "CLIENT", "TRACKINGINFO", "X"),
            new Step(0, "CLIENT", "TRACKING", "ON"),
            new Step(0, "CLIENT", "CACHING", "MAYBE"),
            new Step(0, "CLIENT", "CACHING", "YES"),
            new Step(0, "GET", "last"),
            new Step(0, "RESET"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(1, "SET", "last", "reset ended tracking"),
            new Step(0, "HELLO", "3"),
            new Step(0, "CLIENT", "TRACKING", "ON", "REDIRECT", "{id:2}"),
            new Step(0, "GET", "rb"),
            new Step(2, "QUIT"),
            new Step(1, "SET", "rb", "the redirect client is gone"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(1, "SET", "rb", "told again"),
            new Step(0, "CLIENT", "TRACKING", "ON", "REDIRECT", "{id:1}"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(0, "CLIENT", "TRACKING", "OFF"));

    /**
     * What Redis's own tracking tests (unit/tracking) found: EVAL_RO remembers its declared keys only
     * if the script reads; CLIENT TRACKING OFF forgets CLIENT CACHING's answer; FLUSHALL empties the
     * table even when no client tracks at that moment.
     */
    private static final List<Step> SUITE_FINDINGS = List.of(
            new Step(0, "HELLO", "3"),
            new Step(0, "CLIENT", "TRACKING", "ON"),
            new Step(0, "EVAL_RO", "redis.call('ping')", "2", "e1", "e2"),
            new Step(1, "MSET", "e2", "1", "e1", "1"),
            new Step(0, "EVAL_RO", "return redis.call('get', KEYS[1])", "2", "e1", "e2"),
            new Step(1, "MSET", "e2", "2", "e1", "2"),
            new Step(0, "PING"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(0, "CLIENT", "TRACKING", "ON", "OPTOUT"),
            new Step(0, "CLIENT", "CACHING", "NO"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(0, "CLIENT", "TRACKING", "ON", "OPTOUT"),
            new Step(0, "CLIENT", "TRACKINGINFO"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(0, "CLIENT", "TRACKING", "ON"),
            new Step(0, "GET", "f1"),
            new Step(0, "CLIENT", "TRACKING", "OFF"),
            new Step(1, "FLUSHALL"),
            new Step(0, "CLIENT", "TRACKING", "ON"),
            new Step(1, "SET", "f1", "the table was flushed: nobody is told"),
            new Step(0, "PING"),
            new Step(0, "CLIENT", "TRACKING", "OFF"));

    @TempDir
    Path dir;

    @Test
    void whatRedisSOwnSuiteFoundIsAsRedisSends() throws Exception {
        TestServers.onRedis(redisPort -> {
            try (ColossalServer server = TestServers.colossal(dir);
                 SideBySideConnections side = new SideBySideConnections(redisPort, server.port(), 2)) {
                int[] invalidations = new int[1];
                side.run(SUITE_FINDINGS, TrackingTest::masked, got -> invalidations[0] += count(got, "invalidate"));
                assertEquals(2, invalidations[0], "the EVAL_RO that read: e2 then e1");
            }
        });
    }

    /** A BLMOVE served by another client's push: the invalidation of its own destination follows its reply. */
    @Test
    void aServedBlockedCommandsOwnInvalidationFollowsItsReply() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir); Wire blocked = new Wire(server.port());
             Wire pusher = new Wire(server.port())) {
            blocked.call("HELLO", "3");
            blocked.call("CLIENT", "TRACKING", "ON");
            pusher.call("RPUSH", "dst", "a");
            blocked.call("LRANGE", "dst", "0", "-1");
            blocked.send(Wire.encode("BLMOVE", "src", "dst", "LEFT", "LEFT", "0"));
            TestServers.await(true, 5000, () -> server.context().waits.blocked() == 1);
            pusher.call("RPUSH", "src", "foo");
            assertEquals("$3\r\nfoo\r\n", blocked.reply());
            assertEquals(">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\ndst\r\n", blocked.reply());
        }
    }

    @Test
    void everyConnectionReceivesWhatRedisSends() throws Exception {
        TestServers.onRedis(redisPort -> {
            try (ColossalServer server = TestServers.colossal(dir);
                 SideBySideConnections side = new SideBySideConnections(redisPort, server.port(), 4)) {
                int[] invalidations = new int[1];
                side.run(SCRIPT, TrackingTest::masked, got -> invalidations[0] += count(got, "invalidate"));
                assertTrue(invalidations[0] >= 12, invalidations[0] + " invalidation messages seen");
                assertFalse(server.context().tracking.active(), "no client tracks any more");
                assertEquals(0, server.context().tracking.clients());
            }
        });
    }

    /** Lettuce's client-side cache: a value read once is served from the cache until another client changes it. */
    @Test
    void lettucesClientSideCacheDropsWhatAnotherClientChanged() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir)) {
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + server.port());
            try (var cached = client.connect(); var writer = client.connect()) {
                java.util.Map<String, String> local = new java.util.concurrent.ConcurrentHashMap<>();
                io.lettuce.core.support.caching.CacheFrontend<String, String> frontend =
                        io.lettuce.core.support.caching.ClientSideCaching.enable(
                                io.lettuce.core.support.caching.CacheAccessor.forMap(local), cached,
                                io.lettuce.core.TrackingArgs.Builder.enabled());
                writer.sync().set("user:1", "ann");
                assertEquals("ann", frontend.get("user:1"));
                assertEquals("ann", local.get("user:1"), "cached after the first read");
                String stats = writer.sync().info("stats") + writer.sync().info("clients");
                assertTrue(stats.contains("tracking_total_keys:1\r\n") && stats.contains("tracking_total_items:1\r\n")
                        && stats.contains("tracking_total_prefixes:0\r\n") && stats.contains("tracking_clients:1\r\n"), stats);
                writer.sync().set("user:1", "bob");
                TestServers.await(false, 5000, () -> local.containsKey("user:1"));
                assertEquals("bob", frontend.get("user:1"), "read again after the invalidation");
                writer.sync().del("user:1");
                TestServers.await(false, 5000, () -> local.containsKey("user:1"));
                frontend.close();
            } finally {
                client.shutdown();
            }
        }
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int at = s.indexOf(what); at >= 0; at = s.indexOf(what, at + 1)) {
            n++;
        }
        return n;
    }

    /** @return {@code replies} without the client ids (HELLO's, CLIENT ID's, a REDIRECT's), which differ by right */
    private static String masked(String replies) {
        return PubSubDifferentialTest.withoutId(replies)
                .replaceAll("(\\$8\r\nredirect\r\n):\\d+", "$1:ID")
                .replaceAll("(tracking-redir-broken\r\n):\\d+", "$1:ID")
                .replaceAll("^:([1-9]\\d*)\r\n$", ":ID\r\n");
    }
}
