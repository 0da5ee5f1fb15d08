package dev.colossal.server;

import java.io.IOException;

/** The ACL file given at start cannot be read, or has a line that is not a valid user: the server does not start, as Redis does not. */
public final class AclFileException extends IOException {
    private static final long serialVersionUID = 1L;

    AclFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
