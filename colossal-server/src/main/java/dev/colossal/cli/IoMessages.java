package dev.colossal.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * I/O failures in the user's terms, for the {@link Failures} one-liners of the commands that create
 * files: the directory the user named rather than a temporary file inside it.
 */
final class IoMessages {

    private IoMessages() {}

    /**
     * Why files could not be created, without the file the failure names (often an internal temporary
     * file the user never asked for): a {@link FileSystemException}'s reason, else the message.
     */
    static String reason(Throwable e) {
        Throwable cause = unwrap(e);
        if (cause instanceof FileSystemException fs) {
            // No reason: the OS refused with EACCES, or with ENOENT in a directory that exists (as /proc does).
            return fs.getReason() != null ? fs.getReason()
                    : cause instanceof AccessDeniedException ? "permission denied" : "no file may be created there";
        }
        return message(cause);
    }

    /** The message of a failure whose message names its file, without the wrapper's class name. */
    static String message(Throwable e) {
        Throwable cause = unwrap(e);
        return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : e;
    }

    /**
     * Checks that new files can be created in {@code dir}, creating it if missing, before a command
     * spends time on its work: the library's own failure there may name one of its temporary files.
     *
     * @param flag how the user named the directory, e.g. {@code "--dir /data"}
     * @return {@code null} if files can be created there, else what is wrong and what to do
     */
    static String unwritableDirectory(Path dir, String flag) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            return flag + " is a file, not a directory; name a directory (created if missing)";
        }
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".colossal-probe-", ".tmp"));
            return null;
        } catch (IOException | SecurityException e) {
            return "cannot create files in " + flag + ": " + reason(e) + "; choose a directory you can write";
        }
    }
}
