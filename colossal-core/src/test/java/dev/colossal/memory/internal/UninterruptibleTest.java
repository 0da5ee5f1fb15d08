package dev.colossal.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class UninterruptibleTest {

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    @Test
    void theTaskRunsOnAnotherThreadThatIsNotInterrupted() throws IOException {
        Thread.currentThread().interrupt();
        Thread caller = Thread.currentThread();
        boolean[] seen = Uninterruptible.call(() -> new boolean[] {Thread.currentThread() == caller,
            Thread.currentThread().isInterrupted()});
        assertFalse(seen[0], "runs on a thread of its own");
        assertFalse(seen[1], "which no one interrupted");
        assertTrue(Thread.interrupted(), "the caller's flag is left set");
        Uninterruptible.call(() -> null);
        assertFalse(Thread.currentThread().isInterrupted(), "and left clear");
    }

    @Test
    void anInterruptWhileWaitingIsKeptAndTheTaskFinishes() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                result.set(Uninterruptible.call(() -> {
                    started.countDown();
                    try {
                        release.await(); // the waiter is interrupted meanwhile, this thread is not
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                    return "done";
                }));
                result.set(result.get() + (Thread.currentThread().isInterrupted() ? ", interrupted" : ""));
            } catch (IOException e) {
                result.set(e);
            }
        });
        started.await();
        waiter.interrupt();
        release.countDown();
        waiter.join();
        assertEquals("done, interrupted", result.get());
    }

    @Test
    void whatTheTaskThrowsIsThrownAsItIs() {
        IOException io = new IOException("disk full");
        assertSame(io, assertThrows(IOException.class, () -> Uninterruptible.call(() -> {
            throw io;
        })));
        IllegalStateException state = new IllegalStateException("closed");
        assertSame(state, assertThrows(IllegalStateException.class, () -> Uninterruptible.call(() -> {
            throw state;
        })));
    }
}
