package dev.colossal.codec;

import static dev.colossal.codec.CodecRoundTripTest.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application in a named module of its own, in a fresh JVM: what its module-info must say for
 * codecs and structs of its types, and what the errors say when it does not. A package exported only
 * to dev.colossal.core is not enough for {@code Codecs.of(Class)}, which reads through the public
 * lookup, and a struct interface in a package not exported to Colossal cannot be implemented.
 */
class NamedModuleUseTest {

    private static final Map<String, String> SOURCES = Map.of(
            "module-info.java", """
                    module trial.model {
                        requires dev.colossal.core;
                        exports app;
                        exports qualified to dev.colossal.core;
                    }
                    """,
            "hidden/Tick.java", """
                    package hidden;
                    public interface Tick { long time(); void time(long t); }
                    """,
            "qualified/User.java", """
                    package qualified;
                    public record User(String name, int age) {}
                    """,
            "app/Main.java", """
                    package app;
                    import dev.colossal.codec.Codecs;
                    import dev.colossal.struct.StructType;
                    import java.lang.invoke.MethodHandles;
                    public class Main {
                        public static void main(String[] args) {
                            try { StructType.of(hidden.Tick.class); System.out.println("tick: made"); }
                            catch (Throwable e) { System.out.println("tick: " + e); }
                            try { Codecs.of(qualified.User.class); System.out.println("user: made"); }
                            catch (Throwable e) { System.out.println("user: " + e); }
                            Codecs.of(qualified.User.class, MethodHandles.lookup());
                            System.out.println("user with lookup: made");
                        }
                    }
                    """);

    @TempDir
    Path dir;

    @Test
    void errorsSayWhatTheModuleInfoMustExportOrWhichLookupToPass() throws Exception {
        Path classes = Path.of(WireCodec.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path src = dir.resolve("src");
        for (Map.Entry<String, String> e : SOURCES.entrySet()) {
            Path file = src.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
        }
        Path out = dir.resolve("out");
        List<String> javac = new ArrayList<>(List.of("--module-path", classes.toString(), "-d", out.toString()));
        SOURCES.keySet().forEach(k -> javac.add(src.resolve(k).toString()));
        assertEquals(0, ToolProvider.findFirst("javac").orElseThrow().run(System.out, System.err,
                javac.toArray(String[]::new)), "javac " + javac);

        String launcher = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(launcher, "--module-path", classes + File.pathSeparator + out,
                "-m", "trial.model/app.Main").redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child JVM did not finish in 60 s");
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), output);
        // the struct: an IllegalArgumentException naming the export, not the JVM's IllegalAccessError
        assertContains(output, "tick: java.lang.IllegalArgumentException: struct interface hidden.Tick is in package "
                + "hidden, which module trial.model does not export to dev.colossal.core, so no flyweight class can "
                + "implement it: add 'exports hidden to dev.colossal.core;' (or 'exports hidden;') to its module-info");
        assertContains(output, "user: java.lang.IllegalArgumentException: field=User.name: type=qualified.User is not "
                + "accessible to Colossal: package qualified is exported only to some modules, and Codecs.of(Class) "
                + "reads types through the public lookup");
        assertContains(output, "Codecs.of(User.class, MethodHandles.lookup())");
        assertFalse(output.contains("[Ljava.lang.Object;@"), output);
        assertContains(output, "user with lookup: made");
    }
}
