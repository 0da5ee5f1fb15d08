package dev.colossal.bench.ipc;

import java.nio.file.Files;
import java.nio.file.Path;
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
    private ConsumerProcess consumer;

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
        consumer = ConsumerProcess.start(ring, size, path);
    }

    /**
     * Pins this (the benchmark) thread, before every iteration in case JMH changed threads.
     *
     * @throws Exception if taskset fails
     */
    @Setup(Level.Iteration)
    public void pin() throws Exception {
        Pinning.pin(Pinning.threadId(), Pinning.PRODUCER_CPU);
    }

    /**
     * Stops the consumer and deletes the file.
     *
     * @throws Exception if it cannot
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        consumer.stop();
        pipe.close();
        Files.deleteIfExists(path);
    }

    /** Writes one message, waiting while the ring is full: the score is messages per second. */
    @Benchmark
    public void send() {
        while (!pipe.offer()) {
            Pinning.idle();
        }
    }
}
