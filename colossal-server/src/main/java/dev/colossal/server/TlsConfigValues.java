package dev.colossal.server;

import java.nio.file.Path;
import java.util.Map;

/**
 * The tls-* parameters of CONFIG GET, spelled and defaulted as Redis 7.0 has them, so that a tool
 * that reads them (to learn the TLS port, or whether client certificates are asked for) finds what
 * it would on redis-server. Those this server has no use for (replication, cluster, DH parameters)
 * answer Redis's defaults; the session cache is the JDK's, sized as Redis's ({@link TlsSetup}).
 */
final class TlsConfigValues {

    /** Redis's tls-session-cache-size default, which the JDK's session cache is given too. */
    static final int SESSION_CACHE_SIZE = 20480;
    /** Redis's tls-session-cache-timeout default, in seconds. */
    static final int SESSION_CACHE_TIMEOUT = 300;

    private TlsConfigValues() {}

    static void putAll(Map<String, String> m, TlsConfig tls, int tlsPort) {
        m.put("tls-port", Integer.toString(tlsPort));
        m.put("tls-cert-file", tls == null ? "" : text(tls.certFile()));
        m.put("tls-key-file", tls == null ? "" : text(tls.keyFile()));
        m.put("tls-key-file-pass", tls == null || tls.keyFilePass() == null ? "" : tls.keyFilePass());
        m.put("tls-client-cert-file", "");
        m.put("tls-client-key-file", "");
        m.put("tls-client-key-file-pass", "");
        m.put("tls-dh-params-file", "");
        m.put("tls-ca-cert-file", tls == null ? "" : text(tls.caCertFile()));
        m.put("tls-ca-cert-dir", tls == null ? "" : text(tls.caCertDir()));
        m.put("tls-auth-clients", tls == null ? TlsConfig.AUTH_YES : tls.authClients());
        m.put("tls-protocols", tls == null ? "" : tls.protocols());
        m.put("tls-ciphers", tls == null ? "" : tls.ciphers());
        m.put("tls-ciphersuites", tls == null ? "" : tls.ciphersuites());
        m.put("tls-prefer-server-ciphers", "no");
        m.put("tls-session-caching", "yes");
        m.put("tls-session-cache-size", Integer.toString(SESSION_CACHE_SIZE));
        m.put("tls-session-cache-timeout", Integer.toString(SESSION_CACHE_TIMEOUT));
        m.put("tls-replication", "no");
        m.put("tls-cluster", "no");
    }

    private static String text(Path p) {
        return p == null ? "" : p.toString();
    }
}
