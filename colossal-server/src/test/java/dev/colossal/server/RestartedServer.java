package dev.colossal.server;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * What a crash-points test stands on: a server on a data directory of its own, a client of it
 * with the small thresholds of {@link ValueKinds}, and the restart that stands in for the one
 * after a kill (the stop left the files as a kill after that write would).
 */
abstract class RestartedServer {

    @TempDir
    Path dir;

    ColossalServer server;
    Jedis j;

    void start() throws Exception {
        server = TestServers.colossal(dir);
        j = new Jedis("127.0.0.1", server.port());
        ValueKinds.smallThresholds(j);
    }

    void stop() throws Exception {
        j.close();
        server.close();
    }

    void restart() {
        try {
            stop();
            start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
