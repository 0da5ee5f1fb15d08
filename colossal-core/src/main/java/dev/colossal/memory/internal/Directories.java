package dev.colossal.memory.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Checks and creates the directories that back mapped memory, with errors that say what to do. */
public final class Directories {

    /** Where {@code tmpfs} is mounted on Linux: memory that needs no persistence. */
    public static final Path SHM = Path.of("/dev/shm");

    private Directories() {}

    /**
     * Makes sure {@code dir} exists and is a writable directory, creating it and any missing parent.
     *
     * @return the directories this call created, {@code dir} first and then up its parents (empty if
     *     {@code dir} existed): what {@link #deleteCreated} removes again when nothing is kept, so that
     *     a temporary use of {@code /a/b/c} leaves no empty {@code /a/b/c} behind
     * @throws UncheckedIOException naming the directory and the remedy; nothing created is left behind
     */
    public static List<Path> ensureWritable(Path dir, String what) {
        List<Path> created = new ArrayList<>();
        try {
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new IOException("directory=" + dir + " is a file, not a directory");
            }
            for (Path p = dir; p != null && Files.notExists(p); p = p.getParent()) {
                created.add(p);
            }
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".colossal-probe", ".tmp");
            Files.delete(probe);
            return List.copyOf(created);
        } catch (IOException | SecurityException e) {
            deleteCreated(created);
            String reason = reason(e);
            throw new UncheckedIOException(new IOException(
                    "cannot create files for " + what + " in directory=" + dir + " (" + reason + "); "
                            + remedy(reason, "choose a writable directory on a local file system"), e));
        }
    }

    /**
     * The advice for a file that could not be created, given what the OS said ({@code reason}, or a
     * message ending in it): to free space when the disk (or a quota) is full, to close files or
     * raise {@code ulimit -n} when the process has as many open as it may, else {@code otherwise}.
     * Neither is a wrong directory: the same one works once there is room, and advice to pick another
     * kind of directory, right for a read-only or foreign file system, sends one looking for a
     * problem that is not there (a user trial on full disks, and opening arenas under {@code ulimit -n}).
     */
    public static String remedy(String reason, String otherwise) {
        if (reason.endsWith("No space left on device") || reason.endsWith("Disk quota exceeded")) {
            return "free disk space or choose another directory";
        }
        if (reason.endsWith("Too many open files")) {
            return "the process has as many files open as its limit allows (ulimit -n): close files it no longer"
                    + " uses, or raise the limit";
        }
        return otherwise;
    }

    /**
     * What the OS said, without the path the JDK puts first: here that is often the probe file, a
     * name the caller never gave.
     */
    private static String reason(Exception e) {
        if (e instanceof FileSystemException fs) {
            if (fs.getReason() != null) {
                return fs.getReason();
            }
            // No reason: EACCES, or ENOENT from a file system that refuses new entries (as /proc does).
            return e instanceof AccessDeniedException ? "permission denied" : "no new file may be created there";
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /**
     * Removes directories {@link #ensureWritable} created, deepest first, as long as they are empty:
     * one that now holds something (the caller's own files, kept files) stays, and so do its parents.
     */
    public static void deleteCreated(List<Path> created) {
        for (Path p : created) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException | SecurityException notEmptyOrNotOurs) {
                return;
            }
        }
    }

    /** A fresh, uniquely named directory below {@code parent}. */
    public static Path createTemp(Path parent, String prefix) {
        ensureWritable(parent, prefix);
        try {
            return Files.createTempDirectory(parent, prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(
                    "cannot create a directory in " + parent + ": " + e.getMessage(), e));
        }
    }

    /** The default parent of temporary backing files: {@code java.io.tmpdir}. */
    public static Path tempRoot() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Deletes a directory tree, best effort: used on close, where failing would hide the real work. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // A file we cannot delete stays behind; nothing else depends on it.
                }
            });
        } catch (IOException ignored) {
            // Same: leftover temporary files are not worth failing a close for.
        }
    }

    /**
     * Checks that the file system holding {@code dir} has {@code bytes} free, so that writing into
     * newly mapped sparse space cannot hit a full disk (which would be a SIGBUS, not an exception).
     */
    public static void checkFreeSpace(Path dir, long bytes, String what) throws IOException {
        long usable = Files.getFileStore(dir).getUsableSpace();
        if (usable < bytes) {
            throw new IOException("not enough disk space for " + what + ": needed=" + bytes
                    + " bytes, usable=" + usable + " bytes in " + dir
                    + "; free some space, choose another directory, or lower the size");
        }
    }
}
