package dev.colossal.server;

import java.io.IOException;

/**
 * A connection that runs requests and another that watches it through CLIENT LIST, for the tests
 * of what CLIENT LIST shows of a client ({@code cmd=}, {@code flags=}, ...).
 */
final class WatchedConnection implements AutoCloseable {

    final Wire doer;
    final Wire watcher;
    /** The doer's client id. */
    final String id;

    WatchedConnection(int port) throws IOException {
        doer = new Wire(port);
        watcher = new Wire(port);
        id = doer.call("CLIENT", "ID").trim().substring(1);
    }

    /** @return the value of {@code name=} in the doer's CLIENT LIST line now, or "no line" */
    String field(String name) throws IOException {
        for (String line : watcher.call("CLIENT", "LIST").split("\n")) {
            if (line.startsWith("id=" + id + " ")) {
                for (String f : line.trim().split(" ")) {
                    if (f.startsWith(name + "=")) {
                        return f.substring(name.length() + 1);
                    }
                }
            }
        }
        return "no line";
    }

    @Override
    public void close() throws IOException {
        doer.close();
        watcher.close();
    }
}
