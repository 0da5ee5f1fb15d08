package dev.colossal.server;

import java.util.concurrent.TimeUnit;

/**
 * Redis's default {@code client-output-buffer-limit pubsub 32mb 8mb 60} for one subscribed
 * connection: it is closed when the output it has not read passes {@link #HARD}, or has stayed above
 * {@link #SOFT} for {@link #SOFT_SECONDS} seconds. A subscriber that stops reading would otherwise
 * make the server hold every message published to it. Used on the connection's loop only.
 */
final class OutputLimit {

    static final long HARD = 32L * 1024 * 1024;
    static final long SOFT = 8L * 1024 * 1024;
    static final long SOFT_SECONDS = 60;

    /** Redis's {@code client-output-buffer-limit replica 256mb 64mb 60}: a replica is sent whole snapshots. */
    static final long REPLICA_HARD = 256L * 1024 * 1024;
    static final long REPLICA_SOFT = 64L * 1024 * 1024;

    /** The class Redis's setting names: {@code pubsub} or {@code replica}. */
    private final String kind;
    /** Bytes past which the connection is closed at once; 0 for no such bound. */
    private final long hard;
    /** Bytes the output may stay above for {@link #softSeconds} only; 0 for no such bound. */
    private final long soft;
    private final long softSeconds;

    OutputLimit() {
        this("pubsub", HARD, SOFT, SOFT_SECONDS);
    }

    private OutputLimit(String kind, long hard, long soft, long softSeconds) {
        this.kind = kind;
        this.hard = hard;
        this.soft = soft;
        this.softSeconds = softSeconds;
    }

    /**
     * @return the limit of a replica's connection, as {@code client-output-buffer-limit replica}
     *     gives it ({@link Replicas#replicaLimit}); a limit of 0 bytes is none
     */
    static OutputLimit replica(long hard, long soft, long softSeconds) {
        return new OutputLimit("replica", hard, soft, softSeconds);
    }

    /** @return the bytes past which the connection is closed at once, {@code Long.MAX_VALUE} if none */
    long hard() {
        return hard == 0 ? Long.MAX_VALUE : hard;
    }

    /** Says on stderr why the connection is closed: the client is not the one that would see an error. */
    void logClose(Client c, long pendingBytes) {
        System.err.println("colossal: closing client id=" + c.id + " addr=" + c.address + ": " + pendingBytes
                + " bytes or more of output wait for it to read (client-output-buffer-limit " + kind + " "
                + hard + " " + soft + " " + softSeconds + ")");
    }

    /** When the output last went above the soft bound and stayed there; meaningful while {@link #aboveSoft}. */
    private long aboveSoftSince;
    private boolean aboveSoft;

    /**
     * @param pendingBytes output not yet taken by the socket, and messages not yet in the buffer
     * @param nowNanos     {@link System#nanoTime}
     * @return whether the connection must be closed
     */
    boolean exceeded(long pendingBytes, long nowNanos) {
        if (hard > 0 && pendingBytes > hard) {
            return true;
        }
        if (soft == 0 || pendingBytes <= soft) {
            aboveSoft = false;
            return false;
        }
        if (!aboveSoft) {
            aboveSoft = true;
            aboveSoftSince = nowNanos;
        }
        return nowNanos - aboveSoftSince >= TimeUnit.SECONDS.toNanos(softSeconds);
    }
}
