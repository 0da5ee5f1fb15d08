package dev.colossal.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.stream.Collectors;

/**
 * The data directory holds map files of databases this start does not have: it was served with a
 * larger {@code --databases}. Served anyway, their keys would be out of reach (SELECT refuses the
 * number) while FLUSHALL and INFO would pass them by, so the start is refused, naming the files,
 * the setting that serves them, and how to drop them on purpose.
 */
public final class DatabasesMismatchException extends IOException {

    private static final long serialVersionUID = 1L;

    DatabasesMismatchException(Path dir, int databases, Collection<Path> beyond, int highest) {
        super("data directory " + dir.toAbsolutePath() + " holds " + names(beyond) + ", of database"
                + (beyond.size() == 1 ? "" : "s") + " beyond this start's --databases " + databases + " (0 to "
                + (databases - 1) + "): it was served with more; start with --databases " + (highest + 1)
                + " or more to serve " + (beyond.size() == 1 ? "it" : "them") + ", or move "
                + (beyond.size() == 1 ? "that file" : "those files") + " out of the directory to drop "
                + (beyond.size() == 1 ? "its" : "their") + " keys");
    }

    private static String names(Collection<Path> files) {
        return files.stream().map(Path::toString).collect(Collectors.joining(", "));
    }
}
