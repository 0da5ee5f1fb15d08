package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills writer JVMs with SIGKILL at random points of their stream, 50 times, two writers on the
 * file at any moment. Every operation a writer acknowledged must be in the file afterwards, the
 * one it was doing may or may not be, nothing else may appear, and no lock stays stuck: the
 * surviving writer keeps going, and the final check reads and writes every segment.
 */
class KillTest {

    private static final int KILLS = Integer.getInteger("colossal.kills", 50);

    @TempDir
    Path dir;

    /**
     * A writer JVM. Its acknowledgements go to a file, not a pipe: the JDK drains and closes a
     * dead child's pipe under a concurrent reader, which would lose the last acknowledgements.
     */
    private static final class Writer {
        final String prefix;
        final Process process;
        final Path acks;

        Writer(String prefix, Process process, Path acks) {
            this.prefix = prefix;
            this.process = process;
            this.acks = acks;
        }

        /** The last op the writer acknowledged, or -1. */
        long lastAck() throws IOException {
            if (!Files.exists(acks)) {
                return -1;
            }
            try (RandomAccessFile f = new RandomAccessFile(acks.toFile(), "r")) {
                long len = f.length();
                byte[] tail = new byte[(int) Math.min(len, 64)];
                f.seek(len - tail.length);
                f.readFully(tail);
                String[] lines = new String(tail, StandardCharsets.US_ASCII).split("\n");
                for (int i = lines.length - 1; i >= 0; i--) {
                    String line = lines[i].trim();
                    if (!line.isEmpty() && !line.equals("ready") && (i > 0 || tail.length == len)) {
                        return Long.parseLong(line);
                    }
                }
                return -1;
            }
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedWriteThroughManyKills() throws Exception {
        Path file = dir.resolve("killed.map");
        Path stderr = dir.resolve("writers.err");
        Random rnd = new Random(20261121);
        List<Writer> running = new ArrayList<>();
        Map<String, Long> acked = new LinkedHashMap<>();
        int generation = 0;
        int kills = 0;
        while (kills < KILLS) {
            while (running.size() < 2) {
                String prefix = "g" + generation++;
                Path acks = dir.resolve(prefix + ".acks");
                running.add(new Writer(prefix, Children.start(stderr, acks, "writer", file.toString(), prefix), acks));
            }
            Writer victim = running.get(rnd.nextInt(running.size()));
            long target = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(1500);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (victim.lastAck() < target) {
                if (!victim.process.isAlive()) {
                    fail("writer " + victim.prefix + " died by itself: " + MultiProcessTest.readQuietly(stderr));
                }
                if (System.nanoTime() > deadline) {
                    fail("writer " + victim.prefix + " made no progress for 60 s (a stuck lock?) at ack "
                            + victim.lastAck());
                }
                Thread.sleep(1);
            }
            victim.process.destroyForcibly();
            victim.process.waitFor();
            running.remove(victim);
            acked.put(victim.prefix, victim.lastAck());
            kills++;
        }
        for (Writer w : running) {
            w.process.destroyForcibly();
            w.process.waitFor();
            acked.put(w.prefix, w.lastAck());
        }
        assertEquals("", MultiProcessTest.readQuietly(stderr), "writers printed nothing on stderr");

        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            long checked = 0;
            for (Map.Entry<String, Long> e : acked.entrySet()) {
                checked += checkWriter(map, e.getKey(), e.getValue());
            }
            assertTrue(checked > KILLS, "acknowledged operations checked: " + checked);
            long repairs = 0;
            for (int i = 0; i < map.bytes().segmentCount(); i++) {
                repairs += map.bytes().segment(i).repairs();
            }
            System.out.println("kills=" + KILLS + " acknowledged ops checked=" + checked + " segments repaired=" + repairs);
            assertTrue(repairs > 0, "some kills hit a writer holding a segment lock, and it was taken over");
            Thread writer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 500; i++) {
                    map.put("after-" + i, "v" + i);
                }
            });
            writer.join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(!writer.isAlive(), "every segment's lock can be taken after the kills");
            map.bytes().compact();
            MapChecks.assertSound(map.bytes());
        }
    }

    /** Checks one writer's keys against its last acknowledged op; returns the number checked. */
    private static long checkWriter(ColossalMap<String, String> map, String prefix, long last) {
        long inFlight = last + 1;
        for (long i = 0; i <= inFlight + 1; i++) {
            String actual = map.get(MapChild.key(prefix, i));
            String where = "writer=" + prefix + " lastAck=" + last + " key=" + MapChild.key(prefix, i);
            boolean touchedInFlight = i == inFlight || (inFlight % 3 == 0 && inFlight >= 5 && i == inFlight - 5);
            if (actual != null) {
                assertEquals(MapChild.value(prefix, i), actual, where);
            }
            if (touchedInFlight || i > inFlight) {
                if (i > inFlight) {
                    assertEquals(null, actual, where + ": never written");
                }
                continue;
            }
            boolean removed = (i + 5) <= last && (i + 5) % 3 == 0 && i + 5 >= 5;
            assertEquals(!removed, actual != null, where + (removed ? ": acknowledged remove" : ": acknowledged put"));
        }
        return last + 1;
    }
}
