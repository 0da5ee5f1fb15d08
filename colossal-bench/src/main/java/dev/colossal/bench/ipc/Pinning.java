package dev.colossal.bench.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the throughput benchmark's two threads run. Left to the scheduler on a 2-CPU machine,
 * the producer and the consumer sometimes share one CPU and take turns through yield (about a
 * fifth of the split throughput, for Agrona and for ours alike), which is what made single
 * rounds bimodal. Pinned, the producer runs on CPU 0 and the consumer on CPU 1 for every ring,
 * and both spin while they wait: neither can take the other's CPU. {@code COLOSSAL_IPC_PIN=0}
 * turns it off (both then yield while waiting); it is off by itself on one CPU or without taskset.
 */
final class Pinning {

    static final int PRODUCER_CPU = 0;
    static final int CONSUMER_CPU = 1;

    private static final boolean ENABLED = !"0".equals(System.getenv("COLOSSAL_IPC_PIN"))
            && Runtime.getRuntime().availableProcessors() >= 2 && Files.isExecutable(Path.of("/usr/bin/taskset"));

    private Pinning() {}

    /** {@return whether the threads are pinned (and spin)} */
    static boolean enabled() {
        return ENABLED;
    }

    /** {@return how the two sides were placed, for the results} */
    static String describe() {
        return ENABLED ? "producer thread pinned to CPU " + PRODUCER_CPU + ", consumer thread to CPU " + CONSUMER_CPU
                + " (taskset), both spin while waiting"
                : "threads placed by the scheduler, both yield while waiting";
    }

    /** Waits for the other side: spins when pinned (the CPU is ours alone), yields otherwise. */
    static void idle() {
        if (ENABLED) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    /** {@return the calling thread's /proc/self/task directory} */
    static Path currentTask() throws IOException {
        return Path.of("/proc/self/task", threadId());
    }

    /** {@return the calling thread's kernel thread id} */
    static String threadId() throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
    }

    /** Pins the thread {@code tid} to {@code cpu} if pinning is enabled. */
    static void pin(String tid, int cpu) throws IOException, InterruptedException {
        if (!ENABLED) {
            return;
        }
        Process p = new ProcessBuilder("taskset", "-p", "-c", String.valueOf(cpu), tid)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("taskset -p -c " + cpu + " " + tid + " failed; COLOSSAL_IPC_PIN=0 runs unpinned");
        }
    }

    /**
     * {@return nanoseconds the thread has spent runnable but waiting for a CPU (schedstat's second
     * field): another process had its CPU}
     */
    static long runQueueWait(Path task) throws IOException {
        return Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[1]);
    }

    /** {@return the CPU the thread last ran on: field 39 of its stat line, counted after the command's ")"} */
    static String lastCpu(Path task) throws IOException {
        String stat = Files.readString(task.resolve("stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36];
    }
}
