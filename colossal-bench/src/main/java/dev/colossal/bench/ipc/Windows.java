package dev.colossal.bench.ipc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Which stretches of a fixed-rate run the consumer thread had its CPU for. A thread samples,
 * every {@value #WINDOW_MS} ms, how many messages the consumer has received and how long it has
 * waited for a CPU ({@link Pinning#runQueueWait}); a window in which it waited less than a
 * thousandth of the window is undisturbed. One descheduling of the consumer delays every message
 * sent while it is away, so on a shared 2-CPU machine a few of them are the whole 1% above p99, on
 * either library; the undisturbed windows are the latency of the ring.
 */
final class Windows {

    static final int WINDOW_MS = 100;

    private final Path consumer;
    private final IntSupplier received;
    private final List<long[]> samples = new ArrayList<>();
    private Thread sampler;
    int clean;
    int total;

    Windows(Path consumer, IntSupplier received) {
        this.consumer = consumer;
        this.received = received;
    }

    void start() throws IOException {
        sample();
        sampler = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(WINDOW_MS);
                    sample();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    void stop() throws InterruptedException, IOException {
        sampler.interrupt();
        sampler.join();
        sample();
    }

    private synchronized void sample() throws IOException {
        samples.add(new long[] {received.getAsInt(), Pinning.runQueueWait(consumer), System.nanoTime()});
    }

    /** {@return the latencies received in undisturbed windows, of {@code latency} from {@code from} on} */
    synchronized long[] undisturbed(long[] latency, int from) {
        long[] out = new long[latency.length - from];
        int size = 0;
        for (int i = 1; i < samples.size(); i++) {
            long[] a = samples.get(i - 1);
            long[] b = samples.get(i);
            total++;
            if ((b[1] - a[1]) * 1000 < b[2] - a[2]) {
                clean++;
                int first = (int) Math.max(a[0], from);
                int length = (int) b[0] - first;
                if (length > 0) {
                    System.arraycopy(latency, first, out, size, length);
                    size += length;
                }
            }
        }
        return Arrays.copyOf(out, size);
    }
}
