package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code redis-cli --tls} against our TLS port and against redis-server 7.0 started with
 * the same certificates and settings: the same replies, byte for byte.
 */
class TlsRedisCliTest {

    @TempDir
    Path dir;

    /** One redis-cli run against {@code port}; returns its exit code and output. */
    private String cli(TlsCerts certs, int port, boolean withCert, String stdin, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("redis-cli", "--tls", "--cacert", certs.ca.toString(), "-p",
                Integer.toString(port)));
        if (withCert) {
            cmd.addAll(List.of("--cert", certs.clientCert.toString(), "--key", certs.clientKey.toString()));
        }
        cmd.addAll(List.of(command));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Path in = dir.resolve("stdin");
        Files.writeString(in, stdin == null ? "" : stdin);
        pb.redirectInput(in.toFile());
        Path out = dir.resolve("cli.out");
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), cmd.toString());
        return "exit=" + p.exitValue() + "\n" + Files.readString(out);
    }

    private static final String[][] COMMANDS = {
        {"PING"}, {"SET", "k", "v"}, {"GET", "k"}, {"GET", "nokey"}, {"INCR", "n"}, {"INCRBY", "n", "41"},
        {"LPUSH", "l", "a", "b", "c"}, {"LRANGE", "l", "0", "-1"}, {"HSET", "h", "f", "v", "g", "w"}, {"HGETALL", "h"},
        {"LPUSH", "k", "x"}, {"NOSUCHCOMMAND", "x"}, {"GET"}, {"SADD", "s", "m"}, {"SMEMBERS", "s"},
        {"CONFIG", "GET", "tls-auth-clients"}, {"CONFIG", "GET", "tls-protocols"}, {"CONFIG", "GET", "tls-ciphers"},
        {"CONFIG", "GET", "tls-ciphersuites"}, {"CONFIG", "GET", "tls-cert-file"}, {"CONFIG", "GET", "tls-key-file"},
        {"CONFIG", "GET", "tls-key-file-pass"}, {"CONFIG", "GET", "tls-ca-cert-file"}, {"CONFIG", "GET", "tls-ca-cert-dir"},
        {"CONFIG", "GET", "tls-session-caching"}, {"CONFIG", "GET", "tls-session-cache-size"},
        {"CONFIG", "GET", "tls-session-cache-timeout"}, {"CONFIG", "GET", "tls-replication"},
        {"CONFIG", "GET", "tls-cluster"}, {"CONFIG", "GET", "tls-prefer-server-ciphers"},
        {"CONFIG", "GET", "tls-client-cert-file"}, {"CONFIG", "GET", "tls-dh-params-file"}, {"DEL", "k", "l", "h"},
        {"EXISTS", "k"},
    };

    @Test
    void redisCliGetsTheRepliesRedisServerGives() throws Exception {
        Assumptions.assumeTrue(TestServers.onPath("redis-cli") != null, "redis-cli is not installed");
        TlsCerts certs = TlsCerts.make(Files.createDirectories(dir.resolve("certs")));
        Path key = dir.resolve("certs/server-enc.key");
        certs.openssl("pkcs8", "-topk8", "-in", "server.key", "-out", key.toString(), "-passout", "pass:secret");
        TlsConfig tls = new TlsConfig(0, certs.serverCert, key, "secret", certs.ca, null, "yes", "", "", "", false);
        List<String> ours = new ArrayList<>();
        List<String> redis = new ArrayList<>();
        String big = "x".repeat(3 << 20);
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("data"))
                .withPorts(0, -1), tls)) {
            run(certs, s.tlsPort(), big, ours);
        }
        int tlsPort = TestServers.freePort();
        Process r = TestServers.redis(TestServers.freePort(), "--tls-port", Integer.toString(tlsPort), "--tls-cert-file",
                certs.serverCert.toString(), "--tls-key-file", key.toString(), "--tls-key-file-pass", "secret",
                "--tls-ca-cert-file", certs.ca.toString());
        Assumptions.assumeTrue(r != null, "redis-server is not installed");
        try {
            run(certs, tlsPort, big, redis);
        } finally {
            r.destroy();
            r.waitFor();
        }
        for (int i = 0; i < ours.size(); i++) {
            assertEquals(redis.get(i), ours.get(i), "reply " + i);
        }
        assertEquals(redis.size(), ours.size());
    }

    private void run(TlsCerts certs, int port, String big, List<String> out) throws Exception {
        for (String[] c : COMMANDS) {
            out.add(String.join(" ", c) + " -> " + cli(certs, port, true, null, c));
        }
        // a 3 MB value in through -x and back
        out.add(cli(certs, port, true, big, "-x", "SET", "big"));
        String got = cli(certs, port, true, null, "GET", "big");
        out.add("GET big: " + got.length() + " " + got.contains(big));
        StringBuilder pipe = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            pipe.append("SET key:").append(i).append(" value:").append(i).append("\r\n");
        }
        out.add(cli(certs, port, true, pipe.toString(), "--pipe").replaceAll("(?s)^exit=0\n.*(errors: .*)$", "$1"));
        out.add(cli(certs, port, true, null, "DBSIZE"));
        String refused = cli(certs, port, false, null, "PING");
        assertNotEquals("exit=0", refused.lines().findFirst().orElseThrow(), refused);
        out.add("without a certificate: " + refused.lines().findFirst().orElseThrow());
    }
}
