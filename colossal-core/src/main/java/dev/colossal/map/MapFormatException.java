package dev.colossal.map;

import java.io.IOException;

/**
 * A file that cannot be opened as a map: not a Colossal map, written by a newer format version,
 * or truncated below what its header records. Thrown by the open methods; the file is left as it
 * was.
 */
public final class MapFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message names the file, the value found and what to do
     */
    public MapFormatException(String message) {
        super(message);
    }
}
