package dev.colossal.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/** Server-wide counters for INFO, /v1/stats and /metrics. */
final class Stats {
    final LongAdder commands = new LongAdder();
    final LongAdder connectionsReceived = new LongAdder();
    final LongAdder rejectedConnections = new LongAdder();
    final LongAdder keyspaceHits = new LongAdder();
    final LongAdder keyspaceMisses = new LongAdder();
    final LongAdder expiredKeys = new LongAdder();
    final LongAdder protocolErrors = new LongAdder();
    /** Every error reply over RESP, a protocol error's included (Redis's total_error_replies). */
    final LongAdder errorReplies = new LongAdder();
    final LongAdder httpRequests = new LongAdder();
    final LongAdder connectedClients = new LongAdder();
    final LongAdder bytesIn = new LongAdder();
    final LongAdder bytesOut = new LongAdder();
    /**
     * PSYNCs answered with the whole data set, answered with the stream from the replica's offset,
     * and of those that asked for an offset, the ones refused (Redis's sync_full, sync_partial_ok,
     * sync_partial_err: alerts watch full syncs).
     */
    final LongAdder syncFull = new LongAdder();
    final LongAdder syncPartialOk = new LongAdder();
    final LongAdder syncPartialErr = new LongAdder();
    /**
     * The most {@code used_memory} seen by the samples the event loops take every 100 ms or by INFO
     * (Redis's used_memory_peak); a peak between two samples that nothing read is missed.
     */
    final LongAccumulator usedPeak = new LongAccumulator(Math::max, 0);
    /** Turns of a loop that read from a client's socket, and that wrote to one (Redis's total_reads/writes_processed). */
    final LongAdder readsProcessed = new LongAdder();
    final LongAdder writesProcessed = new LongAdder();
    /** INFO errorstats: error replies by their first word, at most {@link #ERROR_KINDS} kinds, as in Redis. */
    final ConcurrentHashMap<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
    static final int ERROR_KINDS = 128;
    /** INFO's instantaneous rates of the totals above. */
    final InstantRates rates = new InstantRates(this);

    /** Adds a client's error replies by kind ({@code kinds} may be null: none). */
    void errorKinds(Map<String, Integer> kinds) {
        if (kinds != null) {
            kinds.forEach((kind, n) -> {
                LongAdder count = errorKinds.get(kind);
                if (count == null && errorKinds.size() < ERROR_KINDS) {
                    count = errorKinds.computeIfAbsent(kind, k -> new LongAdder());
                }
                if (count != null) {
                    count.add(n);
                }
            });
        }
    }

    /** CONFIG RESETSTAT: every counter back to zero but the clients connected now, as in Redis. */
    void reset() {
        for (LongAdder a : new LongAdder[] {commands, connectionsReceived, rejectedConnections, keyspaceHits, keyspaceMisses,
                expiredKeys, protocolErrors, errorReplies, httpRequests, bytesIn, bytesOut, readsProcessed, writesProcessed,
                syncFull, syncPartialOk, syncPartialErr}) {
            a.reset();
        }
        usedPeak.reset();
        rates.clear();
        errorKinds.clear();
    }
}
