package dev.colossal.map;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Temporary files named {@code <prefix><pid>-<nanos>}, written beside a map before they are linked
 * into place: a process killed meanwhile leaves one behind, as big as what it had written (a map
 * copy: up to the whole map). The next process to write one removes those of processes that are
 * gone; a live process's file, or a pid that a new process took since, is left alone.
 */
final class StaleTemporaries {

    private StaleTemporaries() {
    }

    /** Names a new temporary for this process in {@code dir}. */
    static Path name(Path dir, String prefix) {
        return dir.resolve(prefix + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    /** Deletes the temporaries in {@code dir} with {@code prefix} whose process is gone; best effort. */
    static void removeDead(Path dir, String prefix) {
        try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, p -> p.getFileName().toString().startsWith(prefix))) {
            for (Path p : found) {
                String rest = p.getFileName().toString().substring(prefix.length());
                int dash = rest.indexOf('-');
                long pid = dash > 0 ? parse(rest.substring(0, dash)) : -1;
                if (pid > 0 && ProcessHandle.of(pid).isEmpty()) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Only space is at stake; the write that follows reports a directory it cannot use.
        }
    }

    private static long parse(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException notOurs) {
            return -1;
        }
    }
}
