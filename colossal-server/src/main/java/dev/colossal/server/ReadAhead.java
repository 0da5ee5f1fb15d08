package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Reads ahead, for one event loop, the keys of a connection's next pipelined requests, so that
 * their cache and TLB misses in a large map overlap instead of each request waiting for its own
 * in turn (see {@code BytesMap.prefetch}). The requests then run one by one exactly as before:
 * this changes nothing but what is in the CPU's caches, and a request it misreads costs only a
 * wasted read.
 *
 * <p>The first argument of a request is taken for its key (it is for GET, SET and most commands
 * that pipeline), in the database the connection has selected. Maps of fewer than {@link #MIN_KEYS}
 * keys (each database's looked at every {@value #SIZE_CHECK_EVERY} calls for it) are skipped: they
 * stay in the caches, and reading ahead would only parse every request twice.
 */
final class ReadAhead {

    /** Requests read ahead at once: a batch of {@code BytesMap.prefetch}. */
    static final int BATCH = 32;
    /** Below this many keys a map fits the caches of the machines we measured on. */
    static final long MIN_KEYS = 100_000;
    /** Calls between two looks at the map's size. */
    static final int SIZE_CHECK_EVERY = 1024;
    /** Longer keys are not read ahead. */
    private static final int MAX_KEY = 256;

    /** Its own: the connection's parser holds the request being run. */
    private final RequestParser parser;
    private final byte[] bytes = new byte[BATCH * MAX_KEY];
    private final MemorySegment buf = MemorySegment.ofArray(bytes);
    private final MemorySegment[] keys = new MemorySegment[BATCH];
    /** Whether each database's map had {@link #MIN_KEYS} at the last look. */
    private final boolean[] large;
    private final int[] untilSizeCheck;

    ReadAhead(int databases, java.util.function.LongSupplier maxBulk) {
        this.parser = new RequestParser(maxBulk);
        this.large = new boolean[databases];
        this.untilSizeCheck = new int[databases];
    }

    /**
     * Reads ahead the keys of the whole requests in {@code b[pos, limit)}, up to {@link #BATCH} of
     * them, in {@code store}, database {@code db}.
     *
     * @return where the requests it read ahead end: the caller calls again once it has run them
     *     ({@code limit} if the map is too small to bother, {@code pos} if no whole request is there)
     */
    int run(KeyValueStore store, int db, MemorySegment b, int pos, int limit) {
        if (--untilSizeCheck[db] < 0) {
            // Counting keys reads every segment's header, lines other loops' writes keep taking
            // away: not for every batch.
            large[db] = store.size() >= MIN_KEYS;
            untilSizeCheck[db] = SIZE_CHECK_EVERY;
        }
        if (!large[db]) {
            return limit;
        }
        int n = 0;
        int requests = 0;
        try {
            while (requests < BATCH && pos < limit && parser.parse(b, pos, limit)) {
                pos = parser.next;
                requests++;
                if (parser.inBuffer() && parser.argc >= 2 && parser.lengths[1] <= MAX_KEY) {
                    int length = parser.lengths[1];
                    MemorySegment.copy(b, ValueLayout.JAVA_BYTE, parser.starts[1], bytes, n * MAX_KEY, length);
                    keys[n] = buf.asSlice((long) n * MAX_KEY, length);
                    n++;
                }
            }
        } catch (ProtocolException e) {
            // The connection's own parse reports it when it gets there.
        }
        // One request gains nothing: its get would wait for the same misses anyway.
        if (n > 1) {
            store.prefetch(n == BATCH ? keys : Arrays.copyOf(keys, n), 0);
        }
        return pos;
    }
}
