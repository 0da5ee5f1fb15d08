package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class OwnerLockTest {

    private static final long PID = ProcessHandle.current().pid();

    @Test
    void shouldNeverTakeALiveProcessForDead() {
        assertFalse(OwnerLock.isDead(OwnerLock.SELF));
        long start = OwnerLock.SELF & 0xFFFF_FFFFL;
        assertFalse(OwnerLock.isDead(PID << 32 | (start + 2)), "a start time seen a little differently (clock step)");
        assertFalse(OwnerLock.isDead(PID << 32 | (start - OwnerLock.START_TOLERANCE_SECONDS)));
    }

    @Test
    void shouldTakeAReusedPidOrAGoneProcessForDead() throws Exception {
        long start = OwnerLock.SELF & 0xFFFF_FFFFL;
        assertTrue(OwnerLock.isDead(PID << 32 | (start - 3600)), "same pid, started an hour earlier: an older owner");
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-version")
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor();
        assertTrue(OwnerLock.isDead(p.pid() << 32 | start), "a process that exited");
    }

    @Test
    void shouldTakeOverALockLeftByADeadOwner() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(8, 8);
            long deadOwner = PID << 32 | ((OwnerLock.SELF & 0xFFFF_FFFFL) - 7200);
            word.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, deadOwner);
            assertEquals(deadOwner, OwnerLock.acquire(word, 0, new FileMappers(() -> word), LockHolders.of(null, 1, i -> 0), 0), "acquire reports whom it took the lock from");
            assertEquals(OwnerLock.SELF, word.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
            OwnerLock.release(word, 0);
            assertEquals(0, OwnerLock.acquire(word, 0, new FileMappers(() -> word), LockHolders.of(null, 1, i -> 0), 0), "a free lock is simply taken");
        }
    }
}
