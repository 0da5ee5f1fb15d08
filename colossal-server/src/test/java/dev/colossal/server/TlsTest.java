package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/** The TLS port: real certificates from openssl, Jedis, Lettuce and raw JDK sockets as clients. */
class TlsTest extends TlsServerFixture {

    private Jedis jedis(boolean withCert) throws Exception {
        SSLContext ctx = certs.client(withCert);
        return new Jedis(new HostAndPort("localhost", server.tlsPort()), DefaultJedisClientConfig.builder().ssl(true)
                .sslSocketFactory(ctx.getSocketFactory()).socketTimeoutMillis(20_000).build());
    }

    private SSLSocket raw(boolean withCert, String... protocols) throws Exception {
        SSLSocket s = (SSLSocket) certs.client(withCert).getSocketFactory().createSocket("localhost", server.tlsPort());
        if (protocols.length > 0) {
            s.setEnabledProtocols(protocols);
        }
        s.setSoTimeout(10_000);
        return s;
    }

    /** Sends one inline command and reads one line of reply, or null at the end of the stream. */
    private static String call(Socket s, String command) throws IOException {
        s.getOutputStream().write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return line(s.getInputStream());
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                return b.isEmpty() ? null : b.toString();
            }
            b.append((char) c);
        }
        return b.toString().strip();
    }

    @Test
    void jedisWithAClientCertificateGetsBigRepliesLongListsAndPipelines() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (Jedis j = jedis(true)) {
            assertEquals("PONG", j.ping());
            byte[] big = new byte[5 << 20];
            new java.util.Random(7).nextBytes(big);
            j.set("big".getBytes(StandardCharsets.US_ASCII), big);
            assertArrayEquals(big, j.get("big".getBytes(StandardCharsets.US_ASCII)), "a 5 MB value both ways");
            String[] elements = new String[100_000];
            for (int i = 0; i < elements.length; i++) {
                elements[i] = "element-" + i;
            }
            j.rpush("list", elements);
            List<String> all = j.lrange("list", 0, -1);
            assertEquals(List.of(elements), all, "LRANGE of 100,000 elements");
            Pipeline p = j.pipelined();
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                p.set("k" + i, "v" + i);
                gets.add(p.get("k" + i));
            }
            p.sync();
            for (int i = 0; i < gets.size(); i++) {
                assertEquals("v" + i, gets.get(i).get());
            }
        }
    }

    @Test
    void plainAndTlsPortsServeTheSameDataAtOnce() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (Jedis tls = jedis(true); Jedis plain = new Jedis("127.0.0.1", server.port())) {
            plain.set("shared", "from plain");
            assertEquals("from plain", tls.get("shared"));
            assertEquals(List.of("tls-port", Integer.toString(server.tlsPort())), plain.configGet("tls-port")
                    .entrySet().stream().flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toList());
            assertEquals("yes", plain.configGet("tls-auth-clients").get("tls-auth-clients"));
            assertEquals(certs.serverCert.toString(), tls.configGet("tls-cert-file").get("tls-cert-file"));
        }
    }

    /** CONFIG SET bind moves the TLS listener with the plain one, on the ports they had. */
    @Test
    void bindMovesTheTlsPortWithThePlainOne() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (Jedis tls = jedis(true)) {
            assertEquals("OK", tls.configSet("bind", "127.0.0.2"));
            assertEquals("PONG", tls.ping(), "a connection in stays");
        }
        try (Jedis moved = new Jedis(new HostAndPort("127.0.0.2", server.tlsPort()), DefaultJedisClientConfig.builder()
                .ssl(true).sslSocketFactory(certs.client(true).getSocketFactory()).socketTimeoutMillis(20_000).build());
             Jedis plain = new Jedis("127.0.0.2", server.port())) {
            assertEquals("PONG", moved.ping());
            assertEquals("PONG", plain.ping());
        }
        for (int port : new int[] {server.port(), server.tlsPort()}) {
            try (Socket s = new Socket()) {
                org.junit.jupiter.api.Assertions.assertThrows(java.net.ConnectException.class,
                        () -> s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 2000), "port " + port);
            }
        }
    }

    @Test
    void tlsOnlyOpensNoPlainPort() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES).withPort(0, true));
        assertEquals(0, server.port());
        try (Jedis j = jedis(true)) {
            assertEquals("0", j.configGet("port").get("port"), "as redis-server with --port 0");
            assertEquals(Integer.toString(server.tlsPort()), j.configGet("tls-port").get("tls-port"));
        }
    }

    @Test
    void aClientWithoutACertificateIsRefusedUnderAuthClientsYes() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (SSLSocket s = raw(false)) {
            // TLS 1.3 finishes the client's side before the server has checked: the refusal comes on the first read
            assertThrows(IOException.class, () -> {
                if (call(s, "PING") == null) {
                    throw new IOException("closed");
                }
            });
        }
        try (SSLSocket s = raw(true)) {
            assertEquals("+PONG", call(s, "PING"), "with a certificate");
        }
    }

    @Test
    void authClientsNoAndOptionalTakeClientsWithoutCertificates() throws Exception {
        start(certs.server(TlsConfig.AUTH_NO));
        try (Jedis j = jedis(false)) {
            assertEquals("PONG", j.ping());
        }
        server.close();
        start(certs.server(TlsConfig.AUTH_OPTIONAL));
        try (Jedis j = jedis(false); Jedis withCert = jedis(true)) {
            assertEquals("PONG", j.ping());
            assertEquals("PONG", withCert.ping());
        }
    }

    @Test
    void lettuceOverTlsWithAndWithoutClientCertificate() throws Exception {
        start(certs.server(TlsConfig.AUTH_OPTIONAL));
        for (boolean withCert : new boolean[] {false, true}) {
            SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().trustManager(certs.ca.toFile());
            if (withCert) {
                ssl.keyManager(certs.clientCert.toFile(), certs.clientKey.toFile(), null);
            }
            RedisClient client = RedisClient.create();
            client.setOptions(io.lettuce.core.ClientOptions.builder().sslOptions(ssl.build()).build());
            try (StatefulRedisConnection<String, String> c = client.connect(RedisURI.builder().withHost("localhost")
                    .withPort(server.tlsPort()).withSsl(true).withVerifyPeer(true).build())) {
                c.sync().set("lettuce", "cert=" + withCert);
                assertEquals("cert=" + withCert, c.sync().get("lettuce"));
                c.sync().hset("h", java.util.Map.of("a", "1", "b", "2"));
                assertEquals(2, c.sync().hlen("h"));
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void aPlainTextClientOnTheTlsPortIsClosed() throws Exception {
        start(certs.server(TlsConfig.AUTH_NO));
        try (Socket s = new Socket("127.0.0.1", server.tlsPort())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            byte[] got = in.readNBytes(1024); // an alert at most, then the end: not a timeout
            assertTrue(got.length < 16 && (got.length == 0 || got[0] == 0x15), "no reply but a TLS alert: " + got.length);
        }
        try (Jedis j = jedis(false)) {
            assertEquals("PONG", j.ping(), "the server goes on");
        }
    }

    @Test
    void handshakesThatNeverFinishDoNotStopOtherClients() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket s = new Socket("127.0.0.1", server.tlsPort());
                stalled.add(s);
            }
            // a record header promising 512 bytes of ClientHello, then nothing
            stalled.get(1).getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
            // a whole handshake started by a TLS client that then stops reading and writing
            SSLSocket half = raw(true);
            stalled.add(half);
            half.getOutputStream().flush();
            CompletableFuture<String> other = CompletableFuture.supplyAsync(() -> {
                try (Jedis j = jedis(true)) {
                    j.set("k", "v");
                    return j.get("k");
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertEquals("v", other.get(10, TimeUnit.SECONDS));
        } finally {
            for (Socket s : stalled) {
                s.close();
            }
        }
    }

    @Test
    void pubSubAndBlockingCommandsOverTls() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        // threads of their own: the common pool may have one on 2 cores, and BLPOP holds it
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
        try (Jedis sub = jedis(true); Jedis blocked = jedis(true); Jedis plain = new Jedis("127.0.0.1", server.port())) {
            CompletableFuture<List<String>> popped = CompletableFuture.supplyAsync(() -> blocked.blpop(10, "queue"), threads);
            CompletableFuture<String> message = new CompletableFuture<>();
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int n) {
                    plain.publish("news", "x".repeat(100_000));
                }

                @Override
                public void onMessage(String channel, String m) {
                    message.complete(m);
                    unsubscribe();
                }
            };
            CompletableFuture<Void> subscribed = CompletableFuture.runAsync(() -> sub.subscribe(listener, "news"), threads);
            assertEquals("x".repeat(100_000), message.get(10, TimeUnit.SECONDS));
            subscribed.get(10, TimeUnit.SECONDS);
            TestServers.await(1L, 5000, () -> plain.clientList().lines().filter(l -> l.contains("cmd=blpop")).count());
            try (Jedis pusher = new Jedis("127.0.0.1", server.port())) {
                pusher.lpush("queue", "job");
            }
            assertEquals(List.of("queue", "job"), popped.get(10, TimeUnit.SECONDS));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void renegotiationUnderTls12IsRefused() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (SSLSocket s = raw(true, "TLSv1.2")) {
            assertEquals("+PONG", call(s, "PING"));
            assertEquals("TLSv1.2", s.getSession().getProtocol());
            s.startHandshake(); // a second handshake: renegotiation
            assertThrows(IOException.class, () -> {
                if (call(s, "PING") == null) {
                    throw new IOException("closed");
                }
            });
        }
        try (SSLSocket s = raw(true, "TLSv1.3")) {
            assertEquals("+PONG", call(s, "PING"));
        }
    }

    /** What {@code openssl s_client -msg} saw when sent {@code input} (then 1 s of quiet): the TLS records both ways. */
    private String sClient(boolean withCert, String input) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + server.tlsPort(),
                "-CAfile", certs.ca.toString(), "-quiet", "-msg"));
        if (withCert) {
            cmd.addAll(List.of("-cert", certs.clientCert.toString(), "-key", certs.clientKey.toString()));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, java.util.concurrent.Executors.newSingleThreadExecutor());
        p.getOutputStream().write(input.getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().flush();
        Thread.sleep(1000);
        p.getOutputStream().close();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return out.get(10, TimeUnit.SECONDS);
    }

    @Test
    void quitEndsWithCloseNotifyAndAMissingCertificateWithItsAlert() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        String quit = sClient(true, "QUIT\r\n");
        assertTrue(quit.contains("+OK"), quit);
        assertTrue(quit.lines().anyMatch(l -> l.startsWith("<<<") && l.contains("close_notify")),
                "the server sent close_notify:\n" + quit);
        String refused = sClient(false, "PING\r\n");
        assertTrue(refused.lines().anyMatch(l -> l.startsWith("<<<") && l.contains("certificate_required")),
                "the client is told why, as by redis-server:\n" + refused);
    }

    @Test
    void manySmallWritesOfOneRequestArriveAsPartialRecords() throws Exception {
        start(certs.server(TlsConfig.AUTH_YES));
        try (SSLSocket s = raw(true)) {
            OutputStream out = s.getOutputStream();
            for (byte b : "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n".getBytes(StandardCharsets.US_ASCII)) {
                out.write(b); // one TLS record per byte
                out.flush();
            }
            assertEquals("+OK", line(s.getInputStream()));
            assertEquals("$5", call(s, "GET k"));
        }
    }
}
