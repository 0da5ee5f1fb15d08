package dev.colossal.rdb;

/**
 * An RDB file that cannot be read: damaged, cut short, or of a kind this reader does not take. The
 * message says what and where; {@link #offset} is the byte where reading stopped.
 */
public final class RdbFormatException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why the file was refused, for the exit code: damage, or a file that is sound but not importable. */
    public enum Kind {
        /** Cut short, a CRC mismatch, or bytes no Redis writes. */
        DAMAGED,
        /** Sound, but of a version or holding a value this reader cannot take. */
        UNSUPPORTED
    }

    private final long offset;
    private final Kind kind;

    RdbFormatException(Kind kind, long offset, String message) {
        super(message);
        this.kind = kind;
        this.offset = offset;
    }

    /** @return the byte offset in the file where reading stopped */
    public long offset() {
        return offset;
    }

    /** @return whether the file is damaged or just not importable */
    public Kind kind() {
        return kind;
    }
}
