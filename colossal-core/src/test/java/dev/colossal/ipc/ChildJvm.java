package dev.colossal.ipc;

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
 * A JVM spawned on this module's compiled classes running {@link IpcChild}. Surefire runs the
 * tests on the module path, so the class path is built from the build directories explicitly.
 */
final class ChildJvm implements AutoCloseable {

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

    static ChildJvm start(Object... args) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-Xmx64m",
                "-cp", CLASS_PATH, IpcChild.class.getName()));
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

    /** Waits for the child to print {@code line}; fails if it exits first. */
    void awaitLine(String line) throws IOException {
        String read;
        while ((read = out.readLine()) != null) {
            if (read.equals(line)) {
                return;
            }
        }
        throw new AssertionError("child exited with status " + waitExit() + " before printing " + line
                + ":\n" + stderrOrNothing());
    }

    int waitExit() {
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
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** {@return what the child wrote to stderr so far} */
    String stderr() throws IOException {
        return java.nio.file.Files.readString(stderr);
    }

    private String stderrOrNothing() {
        try {
            return stderr();
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
