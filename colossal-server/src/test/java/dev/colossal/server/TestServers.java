package dev.colossal.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** Starting servers for tests: ours in-process, and Debian's redis-server as the reference. */
final class TestServers {

    private TestServers() {}

    static ColossalServer colossal(Path dir) throws IOException {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1));
    }

    /**
     * Ours in-process with settings given at start, as a config file's lines would give them.
     *
     * @param settings name, value, name, value, ...: e.g. {@code "enable-debug-command", "yes"}
     */
    static ColossalServer colossal(Path dir, String... settings) throws IOException {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1), null, null, s -> {
            for (int i = 0; i + 1 < settings.length; i += 2) {
                String error = s.set(settings[i], settings[i + 1]);
                if (error != null) {
                    throw new IllegalArgumentException(settings[i] + " " + settings[i + 1] + ": " + error);
                }
            }
        });
    }

    /**
     * Starts {@code colossal serve} in a JVM of its own on {@code data} (with {@code moreFlags}),
     * its output to {@code log}, and waits for its PONG: a server a test can kill with SIGKILL.
     */
    static Process serveInChildJvm(int port, Path data, Path log, String... moreFlags) throws Exception {
        return serveInChildJvm(List.of(), port, data, log, moreFlags);
    }

    /** As {@link #serveInChildJvm(int, Path, Path, String...)}, the JVM started with {@code jvmOptions} (a small -Xmx). */
    static Process serveInChildJvm(List<String> jvmOptions, int port, Path data, Path log, String... moreFlags) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new java.util.ArrayList<>(List.of(java));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "dev.colossal.cli.Main", "serve", "--port", Integer.toString(port), "--http-port", "-1", "--data",
                data.toString()));
        cmd.addAll(List.of(moreFlags));
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitPong(port, server, log);
        } catch (Exception | AssertionError e) {
            server.destroyForcibly().waitFor();
            throw e;
        }
        return server;
    }

    /** Waits up to 30 s for a server started as a child process to answer PING; fails with its log. */
    static void awaitPong(int port, Process server, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && server.isAlive()) {
            try (Wire w = new Wire(port)) {
                w.socket.setSoTimeout(2000);
                if (w.call("PING").equals("+PONG\r\n")) {
                    return;
                }
            } catch (IOException e) {
                Thread.sleep(200);
            }
        }
        throw new AssertionError("no PONG from port " + port + "; server log:\n" + Files.readString(log));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** @return the path of a command on PATH, or null */
    static Path onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** A check run against a server on {@code port}. */
    @FunctionalInterface
    interface PortCheck {
        void run(int port) throws Exception;
    }

    /** What a run of requests against a server on {@code port} saw. */
    @FunctionalInterface
    interface PortRun<T> {
        T run(int port) throws Exception;
    }

    /**
     * Asserts that {@code run} sees {@code want} on a fresh Colossal in {@code data}, then on a fresh
     * redis-server, the reference, where it is installed.
     */
    static <T> void sameOnBoth(Path data, T want, PortRun<T> run) throws Exception {
        try (ColossalServer server = colossal(data)) {
            org.junit.jupiter.api.Assertions.assertEquals(want, run.run(server.port()), "colossal");
        }
        onRedis(port -> org.junit.jupiter.api.Assertions.assertEquals(want, run.run(port), "redis-server"));
    }

    /**
     * Runs {@code check} against a fresh redis-server, the reference, and stops it after; does
     * nothing (with {@link #redis}'s loud message) where redis-server is not installed.
     */
    static void onRedis(PortCheck check) throws Exception {
        onRedisWith(List.of(), check);
    }

    /** {@link #onRedis} on a redis-server started with {@code settings}, e.g. {@code --enable-debug-command yes}. */
    static void onRedisWith(List<String> settings, PortCheck check) throws Exception {
        int port = freePort();
        Process redis = redis(port, settings.toArray(String[]::new));
        if (redis == null) {
            return;
        }
        try {
            check.run(port);
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /**
     * Starts redis-server on a free port with persistence off.
     *
     * @param settings more command-line settings, e.g. {@code "--proto-max-bulk-len", "1mb"}
     * @return the process and port, or null (with a loud message) if redis-server is not installed
     */
    static Process redis(int port, String... settings) throws IOException, InterruptedException {
        Path exe = onPath("redis-server");
        if (exe == null) {
            System.err.println("!!! redis-server is not installed: reference comparison SKIPPED. "
                    + "Install it with 'apt-get install redis-server redis-tools' (./colossal test does this).");
            return null;
        }
        List<String> cmd = new java.util.ArrayList<>(List.of(exe.toString(), "--port", Integer.toString(port), "--save", "",
                "--appendonly", "no", "--bind", "127.0.0.1"));
        cmd.addAll(List.of(settings));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Wire w = new Wire(port)) {
                String pong = w.call("PING");
                if (pong.equals("+PONG\r\n") || pong.startsWith("-NOAUTH")) { // up, with --requirepass
                    return p;
                }
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IOException("redis-server did not start on port " + port);
    }

    static int run(List<String> cmd, Path output) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        return p.exitValue();
    }

    /**
     * Waits up to 30 s for {@code count} to pass {@code floor}: a crash test's kill waits for the
     * first acknowledged write, which a machine busy with other work can make later than its pause.
     */
    static void awaitAbove(java.util.concurrent.atomic.AtomicLong count, long floor) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count.get() <= floor && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    /** Polls {@code value} every 10 ms until it equals {@code want} or {@code millis} pass; returns the last value. */
    static <T> T await(T want, long millis, Callable<T> value) throws Exception {
        long deadline = System.nanoTime() + millis * 1_000_000;
        T v = value.call();
        while (!want.equals(v) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            v = value.call();
        }
        return v;
    }
}
