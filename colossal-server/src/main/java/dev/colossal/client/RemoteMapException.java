package dev.colossal.client;

/**
 * A {@link RemoteMap} call failed: the server could not be reached, the connection broke while
 * the call was in flight (whether the server applied it is then unknown), no reply came in time, or
 * the reply made no sense. Errors the server itself replied with are the subclass
 * {@link RemoteServerException}.
 */
public class RemoteMapException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, with the server's address
     * @param cause   the underlying failure, or null
     */
    public RemoteMapException(String message, Throwable cause) {
        super(message, cause);
    }
}
