package dev.colossal.server;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** What the TLS port's tests share: certificates made once by openssl per class, and a server per test, stopped after it. */
abstract class TlsServerFixture {

    @TempDir
    static Path certDir;
    static TlsCerts certs;

    @TempDir
    Path data;
    ColossalServer server;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TlsCerts.make(certDir);
    }

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    /** One event loop, so that anything holding it would hold every client. */
    ColossalServer start(TlsConfig tls) throws IOException {
        server = ColossalServer.start(new ServerConfig("127.0.0.1", 0, -1, data, null, 10_000, 512L << 20, 0, 1,
                ServerConfig.DEFAULT_BUSY_POLL_MICROS), tls);
        return server;
    }
}
