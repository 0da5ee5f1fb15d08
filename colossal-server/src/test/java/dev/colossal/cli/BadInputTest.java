package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that are not about map files (sparse, map-soak, pingpong, mix, swap), and the map
 * tools given a directory, answer input they cannot use with one line naming the flag or path and
 * what to do, and exit status 2: never a stack trace, which is kept for bugs. {@code /proc} stands for a directory where no file may be created,
 * even by root.
 */
class BadInputTest {

    @TempDir
    Path dir;

    /** Runs the command and checks the one-line refusal; returns the line. */
    private static String refused(String... args) {
        Cli.Run run = Cli.run(args);
        String err = run.err().strip();
        assertEquals(2, run.exit(), run.out() + err);
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("colossal " + args[0] + ": "), err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        return err;
    }

    private static void assertContains(String line, String... parts) {
        for (String part : parts) {
            assertTrue(line.contains(part), "'" + part + "' missing from: " + line);
        }
    }

    @Test
    void sparse() throws Exception {
        assertContains(refused("sparse", "--size", "3", "--dir", dir.toString()), "--size=3", "at least 8");
        assertContains(refused("sparse", "--file-size", "3", "--dir", dir.toString()), "--file-size=3", "power of two");
        assertContains(refused("sparse", "--size", "1TiB", "--dir", "/proc"), "--size 1 TiB", "directory=/proc",
                "choose a writable directory");
        try (var left = Files.list(dir)) {
            assertEquals(0, left.count(), "nothing was created");
        }
        // More than the address space or the file system allows, on most machines: one line too.
        Cli.Run huge = Cli.run("sparse", "--size", "4096PiB", "--file-size", "1PiB", "--dir", dir.toString());
        if (huge.exit() != 0) {
            assertContains(refused("sparse", "--size", "4096PiB", "--file-size", "1PiB", "--dir", dir.toString()),
                    "--size 4096 PiB", dir.toString());
        }
    }

    @Test
    void sparseRemovesTheDirectoryItCreated() {
        Path missing = dir.resolve("new").resolve("deeper");
        Cli.Run run = Cli.run("sparse", "--size", "1MiB", "--file-size", "64KiB", "--dir", missing.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertFalse(Files.exists(dir.resolve("new")), "the directories sparse created are gone with its files");
    }

    /** The trial: {@code colossal verify /tmp/x} printed the JDK's "/tmp/x: Is a directory". */
    @Test
    void mapToolsGivenADirectory() throws Exception {
        String[][] commands = {{"verify", "--no-progress"}, {"inspect"}, {"compact", "--no-progress"},
            {"repair", "--no-progress"}, {"copy", "--no-progress"}};
        for (String[] command : commands) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(command));
            args.add(dir.toString());
            if (command[0].equals("copy")) {
                args.add(dir.resolve("copy.map").toString());
            }
            String line = refused(args.toArray(String[]::new));
            assertEquals("colossal " + command[0] + ": " + dir + " is a directory, not a map file; name a map file", line);
        }
        // A server's data directory: the map file in it is named.
        Path served = dir.resolve("data");
        try (var map = dev.colossal.map.BytesMap.open(Files.createDirectories(served).resolve("db0.map"))) {
            map.put(new byte[] {1}, new byte[] {2});
        }
        assertEquals("colossal verify: " + served + " is a directory, not a map file; name a map file, e.g. "
                + served.resolve("db0.map") + " (the server's)", refused("verify", "--no-progress", served.toString()));
        // With numbered databases: every file, in number order.
        for (int db : new int[] {10, 2}) {
            try (var map = dev.colossal.map.BytesMap.open(served.resolve("db" + db + ".map"))) {
                map.put(new byte[] {1}, new byte[] {2});
            }
        }
        assertEquals("colossal verify: " + served + " is a directory, not a map file; name a map file: the server's"
                + " databases are " + served.resolve("db0.map") + ", " + served.resolve("db2.map") + ", "
                + served.resolve("db10.map") + ", one command each", refused("verify", "--no-progress", served.toString()));
    }

    @Test
    void mapSoak() {
        assertContains(refused("map-soak", "--entries", "1000", "--dir", "/proc"), "--dir /proc",
                "choose a directory you can write");
        assertContains(refused("map-soak", "--entries", "0", "--dir", dir.toString()), "--entries=0");
        assertContains(refused("map-soak", "--entries", "10", "--dir", dir.toString(), "--resume"), "--resume needs");
    }

    @Test
    void pingpong() {
        Path missing = dir.resolve("no").resolve("such").resolve("region");
        assertContains(refused("pingpong", "--role", "odd", "--region", missing.toString(), "--count", "3"),
                "directory " + missing.getParent() + " does not exist", "--region " + missing);
        assertContains(refused("pingpong", "--role", "odd", "--region", "/proc/colossal-pp", "--count", "3"),
                "/proc/colossal-pp", "choose a directory where you may create files");
        assertContains(refused("pingpong", "--role", "even", "--region", dir.toString(), "--count", "3"),
                "--region " + dir);
        assertContains(refused("pingpong", "--role", "odd", "--region", dir.resolve("x").toString(), "--count", "0"),
                "--count=0");
    }

    @Test
    void mix() {
        assertContains(refused("mix", "--chunk-size", "3"), "--chunk-size=3", "power of two");
        assertContains(refused("mix", "--dir", "/proc", "--samples", "1000"), "directory=/proc", "--dir /proc");
        assertContains(refused("mix", "--samples", "100000000000000", "--chunk-size", "8", "--dir", dir.toString()),
                "--samples=100000000000000", "raise --chunk-size");
        assertContains(refused("mix", "--rounds", "0"), "must be positive");
    }

    @Test
    void swap() {
        assertContains(refused("swap", "--signal-size", "0"), "signal-size=0");
        assertContains(refused("swap", "--signals", "1M", "--signal-size", "1M"), "at least two");
        assertContains(refused("swap", "--dir", "/proc", "--signals", "2M", "--signal-size", "1M", "--budget", "4M"),
                "cannot create the swap file in --dir /proc", "choose a directory you can write");
    }
}
