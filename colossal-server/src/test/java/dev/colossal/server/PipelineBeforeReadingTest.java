package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that writes its whole pipeline before it reads a reply, as hiredis, redis-py and Jedis
 * do: the server must keep reading its requests while their replies wait for the socket. It
 * stopped reading once a reply could not be written, so with more requests than the socket
 * buffers hold and more replies than they and the reply buffer's high-water mark hold, both ends
 * waited for ever (hiredis's own test suite hung on 10,000 pipelined LRANGEs of 500 elements over
 * a Unix socket).
 */
class PipelineBeforeReadingTest {

    @TempDir
    Path dir;

    /** Key names of 1,000 bytes, so that requests are about as big as the replies. */
    private static final int KEYS = 8;

    private static byte[] keyName(int i) {
        return ("k" + i + "-" + "n".repeat(1000)).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int bytes) {
        byte[] v = new byte[bytes];
        java.util.Arrays.fill(v, (byte) ('a' + i));
        return v;
    }

    static byte[] gets(int requests) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int r = 0; r < requests; r++) {
            out.writeBytes(Wire.encode("GET".getBytes(StandardCharsets.UTF_8), keyName(r % KEYS)));
        }
        return out.toByteArray();
    }

    /** Writes every request with the channel in blocking mode, then reads and checks every reply. */
    private static void pipelineThenRead(SocketAddress address, int requests, int valueBytes, boolean shutOutput)
            throws IOException {
        byte[] burst = gets(requests);
        try (SocketChannel ch = SocketChannel.open(address)) {
            ByteBuffer b = ByteBuffer.wrap(burst);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            if (shutOutput) {
                ch.shutdownOutput();
            }
            readReplies(Channels.newInputStream(ch), requests, valueBytes);
            if (shutOutput) {
                assertEquals(-1, ch.read(ByteBuffer.allocate(1)), "closed once every reply is written");
            }
        }
    }

    /** Reads {@code requests} replies of {@link #gets} and checks each value. */
    static void readReplies(InputStream stream, int requests, int valueBytes) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(stream, 1 << 16));
        for (int r = 0; r < requests; r++) {
            String head = line(in);
            assertEquals("$" + valueBytes, head, "reply " + r);
            byte[] got = new byte[valueBytes];
            in.readFully(got);
            assertArrayEquals(value(r % KEYS, valueBytes), got, "reply " + r);
            assertEquals("", line(in));
        }
        assertEquals(0, in.available(), "no reply beyond the requests'");
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int c; (c = in.read()) != '\r'; ) {
            if (c < 0) {
                throw new IOException("connection closed after '" + s + "'");
            }
            s.append((char) c);
        }
        in.read();
        return s.toString();
    }

    static void fill(ColossalServer server, int valueBytes) throws IOException {
        try (Wire w = new Wire(server.port())) {
            for (int i = 0; i < KEYS; i++) {
                assertEquals("+OK\r\n", new String(w.call("SET".getBytes(StandardCharsets.UTF_8), keyName(i), value(i, valueBytes)), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void twentyMegabytesOfRequestsWrittenBeforeAnyReplyIsRead() throws Exception {
        // 20 MB each way: past loopback TCP's socket buffers (a few MB) and the 4 MiB high-water mark
        int requests = 20_000;
        int valueBytes = 1000;
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("tcp"))
                .withPorts(0, -1))) {
            fill(server, valueBytes);
            assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                    pipelineThenRead(new InetSocketAddress("127.0.0.1", server.port()), requests, valueBytes, false));
        }
    }

    @Test
    void overAUnixSocketAsHiredisDoes() throws Exception {
        Path sock = dir.resolve("c.sock");
        int requests = 2_000;
        int valueBytes = 4000;
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("unix"))
                .withPorts(0, -1), null, null, s -> s.unixSocket(new UnixSocket(sock, 0)))) {
            fill(server, valueBytes);
            assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                    pipelineThenRead(UnixDomainSocketAddress.of(sock), requests, valueBytes, false));
        }
    }

    /** The requests' end read while their replies wait: every reply is still written before the close. */
    @Test
    void aClientThatShutsItsSideAfterThePipelineGetsEveryReply() throws Exception {
        int requests = 20_000;
        int valueBytes = 1000;
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("half"))
                .withPorts(0, -1))) {
            fill(server, valueBytes);
            assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                    pipelineThenRead(new InetSocketAddress("127.0.0.1", server.port()), requests, valueBytes, true));
        }
    }
}
