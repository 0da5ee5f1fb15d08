package dev.colossal.map;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Starts {@link MapChild} in a fresh JVM on this build's classes. */
final class Children {

    private Children() {
    }

    static Process start(Path stderr, String... args) throws IOException {
        return start(stderr, null, args);
    }

    /** The command line that runs {@link MapChild} with {@code args} in a small, quick-starting JVM. */
    static List<String> command(List<String> jvmArgs, String... args) {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Surefire runs the tests on the module path; the child gets this build's classes explicitly.
        String classPath = Path.of("target", "classes").toAbsolutePath() + File.pathSeparator
                + Path.of("target", "test-classes").toAbsolutePath();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", classPath, MapChild.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Starts a child whose stdout goes to {@code stdout} (a file never loses what a killed child wrote; a pipe can). */
    static Process start(Path stderr, Path stdout, String... args) throws IOException {
        return start(stderr, stdout, List.of(), args);
    }

    static Process start(Path stderr, Path stdout, List<String> jvmArgs, String... args) throws IOException {
        List<String> cmd = command(jvmArgs, args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
        if (stdout != null) {
            pb.redirectOutput(stdout.toFile());
        }
        return pb.start();
    }
}
