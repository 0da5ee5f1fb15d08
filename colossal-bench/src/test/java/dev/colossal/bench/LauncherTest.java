package dev.colossal.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher runs the CLI from a copy of the build, so a rebuild while a server runs does not
 * rewrite the jars under it (Maven rewrites colossal-server.jar in place), with the JVM options of
 * {@code COLOSSAL_JAVA_OPTS}. Runs the real
 * {@code colossal} script in a checkout of its own holding only the built jars, so no Maven runs.
 */
class LauncherTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path checkout;

    @Test
    void aServerRunsFromACopyThatLaterBuildsLeaveAlone() throws Exception {
        Path built = checkout.resolve("colossal-server/target");
        Files.createDirectories(built.resolve("lib"));
        Path jar = built.resolve("colossal-server.jar");
        Files.copy(ROOT.resolve("colossal-server/target/colossal-server.jar"), jar);
        try (Stream<Path> libs = Files.list(ROOT.resolve("colossal-server/target/lib"))) {
            for (Path lib : libs.toList()) {
                Files.copy(lib, built.resolve("lib").resolve(lib.getFileName()));
            }
        }
        Files.copy(ROOT.resolve("colossal"), checkout.resolve("colossal"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(checkout.resolve("target"));
        Files.createFile(checkout.resolve("target/.built")); // newer than every source: nothing to build
        Path runs = checkout.resolve("target/run");

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ProcessBuilder serve = launcher("serve.log", "serve", "--port", String.valueOf(port), "--http-port", "-1",
                "--data", checkout.resolve("data").toString());
        serve.environment().put("COLOSSAL_JAVA_OPTS", " -Xmx96m  -Dcolossal.launcher.test=1 ");
        Process server = serve.start();
        try {
            awaitPong(port, server);
            // The launcher execs java, so the process is the server's JVM.
            String cmdline = Files.readString(Path.of("/proc", String.valueOf(server.pid()), "cmdline"));
            Path first = Files.readSymbolicLink(runs.resolve("current"));
            assertTrue(cmdline.contains(runs.resolve(first) + "/colossal-server.jar"), cmdline);
            assertTrue(cmdline.contains("\0-Xmx96m\0-Dcolossal.launcher.test=1\0-cp\0"), "COLOSSAL_JAVA_OPTS, word by word: " + cmdline);

            byte[] original = Files.readAllBytes(jar);
            Files.write(jar, new byte[original.length]); // what a rebuild does: same file, new bytes
            assertEquals("+OK\r\n", call(port, "SET k v"));
            assertEquals("$1\r\nv\r\n", call(port, "GET k"));
            assertArrayEquals(original, Files.readAllBytes(runs.resolve(first).resolve("colossal-server.jar")));

            Files.write(jar, original);
            Files.delete(runs.resolve("current")); // so the next launch copies the build again
            run(launcher("help.log", "help"));
            Path second = Files.readSymbolicLink(runs.resolve("current"));
            assertTrue(!second.equals(first) && Files.isDirectory(runs.resolve(first)),
                    "the copy a running server uses is kept: " + List.of(first, second));
            call(port, "SHUTDOWN NOSAVE");
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server did not stop");
        } finally {
            server.destroyForcibly();
        }
        Files.delete(runs.resolve("current"));
        run(launcher("help.log", "help"));
        try (Stream<Path> left = Files.list(runs)) {
            assertEquals(List.of(Files.readSymbolicLink(runs.resolve("current")).toString(), "current"),
                    left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "copies nothing runs from are removed");
        }
    }

    private ProcessBuilder launcher(String log, String... args) {
        ProcessBuilder pb = new ProcessBuilder(Stream.concat(Stream.of(checkout.resolve("colossal").toString()),
                Stream.of(args)).toList());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return pb.redirectErrorStream(true).redirectOutput(checkout.resolve(log).toFile());
    }

    private void run(ProcessBuilder pb) throws Exception {
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "launcher did not finish");
        assertEquals(0, p.exitValue(), Files.readString(pb.redirectOutput().file().toPath()));
    }

    private void awaitPong(int port, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && server.isAlive()) {
            try {
                if (call(port, "PING").equals("+PONG\r\n")) {
                    return;
                }
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("no PONG; launcher log:\n" + Files.readString(checkout.resolve("serve.log")));
    }

    /** Sends one inline command and reads its one-packet reply. */
    private static String call(int port, String inline) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write((inline + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[256];
            int n = in.read(buf);
            return n < 0 ? "" : new String(buf, 0, n, StandardCharsets.US_ASCII);
        }
    }
}
