package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.OutputStream;
import java.time.Duration;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * {@link PipelineBeforeReadingTest}'s client over TLS: a whole pipeline written before any reply is
 * read, through a blocking {@link SSLSocket} as Jedis and redis-py's SSL connections use. A TLS
 * connection stopped reading while its replies waited for the socket, so both ends waited for ever
 * once the pipeline outgrew the socket buffers and the high-water mark.
 */
class TlsPipelineBeforeReadingTest extends TlsServerFixture {

    private void writeThenRead(int requests, int valueBytes, String protocol) throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        PipelineBeforeReadingTest.fill(server, valueBytes);
        byte[] burst = PipelineBeforeReadingTest.gets(requests);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (SSLSocket s = (SSLSocket) certs.client(true).getSocketFactory().createSocket("localhost", server.tlsPort())) {
                s.setEnabledProtocols(new String[] {protocol});
                OutputStream out = s.getOutputStream();
                for (int at = 0; at < burst.length; at += 16 * 1024) { // records of the most TLS carries
                    out.write(burst, at, Math.min(16 * 1024, burst.length - at));
                    if (at % (1 << 20) == 0) {
                        // a pause now and then, as a client building its pipeline makes: a TLS read
                        // takes all the socket has, and without pauses it took the whole burst at once
                        Thread.sleep(20);
                    }
                }
                out.flush();
                PipelineBeforeReadingTest.readReplies(s.getInputStream(), requests, valueBytes);
            }
        });
    }

    @Test
    void twentyMegabytesEachWayOverTls13() throws Exception {
        writeThenRead(20_000, 1000, "TLSv1.3");
    }

    @Test
    void twentyMegabytesEachWayOverTls12() throws Exception {
        writeThenRead(20_000, 1000, "TLSv1.2");
    }
}
