package dev.colossal.ipc;

import java.time.Instant;
import java.util.Optional;

/**
 * A process as one non-zero long: pid in the low 32 bits, start time (epoch seconds, low 32
 * bits) in the high 32 bits, so a pid reused by a later process is not mistaken for the owner.
 */
final class ProcessIdentity {

    private static final long CURRENT = of(ProcessHandle.current());

    private ProcessIdentity() {}

    static long current() {
        return CURRENT;
    }

    static int pid(long identity) {
        return (int) identity;
    }

    private static long of(ProcessHandle handle) {
        long start = handle.info().startInstant().map(Instant::getEpochSecond).orElse(0L);
        return (start << 32) | (handle.pid() & 0xFFFF_FFFFL);
    }

    /** {@return whether the process is gone: no such pid, or the pid now names a later process} */
    static boolean isDead(long identity) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid(identity));
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return true;
        }
        long start = identity >>> 32;
        return start != 0 && (of(handle.get()) >>> 32) != start && (of(handle.get()) >>> 32) != 0;
    }
}
