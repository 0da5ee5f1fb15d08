package dev.colossal.map;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file that cannot be opened as a map: not a Colossal map, written by a newer format version,
 * or truncated below what its header records. Thrown by the open methods; the file is left as it
 * was. The message names the file, what is wrong and what to do; a front end that knows better
 * advice for its users (a server that could start afresh) can take {@link #file} and
 * {@link #problem} and give its own.
 */
public final class MapFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final String problem;

    /**
     * Creates the exception for a problem that is not about one file.
     *
     * @param message what is wrong and what to do
     */
    public MapFormatException(String message) {
        super(message);
        this.file = null;
        this.problem = message;
    }

    /**
     * Creates the exception.
     *
     * @param file    the file that cannot be opened
     * @param problem what is wrong with it, as a predicate: "is not a Colossal map (magic=...)"
     * @param advice  what to do about it
     */
    public MapFormatException(Path file, String problem, String advice) {
        super("file=" + file + " " + problem + "; " + advice);
        this.file = file;
        this.problem = problem;
    }

    /**
     * Returns the file that cannot be opened.
     *
     * @return the file, or null if the problem is not about one file
     */
    public Path file() {
        return file;
    }

    /**
     * Returns what is wrong, without the file's name and the advice.
     *
     * @return a predicate such as "is truncated: size=4096 but the map uses 8192 bytes"
     */
    public String problem() {
        return problem;
    }
}
