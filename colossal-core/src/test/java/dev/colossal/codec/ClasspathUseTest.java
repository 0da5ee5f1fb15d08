package dev.colossal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Starts a fresh JVM the way users run Colossal, the library on the module path and the
 * application on the class path, with no flags at all, and checks that codecs and structs of the
 * application's types work and that the JVM prints nothing on stderr (no warnings).
 */
class ClasspathUseTest {

    @Test
    void anApplicationOnTheClassPathUsesCodecsAndStructsWithoutFlagsOrWarnings() throws Exception {
        Path classes = Path.of(WireCodec.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path testClasses = Path.of(ClasspathUseTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(List.of(java, "--module-path", classes.toString(),
                "--add-modules", "dev.colossal.core", "-cp", testClasses.toString(),
                "dev.colossal.smoke.ClasspathApp")).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child JVM did not finish in 60 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("", err, "stderr of the child JVM");
        assertEquals("ok", out.strip());
        assertEquals(0, p.exitValue());
    }
}
