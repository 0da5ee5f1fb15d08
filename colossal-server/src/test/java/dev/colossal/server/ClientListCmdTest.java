package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT LIST's {@code cmd=} of another connection, as Redis 7.0 shows it: the subcommand of a
 * container ({@code config|get}), {@code NULL} for an unknown command or subcommand, a command
 * refused for its arity or queued by MULTI, and {@code exec} after a transaction. Spring Data
 * Redis's {@code getClientList()} showed {@code cmd=client} where redis-server shows
 * {@code cmd=client|list}. Where redis-server is installed, its answers are the reference.
 */
class ClientListCmdTest {

    /** Each request the watched connection sends, and the cmd= redis-server 7.0.15 shows after it. */
    private static final String[][] STEPS = {
        {"CONFIG GET maxmemory", "config|get"}, {"CLIENT FOO", "NULL"}, {"CLIENT", "client"},
        {"NOPE x", "NULL"}, {"GET", "get"}, {"MULTI", "multi"}, {"SET a 1", "set"}, {"GET a", "get"},
        {"EXEC", "exec"}, {"CLIENT ID", "client|id"}, {"OBJECT ENCODING nokey", "object|encoding"},
        {"COMMAND COUNT", "command|count"}, {"CLIENT TRACKING off", "client|tracking"}, {"CLIENT SETNAME x", "client|setname"},
    };

    @TempDir
    Path dir;

    @Test
    void namesTheCommandAsRedis() throws Exception {
        List<String> want = new ArrayList<>();
        for (String[] step : STEPS) {
            want.add(step[0] + " -> " + step[1]);
        }
        TestServers.sameOnBoth(dir.resolve("data"), want, ClientListCmdTest::shown);
    }

    /** Runs {@link #STEPS} on one connection, reading its cmd= from another's CLIENT LIST after each. */
    private static List<String> shown(int port) throws Exception {
        List<String> got = new ArrayList<>();
        try (WatchedConnection w = new WatchedConnection(port)) {
            for (String[] step : STEPS) {
                w.doer.call(step[0].split(" "));
                got.add(step[0] + " -> " + w.field("cmd"));
            }
        }
        return got;
    }
}
