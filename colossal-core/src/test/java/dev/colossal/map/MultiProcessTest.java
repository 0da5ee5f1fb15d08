package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two child JVMs and this one write one file at once; the result is the union of all their operations. */
class MultiProcessTest {

    @TempDir
    Path dir;

    @Test
    void shouldCombineTheWritesOfSeveralProcesses() throws Exception {
        Path file = dir.resolve("shared.map");
        Path stderr = dir.resolve("children.err");
        int n = 20_000;
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING,
                MapOptions.DEFAULTS.withSegments(8))) {
            List<Process> children = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                children.add(Children.start(stderr, "counter", file.toString(), "child" + c, Integer.toString(n)));
            }
            List<BufferedReader> outs = new ArrayList<>();
            for (Process p : children) {
                BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("ready", r.readLine(), () -> readQuietly(stderr));
                outs.add(r);
            }
            for (Process p : children) {
                p.getOutputStream().write('\n');
                p.getOutputStream().flush();
            }
            for (int i = 0; i < n; i++) {
                map.merge("counter" + (i % 8), "1", (a, b) -> Long.toString(Long.parseLong(a) + 1));
                map.put(MapChild.key("parent", i), MapChild.value("parent", i));
            }
            for (int c = 0; c < children.size(); c++) {
                Process p = children.get(c);
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child finished");
                String out = outs.get(c).readLine();
                assertEquals(0, p.exitValue(), () -> "child failed: " + readQuietly(stderr));
                assertEquals("done", out);
            }
            long total = 0;
            for (int c = 0; c < 8; c++) {
                total += Long.parseLong(map.get("counter" + c));
            }
            assertEquals(3L * n, total, "every merge of every process counted exactly once");
            for (String prefix : List.of("parent", "child0", "child1")) {
                for (int i = 0; i < n; i++) {
                    assertEquals(MapChild.value(prefix, i), map.get(MapChild.key(prefix, i)), prefix + " " + i);
                }
            }
            assertEquals(3 * n + 8, map.size());
            MapChecks.assertSound(map.bytes());
        }
        assertEquals("", readQuietly(stderr), "children printed no warnings");
    }

    static String readQuietly(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
