package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the TLS port takes records cut anywhere: requests split across records, records split across
 * TCP writes down to one byte, several records in one write, replies bigger than a record to a
 * client slower than the server, and close_notify right behind the last request.
 */
class TlsRecordsTest extends TlsServerFixture {

    /** One event loop: a connection stuck on a partial record shows as a timeout. */
    @BeforeEach
    void start() throws IOException {
        start(certs.server(TlsConfig.AUTH_YES));
    }

    private RawTlsClient client(int tcpChunk) throws Exception {
        return new RawTlsClient(certs.client(true), server.tlsPort(), tcpChunk);
    }

    private static String command(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString();
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    @Test
    void aClientThatSendsOneByteAtATimeIsServed() throws Exception {
        // the handshake too: every record header comes in five reads, every body in as many as it has bytes
        try (RawTlsClient c = client(1)) {
            c.send(command("SET", "k", "hello"), 1 << 14);
            assertEquals("+OK\r\n", c.receive("+OK\r\n"));
            c.send(command("GET", "k") + command("STRLEN", "k"), 1 << 14);
            String expected = bulk("hello") + ":5\r\n";
            assertEquals(expected, c.receive(expected));
        }
    }

    @Test
    void pipelinedRequestsSplitAcrossRecordsRunInOrder() throws Exception {
        StringBuilder requests = new StringBuilder();
        StringBuilder replies = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            requests.append(command("SET", "k" + i, "v" + i)).append(command("GET", "k" + i)).append(command("INCR", "n"));
            replies.append("+OK\r\n").append(bulk("v" + i)).append(':').append(i + 1).append("\r\n");
        }
        // records of 7 bytes: a request straddles several; then records of ~1 KiB cut into 999-byte TCP writes
        for (int[] cut : new int[][] {{7, 1 << 20}, {1000, 999}}) {
            try (RawTlsClient c = client(cut[1])) {
                c.send(command("DEL", "n"), 1 << 14);
                c.receive(":0\r\n"); // or :1
                c.send(requests.toString(), cut[0]);
                String expected = replies.toString();
                assertEquals(expected, c.receive(expected), "records of " + cut[0] + " bytes in writes of " + cut[1]);
            }
        }
    }

    @Test
    void repliesBiggerThanARecordReachASlowReaderWhole() throws Exception {
        byte[] big = new byte[3 << 20];
        new Random(11).nextBytes(big);
        try (RawTlsClient c = client(1 << 20)) {
            ByteArrayOutputStream set = new ByteArrayOutputStream();
            set.writeBytes(("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + big.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            set.writeBytes(big);
            set.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            c.send(set.toByteArray(), 1 << 14);
            assertEquals("+OK\r\n", c.receive("+OK\r\n"));
            c.readSlowly();
            // three in one pipeline: past the reply buffer's high-water mark, and past the socket's buffer
            c.send(command("GET", "big") + command("GET", "big") + command("GET", "big") + command("PING"), 1 << 14);
            String header = "$" + big.length + "\r\n";
            for (int i = 0; i < 3; i++) {
                assertEquals(header, c.receive(header));
                assertArrayEquals(big, c.receive(big.length), "GET number " + (i + 1));
                assertEquals("\r\n", c.receive("\r\n"));
            }
            assertEquals("+PONG\r\n", c.receive("+PONG\r\n"));
        }
    }

    @Test
    void closeNotifyBehindTheLastRequestsIsAnsweredAfterTheirReplies() throws Exception {
        for (int tcpChunk : new int[] {1 << 20, 1}) {
            try (RawTlsClient c = client(tcpChunk)) {
                // with chunks of 1 MiB, in the same TCP write as the requests; else byte by byte
                c.sendThenCloseNotify(command("SET", "a", "1") + command("INCR", "a"), 1 << 14);
                String expected = "+OK\r\n:2\r\n";
                assertEquals(expected, c.receive(expected));
                assertTrue(c.closedCleanly(), "close_notify from the server, then the end of the stream");
            }
        }
    }
}
