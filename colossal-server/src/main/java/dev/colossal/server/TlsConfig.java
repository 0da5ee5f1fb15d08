package dev.colossal.server;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The TLS listener's settings, named as redis.conf names them ({@code tls-port}, {@code tls-cert-file},
 * ...). A server without one serves plain TCP only.
 *
 * @param port        the TLS port, 0 for any free port
 * @param certFile    the server's certificate chain, PEM (tls-cert-file)
 * @param keyFile     its private key, PEM: PKCS#8 (plain or encrypted), {@code BEGIN RSA PRIVATE KEY}
 *                    or {@code BEGIN EC PRIVATE KEY} (tls-key-file)
 * @param keyFilePass the key's password, or null if it is not encrypted (tls-key-file-pass)
 * @param caCertFile  the CA certificates clients' certificates must chain to, PEM, or null (tls-ca-cert-file)
 * @param caCertDir   a directory of such PEM files, or null (tls-ca-cert-dir)
 * @param authClients {@link #AUTH_YES} (a client must present a certificate, Redis's default),
 *                    {@link #AUTH_NO} or {@link #AUTH_OPTIONAL} (checked if presented)
 * @param protocols   space-separated versions, e.g. {@code "TLSv1.2 TLSv1.3"}; empty for both (tls-protocols)
 * @param ciphers     TLS 1.2 suites, OpenSSL's colon-separated names or the JDK's; empty for the JDK's (tls-ciphers)
 * @param ciphersuites TLS 1.3 suites, colon-separated; empty for the JDK's (tls-ciphersuites)
 * @param tlsOnly     whether the plain port stays closed, as {@code --port 0} with a TLS port asks in Redis
 */
public record TlsConfig(int port, Path certFile, Path keyFile, String keyFilePass, Path caCertFile, Path caCertDir,
                        String authClients, String protocols, String ciphers, String ciphersuites, boolean tlsOnly) {

    /** A client must present a certificate the CA signed. */
    public static final String AUTH_YES = "yes";
    /** Clients present no certificate. */
    public static final String AUTH_NO = "no";
    /** A client may present a certificate; one presented must be valid. */
    public static final String AUTH_OPTIONAL = "optional";

    /**
     * Validates what can be checked without reading files ({@link TlsSetup} reads them).
     *
     * @throws IllegalArgumentException naming the flag and value at fault
     */
    public TlsConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--tls-port=" + port + " must be 0..65535");
        }
        if (certFile == null || keyFile == null) {
            throw new IllegalArgumentException("--tls-port needs --tls-cert-file and --tls-key-file (PEM files: the"
                    + " server's certificate and its private key)");
        }
        authClients = authClients == null ? AUTH_YES : authClients.toLowerCase(Locale.ROOT);
        if (!List.of(AUTH_YES, AUTH_NO, AUTH_OPTIONAL).contains(authClients)) {
            throw new IllegalArgumentException("--tls-auth-clients=" + authClients + " must be one of: no, yes, optional");
        }
        keyFilePass = keyFilePass == null || keyFilePass.isEmpty() ? null : keyFilePass;
        protocols = protocols == null ? "" : protocols.strip();
        ciphers = ciphers == null ? "" : ciphers.strip();
        ciphersuites = ciphersuites == null ? "" : ciphersuites.strip();
    }

    /**
     * @param certFile   the certificate chain
     * @param keyFile    its key, not encrypted
     * @param caCertFile the clients' CA, or null
     * @param authClients {@link #AUTH_YES}, {@link #AUTH_NO} or {@link #AUTH_OPTIONAL}
     * @return a TLS listener on any free port, beside the plain one, with the JDK's protocols and suites
     */
    public static TlsConfig of(Path certFile, Path keyFile, Path caCertFile, String authClients) {
        return new TlsConfig(0, certFile, keyFile, null, caCertFile, null, authClients, "", "", "", false);
    }

    /**
     * @param p the TLS port
     * @param only whether the plain port stays closed
     * @return a copy listening there
     */
    public TlsConfig withPort(int p, boolean only) {
        return new TlsConfig(p, certFile, keyFile, keyFilePass, caCertFile, caCertDir, authClients, protocols, ciphers,
                ciphersuites, only);
    }

    /**
     * @param pass the key file's password, or null
     * @return a copy with it
     */
    public TlsConfig withKeyFilePass(String pass) {
        return new TlsConfig(port, certFile, keyFile, pass, caCertFile, caCertDir, authClients, protocols, ciphers,
                ciphersuites, tlsOnly);
    }

    /**
     * @param versions     tls-protocols
     * @param tls12Suites  tls-ciphers
     * @param tls13Suites  tls-ciphersuites
     * @return a copy with them
     */
    public TlsConfig withSuites(String versions, String tls12Suites, String tls13Suites) {
        return new TlsConfig(port, certFile, keyFile, keyFilePass, caCertFile, caCertDir, authClients, versions,
                tls12Suites, tls13Suites, tlsOnly);
    }
}
