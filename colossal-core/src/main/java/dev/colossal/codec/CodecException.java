package dev.colossal.codec;

/**
 * Bytes that are not a valid encoding: truncated, corrupt, or written for another type or schema;
 * the message names the type and the offset where decoding failed. Also a value that no bytes can
 * carry, such as a string with an unpaired surrogate, refused when it is sized.
 */
public class CodecException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message that names the type and offset.
     *
     * @param message what is wrong, where, and what to do
     */
    public CodecException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and the low-level cause.
     *
     * @param message what is wrong, where, and what to do
     * @param cause   the underlying failure
     */
    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
