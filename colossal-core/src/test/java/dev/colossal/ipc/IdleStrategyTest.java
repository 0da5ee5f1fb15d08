package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleStrategyTest {

    @Test
    void backoffSpinsThenYieldsThenParksAndStartsOverAfterWork() {
        IdleStrategy idle = IdleStrategy.backoff();
        long start = System.nanoTime();
        for (int i = 0; i < 110; i++) {
            idle.idle(0);                                  // spins and yields: fast
        }
        long cheap = System.nanoTime() - start;
        start = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            idle.idle(0);                                  // parks 1, 2, 4, 8, 16 µs at least
        }
        long parked = System.nanoTime() - start;
        assertTrue(parked >= 31_000, "parked for " + parked + " ns");
        idle.idle(1);                                      // work done: back to spinning
        start = System.nanoTime();
        idle.idle(0);
        assertTrue(System.nanoTime() - start < Math.max(cheap, 1_000_000), "reset after work");
    }

    @Test
    void everyStrategyReturnsAndBadParkingIsRejected() {
        IdleStrategy.spin().idle(0);
        IdleStrategy.yielding().idle(0);
        IdleStrategy.parking(1_000).idle(0);
        var e = assertThrows(IllegalArgumentException.class, () -> IdleStrategy.parking(0));
        assertTrue(e.getMessage().contains("nanos=0"));
    }
}
