package dev.colossal.map;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;

/**
 * Makes a file one this user may only read, for the tests of read-only opens, and undoes what needs
 * undoing on close. Mode 0444 stops other users; root, whom no mode stops, also needs the immutable
 * flag ({@code chattr +i}), which must be cleared again or the temporary directory cannot be
 * deleted. Where neither works ({@link #stopsThisUser} is false) there is nothing to show.
 */
final class Unwritable implements AutoCloseable {

    private final Path file;
    private final boolean immutable;

    private Unwritable(Path file, boolean immutable) {
        this.file = file;
        this.immutable = immutable;
    }

    static Unwritable make(Path file) throws Exception {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
        return new Unwritable(file, Files.isWritable(file) && chattr("+i", file));
    }

    /** Whether this user may no longer write the file. */
    boolean stopsThisUser() {
        return !Files.isWritable(file);
    }

    @Override
    public void close() throws IOException {
        if (immutable) {
            chattr("-i", file);
        }
    }

    private static boolean chattr(String flag, Path file) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true).start();
        } catch (IOException noChattr) {
            return false;
        }
        p.getInputStream().readAllBytes();
        try {
            return p.waitFor() == 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted waiting for chattr " + flag + " " + file);
        }
    }

    /** The file's SHA-256: equal before and after shows that not a byte changed. */
    static byte[] sha256(Path file) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    }
}
