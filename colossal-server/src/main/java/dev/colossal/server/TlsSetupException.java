package dev.colossal.server;

import java.io.IOException;

/**
 * The TLS settings cannot be used: a certificate or key file is missing, unreadable or not PEM, the
 * key does not match the certificate, its password is wrong, or a protocol or suite is unknown. The
 * message names the flag, the file and what to do.
 */
public final class TlsSetupException extends IOException {

    private static final long serialVersionUID = 1L;

    TlsSetupException(String message) {
        super(message);
    }

    TlsSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
