package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Over TLS the Lua debugger is refused, as it writes the socket itself; the EVAL after it runs as usual. */
class LuaDebuggerTlsTest extends TlsServerFixture {

    @Test
    void scriptDebugSyncIsRefusedOverTls() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (Wire w = new Wire(certs.client(true).getSocketFactory().createSocket("localhost", server.tlsPort()))) {
            String refused = w.call("SCRIPT", "DEBUG", "SYNC");
            assertTrue(refused.startsWith("-ERR SCRIPT DEBUG SYNC needs a plain TCP or Unix socket connection"), refused);
            assertEquals(":1\r\n", w.call("EVAL", "return 1", "0"));
        }
    }
}
