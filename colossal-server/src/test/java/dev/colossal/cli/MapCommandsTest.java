package dev.colossal.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.map.BytesMap;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code colossal inspect}, {@code verify}, {@code compact}, {@code copy} and {@code repair}: output and exit codes. */
class MapCommandsTest {

    @TempDir
    Path dir;

    private Path map() throws Exception {
        Path file = dir.resolve("cli.map");
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < 500; i++) {
                map.put(("k" + i).getBytes(UTF_8), ("value " + i).getBytes(UTF_8));
            }
        }
        return file;
    }

    @Test
    void shouldInspectAMap() throws Exception {
        Cli.Run r = Cli.run("inspect", map().toString());
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("entries     500"), r.out());
    }

    @Test
    void shouldExitZeroForASoundMapOneForADamagedOneTwoForAForeignFile() throws Exception {
        Path file = map();
        Cli.Run sound = Cli.run("verify", "--no-progress", file.toString());
        assertEquals(0, sound.exit(), sound.out());
        assertTrue(sound.out().contains("500 entries, sound"), sound.out());

        // Flip a byte inside the stored value "value 250" (free space may hold stale bytes that
        // nothing reads, so the damage is put where it matters).
        byte[] content = Files.readAllBytes(file);
        int at = new String(content, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("value 250");
        assertTrue(at > 0);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~content[at + 3]}), at + 3);
        }
        Cli.Run damaged = Cli.run("verify", "--no-progress", file.toString());
        assertEquals(1, damaged.exit(), damaged.out());
        assertTrue(damaged.out().contains("damaged: ") && damaged.out().contains("offset="), damaged.out());
        assertTrue(damaged.out().contains("what to do: restore " + file + " from a copy"), damaged.out());
        assertFalse(damaged.out().contains("colossal verify"), "verify does not send the user to verify: " + damaged.out());

        Path foreign = Files.writeString(dir.resolve("notes.txt"), "x".repeat(5000));
        assertEquals(2, Cli.run("verify", "--no-progress", foreign.toString()).exit());
        assertEquals(2, Cli.run("inspect", dir.resolve("missing.map").toString()).exit());
    }

    @Test
    void shouldCompactAMapAndReportAnUnreadableFileInOneLine() throws Exception {
        Path file = map();
        Cli.Run done = Cli.run("compact", "--no-progress", file.toString());
        assertEquals(0, done.exit(), done.err());
        assertTrue(done.out().startsWith(file + ": 500 entries; ") && done.out().strip().endsWith(" free; no leaked space found"),
                done.out());
        assertFalse(done.out().contains("colossal copy"), "a full map needs no copy: " + done.out());

        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < 60_000; i++) {
                map.put(("big" + i).getBytes(UTF_8), new byte[200]);
            }
            for (int i = 0; i < 60_000; i++) {
                map.remove(("big" + i).getBytes(UTF_8));
            }
        }
        Cli.Run emptied = Cli.run("compact", "--no-progress", file.toString());
        // The free bytes grew by the chunk headers, which a map no process died writing did not leak.
        assertTrue(emptied.out().contains(" more than before: the headers of chunks emptied into spare extents);"
                + " no leaked space found"), emptied.out());
        assertTrue(emptied.out().contains("to give the free space back to the disk: 'colossal copy " + file + " NEW_FILE'"),
                emptied.out());

        Path foreign = Files.writeString(dir.resolve("notes.txt"), "x".repeat(5000));
        Cli.Run unreadable = Cli.run("compact", "--no-progress", foreign.toString());
        assertEquals(2, unreadable.exit());
        assertTrue(unreadable.err().startsWith("colossal compact: file=" + foreign + " is not a Colossal map"), unreadable.err());
        assertEquals(1, unreadable.err().lines().count(), unreadable.err());
        assertEquals(2, Cli.run("compact", dir.resolve("missing.map").toString()).exit());
    }

    @Test
    void copyShouldWriteAPackedMapAndRefuseToOverwrite() throws Exception {
        Path file = map();
        Path target = dir.resolve("copy.map");
        Cli.Run done = Cli.run("copy", "--no-progress", "--segments", "8", file.toString(), target.toString());
        assertEquals(0, done.exit(), done.err());
        assertTrue(done.out().startsWith(file + " (") && done.out().contains(target + " (") && done.out().contains("): 500 entries"),
                done.out());
        try (BytesMap copy = BytesMap.open(target)) {
            assertEquals("value 499", new String(copy.get("k499".getBytes(UTF_8)), UTF_8));
            assertEquals(500, copy.size());
        }
        assertTrue(Cli.run("inspect", target.toString()).out().contains("layout      8 segments"), "the layout asked for");

        Cli.Run exists = Cli.run("copy", "--no-progress", file.toString(), target.toString());
        assertEquals(2, exists.exit());
        assertEquals("colossal copy: " + target + " exists; name a new file (copy never overwrites one)", exists.err().strip());

        Cli.Run badCount = Cli.run("copy", "--segments", "3", file.toString(), dir.resolve("other.map").toString());
        assertEquals(2, badCount.exit());
        assertTrue(badCount.err().startsWith("colossal copy: --segments=3: "), badCount.err());
        assertEquals(2, Cli.run("copy", dir.resolve("missing.map").toString(), dir.resolve("x.map").toString()).exit());
        Cli.Run noDir = Cli.run("copy", file.toString(), dir.resolve("no/such/dir/x.map").toString());
        assertEquals(2, noDir.exit());
        assertEquals("colossal copy: " + dir.resolve("no/such/dir") + ": the copy's directory does not exist; create it first",
                noDir.err().strip());
    }

    /**
     * A copy onto a full disk (here: a child JVM under {@code ulimit -f}, whose writes past the limit
     * fail as a full disk's do) names the target and says what to do, whether the new file could not
     * be created or could not grow; nothing is left behind. The trial saw only "No space left on device".
     */
    @Test
    void copyOntoAFullDiskNamesTheTargetAndLeavesNothing() throws Exception {
        Path file = dir.resolve("big.map");
        try (BytesMap map = BytesMap.open(file)) {
            for (int i = 0; i < 5000; i++) {
                map.put(("k" + i).getBytes(UTF_8), new byte[1000]);
            }
        }
        Path out = Files.createDirectory(dir.resolve("full"));
        for (int limitKiB : new int[] {64, 2048}) {   // fails creating the file, then growing it
            Path target = out.resolve("copy.map");
            String java = ProcessHandle.current().info().command().orElseThrow();
            Process p = new ProcessBuilder("bash", "-c", "ulimit -f " + limitKiB + " && exec \"$0\" \"$@\"", java, "-cp",
                    System.getProperty("java.class.path"), "dev.colossal.cli.Main", "copy", "--no-progress",
                    file.toString(), target.toString()).redirectErrorStream(true).start();
            String printed = new String(p.getInputStream().readAllBytes(), UTF_8).strip();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(2, p.exitValue(), printed);
            assertEquals("colossal copy: " + target + ": cannot write the copy: File too large; free space there or copy to"
                    + " another disk (the source is " + ByteSize.format(Files.size(file)) + "; nothing was left behind)",
                    printed, "limit " + limitKiB + " KiB");
            try (var left = Files.list(out)) {
                assertEquals(List.of(), left.toList());
            }
        }
    }

    @Test
    void repairShouldRemoveTheDamagedEntryAndKeepTheRest() throws Exception {
        Path file = map();
        byte[] content = Files.readAllBytes(file);
        int at = new String(content, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("value 250");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~content[at + 3]}), at + 3);
        }
        Cli.Run damaged = Cli.run("verify", "--no-progress", file.toString());
        assertEquals(1, damaged.exit(), damaged.out());
        assertTrue(damaged.out().contains("run 'colossal repair " + file + "'"), damaged.out());

        Cli.Run repaired = Cli.run("repair", "--no-progress", file.toString());
        assertEquals(0, repaired.exit(), repaired.err());
        assertTrue(repaired.out().contains("removed: damaged entry at offset="), repaired.out());
        assertTrue(repaired.out().contains(file + ": 1 damaged entries removed, 499 entries kept"), repaired.out());
        assertEquals(0, Cli.run("verify", "--no-progress", file.toString()).exit(), "sound after the repair");
        try (BytesMap map = BytesMap.open(file)) {
            assertEquals(null, map.get("k250".getBytes(UTF_8)));
            assertEquals("value 249", new String(map.get("k249".getBytes(UTF_8)), UTF_8));
        }
        Cli.Run again = Cli.run("repair", "--no-progress", file.toString());
        assertTrue(again.out().contains(": 0 damaged entries removed, 499 entries kept"), again.out());
        assertEquals(2, Cli.run("repair", dir.resolve("missing.map").toString()).exit());
    }
}
