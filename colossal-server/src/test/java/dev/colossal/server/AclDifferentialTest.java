package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random ACL rule sets sent to redis-server 7 and to Colossal, then ACL DRYRUN of many commands
 * (commands, subcommands, read and write keys, channels): allowed or refused, and why, must be
 * Redis's byte for byte. The user's description (GETUSER) must match too: byte for byte up to the
 * single-command rules, which Redis writes in its hash table's order (seeded at random each start),
 * and as a set from there. Seeded; more seeds: {@code -Dcolossal.aclSeeds=200}.
 */
class AclDifferentialTest {

    private static final String[] RULES = {"+@all", "-@all", "allcommands", "nocommands", "+@read", "-@read",
        "+@write", "-@write", "+@keyspace", "-@keyspace", "+@string", "-@string", "+@list", "+@hash", "-@hash",
        "+@set", "+@sortedset", "+@stream", "+@pubsub", "-@pubsub", "+@admin", "-@admin", "+@fast", "-@fast", "+@slow",
        "-@slow", "+@blocking", "-@dangerous", "+@dangerous", "+@connection", "+@transaction", "+@scripting",
        "-@scripting", "+@bitmap", "+@hyperloglog", "+@geo", "-@geo", "+get", "-get", "+set", "-set", "+config",
        "-config", "+config|get", "-config|set", "+client", "-client|kill", "+acl|whoami", "-acl", "+eval", "+publish",
        "-publish", "+subscribe", "+psubscribe", "+mget", "+mset", "+copy", "+lmove", "+xread", "+sort", "+select|0",
        "~k*", "%R~r*", "%W~w*", "%RW~x?", "~*", "allkeys", "resetkeys", "&c*", "&*", "allchannels", "resetchannels",
        "on", "off", "nopass", ">pw", "resetpass"};

    private static final String[][] COMMANDS = {{"get", "k1"}, {"get", "r1"}, {"get", "w1"}, {"get", "x1"},
        {"set", "w1", "v"}, {"set", "w1", "v", "GET"}, {"set", "r1", "v"}, {"set", "k1", "v"}, {"mget", "k1", "r1"},
        {"mset", "k1", "v", "w1", "v"}, {"del", "w1"}, {"del", "r1"}, {"copy", "r1", "w1"}, {"copy", "w1", "r1"},
        {"lmove", "r1", "w1", "left", "left"}, {"lmove", "k1", "k2", "left", "left"}, {"rename", "w1", "k1"},
        {"sinterstore", "w1", "r1", "k1"}, {"zunionstore", "w1", "2", "r1", "k1"}, {"eval", "return 1", "1", "r1"},
        {"eval", "return 1", "2", "k1", "w1"}, {"xread", "streams", "r1", "k1", "0", "0"}, {"publish", "c1", "m"},
        {"publish", "x", "m"}, {"subscribe", "c1", "x1"}, {"psubscribe", "c*"}, {"psubscribe", "c1*"},
        {"spublish", "c1", "m"}, {"ssubscribe", "x"}, {"config", "get", "maxmemory"}, {"config", "set", "maxmemory", "0"},
        {"client", "id"}, {"client", "kill", "id", "1"}, {"acl", "whoami"}, {"acl", "list"}, {"info"}, {"keys", "*"},
        {"flushall"}, {"object", "encoding", "k1"}, {"sort", "r1", "store", "w1"}, {"sort", "k1"}, {"ping"},
        {"hset", "k1", "f", "v"}, {"hget", "r1", "f"}, {"bitfield", "w1", "set", "u8", "0", "1"},
        {"bitfield", "r1", "get", "u8", "0"}, {"expire", "w1", "10"}, {"ttl", "r1"}, {"exists", "x1"},
        {"select", "0"}, {"select", "1"}, {"auth", "a", "b"}, {"multi"}, {"exec"}, {"georadius", "k1", "0", "0", "1",
        "km", "store", "w1"}, {"pfcount", "r1", "k1"}, {"xadd", "w1", "*", "f", "v"}, {"blpop", "k1", "0"}};

    @TempDir
    Path dir;

    @Test
    void randomRuleSetsAllowAndRefuseWhatRedisDoes() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            for (long seed = 1; seed <= Long.getLong("colossal.aclSeeds", 40); seed++) {
                Random rnd = new Random(seed);
                List<String> setuser = new ArrayList<>(List.of("ACL", "SETUSER", "rnd", "reset"));
                for (int n = 1 + rnd.nextInt(8); n > 0; n--) {
                    setuser.add(RULES[rnd.nextInt(RULES.length)]);
                }
                String[] cmd = setuser.toArray(String[]::new);
                String why = "seed " + seed + ": " + String.join(" ", setuser);
                assertEquals(r.call(cmd), o.call(cmd), why);
                assertSameDescription(r.call("ACL", "GETUSER", "rnd"), o.call("ACL", "GETUSER", "rnd"), why);
                for (String[] c : COMMANDS) {
                    String[] dry = new String[c.length + 3];
                    dry[0] = "ACL";
                    dry[1] = "DRYRUN";
                    dry[2] = "rnd";
                    System.arraycopy(c, 0, dry, 3, c.length);
                    assertEquals(r.call(dry), o.call(dry), why + " / " + String.join(" ", c));
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** Byte for byte up to the first single-command rule; the rest as a set of words (Redis's order is its hash table's). */
    private static void assertSameDescription(String redis, String ours, String why) {
        int r = firstSingle(redis);
        int o = firstSingle(ours);
        assertEquals(redis.substring(0, r), ours.substring(0, o), why);
        assertEquals(new TreeSet<>(Arrays.asList(redis.substring(r).split("[ \r\n]+"))),
                new TreeSet<>(Arrays.asList(ours.substring(o).split("[ \r\n]+"))), why);
    }

    private static int firstSingle(String reply) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" [+-][a-z]").matcher(reply);
        return m.find() ? m.start() : reply.length();
    }

    @Test
    void everyCategoryListsRedisCommands() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            String categories = r.call("ACL", "CAT");
            assertEquals(categories, o.call("ACL", "CAT"));
            for (String c : AclCatalog.CATEGORIES) {
                assertEquals(new TreeSet<>(Arrays.asList(r.call("ACL", "CAT", c).split("\r\n"))),
                        new TreeSet<>(Arrays.asList(o.call("ACL", "CAT", c).split("\r\n"))), c);
            }
            for (String c : List.of("get", "set", "lpush", "eval", "subscribe", "acl", "client", "xreadgroup", "flushall")) {
                assertEquals(categoriesOf(r.call("COMMAND", "INFO", c)), categoriesOf(o.call("COMMAND", "INFO", c)), c);
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** COMMAND INFO's ACL categories: the {@code +@...} lines before the subcommands'. */
    private static List<String> categoriesOf(String info) {
        List<String> out = new ArrayList<>();
        for (String line : info.split("\r\n")) {
            if (line.startsWith("+@")) {
                out.add(line);
            } else if (!out.isEmpty()) {
                break;
            }
        }
        return out;
    }
}
