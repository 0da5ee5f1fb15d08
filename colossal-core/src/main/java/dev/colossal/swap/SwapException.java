package dev.colossal.swap;

/**
 * A swap space could not do what was asked: the swap file could not be written or read (a full
 * disk, an I/O error), or the memory budget cannot be kept. The object concerned stays where it
 * was: an object that could not be swapped out is still resident, nothing is lost.
 */
public class SwapException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the object and the file, and what to do
     * @param cause   the underlying error, or {@code null}
     */
    public SwapException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * @param message what failed, naming the object and the file, and what to do
     */
    public SwapException(String message) {
        super(message);
    }
}
