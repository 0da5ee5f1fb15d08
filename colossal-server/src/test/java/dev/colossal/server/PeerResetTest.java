package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that resets its connection while replies wait for its socket: the write fails, the
 * connection closes, and the server goes on. Before, the event loop then asked the closed
 * connection's cancelled key whether it was readable, and that exception stopped the server.
 */
class PeerResetTest {

    @TempDir
    Path dir;

    @Test
    void aResetWhileRepliesWaitClosesThatConnectionAlone() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Wire w = new Wire(s.port())) {
            assertEquals("+OK\r\n", w.call("SET", "k", "v".repeat(8 << 20)));
            byte[] gets = Wire.encode("GET", "k");
            for (int round = 0; round < 5; round++) {
                try (Socket c = new Socket()) {
                    c.setReceiveBufferSize(4096); // the replies stay waiting in the server
                    c.connect(new InetSocketAddress("127.0.0.1", s.port()));
                    for (int i = 0; i < 4; i++) {
                        c.getOutputStream().write(gets);
                    }
                    c.getOutputStream().flush();
                    Thread.sleep(200);
                    c.setSoLinger(true, 0); // close sends RST: the server's next write fails
                }
                Thread.sleep(200);
                assertEquals("+PONG\r\n", w.call("PING"), "round " + round);
            }
            try (Wire fresh = new Wire(s.port())) {
                assertEquals("+PONG\r\n", fresh.call("PING"), "new connections are still served");
            }
        }
    }
}
