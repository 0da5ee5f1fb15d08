package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.server.TlsConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code colossal serve}'s TLS flags and config-file settings, named as redis.conf names them. */
class ServeTlsTest {

    @TempDir
    Path dir;

    private TlsConfig resolve(String... args) throws Exception {
        ServeCommand cmd = new ServeCommand();
        new CommandLine(cmd).parseArgs(args);
        cmd.resolve();
        return cmd.resolveTls();
    }

    @Test
    void theConfigFileTakesRedisTlsNamesAndFlagsWin() throws Exception {
        Path f = dir.resolve("serve.conf");
        Files.writeString(f, """
                port 0
                tls-port 6390
                tls-cert-file /etc/c.crt
                tls-key-file /etc/c.key
                tls-key-file-pass "pass word"
                tls-ca-cert-file /etc/ca.crt
                tls-ca-cert-dir /etc/cas
                tls-auth-clients optional
                tls-protocols "TLSv1.2 TLSv1.3"
                tls-ciphers ECDHE-RSA-AES128-GCM-SHA256
                tls-ciphersuites TLS_AES_128_GCM_SHA256
                """);
        TlsConfig c = resolve("--config", f.toString());
        assertEquals(new TlsConfig(6390, Path.of("/etc/c.crt"), Path.of("/etc/c.key"), "pass word", Path.of("/etc/ca.crt"),
                Path.of("/etc/cas"), "optional", "TLSv1.2 TLSv1.3", "ECDHE-RSA-AES128-GCM-SHA256", "TLS_AES_128_GCM_SHA256",
                true), c, "port 0 with a TLS port: TLS only, as in Redis");
        TlsConfig over = resolve("--config", f.toString(), "--port", "6380", "--tls-auth-clients", "no", "--tls-port", "7000");
        assertEquals(7000, over.port());
        assertEquals("no", over.authClients());
        assertFalse(over.tlsOnly());
        assertNull(resolve("--port", "0"), "no tls-port: no TLS, and port 0 is any free port as before");
        assertTrue(resolve("--tls-port", "6390", "--tls-cert-file", "a", "--tls-key-file", "b").authClients()
                .equals("yes"), "Redis's default");
    }

    @Test
    void serveSaysWhatIsWrongWithTheTlsSettings() throws Exception {
        Path key = dir.resolve("k.pem");
        Path cert = dir.resolve("c.pem");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-keyout", key.toString(), "-out",
                cert.toString(), "-days", "1", "-subj", "/CN=localhost", "-passout", "pass:right").redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.out").toFile()).start();
        assertEquals(0, p.waitFor());
        String data = dir.resolve("data").toString();
        Cli.Run r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", data, "--tls-port", "6399",
                "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(), "--tls-key-file-pass", "wrong",
                "--tls-auth-clients", "no");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().startsWith("colossal serve: --tls-key-file " + key + " cannot be decrypted with"
                + " --tls-key-file-pass"), r.err());
        assertTrue(r.err().contains("is the password right?"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", data, "--tls-port", "" + port,
                    "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(), "--tls-key-file-pass", "right",
                    "--tls-auth-clients", "no");
            assertEquals("colossal serve: port " + port + " is in use (another server?): stop it or pass --tls-port N"
                    + System.lineSeparator(), r.err());
        }
        r = Cli.run("serve", "--port", "0", "--http-port", "-1", "--data", data, "--tls-port", "6399",
                "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(), "--tls-key-file-pass", "right");
        assertEquals("colossal serve: --tls-auth-clients yes needs the CA that signs the clients' certificates: pass"
                + " --tls-ca-cert-file or --tls-ca-cert-dir, or --tls-auth-clients no" + System.lineSeparator(), r.err());
    }
}
