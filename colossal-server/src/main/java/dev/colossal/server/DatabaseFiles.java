package dev.colossal.server;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of the databases' map files in a data directory, {@code db0.map} to {@code dbN.map},
 * and SWAPDB's renames of them. A swap of two files is three renames through a temporary name
 * that says which swap it was part of, {@code swapdb-A-B.tmp} (database A's file on its way to
 * B), so that a start after a crash in the middle finishes the swap or undoes it
 * ({@link #recover}) instead of serving one database's keys under the other's number, or losing
 * a file.
 */
final class DatabaseFiles {

    private static final Pattern DB = Pattern.compile("db(0|[1-9][0-9]{0,9})\\.map");
    private static final Pattern SWAPPING = Pattern.compile("swapdb-(0|[1-9][0-9]{0,9})-(0|[1-9][0-9]{0,9})\\.tmp");

    private DatabaseFiles() {}

    /** @return the file name of database {@code db}: {@code db0.map}, {@code db1.map}, ... */
    static String name(int db) {
        return "db" + db + ".map";
    }

    /**
     * @param dir a data directory
     * @return its databases' map files by number
     */
    static SortedMap<Integer, Path> list(Path dir) throws IOException {
        SortedMap<Integer, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(dir)) {
            for (Path p : all) {
                Matcher m = DB.matcher(p.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(1)) <= Integer.MAX_VALUE) {
                    files.put(Integer.parseInt(m.group(1)), p);
                }
            }
        }
        return files;
    }

    /**
     * Swaps the files of databases {@code a} and {@code b}, either of which may have none: a file
     * moves to the other's name, two files trade names. Returns once the renames are durable.
     */
    static void swap(Path dir, int a, int b) throws IOException {
        Path fa = dir.resolve(name(a));
        Path fb = dir.resolve(name(b));
        boolean hasA = Files.exists(fa);
        boolean hasB = Files.exists(fb);
        if (hasA && hasB) {
            Path tmp = dir.resolve("swapdb-" + a + "-" + b + ".tmp");
            Files.move(fa, tmp, StandardCopyOption.ATOMIC_MOVE);
            Files.move(fb, fa, StandardCopyOption.ATOMIC_MOVE);
            Files.move(tmp, fb, StandardCopyOption.ATOMIC_MOVE);
        } else if (hasA) {
            Files.move(fa, fb, StandardCopyOption.ATOMIC_MOVE);
        } else if (hasB) {
            Files.move(fb, fa, StandardCopyOption.ATOMIC_MOVE);
        } else {
            return;
        }
        forceDirectory(dir);
    }

    /**
     * Finishes or undoes a swap a crash cut short: a {@code swapdb-A-B.tmp} holds database A's
     * file. If A's name is free the swap had only begun, and the file goes back to A; if B's name
     * is free the other file had taken A's name, and this one goes on to B.
     *
     * @param dir a data directory, before any of its maps is opened
     * @return a line for the log per swap recovered
     * @throws IOException if a swap cannot be recovered (all three files are there: not left by a swap)
     */
    static List<String> recover(Path dir) throws IOException {
        List<String> said = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(dir, "swapdb-*.tmp")) {
            for (Path tmp : all) {
                Matcher m = SWAPPING.matcher(tmp.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                Path fa = dir.resolve("db" + m.group(1) + ".map");
                Path fb = dir.resolve("db" + m.group(2) + ".map");
                if (!Files.exists(fa)) {
                    Files.move(tmp, fa, StandardCopyOption.ATOMIC_MOVE);
                    said.add("colossal: a SWAPDB " + m.group(1) + " " + m.group(2) + " was cut short by the last stop before it"
                            + " took effect: undone (" + tmp.getFileName() + " back to " + fa.getFileName() + ")");
                } else if (!Files.exists(fb)) {
                    Files.move(tmp, fb, StandardCopyOption.ATOMIC_MOVE);
                    said.add("colossal: a SWAPDB " + m.group(1) + " " + m.group(2) + " was cut short by the last stop: finished ("
                            + tmp.getFileName() + " to " + fb.getFileName() + ")");
                } else {
                    throw new IOException("data directory " + dir.toAbsolutePath() + " holds " + tmp.getFileName() + ", "
                            + fa.getFileName() + " and " + fb.getFileName() + ": a SWAPDB leaves the first only while one of"
                            + " the others is missing, so it is not one a swap left; move it away, or if it is database "
                            + m.group(1) + "'s data, put it in place of " + fa.getFileName() + " yourself");
                }
            }
        }
        if (!said.isEmpty()) {
            forceDirectory(dir);
        }
        return said;
    }

    /** Makes renames durable: best effort, as not every platform lets a directory be opened for it. */
    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // the renames are as durable as the file system makes them
        }
    }
}
