package dev.colossal.cli;

import dev.colossal.server.ColossalServer;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * One-line messages for failures the user can fix: a missing, unreadable or foreign file, a port in
 * use. They go to stderr as {@code colossal COMMAND: what; what to do} with exit code
 * {@link #UNUSABLE}, never as a stack trace, which is kept for bugs.
 */
final class Failures {

    /** The exit code when the command could not start on its input: a file, a directory or a port. */
    static final int UNUSABLE = 2;

    private Failures() {}

    /**
     * Prints {@code colossal COMMAND: message} on stderr.
     *
     * @return {@link #UNUSABLE}
     */
    static int report(String command, String message) {
        System.err.println("colossal " + command + ": " + message);
        return UNUSABLE;
    }

    /**
     * Reports a map file that could not be opened: missing, a directory, not readable, or not a
     * sound map (the library's message names the file and what to do).
     *
     * @return {@link #UNUSABLE}
     */
    static int unreadable(String command, Path file, Exception e) {
        if (Files.isDirectory(file)) {
            // The JDK's "FILE: Is a directory" says neither what was wanted nor where to find it.
            List<Path> served;
            try {
                served = ColossalServer.mapFiles(file);
            } catch (IOException unlisted) {
                served = List.of();
            }
            return report(command, file + " is a directory, not a map file; name a map file" + (served.isEmpty() ? ""
                    : served.size() == 1 ? ", e.g. " + served.getFirst() + " (the server's)"
                    : ": the server's databases are " + served.stream().map(Path::toString)
                            .collect(java.util.stream.Collectors.joining(", ")) + ", one command each"));
        }
        return report(command, switch (e) {
            case NoSuchFileException missing -> "no such file: " + file;
            case AccessDeniedException denied -> "no permission to open " + file + "; run as its owner or fix its mode";
            default -> e.getMessage();
        });
    }
}
