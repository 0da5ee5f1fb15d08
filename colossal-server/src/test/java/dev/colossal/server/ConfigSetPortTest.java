package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONFIG SET port naming a port something else listens on, as Redis's own suite asks it ("CONFIG
 * SET rollback on apply error"): both servers answer that they cannot listen there, set none of the
 * other parameters of the same call, and still answer on their own port. Each reply is compared
 * with redis-server 7.0.15's byte for byte.
 */
class ConfigSetPortTest {

    @TempDir
    Path dir;

    @Test
    void aPortInUseIsRefusedAsRedisRefusesItAndNothingIsSet() throws Exception {
        TestServers.onRedis(redisPort -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                String taken = Integer.toString(busy.getLocalPort());
                List<String> want = new ArrayList<>();
                List<String> got = new ArrayList<>();
                for (int side = 0; side < 2; side++) {
                    int port = side == 0 ? redisPort : ours.port();
                    List<String> out = side == 0 ? want : got;
                    try (Wire w = new Wire(port)) {
                        out.add(w.call("CONFIG", "SET", "maxmemory", "10000001", "port", taken));
                        out.add(w.call("CONFIG", "GET", "maxmemory"));
                        out.add(w.call("CONFIG", "SET", "port", Integer.toString(port))); // where it is: a no-op
                    }
                    try (Wire again = new Wire(port)) {
                        out.add(again.call("PING"));
                    }
                }
                assertEquals(want, got);
                assertEquals("-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port."
                        + " Check server logs.\r\n", got.get(0));
                assertEquals("*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", got.get(1));
            }
        });
    }
}
