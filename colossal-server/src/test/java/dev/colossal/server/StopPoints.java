package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Runs a change stopped after its first map write, then after its second, and so on until it runs
 * through: the stand-in for a kill at each point of it, through the after-write hook of the
 * database's element map that the writes of bucketed hashes, sets and sorted sets mark
 * ({@link ListElements#wrote}).
 */
final class StopPoints {

    private StopPoints() {}

    /** @return what sets the after-write hook of database 0 of {@code server} */
    static Consumer<Runnable> hookOf(ColossalServer server) {
        ListElements elements = server.context().dbs.opened(0).elements(true);
        return hook -> elements.afterWrite = hook;
    }

    /**
     * @param hook      sets the after-write hook
     * @param change    the change, as a client sends it
     * @param afterStop what to check (and undo) after the stop at the write it is given
     * @return how many times the change was stopped before it ran through
     */
    static int each(Consumer<Runnable> hook, Runnable change, IntConsumer afterStop) {
        return eachUntilDone(hook, change, stopAt -> {
            afterStop.accept(stopAt);
            return false;
        });
    }

    /**
     * As {@link #each(Consumer, Runnable, IntConsumer)}, for changes whose last writes come after
     * their commit point (removals of what it gave up): {@code afterStop} answers true when a stop
     * left the change done, which then is not run again.
     */
    static int eachUntilDone(Consumer<Runnable> hook, Runnable change, IntPredicate afterStop) {
        int stops = 0;
        for (int stopAt = 1; ; stopAt++) {
            int[] writes = {0};
            int at = stopAt;
            hook.accept(() -> {
                if (++writes[0] == at) {
                    throw new IllegalStateException("stopped for the test"); // a kill's stand-in
                }
            });
            boolean stopped;
            try {
                change.run();
                stopped = false;
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().contains("stopped for the test"), e.getMessage());
                stopped = true;
            } finally {
                hook.accept(() -> { });
            }
            if (!stopped) {
                return stops;
            }
            stops++;
            if (afterStop.test(stopAt)) {
                return stops;
            }
        }
    }
}
