package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
 * with redis-server 7.0.15's byte for byte. A free port is moved to: new connections are taken
 * there and no longer on the old one, the connections already in stay.
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
                        // with a setting this server refuses in the same call (the suite's): the port's reason still
                        out.add(w.call("CONFIG", "SET", "maxmemory", "10000001", "port", taken,
                                "client-query-buffer-limit", "10m"));
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
                assertEquals(got.get(0), got.get(1));
                assertEquals("*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", got.get(2));
            }
        });
    }

    @Test
    void aFreePortIsMovedToAndConnectionsAlreadyInStay() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire in = new Wire(ours.port())) {
            int was = ours.port();
            int free;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                free = probe.getLocalPort();
            }
            assertEquals("+OK\r\n", in.call("CONFIG", "SET", "port", Integer.toString(free)));
            assertEquals("*2\r\n$4\r\nport\r\n$" + Integer.toString(free).length() + "\r\n" + free + "\r\n",
                    in.call("CONFIG", "GET", "port"));
            assertEquals(free, ours.port());
            try (Wire moved = new Wire(free)) {
                assertEquals("+PONG\r\n", moved.call("PING"));
            }
            assertEquals("+PONG\r\n", in.call("PING"), "a connection made before the move stays");
            assertThrows(java.net.ConnectException.class, () -> new java.net.Socket("127.0.0.1", was).close(),
                    "the old port no longer listens");
            // and back, through the new port's connection
            try (Wire moved = new Wire(free)) {
                assertEquals("+OK\r\n", moved.call("CONFIG", "SET", "port", Integer.toString(was)));
            }
            try (Wire back = new Wire(was)) {
                assertEquals("+PONG\r\n", back.call("PING"));
            }
        }
    }
}
