package dev.colossal.bench.ipc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Messages per second through a ring from the benchmark thread to a consumer in another
 * process ({@link ConsumerMain}), both mapping one /dev/shm file. Each fork uses one
 * implementation only, so the calls through {@link Pipe} stay monomorphic.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RingThroughputBench {

    /** Ring data bytes for both libraries. */
    static final int CAPACITY = 1 << 16;

    /** Which ring: colossal or agrona, one-to-one or many-to-one. */
    @Param({"colossal-spsc", "agrona-spsc", "colossal-mpsc", "agrona-mpsc"})
    public String ring;

    /** Message payload bytes. */
    @Param({"32", "64", "256"})
    public int size;

    private Path path;
    private Pipe pipe;
    private Process consumer;

    /** Creates the state; JMH calls this. */
    public RingThroughputBench() {}

    /**
     * Creates the ring and starts its consumer process.
     *
     * @throws Exception if either fails
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        path = Path.of("/dev/shm", "colossal-bench-ring-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        pipe = Pipe.open(ring, CAPACITY, size, path, true);
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(new IpcSuite().jvmFlags());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ConsumerMain.class.getName(),
                ring, String.valueOf(CAPACITY), String.valueOf(size), path.toString()));
        consumer = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(consumer.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (!"READY".equals(line)) {
            throw new IllegalStateException("consumer process did not start: " + line);
        }
    }

    /**
     * Stops the consumer and deletes the file.
     *
     * @throws Exception if it cannot
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        consumer.destroy();
        consumer.waitFor(10, TimeUnit.SECONDS);
        pipe.close();
        Files.deleteIfExists(path);
    }

    /** Writes one message, yielding while the ring is full: the score is messages per second. */
    @Benchmark
    public void send() {
        while (!pipe.offer()) {
            Thread.yield();
        }
    }
}
