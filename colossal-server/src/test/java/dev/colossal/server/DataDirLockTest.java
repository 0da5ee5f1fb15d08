package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One server per data directory: a second one, in this process or another JVM, is refused with the
 * holder's pid, and a holder killed with -9 leaves nothing in the way.
 */
class DataDirLockTest {

    @TempDir
    Path dir;

    @Test
    void aSecondStoreOnTheDirectoryIsRefusedUntilTheFirstCloses() throws Exception {
        MapStore first = MapStore.open(dir, System::currentTimeMillis);
        IOException e = assertThrows(IOException.class, () -> MapStore.open(dir, System::currentTimeMillis));
        assertTrue(e.getMessage().contains("is in use by another colossal serve (pid " + ProcessHandle.current().pid() + ")"),
                e.getMessage());
        first.set("k".getBytes(StandardCharsets.US_ASCII), "v".getBytes(StandardCharsets.US_ASCII), StoredValue.NO_EXPIRY);
        first.close();
        try (MapStore again = MapStore.open(dir, System::currentTimeMillis)) {
            assertEquals("v", new String(again.get("k".getBytes(StandardCharsets.US_ASCII)).value(), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aServeInAnotherJvmIsRefusedAndAKilledHolderLeavesTheDirectoryFree() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path log = dir.resolve("second.log");
        Path data = dir.resolve("data");
        try (ColossalServer ours = TestServers.colossal(data)) {
            assertTrue(ours.port() > 0);
            Process second = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                    "serve", "--port", Integer.toString(TestServers.freePort()), "--http-port", "-1", "--data", data.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertTrue(second.waitFor(60, TimeUnit.SECONDS), "the second server should stop at once");
            assertNotEquals(0, second.exitValue());
            String out = Files.readString(log);
            assertTrue(out.contains("is in use by another colossal serve (pid " + ProcessHandle.current().pid() + ")"), out);
        }
        int port = TestServers.freePort();
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--port", Integer.toString(port), "--http-port", "-1", "--data", data.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("holder.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        boolean serving = false;
        while (!serving && System.nanoTime() < deadline) {
            try (Wire w = new Wire(port)) {
                serving = w.call("PING").equals("+PONG\r\n");
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        assertTrue(serving, "the holder did not start");
        IOException refused = assertThrows(IOException.class, () -> MapStore.open(data, System::currentTimeMillis));
        assertTrue(refused.getMessage().contains("(pid " + holder.pid() + ")"), refused.getMessage());
        holder.destroyForcibly().waitFor();
        try (MapStore s = MapStore.open(data, System::currentTimeMillis)) {
            assertEquals(0, s.size());
        }
    }
}
