package dev.colossal.ipc;

/**
 * A shared region could not be created, opened or used: the file is missing, of another kind or
 * version, damaged, or the operating system refused the mapping. The message names the file and
 * what to do.
 */
public final class IpcException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong, with the file and the remedy
     */
    public IpcException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message what went wrong, with the file and the remedy
     * @param cause   the underlying error
     */
    public IpcException(String message, Throwable cause) {
        super(message, cause);
    }
}
