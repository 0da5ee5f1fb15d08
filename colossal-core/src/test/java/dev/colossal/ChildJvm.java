package dev.colossal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM spawned on this module's compiled classes running a test's child main class. Surefire runs
 * the tests on the module path, so the class path is built from the build directories explicitly.
 */
public final class ChildJvm implements AutoCloseable {

    private static final String JAVA = ProcessHandle.current().info().command().orElse("java");
    private static final String CLASS_PATH = Path.of("target", "classes").toAbsolutePath() + java.io.File.pathSeparator
            + Path.of("target", "test-classes").toAbsolutePath();

    private final Process process;
    private final BufferedReader out;
    private final Path stderr;

    private ChildJvm(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Starts {@code main} with {@code args} (as strings) in a new JVM.
     *
     * @return the running child; its stdout is read by {@link #awaitLine}, its stderr kept in a file
     */
    public static ChildJvm start(Class<?> main, Object... args) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-Xmx64m",
                "-cp", CLASS_PATH, main.getName()));
        for (Object arg : args) {
            command.add(String.valueOf(arg));
        }
        try {
            Path stderr = java.nio.file.Files.createTempFile("colossal-child", ".err");
            stderr.toFile().deleteOnExit();
            return new ChildJvm(new ProcessBuilder(command).redirectError(stderr.toFile()).start(), stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code main} with {@code args} to its end in a new JVM under a shell's {@code ulimit}
     * ({@code "-f 4096"}, {@code "-n 128"}: a JVM has no way to lower its own limits) and returns
     * what it printed. Its output goes to {@code ARGS[0].out} and {@code ARGS[0].err} in {@code dir}.
     *
     * @throws AssertionError if it ran two minutes or failed, with what it printed on stderr
     */
    public static List<String> runUnderLimit(String ulimit, Path dir, Class<?> main, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit " + ulimit + " && exec \"$0\" \"$@\"",
                JAVA, "-Xmx64m", "-XX:-UsePerfData", "-cp", CLASS_PATH, main.getName()));   // no perf file: -f 0 forbids it
        command.addAll(List.of(args));
        Path out = dir.resolve(args[0] + ".out");
        Path err = dir.resolve(args[0] + ".err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child ran past two minutes: " + java.nio.file.Files.readString(err));
        }
        List<String> lines = java.nio.file.Files.readAllLines(out);
        if (p.exitValue() != 0) {
            throw new AssertionError("the child failed: " + lines + " " + java.nio.file.Files.readString(err));
        }
        return lines;
    }

    /** Waits for the child to print {@code line}; fails if it exits first. */
    public void awaitLine(String line) throws IOException {
        String read;
        while ((read = out.readLine()) != null) {
            if (read.equals(line)) {
                return;
            }
        }
        throw new AssertionError("child exited with status " + waitExit() + " before printing " + line
                + ":\n" + stderrOrNothing());
    }

    public int waitExit() {
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("child did not finish within 120 s");
            }
            int status = process.exitValue();
            if (status != 0) {
                System.err.println("child " + process.pid() + " exited with " + status + ":\n" + stderrOrNothing());
            }
            return status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Kills the child as {@code kill -9} does (SIGKILL): no shutdown hooks, no cleanup. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** {@return what the child wrote to stderr so far} */
    public String stderr() throws IOException {
        return java.nio.file.Files.readString(stderr);
    }

    private String stderrOrNothing() {
        try {
            return stderr();
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
