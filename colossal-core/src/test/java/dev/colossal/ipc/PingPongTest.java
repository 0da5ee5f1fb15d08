package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.colossal.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PingPongTest {

    private static final int ROUNDS = 20_000;
    /** How long this side may go on after the other process exited: its last round is already answered. */
    private static final long GRACE_MILLIS = 2_000;
    private static final long SESSION_MILLIS = 120_000;

    private final Path path = SharedRegion.shm("colossal-test-pingpong-" + ProcessHandle.current().pid());

    @AfterEach
    void deleteRegion() throws IOException {
        Files.deleteIfExists(path);
    }

    @Test
    void javaOddInAnotherProcessAndJavaEvenHereCompleteEveryRound() throws Exception {
        try (SharedRegion region = PingPong.openRegion(path); ChildJvm odd = ChildJvm.start(IpcChild.class, "pingpong", path, "ODD", ROUNDS)) {
            long timed = playWhileAlive(PingPong.Role.EVEN, ROUNDS, odd::isAlive, odd::stderr);
            odd.awaitLine("rounds " + ROUNDS);
            assertEquals(0, odd.waitExit());
            assertEquals("", odd.stderr(), "no warning: no Unsafe, no native access, no flags");
            assertEquals(ROUNDS - 1, timed, "the even side times every round but the last");
            assertEquals(2L * ROUNDS, region.getLongVolatile(PingPong.COUNTER_OFFSET));
        }
    }

    @Test
    void aPeerThatExitsEarlyFailsTheSessionWithAMessageInsteadOfHanging() throws Exception {
        try (ChildJvm odd = ChildJvm.start(IpcChild.class, "pingpong", path, "ODD", ROUNDS / 10)) {
            AssertionError e = assertThrows(AssertionError.class,
                    () -> playWhileAlive(PingPong.Role.EVEN, ROUNDS, odd::isAlive, odd::stderr));
            assertTrue(e.getMessage().contains("the other process exited"), e.getMessage());
            assertEquals(0, odd.waitExit(), "the peer itself finished its shorter session");
        }
    }

    /**
     * Plays {@code role} on a mapping of its own while the other process runs, and returns the
     * round trips it timed. The spin wait has no timeout of its own, so if the other process
     * exits and this side has not finished {@link #GRACE_MILLIS} later (or the session outlasts
     * {@link #SESSION_MILLIS}), the mapping is closed under the player, whose next access
     * throws, and the test fails saying why instead of hanging.
     */
    private long playWhileAlive(PingPong.Role role, int rounds, BooleanSupplier otherAlive, Callable<String> otherOutput)
            throws Exception {
        SharedRegion mine = PingPong.openRegion(path);
        CompletableFuture<Long> timed = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("pingpong-" + role).start(() -> {
            long[] count = {0};
            try {
                PingPong.play(mine, role, rounds, rtt -> {
                    assertTrue(rtt > 0);
                    count[0]++;
                });
                timed.complete(count[0]);
            } catch (Throwable t) {
                timed.completeExceptionally(t);
            }
        });
        long start = System.nanoTime();
        long exited = 0;
        try {
            while (true) {
                try {
                    return timed.get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException stillPlaying) {
                    long now = System.nanoTime();
                    if (exited == 0 && !otherAlive.getAsBoolean()) {
                        exited = now;
                    }
                    if (exited != 0 && now - exited > TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS)) {
                        throw new AssertionError("the other process exited before the " + role + " side finished its "
                                + rounds + " rounds (counter=" + mine.getLongVolatile(PingPong.COUNTER_OFFSET)
                                + "); its output:\n" + otherOutput.call());
                    }
                    if (now - start > TimeUnit.MILLISECONDS.toNanos(SESSION_MILLIS)) {
                        throw new AssertionError("no end to the session after " + SESSION_MILLIS + " ms (counter="
                                + mine.getLongVolatile(PingPong.COUNTER_OFFSET) + "); the other process's output:\n"
                                + otherOutput.call());
                    }
                }
            }
        } finally {
            mine.close();
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
            // Called only on failure: a live program is stopped first, so that reading its output ends.
            long timed = playWhileAlive(PingPong.Role.ODD, ROUNDS, even::isAlive, () -> "status "
                    + even.destroyForcibly().waitFor() + ", "
                    + new String(even.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            assertTrue(even.waitFor(60, TimeUnit.SECONDS));
            String out = new String(even.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, even.exitValue(), out);
            assertTrue(out.startsWith("role=even rounds=" + ROUNDS), out);
            assertEquals(ROUNDS, timed);
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
