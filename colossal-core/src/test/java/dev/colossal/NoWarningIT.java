package dev.colossal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the built core jar in a fresh, stock JVM (no flags at all) through every layer that touches
 * memory, and checks that the JVM prints nothing to stderr: no Unsafe deprecation warning, no
 * native-access warning.
 */
class NoWarningIT {

    private static final String PROGRAM = """
            import dev.colossal.array.*;
            import dev.colossal.memory.*;
            import java.lang.foreign.*;

            public class Smoke {
                public static void main(String[] args) throws Exception {
                    try (MappedArena arena = MappedArena.ofTemp();
                         ChunkPool pool = ChunkPool.builder().chunkSize(4096).slabSize(1 << 20).build();
                         DoubleArray a = DoubleArray.segmented(pool, 100_000);
                         LongArray b = LongArray.contiguous(arena, 1000)) {
                        arena.allocate(64, 64).set(ValueLayout.JAVA_LONG, 0, 1);
                        for (long i = 0; i < a.length(); i++) {
                            a.set(i, i);
                        }
                        b.fill(2);
                        System.out.println("sum=" + (long) a.stream().parallel().sum() + " " + b.stream().sum());
                    }
                    try (SparseFiles span = SparseFiles.map(java.nio.file.Path.of(args[0]), 1L << 40)) {
                        span.segments().get(0).set(ValueLayout.JAVA_BYTE, (1L << 40) - 1, (byte) 1);
                    }
                }
            }
            """;

    @Test
    void theCoreJarRunsOnAStockJvmWithoutAnyWarning(@TempDir Path tmp) throws Exception {
        Path jar = coreJar();
        Path source = tmp.resolve("Smoke.java");
        Files.writeString(source, PROGRAM);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-cp", jar.toString(), source.toString(),
                tmp.resolve("sparse").toString())
                .redirectErrorStream(false)
                .start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the smoke program did not finish");
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("", err, "stderr of a stock JVM running the core");
        assertEquals(0, process.exitValue());
        assertEquals("sum=4999950000 2000", out.strip());
    }

    private static Path coreJar() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            List<Path> jars = files.filter(p -> p.getFileName().toString().matches("colossal-core-.*\\.jar"))
                    .filter(p -> !p.getFileName().toString().contains("-tests")).toList();
            assertEquals(1, jars.size(), "expected exactly one built core jar in target/: " + jars);
            return jars.getFirst();
        }
    }
}
