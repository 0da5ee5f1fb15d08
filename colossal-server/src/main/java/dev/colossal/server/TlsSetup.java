package dev.colossal.server;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * A {@link TlsConfig} made usable: the key and certificates read and checked against each other,
 * the clients' CAs loaded, the protocols and suites mapped to the JDK's names, and an
 * {@link SSLContext} that makes one server-side {@link SSLEngine} per connection. Everything is
 * checked at start, so a bad setting stops the server with a message rather than failing handshakes.
 */
final class TlsSetup {

    /** What Redis 7.0 enables when tls-protocols is empty. */
    private static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");

    private final TlsConfig config;
    private final SSLContext context;
    private final String[] protocols;
    private final String[] suites;

    private TlsSetup(TlsConfig config, SSLContext context, String[] protocols, String[] suites) {
        this.config = config;
        this.context = context;
        this.protocols = protocols;
        this.suites = suites;
    }

    TlsConfig config() {
        return config;
    }

    /** @throws TlsSetupException naming the setting at fault and what to do */
    static TlsSetup load(TlsConfig c) throws TlsSetupException {
        List<X509Certificate> chain = PemFiles.certificates("tls-cert-file", c.certFile());
        PrivateKey key = PemFiles.privateKey(c.keyFile(), c.keyFilePass());
        checkPair(c, chain.getFirst(), key);
        List<X509Certificate> cas = authorities(c);
        try {
            char[] none = new char[0];
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("server", key, none, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, none);
            TrustManager[] trust = null;
            if (!cas.isEmpty()) {
                KeyStore trusted = KeyStore.getInstance("PKCS12");
                trusted.load(null, null);
                for (int i = 0; i < cas.size(); i++) {
                    trusted.setCertificateEntry("ca" + i, cas.get(i));
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trusted);
                trust = tmf.getTrustManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), trust, null);
            context.getServerSessionContext().setSessionCacheSize(TlsConfigValues.SESSION_CACHE_SIZE);
            context.getServerSessionContext().setSessionTimeout(TlsConfigValues.SESSION_CACHE_TIMEOUT);
            SSLEngine probe = context.createSSLEngine();
            String[] protocols = protocols(c.protocols(), probe);
            String[] suites = suites(c, probe);
            return new TlsSetup(c, context, protocols, suites);
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsSetupException("cannot set up TLS with --tls-cert-file " + c.certFile() + " and --tls-key-file "
                    + c.keyFile() + ": " + e, e);
        }
    }

    /** @return a server-side engine for one connection, asking for a client certificate as tls-auth-clients says */
    SSLEngine engine() {
        SSLEngine e = context.createSSLEngine();
        e.setUseClientMode(false);
        e.setEnabledProtocols(protocols);
        e.setEnabledCipherSuites(suites);
        switch (config.authClients()) {
            case TlsConfig.AUTH_YES -> e.setNeedClientAuth(true);
            case TlsConfig.AUTH_OPTIONAL -> e.setWantClientAuth(true);
            default -> e.setNeedClientAuth(false);
        }
        return e;
    }

    /** A key that does not belong to the certificate fails every handshake: say so at start. */
    private static void checkPair(TlsConfig c, X509Certificate cert, PrivateKey key) throws TlsSetupException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> key.getAlgorithm().equals("EdDSA") ? "EdDSA" : key.getAlgorithm();
            default -> null; // RSASSA-PSS wants parameters; the handshake will tell
        };
        if (algorithm == null) {
            return;
        }
        boolean matches;
        try {
            byte[] probe = "colossal".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] signed = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(cert.getPublicKey());
            v.update(probe);
            matches = v.verify(signed);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new TlsSetupException("--tls-key-file " + c.keyFile() + " is not the private key of --tls-cert-file "
                    + c.certFile() + " (" + cert.getSubjectX500Principal() + "): give the key the certificate was made"
                    + " for");
        }
    }

    /** The CAs of tls-ca-cert-file and every PEM file in tls-ca-cert-dir; Redis wants one of them unless clients go unchecked. */
    private static List<X509Certificate> authorities(TlsConfig c) throws TlsSetupException {
        List<X509Certificate> cas = new ArrayList<>();
        if (c.caCertFile() != null) {
            cas.addAll(PemFiles.certificates("tls-ca-cert-file", c.caCertFile()));
        }
        if (c.caCertDir() != null) {
            if (!Files.isDirectory(c.caCertDir())) {
                throw new TlsSetupException("--tls-ca-cert-dir " + c.caCertDir() + " is not a directory");
            }
            try (DirectoryStream<Path> files = Files.newDirectoryStream(c.caCertDir())) {
                for (Path f : files) {
                    // OpenSSL's c_rehash leaves hash-named links beside the files: each CA once
                    if (Files.isRegularFile(f) && !Files.isSymbolicLink(f)) {
                        try {
                            cas.addAll(PemFiles.certificates("tls-ca-cert-dir", f));
                        } catch (TlsSetupException notPem) {
                            // a README or key beside the CAs, as OpenSSL skips it too
                        }
                    }
                }
            } catch (IOException e) {
                throw new TlsSetupException("--tls-ca-cert-dir " + c.caCertDir() + ": cannot list it: " + e, e);
            }
            if (cas.isEmpty()) {
                throw new TlsSetupException("--tls-ca-cert-dir " + c.caCertDir() + " holds no PEM certificate");
            }
        }
        if (cas.isEmpty() && !c.authClients().equals(TlsConfig.AUTH_NO)) {
            throw new TlsSetupException("--tls-auth-clients " + c.authClients() + " needs the CA that signs the clients'"
                    + " certificates: pass --tls-ca-cert-file or --tls-ca-cert-dir, or --tls-auth-clients no");
        }
        return cas;
    }

    private static String[] protocols(String spec, SSLEngine probe) throws TlsSetupException {
        if (spec.isEmpty()) {
            return DEFAULT_PROTOCOLS.toArray(String[]::new);
        }
        Set<String> out = new LinkedHashSet<>();
        Set<String> usable = Set.of(probe.getEnabledProtocols());
        for (String p : spec.split("\\s+")) {
            String name = switch (p.toLowerCase(Locale.ROOT)) {
                case "tlsv1" -> "TLSv1";
                case "tlsv1.1" -> "TLSv1.1";
                case "tlsv1.2" -> "TLSv1.2";
                case "tlsv1.3" -> "TLSv1.3";
                default -> throw new TlsSetupException("--tls-protocols: '" + p + "' is not a protocol; give some of"
                        + " TLSv1.2 TLSv1.3, separated by spaces");
            };
            if (!usable.contains(name)) {
                throw new TlsSetupException("--tls-protocols: " + name + " is disabled in this JDK"
                        + " (jdk.tls.disabledAlgorithms, as insecure); use TLSv1.2 or TLSv1.3");
            }
            out.add(name);
        }
        return out.toArray(String[]::new);
    }

    /** tls-ciphers (TLS 1.2 and older) and tls-ciphersuites (TLS 1.3), each replacing the JDK's defaults of its kind. */
    private static String[] suites(TlsConfig c, SSLEngine probe) throws TlsSetupException {
        List<String> defaults = Arrays.asList(probe.getEnabledCipherSuites());
        Set<String> supported = Set.of(probe.getSupportedCipherSuites());
        List<String> out = new ArrayList<>();
        out.addAll(c.ciphersuites().isEmpty() ? defaults.stream().filter(TlsSetup::isTls13).toList()
                : named("tls-ciphersuites", c.ciphersuites(), supported));
        out.addAll(c.ciphers().isEmpty() ? defaults.stream().filter(s -> !isTls13(s)).toList()
                : named("tls-ciphers", c.ciphers(), supported));
        return out.toArray(String[]::new);
    }

    private static boolean isTls13(String suite) {
        return !suite.contains("_WITH_") && suite.startsWith("TLS_");
    }

    private static List<String> named(String flag, String spec, Set<String> supported) throws TlsSetupException {
        List<String> out = new ArrayList<>();
        for (String s : spec.split("[:,\\s]+")) {
            String name = OpenSslSuites.toJdk(s);
            if (name == null || !supported.contains(name)) {
                throw new TlsSetupException("--" + flag + ": '" + s + "' is not a suite this JDK supports; give"
                        + " OpenSSL or IANA names separated by ':' (e.g. ECDHE-RSA-AES128-GCM-SHA256 or"
                        + " TLS_AES_128_GCM_SHA256); OpenSSL's keywords and ! exclusions are not read");
            }
            out.add(name);
        }
        return out;
    }
}
