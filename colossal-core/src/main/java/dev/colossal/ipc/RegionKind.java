package dev.colossal.ipc;

/**
 * What a {@link SharedRegion} holds. The kind is recorded in the region's header so that a ring
 * is never opened as a pool; each kind's id is part of the file format and never changes.
 */
public enum RegionKind {
    /** Application-defined contents: only the atomics of {@link SharedRegion}. */
    RAW(1),
    /** The ping-pong counter of {@link PingPong}. */
    PING_PONG(2),
    /** A one-to-one {@link MessageRing}. */
    ONE_TO_ONE_RING(3),
    /** A many-to-one {@link MessageRing}. */
    MANY_TO_ONE_RING(4),
    /** A broadcast ring ({@link BroadcastTransmitter}, {@link BroadcastReceiver}). */
    BROADCAST(5),
    /** A {@link SharedChunkPool}. */
    CHUNK_POOL(6);

    private final int id;

    RegionKind(int id) {
        this.id = id;
    }

    /** {@return the id stored in the region header} */
    public int id() {
        return id;
    }

    static RegionKind ofId(int id) {
        for (RegionKind kind : values()) {
            if (kind.id == id) {
                return kind;
            }
        }
        return null;
    }
}
