package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT LIST's {@code flags=}, {@code multi=} and {@code redir=} of another connection, as Redis
 * 7.0 shows them: x and the queued count inside MULTI, t while tracking, B for BCAST, R once the
 * redirection's client is gone, and the redirection's id. go-redis's own tests count the
 * connections its client-side cache tracks by the t; Colossal showed {@code flags=N multi=-1
 * redir=-1} whatever the client did. Where redis-server is installed, its answers are the reference.
 */
class ClientListFlagsTest {

    @TempDir
    Path dir;

    @Test
    void showsTransactionAndTrackingAsRedis() throws Exception {
        List<String> want = List.of(
                "CLIENT TRACKING on -> flags=t multi=-1 redir=0",
                "MULTI -> flags=xt multi=0 redir=0",
                "PING -> flags=xt multi=1 redir=0",
                "GET k -> flags=xt multi=2 redir=0",
                "DISCARD -> flags=t multi=-1 redir=0",
                "CLIENT TRACKING off -> flags=N multi=-1 redir=-1",
                "CLIENT TRACKING on BCAST -> flags=tB multi=-1 redir=0",
                "CLIENT TRACKING off -> flags=N multi=-1 redir=-1",
                "CLIENT TRACKING on REDIRECT target -> flags=t multi=-1 redir=target",
                "GET k -> flags=t multi=-1 redir=target",
                "target gone, k written -> flags=tR multi=-1 redir=target",
                "CLIENT TRACKING off -> flags=N multi=-1 redir=-1");
        try (ColossalServer server = TestServers.colossal(dir.resolve("data"))) {
            assertEquals(want, shown(server.port()));
        }
        TestServers.onRedis(port -> assertEquals(want, shown(port), "redis-server"));
    }

    /** Runs the steps on one connection, reading its fields from another's CLIENT LIST after each. */
    private static List<String> shown(int port) throws Exception {
        List<String> got = new ArrayList<>();
        try (Wire doer = new Wire(port); Wire watcher = new Wire(port)) {
            String id = doer.call("CLIENT", "ID").trim().substring(1);
            Pattern fields = Pattern.compile("(?m)^id=" + id + " .* (flags=\\S+) .* (multi=\\S+) .* (redir=\\S+) ");
            Wire target = new Wire(port);
            String targetId = target.call("CLIENT", "ID").trim().substring(1);
            String[] steps = {"CLIENT TRACKING on", "MULTI", "PING", "GET k", "DISCARD", "CLIENT TRACKING off",
                "CLIENT TRACKING on BCAST", "CLIENT TRACKING off", "CLIENT TRACKING on REDIRECT " + targetId, "GET k"};
            for (String step : steps) {
                doer.call(step.split(" "));
                got.add(step.replace(targetId, "target") + " -> " + fields(fields, watcher, targetId));
            }
            target.close();
            // The redirection is found broken when an invalidation has nowhere to go
            for (int i = 0; i < 50 && !fields(fields, watcher, targetId).contains("R"); i++) {
                watcher.call("SET", "k", Integer.toString(i));
                Thread.sleep(20);
            }
            got.add("target gone, k written -> " + fields(fields, watcher, targetId));
            doer.call("CLIENT", "TRACKING", "off");
            got.add("CLIENT TRACKING off -> " + fields(fields, watcher, targetId));
        }
        return got;
    }

    private static String fields(Pattern fields, Wire watcher, String targetId) throws Exception {
        Matcher m = fields.matcher(watcher.call("CLIENT", "LIST"));
        return m.find() ? (m.group(1) + " " + m.group(2) + " " + m.group(3)).replace("=" + targetId, "=target") : "no line";
    }
}
