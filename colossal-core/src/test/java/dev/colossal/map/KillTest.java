package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
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
 * file at any moment, while a third process compacts it in a loop (and is killed now and then). Every operation a writer acknowledged must be in the file afterwards, the
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

        long lastAck() throws IOException {
            return Acks.last(acks);
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
        // A third process compacts the file in a loop, moving entries and handing chunks to the
        // spare extents while the writers take them, and is killed now and then too.
        Process compactor = null;
        int compactorKills = 0;
        while (kills < KILLS) {
            if (compactor == null || !compactor.isAlive()) {
                compactor = Children.start(stderr, dir.resolve("compactor.out"), "compactor", file.toString(), "c",
                        "1000000", "5");
            }
            if (rnd.nextInt(4) == 0) {
                Thread.sleep(rnd.nextInt(100));
                compactor.destroyForcibly();
                compactor.waitFor();
                compactorKills++;
            }
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
        compactor.destroyForcibly();
        compactor.waitFor();
        for (Writer w : running) {
            w.process.destroyForcibly();
            w.process.waitFor();
            acked.put(w.prefix, w.lastAck());
        }
        assertEquals("", MultiProcessTest.readQuietly(stderr), "writers printed nothing on stderr");

        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
            long checked = 0;
            for (Map.Entry<String, Long> e : acked.entrySet()) {
                checked += Acks.check(map, e.getKey(), e.getValue());
            }
            assertTrue(checked > KILLS, "acknowledged operations checked: " + checked);
            long repairs = 0;
            for (int i = 0; i < map.bytes().segmentCount(); i++) {
                repairs += map.bytes().segment(i).repairs();
            }
            System.out.println("kills=" + KILLS + " compactor kills=" + compactorKills + " acknowledged ops checked="
                    + checked + " segments repaired=" + repairs);
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
}
