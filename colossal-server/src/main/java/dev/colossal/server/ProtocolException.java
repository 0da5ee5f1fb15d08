package dev.colossal.server;

/** A request that breaks RESP framing; the connection answers with the message and closes. */
final class ProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param reason the text after {@code ERR Protocol error: }, as Redis words it */
    ProtocolException(String reason) {
        super("ERR Protocol error: " + reason, null, false, false);
    }
}
