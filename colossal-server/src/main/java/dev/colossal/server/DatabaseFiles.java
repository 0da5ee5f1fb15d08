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
 *
 * <p>A database with lists has a second file, its element map ({@code dbN.elements.map},
 * {@link ListElements}), which must move with its map. A swap of up to four files is: each moves
 * to {@code swapdb-A-B.NAME.tmp} (its own name kept inside), then the empty file
 * {@code swapdb-A-B.commit} is created, then each goes on to its new name, then the commit file
 * goes. A start after a crash before the commit file puts every temporary back where it came
 * from; after it, sends each on: never one database's map beside the other's elements.
 */
final class DatabaseFiles {

    private static final Pattern DB = Pattern.compile("db(0|[1-9][0-9]{0,9})\\.map");
    private static final Pattern SWAPPING = Pattern.compile("swapdb-(0|[1-9][0-9]{0,9})-(0|[1-9][0-9]{0,9})\\.tmp");
    /** A file of a swap with element maps: {@code swapdb-A-B.db3.map.tmp}, {@code swapdb-A-B.db3.elements.map.tmp}. */
    private static final Pattern SWAPPING_FILE = Pattern.compile(
            "swapdb-(0|[1-9][0-9]{0,9})-(0|[1-9][0-9]{0,9})\\.db(0|[1-9][0-9]{0,9})(\\.map|\\.elements\\.map)\\.tmp");

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
        if (Files.exists(ListElements.fileFor(fa)) || Files.exists(ListElements.fileFor(fb))) {
            swapWithElements(dir, a, b);
            return;
        }
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

    /** {@link #swap} of databases of which one or both have an element map: through temporaries and a commit file. */
    private static void swapWithElements(Path dir, int a, int b) throws IOException {
        List<Path> moved = new ArrayList<>();
        for (int db : new int[] {a, b}) {
            for (Path f : List.of(dir.resolve(name(db)), ListElements.fileFor(dir.resolve(name(db))))) {
                if (Files.exists(f)) {
                    Path tmp = dir.resolve("swapdb-" + a + "-" + b + "." + f.getFileName() + ".tmp");
                    Files.move(f, tmp, StandardCopyOption.ATOMIC_MOVE);
                    moved.add(tmp);
                }
            }
        }
        forceDirectory(dir);
        Path commit = dir.resolve("swapdb-" + a + "-" + b + ".commit");
        Files.createFile(commit);
        forceDirectory(dir);
        for (Path tmp : moved) {
            Files.move(tmp, destination(dir, tmp, true), StandardCopyOption.ATOMIC_MOVE);
        }
        forceDirectory(dir);
        Files.delete(commit);
        forceDirectory(dir);
    }

    /**
     * @param tmp     a temporary of {@link #swapWithElements}
     * @param forward the swap committed: to the other database's name, else back to its own
     * @return where it goes
     */
    private static Path destination(Path dir, Path tmp, boolean forward) {
        Matcher m = SWAPPING_FILE.matcher(tmp.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a swap's temporary: " + tmp);
        }
        String own = m.group(3);
        String to = !forward ? own : own.equals(m.group(1)) ? m.group(2) : m.group(1);
        return dir.resolve("db" + to + m.group(4));
    }

    /** Finishes (committed) or undoes the swaps with element maps a crash cut short. */
    private static void recoverWithElements(Path dir, List<String> said) throws IOException {
        List<Path> tmps = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(dir, "swapdb-*.tmp")) {
            for (Path tmp : all) {
                if (SWAPPING_FILE.matcher(tmp.getFileName().toString()).matches()) {
                    tmps.add(tmp);
                }
            }
        }
        for (Path tmp : tmps) {
            Matcher m = SWAPPING_FILE.matcher(tmp.getFileName().toString());
            m.matches();
            boolean committed = Files.exists(dir.resolve("swapdb-" + m.group(1) + "-" + m.group(2) + ".commit"));
            Path to = destination(dir, tmp, committed);
            if (Files.exists(to)) {
                throw new IOException("data directory " + dir.toAbsolutePath() + " holds " + tmp.getFileName() + " and "
                        + to.getFileName() + ": a SWAPDB leaves the first only while the second is missing; move one away");
            }
            Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE);
            said.add("colossal: a SWAPDB " + m.group(1) + " " + m.group(2) + " was cut short by the last stop: "
                    + (committed ? "finished (" : "undone (") + tmp.getFileName() + " to " + to.getFileName() + ")");
        }
        try (DirectoryStream<Path> all = Files.newDirectoryStream(dir, "swapdb-*.commit")) {
            for (Path commit : all) {
                Files.delete(commit);
                said.add("colossal: removed " + commit.getFileName() + ", the mark of a SWAPDB that had taken effect");
            }
        }
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
        recoverWithElements(dir, said);
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
    static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // the renames are as durable as the file system makes them
        }
    }
}
