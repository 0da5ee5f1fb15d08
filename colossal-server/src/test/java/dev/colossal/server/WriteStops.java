package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.IntConsumer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Stops a bucketed value's change after each of its map writes in turn, a kill's stand-in
 * ({@link StoredHash#afterWrite} throws): after its first write, then after its second, and so on
 * until the change runs through. The crash-points tests of hashes and sets check what each stop left.
 */
final class WriteStops {

    private WriteStops() {}

    /**
     * Sends {@code change} on {@code j} stopped after its write 1, 2, ..., calling
     * {@code afterStop} with the write it stopped after, until a send runs through.
     *
     * @return how many times the change was stopped
     */
    static int each(Jedis j, java.util.function.Consumer<Jedis> change, IntConsumer afterStop) {
        for (int stopAt = 1; ; stopAt++) {
            int[] writes = {0};
            int at = stopAt;
            StoredHash.afterWrite = () -> {
                if (++writes[0] == at) {
                    throw new IllegalStateException("stopped for the test");
                }
            };
            try {
                change.accept(j);
                return stopAt - 1;
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().contains("stopped for the test"), e.getMessage());
            } finally {
                StoredHash.afterWrite = () -> { };
            }
            afterStop.accept(stopAt);
        }
    }
}
