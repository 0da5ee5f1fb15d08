package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        TestServers.sameOnBoth(dir.resolve("data"), want, ClientListFlagsTest::shown);
    }

    /** Runs the steps on one connection, reading its fields from another's CLIENT LIST after each. */
    private static List<String> shown(int port) throws Exception {
        List<String> got = new ArrayList<>();
        try (WatchedConnection w = new WatchedConnection(port)) {
            Wire target = new Wire(port); // closed mid-way: the redirection then breaks
            String targetId = target.call("CLIENT", "ID").trim().substring(1);
            String[] steps = {"CLIENT TRACKING on", "MULTI", "PING", "GET k", "DISCARD", "CLIENT TRACKING off",
                "CLIENT TRACKING on BCAST", "CLIENT TRACKING off", "CLIENT TRACKING on REDIRECT " + targetId, "GET k"};
            for (String step : steps) {
                w.doer.call(step.split(" "));
                got.add(step.replace(targetId, "target") + " -> " + fields(w, targetId));
            }
            target.close();
            // The redirection is found broken when an invalidation has nowhere to go
            for (int i = 0; i < 50 && !w.field("flags").contains("R"); i++) {
                w.watcher.call("SET", "k", Integer.toString(i));
                Thread.sleep(20);
            }
            got.add("target gone, k written -> " + fields(w, targetId));
            w.doer.call("CLIENT", "TRACKING", "off");
            got.add("CLIENT TRACKING off -> " + fields(w, targetId));
        }
        return got;
    }

    private static String fields(WatchedConnection w, String targetId) throws Exception {
        String redir = w.field("redir");
        return "flags=" + w.field("flags") + " multi=" + w.field("multi") + " redir=" + (redir.equals(targetId) ? "target" : redir);
    }
}
