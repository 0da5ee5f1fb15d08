package dev.colossal.server;

import java.io.IOException;

/**
 * Another server (another process, or this one) serves the data directory: a second one would
 * lose updates (see {@code DataDirLock}). The message names the directory, the holder's pid if
 * known, and what to do.
 */
public final class DataDirInUseException extends IOException {

    private static final long serialVersionUID = 1L;

    DataDirInUseException(String message) {
        super(message);
    }
}
