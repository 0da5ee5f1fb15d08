package dev.colossal.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A test CA with a server certificate (for localhost and 127.0.0.1) and a client certificate, made
 * by the real {@code openssl} in a directory, and the client side's {@link SSLContext} from them.
 */
final class TlsCerts {

    final Path dir;
    final Path ca;
    final Path serverCert;
    /** PKCS#8, not encrypted. */
    final Path serverKey;
    final Path clientCert;
    final Path clientKey;

    private TlsCerts(Path dir) {
        this.dir = dir;
        this.ca = dir.resolve("ca.crt");
        this.serverCert = dir.resolve("server.crt");
        this.serverKey = dir.resolve("server.key");
        this.clientCert = dir.resolve("client.crt");
        this.clientKey = dir.resolve("client.key");
    }

    /** Makes the CA and both certificates in {@code dir}. */
    static TlsCerts make(Path dir) throws Exception {
        TlsCerts c = new TlsCerts(dir);
        c.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
                "-subj", "/CN=Colossal Test CA");
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
        c.signed("server", "localhost", true);
        c.signed("client", "test client", false);
        return c;
    }

    private void signed(String name, String cn, boolean san) throws Exception {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + cn);
        List<String> sign = new ArrayList<>(List.of("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", name + ".crt", "-days", "2"));
        if (san) {
            sign.addAll(List.of("-extfile", "san.ext"));
        }
        openssl(sign.toArray(String[]::new));
    }

    /** Runs openssl in the directory; fails with its output if it fails. */
    void openssl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Path out = dir.resolve("openssl.out");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile())
                .start();
        if (p.waitFor() != 0) {
            throw new IOException(cmd + " failed: " + Files.readString(out));
        }
    }

    /** @return a client context trusting the test CA, presenting the client certificate if {@code withCert} */
    SSLContext client(boolean withCert) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", PemFiles.certificates("ca", ca).getFirst());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (withCert) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", PemFiles.privateKey(clientKey, null), new char[0],
                    PemFiles.certificates("cert", clientCert).toArray(X509Certificate[]::new));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    /** @return a server config on any free port with these files, clients checked as {@code auth} says */
    TlsConfig server(String auth) {
        return TlsConfig.of(serverCert, serverKey, ca, auth);
    }
}
