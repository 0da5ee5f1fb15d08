package dev.colossal.server;

import java.util.Locale;

/**
 * OpenSSL's cipher names (as tls-ciphers takes them) turned into the IANA names the JDK uses:
 * {@code ECDHE-RSA-AES128-GCM-SHA256} is {@code TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}. OpenSSL's
 * names drop what is implied (RSA key exchange, CBC mode, SHA-256 for ChaCha20), which is put back.
 */
final class OpenSslSuites {

    private OpenSslSuites() {}

    /** @return the JDK's name of {@code name} (an IANA name is returned as it is), or null if it is no suite name */
    static String toJdk(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        if (n.startsWith("TLS_") || n.startsWith("SSL_")) {
            return n;
        }
        String[] parts = n.split("-");
        int i = 0;
        StringBuilder kx = new StringBuilder();
        while (i < parts.length && (parts[i].equals("ECDHE") || parts[i].equals("DHE") || parts[i].equals("RSA")
                || parts[i].equals("ECDSA") || parts[i].equals("PSK"))) {
            kx.append(kx.isEmpty() ? "" : "_").append(parts[i++]);
        }
        if (kx.toString().equals("ECDHE") || kx.toString().equals("DHE")) {
            kx.append("_RSA"); // OpenSSL's EDH/ECDHE names without an authentication mean RSA
        }
        if (kx.isEmpty()) {
            kx.append("RSA");
        }
        if (i >= parts.length) {
            return null;
        }
        String cipher;
        String rest;
        if (parts[i].startsWith("AES") && parts[i].length() == 6) {
            String bits = parts[i].substring(3);
            i++;
            if (i < parts.length && (parts[i].equals("GCM") || parts[i].equals("CCM"))) {
                cipher = "AES_" + bits + "_" + parts[i++];
            } else {
                cipher = "AES_" + bits + "_CBC";
            }
        } else if (parts[i].equals("CHACHA20") && i + 1 < parts.length && parts[i + 1].equals("POLY1305")) {
            i += 2;
            return "TLS_" + kx + "_WITH_CHACHA20_POLY1305_SHA256";
        } else {
            return null;
        }
        if (i != parts.length - 1) {
            return null;
        }
        rest = parts[i];
        if (!rest.equals("SHA") && !rest.equals("SHA256") && !rest.equals("SHA384")) {
            return null;
        }
        return "TLS_" + kx + "_WITH_" + cipher + "_" + rest;
    }
}
