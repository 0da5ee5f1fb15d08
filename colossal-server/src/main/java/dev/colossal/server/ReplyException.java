package dev.colossal.server;

/**
 * A command cannot go on and Redis has an error reply for why: the reply is the message, as it is
 * (other exceptions get theirs from {@link Errors#of}). Thrown from under a command, e.g. by the
 * store refusing a value longer than the map holds.
 */
final class ReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param reply the whole error line, e.g. {@link Errors#TOO_BIG} */
    ReplyException(String reply) {
        super(reply, null, false, false);
    }
}
