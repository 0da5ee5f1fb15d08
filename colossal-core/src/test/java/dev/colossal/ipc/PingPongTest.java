package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PingPongTest {

    private static final int ROUNDS = 20_000;

    private final Path path = SharedRegion.shm("colossal-test-pingpong-" + ProcessHandle.current().pid());

    @AfterEach
    void deleteRegion() throws IOException {
        Files.deleteIfExists(path);
    }

    @Test
    void javaOddInAnotherProcessAndJavaEvenHereCompleteEveryRound() throws Exception {
        try (SharedRegion region = PingPong.openRegion(path); ChildJvm odd = ChildJvm.start("pingpong", path, "ODD", ROUNDS)) {
            long[] count = {0};
            PingPong.play(region, PingPong.Role.EVEN, ROUNDS, rtt -> {
                assertTrue(rtt > 0);
                count[0]++;
            });
            odd.awaitLine("rounds " + ROUNDS);
            assertEquals(0, odd.waitExit());
            assertEquals("", odd.stderr(), "no warning: no Unsafe, no native access, no flags");
            assertEquals(ROUNDS - 1, count[0], "the even side times every round but the last");
            assertEquals(2L * ROUNDS, region.getLongVolatile(PingPong.COUNTER_OFFSET));
        }
    }

    @Test
    void javaOddPlaysAgainstTheCProgramOnTheSameRegion() throws Exception {
        Path source = Path.of("..", "colossal-bench", "src", "main", "c", "pingpong.c").toAbsolutePath();
        Path binary = Path.of("target", "pingpong-test").toAbsolutePath();
        assumeTrue(Files.exists(source), "C source not found at " + source);
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-std=c11", "-o", binary.toString(), source.toString())
                    .redirectErrorStream(true).start();
        } catch (IOException noGcc) {
            assumeTrue(false, "gcc is not installed: " + noGcc.getMessage());
            return;
        }
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, gcc.exitValue(), new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        try (SharedRegion region = PingPong.openRegion(path)) {
            Process even = new ProcessBuilder(binary.toString(), "even", path.toString(), String.valueOf(ROUNDS))
                    .redirectErrorStream(true).start();
            long[] count = {0};
            PingPong.play(region, PingPong.Role.ODD, ROUNDS, rtt -> count[0]++);
            assertTrue(even.waitFor(60, TimeUnit.SECONDS));
            String out = new String(even.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, even.exitValue(), out);
            assertTrue(out.startsWith("role=even rounds=" + ROUNDS), out);
            assertEquals(ROUNDS, count[0]);
            assertEquals(2L * ROUNDS, region.getLongVolatile(PingPong.COUNTER_OFFSET));
        }
    }

    @Test
    void aSecondSessionOnAUsedRegionWorksWithTheEvenRoleStartedFirst() throws Exception {
        try (SharedRegion region = PingPong.openRegion(path)) {
            for (int session = 0; session < 2; session++) {
                long[] evenRounds = {0};
                Thread even = Thread.ofPlatform().start(() ->
                        PingPong.play(region, PingPong.Role.EVEN, 1_000, rtt -> evenRounds[0]++));
                Thread.sleep(50);                          // even is waiting before odd resets the counter
                long[] oddRounds = {0};
                PingPong.play(region, PingPong.Role.ODD, 1_000, rtt -> oddRounds[0]++);
                even.join();
                assertEquals(1_000, oddRounds[0]);
                assertEquals(999, evenRounds[0]);
                assertEquals(2_000, region.getLongVolatile(PingPong.COUNTER_OFFSET));
            }
        }
    }

    @Test
    void anotherKindOfRegionIsRefused() throws IOException {
        SharedRegion.create(path, RegionKind.RAW, PingPong.PAYLOAD_SIZE).close();
        IpcException e = assertThrows(IpcException.class, () -> PingPong.openRegion(path));
        assertTrue(e.getMessage().contains("kind=RAW"), e.getMessage());
    }
}
