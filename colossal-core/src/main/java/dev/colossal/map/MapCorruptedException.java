package dev.colossal.map;

import java.nio.file.Path;

/**
 * The map file holds bytes that cannot be right: a checksum that does not match, a position
 * outside the file, a length beyond its chunk. The message names the file, the offset and what is
 * wrong; nothing else in the file is changed by the failed operation. Run {@code colossal verify}
 * on the file to list every damaged place.
 */
public final class MapCorruptedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;
    private final String what;

    /**
     * Creates the exception.
     *
     * @param file   the map file
     * @param offset the byte offset in the file where the damage was found
     * @param what   what is wrong there
     */
    public MapCorruptedException(Path file, long offset, String what) {
        super("corrupt map file=" + file + " offset=" + offset + ": " + what
                + "; run 'colossal verify " + file + "' for a full report, restore from a copy or "
                + "rebuild the map");
        this.file = file;
        this.offset = offset;
        this.what = what;
    }

    /**
     * Returns the map file.
     *
     * @return the file
     */
    public Path file() {
        return file;
    }

    /**
     * Returns what is wrong, without the file, the offset and the advice: for a report that lists
     * several places and says itself what to do.
     *
     * @return what is wrong at {@link #offset}
     */
    public String what() {
        return what;
    }

    /**
     * Returns where the damage was found.
     *
     * @return the byte offset in the file
     */
    public long offset() {
        return offset;
    }
}
