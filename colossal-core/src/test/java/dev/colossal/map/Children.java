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

    /**
     * Starts a child that takes the lock of {@code key}'s segment of {@code file} (inside a
     * {@code compute}) and holds it until killed, and returns once it holds it.
     */
    static Process hold(Path file, String key, Path stderr, Path stdout) throws Exception {
        Process holder = start(stderr, stdout, "hold", file.toString(), key);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!java.nio.file.Files.exists(stdout) || !java.nio.file.Files.readString(stdout).contains("locked")) {
            if (!holder.isAlive() || System.nanoTime() > deadline) {
                holder.destroyForcibly();
                throw new AssertionError("the child never held the lock: " + MultiProcessTest.readQuietly(stderr));
            }
            Thread.sleep(5);
        }
        return holder;
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
