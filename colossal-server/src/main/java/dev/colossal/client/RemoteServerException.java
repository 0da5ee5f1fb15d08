package dev.colossal.client;

/**
 * The server replied to a call with an error, such as {@code WRONGPASS ...}, {@code NOAUTH ...} or
 * {@code WRONGTYPE ...}. The message is the server's error text; {@link #code()} is its first word.
 * The connection stays usable.
 */
public final class RemoteServerException extends RemoteMapException {

    private static final long serialVersionUID = 1L;

    private final String error;

    /**
     * @param error the server's error text, e.g. {@code "ERR value is not an integer or out of range"}
     * @param cause the same error seen by another thread (the connection's reader), or null
     */
    public RemoteServerException(String error, Throwable cause) {
        super(error, cause);
        this.error = error;
    }

    /** @return the error's code, the first word of its text: {@code ERR}, {@code WRONGPASS}, {@code NOAUTH}, ... */
    public String code() {
        int space = error.indexOf(' ');
        return space < 0 ? error : error.substring(0, space);
    }
}
