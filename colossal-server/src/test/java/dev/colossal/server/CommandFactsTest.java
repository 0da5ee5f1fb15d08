package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command facts against the command table, and KeyFinder on the key shapes, without a
 * redis-server (CommandKeySpecsDifferentialTest compares with one): every command here has Redis's
 * facts and docs and checks Redis's arity, and each kind of key spec and procedure finds the keys
 * and flags Redis 7.0.15 answers.
 */
class CommandFactsTest {

    @TempDir
    Path dir;

    @Test
    void everyCommandHasRedisFactsDocsAndArity() throws Exception {
        CommandTable[] tables = new CommandTable[1];
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1), t -> tables[0] = t)) {
            CommandTable table = tables[0];
            assertTrue(s.port() > 0);
            List<String> wrong = new ArrayList<>();
            for (CommandSpec spec : table.all()) {
                CommandFacts.Entry e = CommandFacts.REDIS.get(spec.name());
                assertNotNull(e, spec.name());
                assertTrue(CommandDocs.REDIS.has(spec.name()), spec.name());
                if (e.arity() != spec.arity()) {
                    wrong.add(spec.name() + " " + spec.arity() + " (Redis " + e.arity() + ")");
                }
            }
            assertEquals(List.of(), wrong, "arity differs from Redis's");
            assertEquals(240, table.all().size());
        }
    }

    /** A command of the server's own, which Redis lacks, is described from its spec: its keys found by its key positions. */
    @Test
    void ownCommandsAreDescribedFromTheirSpec() throws Exception {
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        try (ColossalServer s = ColossalServer.start(config, t -> t.add("x.pair", 3, List.of("readonly"), 1, 2, 1,
                (c, a, r) -> r.ok()));
             Wire w = new Wire(s.port())) {
            assertEquals("*1\r\n*10\r\n$6\r\nx.pair\r\n:3\r\n*1\r\n+readonly\r\n:1\r\n:2\r\n:1\r\n*0\r\n*0\r\n"
                    + "*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n"
                    + "$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n"
                    + "$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n",
                    w.call("COMMAND", "INFO", "X.PAIR"));
            assertEquals("*2\r\n*2\r\n$1\r\na\r\n*2\r\n+RO\r\n+access\r\n*2\r\n$1\r\nb\r\n*2\r\n+RO\r\n+access\r\n",
                    w.call("COMMAND", "GETKEYSANDFLAGS", "x.pair", "a", "b"));
            assertTrue(w.call("COMMAND", "DOCS", "x.pair").contains("Colossal's own"));
            assertEquals(":241\r\n", w.call("COMMAND", "COUNT"));
        }
    }

    @Test
    void keyFinderFindsEachShapeWithItsFlags() {
        assertEquals("[dest OW,update, a RO,access, b RO,access]", keys("zunionstore dest 2 a b WEIGHTS 1 2"));
        assertEquals("[a -, b -, dest -]", keys("zunionstore dest 02 a b"));
        assertEquals("[]", keys("zunionstore dest 0 a"));
        assertEquals("[a RO,access, b RO,access]", keys("xread COUNT 1 STREAMS a b 0 0"));
        assertEquals("[a RO,access]", keys("xread STREAMS a b 0")); // the range stops at half of what is left
        assertEquals("[]", keys("xread STREAMS a"));
        assertEquals("[a RO,access, d OW,update]", keys("sort a BY w* STORE x STORE d"));
        assertEquals("[k OW,update]", keys("set k v EX 1"));
        assertEquals("[k RW,access,update]", keys("set k v get"));
        assertEquals("[k RO,access]", keys("bitfield k GET u8 0 OVERFLOW SAT"));
        assertEquals("[k RW,access,update]", keys("bitfield k GET u8"));
        assertEquals("[a RW,access,delete, b RW,access,delete]", keys("migrate h 1 ' 0 5 COPY KEYS a b"));
        assertEquals("[a RW,access,update]", keys("eval s 1 a b"));
        assertEquals("[a RO,access, d OW,update, e OW,update]", keys("georadius a 0 0 1 km STORE d STOREDIST e"));
        assertEquals("[a RW,access,delete, b RW,access,delete]", keys("blmpop 0 2 a b LEFT"));
        assertEquals("[k RO]", keys("object encoding k"));
    }

    /** @return the keys KeyFinder finds in {@code words} (a lone ' is the empty string), each with its flags */
    private static String keys(String words) {
        String[] w = words.split(" ");
        byte[][] args = new byte[w.length][];
        for (int i = 0; i < w.length; i++) {
            args[i] = w[i].equals("'") ? new byte[0] : w[i].getBytes(StandardCharsets.UTF_8);
        }
        CommandFacts.Entry e = CommandFacts.REDIS.get(w[0]);
        if (!e.subcommands().isEmpty()) {
            e = CommandFacts.REDIS.get(w[0] + "|" + w[1]);
        }
        List<String> out = new ArrayList<>();
        for (KeyFinder.Found k : KeyFinder.keys(e, args)) {
            List<String> flags = KeySpec.flagNames(k.flags());
            out.add(new String(args[k.position()], StandardCharsets.UTF_8) + " " + (flags.isEmpty() ? "-" : String.join(",", flags)));
        }
        return out.toString();
    }
}
