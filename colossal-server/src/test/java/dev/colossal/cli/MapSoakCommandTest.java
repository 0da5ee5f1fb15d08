package dev.colossal.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.map.BytesMap;
import dev.colossal.map.MapInspector;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code colossal map-soak} on a small scale: the map it leaves holds every entry, and bad input is refused. */
class MapSoakCommandTest {

    @TempDir
    Path dir;

    private int run(ByteArrayOutputStream out, String... args) {
        PrintStream old = System.out;
        System.setOut(new PrintStream(out, true, UTF_8));
        try {
            return new CommandLine(new Main()).execute(args);
        } finally {
            System.setOut(old);
        }
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(v).array();
    }

    @Test
    void shouldResumeTheFileOfAnEarlierRun() throws Exception {
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        assertEquals(0, run(first, "map-soak", "--entries", "30000", "--sample", "100", "--reserve", "0",
                "--dir", dir.toString(), "--keep"), first.toString(UTF_8));
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        assertEquals(2, run(again, "map-soak", "--entries", "100000", "--dir", dir.toString()));
        ByteArrayOutputStream resumed = new ByteArrayOutputStream();
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, UTF_8));
        int exit;
        try {
            exit = run(resumed, "map-soak", "--entries", "100000", "--sample", "5000", "--reserve", "0",
                    "--dir", dir.toString(), "--resume");
        } finally {
            System.setErr(err);
        }
        String text = resumed.toString(UTF_8);
        assertEquals(0, exit, text + log.toString(UTF_8));
        assertTrue(log.toString(UTF_8).contains("resuming at 30,000 entries"), log.toString(UTF_8));
        assertTrue(text.contains("filled 100,000 entries (70,000 by this run)"), text);
        assertTrue(text.contains("size 100,000; 5,000 present and 5,000 absent keys checked"), text);
        assertFalse(Files.exists(dir.resolve("soak.map")), "a completed resumed run deletes the file without --keep");
        ByteArrayOutputStream none = new ByteArrayOutputStream();
        assertEquals(2, run(none, "map-soak", "--entries", "10", "--dir", dir.toString(), "--resume"));
    }

    /** A map-soak in a process of its own, its stderr going to {@code log}. */
    private Process soak(Path log, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(), "-cp",
                System.getProperty("java.class.path"), "dev.colossal.cli.Main", "map-soak"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(log.toFile()).start();
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "waited a minute for " + what);
            Thread.sleep(50);
        }
    }

    /**
     * The trial: Ctrl-C or SIGTERM ended a fill with 130 or 143 and not a word. Stopped by either, it
     * says how far it got and the command that goes on from there, and exits as the signal says.
     */
    @Test
    void aSignalSaysHowFarTheFillGotAndHowToResume() throws Exception {
        Path map = dir.resolve("soak.map");
        String resumeIt = "'colossal map-soak --entries 500000000 --dir " + dir + " --resume'";
        Pattern said = Pattern.compile("map-soak: stopped at ([0-9,]+) of 500,000,000 entries; " + Pattern.quote(map
                + " keeps them: " + resumeIt + " goes on from there"));
        long reached = 0;
        for (String signal : new String[] {"TERM", "INT"}) {
            boolean resuming = signal.equals("INT");
            Path log = dir.resolve(signal + ".log");
            Process p = resuming
                    ? soak(log, "--entries", "500000000", "--reserve", "0", "--dir", dir.toString(), "--resume")
                    : soak(log, "--entries", "500000000", "--reserve", "0", "--dir", dir.toString());
            try {
                if (resuming) {
                    await("the resumed run", () -> read(log).contains("resuming at"));
                } else {
                    await("soak.map", () -> Files.exists(map));
                }
                Thread.sleep(1000); // putting
                assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor());
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "SIG" + signal + " stops map-soak");
            } finally {
                p.destroyForcibly();
            }
            String err = read(log);
            assertEquals(signal.equals("INT") ? 130 : 143, p.exitValue(), err);
            String last = err.strip().lines().reduce((a, b) -> b).orElse("");
            Matcher m = said.matcher(last);
            assertTrue(m.matches(), err);
            long at = Long.parseLong(m.group(1).replace(",", ""));
            assertTrue(at > reached, at + " after " + reached + ": " + err);
            reached = at;
            try (BytesMap kept = BytesMap.open(map)) {
                assertTrue(kept.size() >= at, kept.size() + " entries kept, " + at + " said");
                reached = kept.size();
            }
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    @Test
    void shouldFillReopenAndVerifyAHundredThousandEntries() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = run(out, "map-soak", "--entries", "100000", "--sample", "5000", "--reserve", "0",
                "--dir", dir.toString(), "--keep", "--segments", "2");
        String text = out.toString(UTF_8);
        assertEquals(0, exit, text);
        assertTrue(text.contains("filled 100,000 entries"), text);
        assertTrue(text.contains("2 segments"), text);
        assertEquals(2, MapInspector.inspect(dir.resolve("soak.map")).segments());
        assertTrue(text.contains("size 100,000; 5,000 present and 5,000 absent keys checked"), text);
        assertTrue(text.contains("all correct"), text);
        try (BytesMap map = BytesMap.open(dir.resolve("soak.map"))) {
            assertEquals(100_000, map.size());
            assertArrayEquals(longBytes(99_999 * 0x9E3779B97F4A7C15L), map.get(longBytes(99_999)));
            assertEquals(null, map.get(longBytes(100_000)));
        }
    }

    @Test
    void shouldStopEarlyWhenTheDiskWouldFallBelowTheReserve() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = run(out, "map-soak", "--entries", "3000000", "--sample", "1000", "--reserve", "1000000T",
                "--dir", dir.toString());
        String text = out.toString(UTF_8);
        assertEquals(3, exit, text);
        assertTrue(text.contains("STOPPED EARLY at 1,048,576 of 3,000,000 entries"), text);
        assertTrue(text.contains("all correct"), text);
        assertFalse(Files.exists(dir.resolve("soak.map")), "without --keep the file is deleted");
    }

    @Test
    void shouldRemoveTheDirectoriesItMadeUnlessKept() throws Exception {
        Path nested = dir.resolve("a/b");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, run(out, "map-soak", "--entries", "1000", "--sample", "10", "--reserve", "0", "--dir", nested.toString()),
                out.toString(UTF_8));
        assertFalse(Files.exists(dir.resolve("a")), "a and a/b were made for soak.map");
        assertEquals(2, run(new ByteArrayOutputStream(), "map-soak", "--resume", "--dir", nested.toString()));
        assertFalse(Files.exists(dir.resolve("a")), "nor left by a refused --resume");
        assertEquals(0, run(new ByteArrayOutputStream(), "map-soak", "--entries", "1000", "--sample", "10", "--reserve", "0",
                "--dir", nested.toString(), "--keep"));
        assertTrue(Files.exists(nested.resolve("soak.map")), "--keep keeps the file and its directories");
    }

    @Test
    void shouldRefuseAResumeWithoutItsDirBeforeMakingATemporaryOne() {
        PrintStream old = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, UTF_8));
        try {
            assertEquals(2, run(new ByteArrayOutputStream(), "map-soak", "--resume"));
        } finally {
            System.setErr(old);
        }
        assertTrue(err.toString(UTF_8).contains("--resume needs the --dir of the run to continue"), err.toString(UTF_8));
    }

    @Test
    void shouldRefuseZeroEntriesBadSegmentsAndAnExistingFile() throws Exception {
        assertEquals(2, run(new ByteArrayOutputStream(), "map-soak", "--entries", "0", "--dir", dir.toString()));
        assertEquals(2, run(new ByteArrayOutputStream(), "map-soak", "--segments", "3", "--dir", dir.toString()));
        Files.writeString(dir.resolve("soak.map"), "someone's data");
        assertEquals(2, run(new ByteArrayOutputStream(), "map-soak", "--entries", "10", "--dir", dir.toString()));
        assertEquals("someone's data", Files.readString(dir.resolve("soak.map")), "an existing file is left alone");
    }
}
