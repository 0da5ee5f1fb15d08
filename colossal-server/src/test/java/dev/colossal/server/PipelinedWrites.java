package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * A client that sends numbered writes in pipelined batches until told to stop or the server dies
 * under it, and records the last one acknowledged: the load of the crash tests, which keeps the
 * server busy writing so that a kill lands mid-write most of the time.
 */
final class PipelinedWrites {

    private PipelinedWrites() {}

    /** Waits (up to 30 s) until write {@code last} is acknowledged, however busy the machine: a kill after it finds writes done. */
    static void awaitAcknowledged(AtomicLong acknowledged, long last) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (acknowledged.get() < last && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /**
     * @param from         the first write's number
     * @param batch        writes a batch
     * @param command      the write of a number
     * @param ack          the reply each write must get
     * @param acknowledged set to the number of each write acknowledged
     * @return the thread, not started
     */
    static Thread thread(int port, AtomicBoolean stop, long from, int batch, LongFunction<byte[]> command, String ack,
                         AtomicLong acknowledged) {
        return new Thread(() -> {
            try (Wire w = new Wire(port)) {
                for (long i = from; !stop.get(); i += batch) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    for (long k = i; k < i + batch; k++) {
                        out.writeBytes(command.apply(k));
                    }
                    w.send(out.toByteArray());
                    for (long k = i; k < i + batch; k++) {
                        if (!w.reply().equals(ack)) {
                            throw new IllegalStateException("write " + k + " answered otherwise");
                        }
                        acknowledged.set(k);
                    }
                }
            } catch (IOException | RuntimeException killed) {
                // the server died under the call: not acknowledged
            }
        });
    }
}
