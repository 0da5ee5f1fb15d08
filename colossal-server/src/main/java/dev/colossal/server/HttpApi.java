package dev.colossal.server;

import java.io.IOException;

/** Placeholder until the HTTP front end lands. */
final class HttpApi implements AutoCloseable {

    static HttpApi start(ServerContext ctx) throws IOException {
        return null;
    }

    @Override
    public void close() {
    }
}
