package dev.colossal.swap;

import java.nio.file.Path;

/**
 * A block of a swap file, or the file itself, is damaged: a magic number, length, id or checksum
 * does not match, or the file is shorter than its catalog says. Colossal never returns bad data:
 * the object concerned cannot be swapped in.
 */
public final class SwapCorruptedException extends SwapException {

    private static final long serialVersionUID = 1L;

    private final long objectId;
    private final transient Path file;
    private final long offset;

    /**
     * @param objectId the id of the object whose block is damaged, or {@code -1} for the file as a whole
     * @param file     the swap file
     * @param offset   the byte offset of the block (or of the damage) in the file
     * @param what     what does not match
     */
    public SwapCorruptedException(long objectId, Path file, long offset, String what) {
        super("swap block damaged: object id=" + objectId + ", file=" + file + ", offset=" + offset + ": " + what
                + "; the object's swapped copy cannot be trusted (disk or file damage, or the file was changed"
                + " by something else)");
        this.objectId = objectId;
        this.file = file;
        this.offset = offset;
    }

    /** @return the id of the object whose block is damaged, or {@code -1} for the file as a whole */
    public long objectId() {
        return objectId;
    }

    /** @return the swap file */
    public Path file() {
        return file;
    }

    /** @return the byte offset of the damaged block in the file */
    public long offset() {
        return offset;
    }
}
