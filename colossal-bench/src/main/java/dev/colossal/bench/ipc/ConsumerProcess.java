package dev.colossal.bench.ipc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A running {@link ConsumerMain}: the throughput benchmark's other process.
 *
 * @param process  the process
 * @param threadId its consuming thread's id, for /proc/PID/task/ID
 */
record ConsumerProcess(Process process, String threadId) {

    /** Starts the consumer on an existing ring file, waits until it has opened it, and pins it. */
    static ConsumerProcess start(String ring, int size, Path path) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(new IpcSuite().jvmFlags());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ConsumerMain.class.getName(),
                ring, String.valueOf(Pipe.CAPACITY), String.valueOf(size), path.toString()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("READY ")) {
            process.destroyForcibly();
            throw new IllegalStateException("consumer process did not start: " + line);
        }
        String tid = line.substring("READY ".length());
        Pinning.pin(tid, Pinning.CONSUMER_CPU);
        return new ConsumerProcess(process, tid);
    }

    /** {@return the consumer thread's /proc directory} */
    Path task() {
        return Path.of("/proc", String.valueOf(process.pid()), "task", threadId);
    }

    /** Stops the consumer (its shutdown hook prints its poll counts) and waits for it. */
    void stop() throws InterruptedException {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
